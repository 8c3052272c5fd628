"""The recall the retrieval benchmarks (benchmarks/bench_retrieval_quality.py,
bench_retrieval_budget.py, bench_ranking_variants.py) score questions with, on stub retrievals."""
from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_retrieval_budget as budget  # noqa: E402
import bench_retrieval_quality as quality  # noqa: E402
from ham.datasets.questions import Question  # noqa: E402


def hit(content: str, source: str = "man/a.html", unit_id: str = "u", image: str | None = None):
    return SimpleNamespace(unit=SimpleNamespace(content=content, source=source, unit_id=unit_id, image=image))


class StubPipeline:
    """A built pipeline whose retriever answers every query with the same hits."""

    def __init__(self, text_hits):
        self.info = {}
        self.retriever = SimpleNamespace(indexes={"text": []},
                                         retrieve=lambda query: SimpleNamespace(text=text_hits, images=[]))


def evaluate(monkeypatch, tmp_path, question: Question, text_hits) -> dict:
    monkeypatch.setattr(quality, "OUT", tmp_path)
    monkeypatch.setattr(quality, "load_dataset_questions", lambda cfg: ([question], []))
    monkeypatch.setattr(quality, "build_pipeline", lambda cfg, with_evaluator: StubPipeline(text_hits))
    return quality.evaluate("stub", None, None)["rows"][question.id]


def test_within_holds_exactly_the_budget_joined_by_newlines_the_last_text_cut():
    assert quality.within(["a" * 3000, "b" * 2000, "c" * 10], 4000) == ["a" * 3000, "b" * 999]
    assert quality.within(["a" * 5000, "b"], 4000) == ["a" * 4000]        # the first is cut too
    assert quality.within(["a" * 1999, "b" * 1998, "c" * 50], 4000) == ["a" * 1999, "b" * 1998, "c"]
    kept = quality.within(["x" * 700] * 20, 4000)
    assert len("\n".join(kept)) == 4000


def test_one_within_for_both_benchmarks():
    assert budget.within is quality.within


def test_text_at_4kc_reads_the_unit_cut_at_the_budget(monkeypatch, tmp_path):
    # 3,000 + 1 separator leave 999 characters of the second unit: its head holds the passage
    gold = "the pump must be primed before it is started"
    q = Question(id="man-001", question="how do I start the pump?", gold_text=[gold])
    row = evaluate(monkeypatch, tmp_path, q, [hit("a" * 3000), hit(gold + " " + "b" * 2000)])
    assert row["text@4kc"] == 1.0
    # a first unit longer than the budget is cut: a passage past 4,000 characters is not within it
    row = evaluate(monkeypatch, tmp_path, q, [hit("a" * 4000 + gold)])
    assert row["text@4kc"] == 0.0


TWIN = "Each library must have a unique nickname: duplicate library nicknames are not allowed in the same table."


def near_twin(pages=("kicad/eeschema.html",)) -> Question:
    return Question(id="kicad-007", question="May a project library reuse a global nickname?", gold_text=[TWIN],
                    gold_pages=list(pages), kinds=["near_twin"])


def test_a_passage_counts_only_on_a_gold_page():
    q = near_twin()
    assert quality.recall(q.gold_text, [TWIN], ["kicad/pcbnew.html"], q.gold_pages) == 0.0
    assert quality.recall(q.gold_text, [TWIN, TWIN], ["kicad/pcbnew.html", "kicad/eeschema.html"], q.gold_pages) == 1.0
    assert quality.recall(q.gold_text, [TWIN], ["kicad/pcbnew.html"], []) == 1.0      # no gold pages: any page
    assert quality.recall(["  "], [TWIN], ["kicad/pcbnew.html"], q.gold_pages) is None
    with pytest.raises(ValueError):
        quality.recall(q.gold_text, [TWIN], [], q.gold_pages)


def test_the_quality_benchmark_does_not_credit_the_twin_page(monkeypatch, tmp_path):
    twin, own = hit(TWIN, "kicad/pcbnew.html", "pcb"), hit("Libraries: " + TWIN, "kicad/eeschema.html", "sch")
    row = evaluate(monkeypatch, tmp_path, near_twin(), [twin, own])
    assert (row["text@1"], row["text@5"], row["text@4kc"]) == (0.0, 1.0, 1.0)
    assert row["sources"] == ["kicad/pcbnew.html", "kicad/eeschema.html"] and row["found"] == [[0, 1]]
    row = evaluate(monkeypatch, tmp_path, near_twin(), [twin])
    assert (row["text@1"], row["text@15"], row["text@4kc"]) == (0.0, 0.0, 0.0)


def test_the_budget_benchmark_does_not_credit_the_twin_page():
    q = near_twin()
    texts, sources = [TWIN, "x" * 500, TWIN], ["kicad/pcbnew.html", "kicad/eeschema.html", "kicad/eeschema.html"]
    at_1k = budget.score(q, texts, sources, [], 1000)
    assert (at_1k["text@1"], at_1k["text@5"], at_1k["text@C"]) == (0.0, 1.0, 1.0)
    at_300 = budget.score(q, texts, sources, [], 300)       # the gold-page copy is past the budget
    assert at_300["text@C"] == 0.0 and at_300["found"] == [[0]]
    assert at_300["sources"] == ["kicad/pcbnew.html", "kicad/eeschema.html"]      # the kept texts' alone


def test_saved_rows_without_sources_are_reported_as_the_old_rule(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(quality, "OUT", tmp_path)
    (tmp_path / "old.jsonl").write_text('{"id": "kicad-007", "text@1": 1.0}\n')
    quality.saved("old")
    assert "predate the gold-page rule" in capsys.readouterr().err
    (tmp_path / "new.jsonl").write_text('{"id": "kicad-007", "text@1": 0.0, "sources": [], "found": [[]]}\n')
    quality.saved("new")
    assert capsys.readouterr().err == ""
    (tmp_path / "old.json").write_text('{"4000": {"kicad-007": {"text@C": 1.0}}}')
    assert budget.saved(tmp_path / "old.json") == {4000: {"kicad-007": {"text@C": 1.0}}}
    assert "predate the gold-page rule" in capsys.readouterr().err
