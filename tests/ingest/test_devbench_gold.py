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


def test_off_page_reports_a_passage_that_is_also_on_a_page_outside_the_gold_pages(tmp_path):
    from tests.support.devbench_gold import off_page

    shared = "Each library must have a unique nickname in its table."
    corpus = tmp_path / "corpus" / "man"
    corpus.mkdir(parents=True)
    for page, title, own in (("sch", "Schematic Editor", "Symbols live in symbol libraries."),
                             ("pcb", "PCB Editor", "Footprints live in footprint libraries.")):
        (corpus / f"{page}.html").write_text(f"<html><body><h1>{title}</h1><h2>Libraries</h2><p>{shared}</p>"
                                             f"<p>{own}</p></body></html>", encoding="utf-8")
    rows = [{"id": "man-001", "manual": "man", "gold_pages": ["man/sch.html"], "gold_text": [shared, "symbol libraries"]},
            {"id": "man-002", "manual": "man", "gold_pages": ["man/sch.html", "man/pcb.html"], "gold_text": [shared]}]
    assert check("man", rows, tmp_path)[2] == []
    assert off_page("man", rows, tmp_path) == [("man-001", shared, ["man/pcb.html"])]
