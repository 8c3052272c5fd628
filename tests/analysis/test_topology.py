"""Topology breakdowns: each question's strata from its gold alone, the breakdown tables' cells
(mean ± 1.96·SE, n) on hand-computed scores, Table 2 and its CIs, the figures, and ham-analyze
printing the tables."""
import math

import pytest
from PIL import Image

from ham_analysis.cli import main
from ham_analysis.collect import collect
from ham_analysis.topology import breakdown_table, strata, table2, topology_tables
from tests.analysis.grid_fixture import config, make_corpus, prediction, write_run


def _ev(modality, doc="a.html", page=None, units=("u",)):
    return {"modality": modality, "doc": doc, "page": page, "units": list(units)}


GOLD = {
    "s1": {"topology": "single_hop", "evidence": [_ev("text")]},
    "s2": {"topology": "single_hop", "evidence": [_ev("image")]},
    "b1": {"topology": "bridge_chain", "evidence": [_ev("text"), _ev("image", doc="b.html")],
           "hops": [{"modality": "text", "evidence": 0}, {"modality": None, "evidence": 1}]},
    "b2": {"topology": "bridge_chain", "evidence": [_ev("text", page=3), _ev("text", page=3)],
           "hops": [{"modality": "text", "evidence": 0}, {"modality": "text", "evidence": 1}]},
    "y1": {"topology": "synthesis", "evidence": [_ev("table", page=1), _ev("text", page=2), _ev("table", page=1)],
           "evidence_points": [{"evidence": 0}, {"evidence": 1}, {"evidence": 2}],
           "meta": {"pattern_type": "comparison"}},
}
SCORES = {  # variant -> question -> scores
    "hybrid": {"s1": {"gold_unit_recall": 1.0}, "s2": {"gold_unit_recall": 0.0},
               "b1": {"gold_unit_recall": 1.0, "both_hops": 1.0, "ordered_chain": 1.0},
               "b2": {"gold_unit_recall": 0.5, "both_hops": 0.0, "ordered_chain": 0.0},
               "y1": {"gold_unit_recall": 2 / 3, "evidence_point_coverage": 2 / 3}},
    "structural": {"s1": {"gold_unit_recall": 1.0}, "s2": {"gold_unit_recall": 1.0},
                   "b1": {"gold_unit_recall": 1.0, "both_hops": 1.0, "ordered_chain": 0.0},
                   "b2": {"gold_unit_recall": 1.0, "both_hops": 1.0, "ordered_chain": 1.0},
                   "y1": {"gold_unit_recall": 1.0, "evidence_point_coverage": 1.0}},
}


@pytest.fixture
def topology_grid(tmp_path):
    root = make_corpus(tmp_path)
    grid = tmp_path / "runs" / "topo"
    for retrieval, scores in SCORES.items():
        rows = [prediction(q, s, answer=[{"type": "text", "text": "x"}], gold=GOLD[q]) for q, s in scores.items()]
        write_run(grid / retrieval, config("topo", root, overrides=(f"retrieval={retrieval}",)), rows)
    return grid


def test_strata_from_the_gold_alone():
    row = lambda q: {"gold": GOLD[q]}   # noqa: E731
    assert strata(row("s2")) == {"topology": "single-hop", "path": "single-hop: figure", "pages": "same-page",
                                 "modality": "cross-modal"}
    assert strata(row("b1"))["path"] == "bridge-chain: text→figure", "a hop without a modality takes its evidence's"
    assert strata(row("b1"))["pages"] == "cross-page" and strata(row("b2"))["pages"] == "same-page"
    assert strata(row("b2"))["modality"] == "text-only"
    y = strata(row("y1"))
    assert y["path"] == "synthesis: table+text" and y["pattern"] == "comparison" and y["pages"] == "cross-page"
    assert strata({"gold": {}}) == {} and strata({}) == {}


