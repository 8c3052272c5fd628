import pytest

from ham.ingest.builder import Block, TreeBuilder


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
