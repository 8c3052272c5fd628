"""Paired CIs of topology runs against the full HAM cell (ct+si+hybrid), by topology."""
import pytest

from ham_analysis.cli import main
from ham_analysis.collect import collect
from ham_analysis.topology_paired import topology_paired
from tests.analysis.grid_fixture import config, make_corpus, prediction, write_run
from tests.analysis.test_topology import GOLD, SCORES


@pytest.fixture
def grid(tmp_path):
    root = make_corpus(tmp_path)
    grid = tmp_path / "runs" / "topo"
    variants = {"hybrid": SCORES["hybrid"], "structural": SCORES["structural"], "graph": SCORES["structural"]}
    for retrieval, scores in variants.items():
        rows = [prediction(q, s, answer=[{"type": "text", "text": "x"}], gold=GOLD[q]) for q, s in scores.items()]
        write_run(grid / retrieval, config("topo", root, overrides=(f"retrieval={retrieval}",)), rows)
    return grid


def test_each_variant_is_paired_with_the_full_ham_cell_by_topology(grid):
    table, records = topology_paired(collect([grid]), n_resamples=500)
    assert {r["b"] for r in records} == {"hybrid"}, "ct+si+hybrid is the reference by default"
    assert {r["a"] for r in records} == {"structural", "graph"}
    bridge = next(r for r in records if r["a"] == "structural" and r["topology"] == "bridge-chain"
                  and r["metric"] == "both_hops")
    assert bridge["n"] == 2 and bridge["diff"] == pytest.approx(0.5)
    every = next(r for r in records if r["a"] == "graph" and r["topology"] == "all" and r["metric"] == "gold_unit_recall")
    assert every["n"] == 5 and every["mean_b"] == pytest.approx((1 + 0 + 1 + 0.5 + 2 / 3) / 5)
    assert not any(r["topology"] == "single-hop" and r["metric"] == "both_hops" for r in records)
    named, _ = topology_paired(collect([grid]), reference="graph", n_resamples=500)
    assert {labels[2] for labels, _ in named.rows} == {"graph"}


def test_ham_analyze_writes_and_prints_the_paired_table(grid, capsys):
    assert main([str(grid), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "topology_paired.md" in out and "A − B" in out
