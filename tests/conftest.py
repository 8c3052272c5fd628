import os
import sys

if os.environ.get("PYTEST_XDIST_WORKER"):   # `make test`: one torch/BLAS thread per worker process, set
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):   # before torch is imported (two workers on two
        os.environ.setdefault(_var, "1")                  # cores would otherwise oversubscribe)

import pytest

from ham.ingest.builder import Block, TreeBuilder


def pytest_configure(config):
    """absl (imported by rouge-score, the ROUGE-Lsum metric) makes a logging handler on whatever
    ``sys.stderr`` is at import: under pytest, a capture file. When a later test reconfigures
    logging (Hydra's ``@hydra.main`` does), logging shuts that handler down and absl closes its
    stream, which pytest still owns ("I/O operation on closed file" at the end of the session).
    Pointing it at the real stderr, which absl never closes, keeps the capture files pytest's."""
    try:
        import absl.logging
    except ImportError:
        return
    absl.logging.get_absl_handler().python_handler.stream = sys.__stderr__


@pytest.fixture
def manual_doc():
    """A small procedure manual built through the tree builder (no files needed)."""
    b = TreeBuilder("manual", "Pump Manual", "manual.md", "markdown")
    b.add(Block("heading", "1. Installation", level=1))
    b.add(Block("text", "Install the pump on a level concrete base."))
    b.add(Block("image", image="img/base.png", image_path="img/base.png", alt="concrete base"))
    b.add(Block("text", "Figure 1. The concrete base with anchor bolts."))
    b.add(Block("heading", "1.1. Wiring", level=2))
    b.add(Block("text", "Connect the motor leads to the terminal block."))
    b.add(Block("step", "Switch off the mains supply."))
    b.add(Block("image", image="img/mains.png", image_path="img/mains.png", alt="mains switch"))
    b.add(Block("step", "Open the terminal cover."))
    b.add(Block("end_steps"))
    b.add(Block("heading", "2. Maintenance", level=1))
    b.add(Block("text", "Check the oil level every month."))
    b.add(Block("image", image="img/oil.png", image_path="img/oil.png", alt="oil sight glass"))
    return b.finish()
