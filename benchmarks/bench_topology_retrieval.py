"""Graph retrieval vs hybrid and structural on a topology question set, with the judge-free
structural metrics by topology, paired CIs against hybrid, how graph retrieval reached the gold
units, and its cost per query as a ratio to plain hybrid retrieval.

    .venv/bin/python benchmarks/bench_topology_retrieval.py                 # the demo topology set
    .venv/bin/python benchmarks/bench_topology_retrieval.py --configs hybrid graph graph_tree
    .venv/bin/python benchmarks/bench_topology_retrieval.py --extra "graph_k5=retrieval=graph retrieval.k_t=5"
    .venv/bin/python benchmarks/bench_topology_retrieval.py dataset=custom dataset.path=DIR dataset.questions=Q

Metrics (``ham.metrics.structural``, by exact gold unit ids after the run-level evidence mapping;
k = the budgets k_t = 15, k_v = 10 unless overridden): gold-unit recall@k, both-hops@k and
ordered-chain@k (bridge chains), evidence-point coverage@k (synthesis). Cells are mean ± 1.96·SE
(n); paired differences are A − hybrid with a paired bootstrap 95% CI (questions resampled as
pairs, 5,000 resamples, seed 0).

Cost: every configuration answers every question ``--repeats`` times after one warm-up query; the
ratio is its mean wall time per query over hybrid's, measured in this process on the same machine,
interleaved by question so drift hits all alike; once with the query encoding (what a user waits
for) and once with it taken out (each question encoded once beforehand: the retrieval work
itself, which the encoder otherwise hides on a small corpus). Per-query
rows go to ``outputs/bench/topology_retrieval/<tag>/``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ham.conf import compose  # noqa: E402
from ham.metrics.evaluator import Evaluator  # noqa: E402
from ham.run.job import load_dataset_questions  # noqa: E402
from ham.run.build import build_pipeline  # noqa: E402
from ham_analysis.stats import normal_ci, paired  # noqa: E402

METRICS = ("gold_unit_recall", "both_hops", "ordered_chain", "evidence_point_coverage")
LABELS = {"gold_unit_recall": "Gold R@k", "both_hops": "Both hops@k", "ordered_chain": "Ordered@k",
          "evidence_point_coverage": "Point cov.@k"}
TOPOLOGIES = ("all", "single_hop", "bridge_chain", "synthesis")
CONFIGS = {
    "hybrid": ["retrieval=hybrid"],
    "structural": ["retrieval=structural"],
    "graph": ["retrieval=graph"],
    "graph_tree": ["retrieval=graph", "retrieval.graph.follow=[tree]"],
    "graph_captions": ["retrieval=graph", "retrieval.graph.follow=[captions]"],
    "graph_entities": ["retrieval=graph", "retrieval.graph.follow=[entities]"],
}
DEFAULT = ["hybrid", "structural", "graph", "graph_tree", "graph_captions", "graph_entities"]
OUT = Path("outputs/bench/topology_retrieval")


def cell(values: list) -> str:
    ci = normal_ci(values)
    if ci.n == 0:
        return "–"
    if ci.low is None:
        return f"{ci.mean:.3f} (n=1)"
    return f"{ci.mean:.3f} ± {ci.high - ci.mean:.3f} (n={ci.n})"


def prepare(name: str, overrides: list[str], common: list[str]):
    cfg = compose(["experiment=demo_topology", "progress=false", *common, *overrides], return_hydra_config=False)
    questions, _ = load_dataset_questions(cfg)
    pipeline = build_pipeline(cfg, with_evaluator=False)
    pipeline.resolve_evidence(questions)
    pipeline.retriever.retrieve("warm up the encoder and the graph")
    return {"name": name, "questions": questions, "pipeline": pipeline, "rows": {}, "seconds": defaultdict(list)}


def own_questions(prepared: list[dict]) -> list[list]:
    """Per question, each config's own copy of it: its gold evidence is resolved to that config's
    units (``units=merged`` has other unit ids than blocks), so each config is scored by its own."""
    ids = [q.id for q in prepared[0]["questions"]]
    for p in prepared[1:]:
        if [q.id for q in p["questions"]] != ids:
            raise ValueError(f"{p['name']} has other questions than {prepared[0]['name']}")
    return [list(qs) for qs in zip(*(p["questions"] for p in prepared))]


def run_all(prepared: list[dict], repeats: int) -> None:
    evaluator = Evaluator(list(METRICS))
    for copies in own_questions(prepared):
        for rep in range(repeats):
            for p, q in zip(prepared, copies):      # interleaved: every config sees the same machine state
                t0 = time.perf_counter()
                got = p["pipeline"].retriever.retrieve(q.question)
                p["seconds"][q.id].append(time.perf_counter() - t0)
                if rep == 0:
                    text, images = [h.to_row() for h in got.text], [h.to_row() for h in got.images]
                    p["rows"][q.id] = {"id": q.id, "topology": q.topology, "metrics": evaluator(q, text, images, None),
                                       "text": text, "images": images,
                                       "gold": [list(e.units) for e in q.evidence]}


def time_search_only(prepared: list[dict], repeats: int) -> None:
    """Wall time per query with the query encoding taken out (each question encoded once, then the
    encoding served from memory), so the ratio compares the retrieval work itself."""
    questions = prepared[0]["questions"]
    for p in prepared:
        retriever = p["pipeline"].retriever
        encode = retriever.query
        memo = {q.question: encode(q.question) for q in questions}
        retriever.query = memo.__getitem__
        p["search_seconds"] = defaultdict(list)
    for q in questions:
        for _ in range(repeats):
            for p in prepared:
                t0 = time.perf_counter()
                p["pipeline"].retriever.retrieve(q.question)
                p["search_seconds"][q.id].append(time.perf_counter() - t0)


def by_topology(p: dict, metric: str, topology: str) -> dict:
    return {i: r["metrics"].get(metric) for i, r in p["rows"].items() if topology == "all" or r["topology"] == topology}


def report(prepared: list[dict], reference: str = "hybrid") -> None:
    n_q = Counter(r["topology"] for r in prepared[0]["rows"].values())
    print(f"{len(prepared[0]['rows'])} questions: " + ", ".join(f"{t} {n}" for t, n in sorted(n_q.items())))
    print("\n| retrieval | topology | " + " | ".join(LABELS[m] for m in METRICS) + " |")
    print("| --- | --- | " + " | ".join("---:" for _ in METRICS) + " |")
    for p in prepared:
        for t in TOPOLOGIES:
            cells = [cell(list(by_topology(p, m, t).values())) for m in METRICS]
            if all(c == "–" for c in cells):
                continue
            print(f"| {p['name']} | {t} | " + " | ".join(cells) + " |")
    print("\nprompt length: retrieved text per question (characters of the text rows, mean): " + ", ".join(
        f"{p['name']} {sum(sum(len(r.get('text') or '') for r in row['text']) for row in p['rows'].values()) / max(len(p['rows']), 1):.0f}"
        for p in prepared))
    ref = next((p for p in prepared if p["name"] == reference), None)
    if ref is not None:
        print(f"\npaired differences vs {reference} (A − {reference}, 95% paired bootstrap CI, n, Wilcoxon p):")
        print("| A | topology | metric | diff | CI | n | p |")
        print("| --- | --- | --- | ---: | --- | ---: | ---: |")
        for p in prepared:
            if p is ref:
                continue
            for t in TOPOLOGIES:
                for m in METRICS:
                    r = paired(by_topology(p, m, t), by_topology(ref, m, t), n_resamples=5000, seed=0)
                    if r.n:
                        pv = "–" if r.p_value is None else f"{r.p_value:.3f}"
                        print(f"| {p['name']} | {t} | {LABELS[m]} | {r.diff:+.3f} | [{r.low:+.3f}, {r.high:+.3f}] "
                              f"| {r.n} | {pv} |")
    print("\nhow the retrieved gold units were reached (graph configurations; count of gold items retrieved):")
    for p in prepared:
        how = Counter()
        for r in p["rows"].values():
            via = {h["unit_id"]: (h.get("via") or {}).get("how", "ranking") for h in [*r["text"], *r["images"]]}
            for units in r["gold"]:
                found = [via[u] for u in units if u in via]
                if found:
                    how[found[0]] += 1
        if any(k != "ranking" for k in how):
            print(f"  {p['name']}: " + ", ".join(f"{k} {v}" for k, v in how.most_common()))
    if ref is not None:
        def mean_of(seconds):
            return sum(sum(v) / len(v) for v in seconds.values()) / len(seconds)

        base, base_search = mean_of(ref["seconds"]), mean_of(ref["search_seconds"])
        print(f"\ncost per query (mean wall time over {len(ref['seconds'])} questions x "
              f"{len(next(iter(ref['seconds'].values())))} repeats; ratio to {reference}; with the query "
              "encoding, and without it):")
        print("| retrieval | ms / query | ratio | ms / query, encoding excluded | ratio | units reached / query |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for p in prepared:
            mean, search = mean_of(p["seconds"]), mean_of(p["search_seconds"])
            stats = getattr(p["pipeline"].retriever, "stats", None)
            reached = f"{stats['reached'] / stats['queries']:.1f}" if stats and stats.get("queries") else "–"
            print(f"| {p['name']} | {1000 * mean:.2f} | {mean / base:.2f} | {1000 * search:.2f} | "
                  f"{search / base_search:.2f} | {reached} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--configs", nargs="*", default=DEFAULT, help=f"named configs: {', '.join(CONFIGS)}")
    parser.add_argument("--extra", action="append", default=[],
                        help="NAME=overrides: another config, its overrides space-separated")
    parser.add_argument("--repeats", type=int, default=5, help="timed retrievals per question and config")
    parser.add_argument("--tag", default="default", help="subfolder of the per-query rows (one per invocation)")
    parser.add_argument("overrides", nargs="*", help="overrides for every config (e.g. encoder=bge_m3)")
    args = parser.parse_args(argv)
    configs = {name: CONFIGS[name] for name in args.configs}
    for spec in args.extra:
        name, _, rest = spec.partition("=")
        configs[name] = rest.split()
    prepared = [prepare(name, overrides, args.overrides) for name, overrides in configs.items()]
    run_all(prepared, args.repeats)
    time_search_only(prepared, args.repeats)
    report(prepared)
    out = OUT / args.tag
    out.mkdir(parents=True, exist_ok=True)
    for p in prepared:
        (out / f"{p['name']}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in p["rows"].values()))


if __name__ == "__main__":
    main()
