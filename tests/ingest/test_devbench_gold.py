"""Every gold passage of the development benchmark is still one leaf of the current ingest (on its
gold page). Skipped where the corpus has not been fetched (python3 data/devbench/fetch.py)."""
import pytest

from tests.support.devbench_gold import DEVBENCH, check, check_patterns, questions

ROWS = questions() if DEVBENCH.is_dir() else []
MANUALS = sorted({r["manual"] for r in ROWS})


@pytest.mark.parametrize("manual", MANUALS or ["kicad"])
def test_gold_passages_are_found_in_single_leaves(manual):
    if not (DEVBENCH / "corpus" / manual).is_dir() or not ROWS:
        pytest.skip(f"devbench corpus or questions for {manual} not present")
    found, total, missing = check(manual, ROWS)
    assert total > 0 and missing == [], f"{found}/{total}; missing: {missing[:5]}"


@pytest.mark.parametrize("manual", MANUALS or ["kicad"])
def test_gold_images_parent_general_and_tutorial_claims_hold(manual):
    if not (DEVBENCH / "corpus" / manual).is_dir() or not ROWS:
        pytest.skip(f"devbench corpus or questions for {manual} not present")
    assert check_patterns(manual, ROWS) == []