def test_breakdown_cells_are_mean_plus_minus_ci_with_n(topology_grid):
    table = breakdown_table(collect([topology_grid]), "topology")
    rows = {tuple(labels[:2]): values for labels, values in table.rows}
    bridge = rows[("hybrid", "bridge-chain")]
    half = 1.96 * math.sqrt(0.125) / math.sqrt(2)       # values 1.0, 0.5: s = sqrt(0.125)
    assert bridge["gold_unit_recall"] == f"0.750 ± {half:.3f} (n=2)"
    assert bridge["evidence_point_coverage"] is None
    assert rows[("hybrid", "synthesis")]["evidence_point_coverage"] == "0.667 (n=1)", "no interval from one question"
    assert [labels[2] for labels, _ in table.rows if labels[0] == "hybrid"] == ["2", "2", "1"]
    assert [c.key for c in table.columns] == ["gold_unit_recall", "both_hops", "ordered_chain",
                                              "evidence_point_coverage"]
    pattern = breakdown_table(collect([topology_grid]), "pattern")
    assert [labels[1] for labels, _ in pattern.rows] == ["comparison", "comparison"]


def test_table2_means_and_cis(topology_grid):
    means, cis = table2(collect([topology_grid]))
    by_variant = {labels[0]: values for labels, values in means.rows}
    assert by_variant["hybrid"]["gold_unit_recall"] == pytest.approx((1 + 0 + 1 + 0.5 + 2 / 3) / 5)
    assert by_variant["structural"]["ordered_chain"] == 0.5
    assert {c.group for c in means.columns} == {"retrieval"}
    assert means.best(next(c for c in means.columns if c.key == "gold_unit_recall")) == 1.0
    assert cis.rows[0][1]["both_hops"].endswith("(n=2)")
    assert any("not computed: no judge configured" in n for n in means.notes)


def test_ham_analyze_prints_and_writes_the_topology_tables_and_figures(topology_grid, capsys):
    out = topology_grid / "analysis"
    assert main([str(topology_grid), "--resamples", "200"]) == 0
    printed = capsys.readouterr().out
    for name in ("table2", "table2_ci", "topology_topology", "topology_path", "topology_pages",
                 "topology_modality", "topology_pattern"):
        assert (out / f"{name}.md").is_file() and (out / f"{name}.tex").is_file()
        assert f"  {out / name}.md\n" in printed
    assert "**By evidence topology" in printed and "| structural | synthesis | 1 | 1.000 (n=1) |" in printed
    for stem in ("topology_topo", "paths_topo"):
        image = Image.open(out / f"{stem}.png").convert("L")
        assert image.getextrema()[0] < 100, f"{stem}.png has dark marks (bars, text)"
        assert (out / f"{stem}.pdf").stat().st_size > 1000


def test_no_topology_questions_no_topology_tables(tmp_path):
    root = make_corpus(tmp_path)
    write_run(tmp_path / "runs" / "plain", config("plain", root), [prediction("q1", {"image_f1": 1.0})])
    assert topology_tables(collect([tmp_path / "runs"])) == []


def test_response_relevancy_under_different_encoders_is_marked_and_never_bold(tmp_path):
    # RR is a cosine under each run's retrieval encoder: runs with other encoders are on other scales
    root = make_corpus(tmp_path)
    grid = tmp_path / "runs" / "rr"
    for name, encoder, value in (("minilm", "encoder=minilm", 0.5), ("bge", "encoder=bge_small", 0.8)):
        rows = [prediction("b1", {"response_relevancy": value}, answer=[{"type": "text", "text": "x"}],
                           gold=GOLD["b1"])]
        write_run(grid / name, config("topo", root, overrides=(encoder,)), rows)
    means, _ = table2(collect([grid]))
    marked = [values for _, values in means.rows]
    assert all(v["response_relevancy:mark"].endswith("§") and v["response_relevancy:incomparable"] for v in marked)
    assert means.best(next(c for c in means.columns if c.key == "response_relevancy")) is None
    assert any("2 encoders" in n for n in means.notes)
    same = tmp_path / "runs" / "same"
    for seed, value in ((1, 0.5), (2, 0.8)):
        rows = [prediction("b1", {"response_relevancy": value}, answer=[{"type": "text", "text": "x"}],
                           gold=GOLD["b1"])]
        write_run(same / str(seed), config("topo", root, overrides=(f"seed={seed}",)), rows)
    means, _ = table2(collect([same]))
    assert not any("response_relevancy:mark" in v for _, v in means.rows)
