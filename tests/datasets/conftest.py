import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "datasets"
MMDOCIR = FIXTURES / "mmdocir"
TOPOGRAPH = FIXTURES / "topograph"
MMDOCRAG = FIXTURES / "mmdocrag"


@pytest.fixture
def mmdocir_root(tmp_path: Path) -> Path:
    """A corpus folder with the MMDocIR parquet files (a copy: ingest writes layout images there)."""
    root = tmp_path / "mmdocir"
    root.mkdir()
    for name in ("MMDocIR_layouts.parquet", "MMDocIR_pages.parquet", "MMDocIR_annotations.jsonl"):
        shutil.copy(MMDOCIR / name, root / name)
    return root


@pytest.fixture
def mmdocir_units(mmdocir_root: Path):
    from ham.ingest import ingest_corpus
    from ham.units import build_units

    docs, report = ingest_corpus(mmdocir_root)
    return [u for d in docs for u in build_units(d)]


@pytest.fixture
def topograph_units():
    from ham.ingest import ingest_corpus
    from ham.units import build_units

    docs, report = ingest_corpus(TOPOGRAPH)
    return [u for d in docs for u in build_units(d)]
