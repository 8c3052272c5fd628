"""Retrieval quality on a question set with verbatim gold passages and gold images: text recall
@1/5/15 and image recall @1/5/10 for every retrieval configuration, overall, by kind and by
manual, flat vs HAM with paired 95% CIs (questions resampled as pairs), plus query latency.

    .venv/bin/python benchmarks/bench_retrieval_quality.py                    # devbench, the standard set
    .venv/bin/python benchmarks/bench_retrieval_quality.py --configs flat ham ham_structural
    .venv/bin/python benchmarks/bench_retrieval_quality.py --configs ham ham_sparse_first --reference ham
    .venv/bin/python benchmarks/bench_retrieval_quality.py --dataset demo
    .venv/bin/python benchmarks/bench_retrieval_quality.py --extra "units=merged" --extra "units=merged retrieval=structural"

Recall@k of a question is the share of its gold passages contained (whitespace-collapsed,
lower-cased) in one of its top-k text units from one of its ``gold_pages`` (any page where it
names none: a near-twin passage found on the twin page is the wrong text), or of its gold images
among its top-k images; a question without gold of that kind is left out of that mean (n shown).
Each row keeps the retrieved units' ``sources`` and, per gold passage, the units holding it on any
page (``found``). The devbench corpus is fetched by ``python3 data/devbench/fetch.py``. Indexes come from (or go into) the run cache, so a
second invocation only retrieves. Per-question results go to ``outputs/bench/retrieval_quality/``.

``chars`` is the mean length of the retrieved text a question gets (its prompt length in
characters of retrieved text); ``chars@15`` is the mean length of the top 15 text units a question gets: larger units reach
more gold passages in the same 15 slots but make longer prompts. ``text@4kc`` compares them at
the same prompt length: recall over the first 4,000 characters of retrieved text (the units in
rank order joined by newlines, the one that does not fit cut: ``within``, as in
``bench_retrieval_budget.py``; at most the 15 retrieved).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ham.conf import compose  # noqa: E402
from ham.run.job import load_dataset_questions  # noqa: E402
from ham.metrics.image import gold_text_recall  # noqa: E402
from ham.run.build import build_pipeline, configured_cache, load_configured_corpus  # noqa: E402
from ham.run.sparse_first import sparse_first_pipeline  # noqa: E402
from ham.text import normalise_ws  # noqa: E402
from ham_analysis.stats import normal_ci, paired  # noqa: E402

TEXT_KS, IMAGE_KS = (1, 5, 15), (1, 5, 10)
CHAR_BUDGET = 4000   # text@4kc: recall within this many characters of retrieved text
CONFIGS = {   # the default retrieval=budget caps its passages at k_t = 50 (k_t = 15 is forced below for unit counts)
    "flat": ["text_repr=st", "image_repr=li", "retrieval.k_t=50"],
    "ham": ["retrieval.k_t=50"],
    "ham_structural": ["retrieval=structural"],
    "ham_sparse_first": ["retrieval.k_t=50"],   # ham-ask's preliminary answer: BM25 alone, before the dense index
}
SPARSE_FIRST = {"ham_sparse_first"}
OUT = Path("outputs/bench/retrieval_quality")


def found_in(gold: list[str], texts: list[str]) -> list[list[int]]:
    """For each gold passage (blank ones left out), the indices of the texts holding it, on any page."""
    texts = [normalise_ws(t) for t in texts]
    return [[i for i, t in enumerate(texts) if g in t] for g in map(normalise_ws, gold) if g]


def recall(gold: list[str], texts: list[str], sources: list[str], pages: list[str]) -> float | None:
    """Share of the gold passages held by one of ``texts`` whose source (the parallel ``sources``)
    is one of ``pages``, the question's gold pages; any source counts where it names none. The
    same passage on another page is not credited: a near-twin question's passage is often word
    for word on the twin page too (the Schematic and PCB Editors' library tables)."""
    if len(sources) < len(texts):
        raise ValueError(f"{len(texts)} texts but {len(sources)} sources")
    return gold_text_recall(gold, [t for t, s in zip(texts, sources) if not pages or s in pages])


def within(texts: list[str], budget: int) -> list[str]:
    """The texts in order, the last one cut, so that they hold ``budget`` characters joined by
    newlines: recall at the same prompt length, whatever the units' size."""
    out, left = [], budget
    for text in texts:
        if left <= 0:
            break
        out.append(text[:left])
        left -= len(text) + 1
    return out


def image_recall(gold: list[str], found: list[str]) -> float | None:
    return len(set(gold) & set(found)) / len(set(gold)) if gold else None


def config(overrides: list[str], dataset: list[str]):
    # the fused ranking alone unless a config names a reranker (the figures in docs/ were made so)
    return compose(["progress=false", *dataset, "retrieval.k_t=15", "retrieval.k_v=10", "reranker=none", *overrides],
                   return_hydra_config=False)


def evaluate(name: str, cfg, limit: int | None) -> dict:
    questions, _ = load_dataset_questions(cfg)
    questions = questions[:limit] if limit else questions
    started = time.perf_counter()
    if name in SPARSE_FIRST:
        cache = configured_cache(cfg)
        pipeline, _ = sparse_first_pipeline(cfg, cache, load_configured_corpus(cfg, cache), even_if_built=True)
    else:
        pipeline = build_pipeline(cfg, with_evaluator=False)
    build_seconds = time.perf_counter() - started
    retriever = pipeline.retriever
    retriever.retrieve("warm up the encoder")
    rows, latency = {}, []
    for q in questions:
        t0 = time.perf_counter()
        hits = retriever.retrieve(q.question)
        latency.append(time.perf_counter() - t0)
        texts, sources = [h.unit.content for h in hits.text], [h.unit.source for h in hits.text]
        images = [h.unit.image for h in hits.images]
        row = {"kinds": list(q.kinds) or ["all"], "manual": q.meta.get("manual") or str(q.id).split("-")[0]}
        for k in TEXT_KS:
            row[f"text@{k}"] = recall(q.gold_text, texts[:k], sources, q.gold_pages)
        for k in IMAGE_KS:
            row[f"image@{k}"] = image_recall(q.gold_images, images[:k])
        row["text_units"] = [h.unit.unit_id for h in hits.text]
        row["sources"] = sources                              # with found: recall under another page rule
        row["found"] = found_in(q.gold_text, texts)
        row["text@4kc"] = recall(q.gold_text, within(texts, CHAR_BUDGET), sources, q.gold_pages)
        row["chars@5"] = sum(len(t) for t in texts[:5])       # what the slots cost in prompt length
        row["chars@15"] = sum(len(t) for t in texts[:15])
        row["chars"] = sum(len(t) for t in texts)             # the retrieved text as returned (k_t units or a budget)
        rows[q.id] = row
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.jsonl").write_text("".join(json.dumps({"id": i, **r}) + "\n" for i, r in rows.items()))
    return {"rows": rows, "latency": latency, "build_seconds": build_seconds,
            "units": {m: len(ix) for m, ix in pipeline.retriever.indexes.items()},
            "truncated": (pipeline.info.get("text") or {}).get("truncation")}


def mean(rows: dict, key: str, keep=lambda r: True) -> str:
    values = [r[key] for r in rows.values() if keep(r) and r.get(key) is not None]
    if not values:
        return "   –  "
    return f"{sum(values) / len(values):.3f}"


def mean_of(rows: dict, key: str) -> str:
    values = [r[key] for r in rows.values() if r.get(key) is not None]
    return f"{sum(values) / len(values):.0f}" if values else "–"


def report(results: dict, reference: str = "flat", target: str = "ham") -> None:
    keys = [f"text@{k}" for k in TEXT_KS] + ["text@4kc"] + [f"image@{k}" for k in IMAGE_KS]
    print(f"{'config':<24}" + "".join(f"{k:>10}" for k in keys) + f"{'n_text':>8}{'n_img':>7}{'p50 ms':>9}{'p95 ms':>9}"
          f"{'chars@15':>10}{'chars':>8}")
    for name, res in results.items():
        rows = res["rows"]
        lat = sorted(res["latency"])
        n_text = sum(r["text@1"] is not None for r in rows.values())
        n_img = sum(r["image@1"] is not None for r in rows.values())
        print(f"{name:<24}" + "".join(f"{mean(rows, k):>10}" for k in keys) + f"{n_text:>8}{n_img:>7}"
              f"{1000 * statistics.median(lat):>9.1f}{1000 * lat[int(0.95 * (len(lat) - 1))]:>9.1f}"
              f"{mean_of(rows, 'chars@15'):>10}{mean_of(rows, 'chars'):>8}")
    first = next(iter(results.values()))["rows"]
    kinds = sorted({k for r in first.values() for k in r["kinds"]})
    manuals = sorted({r["manual"] for r in first.values()})
    for title, groups in (("kind", [(k, lambda r, k=k: k in r["kinds"]) for k in kinds]),
                          ("manual", [(m, lambda r, m=m: r["manual"] == m) for m in manuals])):
        group_keys = [f"text@{k}" for k in TEXT_KS] + [f"image@{k}" for k in IMAGE_KS]
        print(f"\nby {title}:")
        print(f"{title:<14}{'config':<30}" + "".join(f"{k:>10}" for k in group_keys) + f"{'n':>6}{'n_img':>7}")
        for g, keep in groups:
            for name, res in results.items():
                rows = res["rows"]
                n = sum(1 for r in rows.values() if keep(r))
                n_img = sum(1 for r in rows.values() if keep(r) and r.get("image@1") is not None)
                print(f"{g:<14}{name[:29]:<30}" + "".join(f"{mean(rows, k, keep):>10}" for k in group_keys)
                      + f"{n:>6}{n_img:>7}")
    if reference in results:
        print(f"\npaired differences vs {reference} (mean, 95% paired bootstrap CI, n, Wilcoxon p):")
        for name, res in results.items():
            if name == reference:
                continue
            for key in ("text@1", "text@5", "text@15", "text@4kc", "image@10"):
                a = {i: r[key] for i, r in res["rows"].items()}
                b = {i: r[key] for i, r in results[reference]["rows"].items()}
                p = paired(a, b, n_resamples=5000)
                if p.n:
                    print(f"  {name:<22} {key:<9} {p.diff:+.3f} [{p.low:+.3f}, {p.high:+.3f}] n={p.n} "
                          f"p={p.p_value if p.p_value is not None else float('nan'):.4f}")
    for name, res in results.items():
        ci = normal_ci(r["text@15"] for r in res["rows"].values())
        print(f"{name}: text@15 95% CI [{ci.low:.3f}, {ci.high:.3f}]; units {res['units']}; "
              f"index build/reuse {res['build_seconds']:.1f} s" + (f"; truncated {res['truncated']}" if res["truncated"] else ""))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="devbench", help="dataset option (default devbench)")
    parser.add_argument("--configs", nargs="*", default=list(CONFIGS), help=f"named configs: {', '.join(CONFIGS)}")
    parser.add_argument("--extra", action="append", default=[], help="another config as space-separated overrides")
    parser.add_argument("--limit", type=int, help="only the first N questions")
    parser.add_argument("--saved", action="store_true", help="report the saved per-question results of the "
                        "named configs again, without retrieving")
    parser.add_argument("--reference", default="flat", help="the config the paired differences are taken "
                        "against (default flat)")
    parser.add_argument("overrides", nargs="*", help="overrides applied to every config (e.g. encoder=bge_m3)")
    args = parser.parse_args(argv)
    dataset = [f"dataset={args.dataset}"]
    configs = {name: CONFIGS[name] for name in args.configs}
    configs.update({extra: extra.split() for extra in args.extra})
    if args.saved:
        results = {name: saved(name) for name in configs}
    else:
        # every config is composed before the first is run, so a long run uses the configs as they were
        composed = {name: config([*args.overrides, *o], dataset) for name, o in configs.items()}
        results = {name: evaluate(name, cfg, args.limit) for name, cfg in composed.items()}
    report(results, reference=args.reference)


def saved(name: str) -> dict:
    rows = {}
    for line in (OUT / f"{name}.jsonl").read_text().splitlines():
        row = json.loads(line)
        rows[row.pop("id")] = row
    if any("sources" not in r for r in rows.values()):
        print(f"{name}: saved rows predate the gold-page rule (a passage counted on any page) and the "
              "cut text@4kc; run it again", file=sys.stderr)
    return {"rows": rows, "latency": [0.0], "build_seconds": 0.0, "units": {}, "truncated": None}


if __name__ == "__main__":
    main()
