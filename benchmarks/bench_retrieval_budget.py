"""Recall against prompt length: text recall when the retrieved text may hold at most C characters
(C = 1k ... 16k), for the unit options (blocks, merged, sections: the k ranked units, in rank
order) and the budgeted tree assembly (``retrieval.budget=C``), HAM and flat, on each manual; the
figure under docs/ and the table of docs/retrieval_budget.md come from one run of this script.

    .venv/bin/python benchmarks/bench_retrieval_budget.py                 # devbench, every config
    .venv/bin/python benchmarks/bench_retrieval_budget.py --saved         # report and plot again
    .venv/bin/python benchmarks/bench_retrieval_budget.py paths.cache_root=/shared/cache

Equal length, for every configuration alike: the retrieved texts are taken in their order and the
one that does not fit is cut to what is left, so exactly the first C characters of retrieved text
(texts joined by newlines; the budgeted assembly's own passages are within C already) are scored.
A question's recall is the share of its gold passages contained (whitespace-collapsed,
lower-cased) in one of those texts that comes from one of the question's ``gold_pages``
(``bench_retrieval_quality.recall``: a near-twin passage found on the twin page does not count);
each row keeps the kept texts' ``sources`` and, per gold passage, the kept texts holding it on any
page (``found``). ``@1``/``@5`` are the first one and five texts (units or
assembled passages) within the budget; images: recall of the top 10 (the assembly scores images
in its context, ``ham.retrieve.budget``). The unit options and ``ham_budget``/``flat_budget`` rank
by the fused scores alone (``reranker=none``); ``ham_budget_msmarco_l12`` is the default (the same
assembly over the pool reranked by the bundled cross-encoder, interpolated with the fused order),
with ``flat_budget_msmarco_l12`` its flat twin and ``ham_budget_links`` the default following
links (``retrieval.assembly.ref_chars=600``); ``ham_budget_bge_small`` swaps MiniLM for
bge-small-en-v1.5. Paired 95% bootstrap CIs for HAM - flat, for the assembly against each unit
option at the same C and for each model variant against ``ham_budget``. Per-question rows go to
``outputs/bench/retrieval_budget/<dataset>/``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_retrieval_quality import config, found_in, image_recall, recall, within  # noqa: E402
from ham.run.job import load_dataset_questions  # noqa: E402
from ham.run.build import build_pipeline  # noqa: E402
from ham_analysis.stats import paired  # noqa: E402

BUDGETS = (1000, 2000, 4000, 8000, 16000)
FLAT = ["text_repr=st", "image_repr=li"]
UNITS = {name: [f"units={name}", "retrieval=hybrid"] for name in ("blocks", "merged", "sections")}
ASSEMBLY_UNITS = ["units=blocks", "retrieval=budget"]   # the small units the budgeted assembly scores
RERANKER = "msmarco_l12"               # the default reranker
DEPTH = 200                             # ranked units kept for the unit options (16k characters of blocks)
OUT = Path("outputs/bench/retrieval_budget")
FIGURE = Path("docs/retrieval_budget.png")   # devbench's; another dataset's is docs/retrieval_budget_<dataset>.png
MANUALS = {"kicad": "KiCad 6", "pg": "PostgreSQL 15", "octave": "GNU Octave 7.3", "rintro": "An Introduction to R 4.2.2",
           "glpk": "GLPK 5.0"}


def score(q, texts: list[str], sources: list[str], images: list[str], budget: int) -> dict:
    kept = within(texts, budget)
    sources = sources[:len(kept)]
    return {"text@1": recall(q.gold_text, kept[:1], sources, q.gold_pages),
            "text@5": recall(q.gold_text, kept[:5], sources, q.gold_pages),
            "text@C": recall(q.gold_text, kept, sources, q.gold_pages),
            "image@10": image_recall(q.gold_images, images[:10]),
            "chars": sum(map(len, kept)) + max(len(kept) - 1, 0), "texts": len(kept),
            "sources": sources, "found": found_in(q.gold_text, kept)}


def retrieved(hits) -> tuple[list[str], list[str], list[str]]:
    """The texts, their sources and the images of one retrieval."""
    return [h.unit.content for h in hits.text], [h.unit.source for h in hits.text], [h.unit.image for h in hits.images]


def group_of(q) -> dict:
    return {"kinds": list(q.kinds) or ["all"], "manual": q.meta.get("manual") or str(q.id).split("-")[0]}


def run_units(name: str, overrides: list[str], dataset: list[str], limit: int | None) -> dict:
    """One retrieval of ``DEPTH`` units per question, scored at every budget."""
    cfg = config([*overrides, f"retrieval.k_t={DEPTH}", f"retrieval.pool={DEPTH}"], dataset)
    questions, _ = load_dataset_questions(cfg)
    pipeline = build_pipeline(cfg, with_evaluator=False)
    rows = {c: {} for c in BUDGETS}
    for q in questions[:limit] if limit else questions:
        texts, sources, images = retrieved(pipeline.retriever.retrieve(q.question))
        for c in BUDGETS:
            rows[c][q.id] = {**group_of(q), **score(q, texts, sources, images, c)}
    return rows


def run_budget(name: str, overrides: list[str], dataset: list[str], limit: int | None) -> dict:
    """The budgeted assembly at every budget (the budget set on the built retriever)."""
    cfg = config([*overrides, f"retrieval.budget={BUDGETS[0]}", "retrieval.k_t=50"], dataset)
    questions, _ = load_dataset_questions(cfg)
    pipeline = build_pipeline(cfg, with_evaluator=False)
    rows = {c: {} for c in BUDGETS}
    for c in BUDGETS:
        pipeline.retriever.budget = c
        for q in questions[:limit] if limit else questions:
            hits = pipeline.retriever.retrieve(q.question)
            rows[c][q.id] = {**group_of(q), **score(q, *retrieved(hits), c),
                             "roles": [h.unit.extra.get("role") for h in hits.text]}
    return rows


def configs(extra_assembly: list[str]) -> dict:
    """Every option compared on the fused ranking alone (``reranker=none``), then the default (the
    assembly reranked by ``msmarco_l12``) for HAM and flat, the default following links
    (``ref_chars=600``), and the assembly over bge-small."""
    out, plain = {}, ["reranker=none"]
    for name, units in UNITS.items():
        out[f"ham_{name}"] = (run_units, [*units, *plain])
    budget = [*ASSEMBLY_UNITS, *extra_assembly]
    out["ham_budget"] = (run_budget, [*budget, *plain])
    out[f"ham_budget_{RERANKER}"] = (run_budget, [*budget, f"reranker={RERANKER}"])
    out["ham_budget_links"] = (run_budget, [*budget, f"reranker={RERANKER}", "retrieval.assembly.ref_chars=600"])
    out["ham_budget_bge_small"] = (run_budget, [*budget, *plain, "encoder=bge_small"])
    out["flat_sections"] = (run_units, [*UNITS["sections"], *FLAT, *plain])
    out["flat_budget"] = (run_budget, [*budget, *FLAT, *plain])
    out[f"flat_budget_{RERANKER}"] = (run_budget, [*budget, *FLAT, f"reranker={RERANKER}"])
    return out


def mean(rows: dict, key: str, keep=lambda r: True) -> float | None:
    values = [r[key] for r in rows.values() if keep(r) and r.get(key) is not None]
    return sum(values) / len(values) if values else None


def fmt(x) -> str:
    return "–" if x is None else f"{x:.3f}"


def report(results: dict) -> None:
    first = next(iter(results.values()))[BUDGETS[0]]
    manuals = sorted({r["manual"] for r in first.values()})
    kinds = sorted({k for r in first.values() for k in r["kinds"]})
    print("text recall within C characters of retrieved text (all questions)")
    print(f"{'config':<16}" + "".join(f"{c:>9}" for c in BUDGETS) + f"{'@1 4k':>9}{'@5 4k':>9}{'img@10':>9}{'chars 4k':>10}")
    for name, by_c in results.items():
        print(f"{name:<16}" + "".join(f"{fmt(mean(by_c[c], 'text@C')):>9}" for c in BUDGETS)
              + f"{fmt(mean(by_c[4000], 'text@1')):>9}{fmt(mean(by_c[4000], 'text@5')):>9}"
              + f"{fmt(mean(by_c[4000], 'image@10')):>9}{mean(by_c[4000], 'chars'):>10.0f}")
    for title, groups in (("manual", [(m, lambda r, m=m: r["manual"] == m) for m in manuals]),
                          ("kind, at 4,000 characters", [(k, lambda r, k=k: k in r["kinds"]) for k in kinds])):
        print(f"\nby {title}:")
        for g, keep in groups:
            n = sum(1 for r in first.values() if keep(r))
            for name, by_c in results.items():
                cells = ([fmt(mean(by_c[c], "text@C", keep)) for c in BUDGETS] if title == "manual"
                         else [fmt(mean(by_c[4000], k, keep)) for k in ("text@1", "text@5", "text@C", "image@10")])
                print(f"  {g:<15}{name:<16}" + "".join(f"{x:>9}" for x in cells) + f"{n:>6}")
    pairs = [("ham_budget", "flat_budget"), ("ham_sections", "flat_sections"), ("ham_budget", "ham_blocks"),
             ("ham_budget", "ham_merged"), ("ham_budget", "ham_sections"),
             (f"ham_budget_{RERANKER}", f"flat_budget_{RERANKER}"), (f"ham_budget_{RERANKER}", "ham_budget"),
             ("ham_budget_links", f"ham_budget_{RERANKER}"),
             ("ham_budget_bge_small", "ham_budget")]
    print("\npaired differences (mean, 95% paired bootstrap CI, n, Wilcoxon p):")
    for a, b in pairs:
        if a not in results or b not in results:
            continue
        for c, key in [(4000, "text@1"), (4000, "text@5"), *[(c, "text@C") for c in BUDGETS], (4000, "image@10")]:
            p = paired({i: r[key] for i, r in results[a][c].items()}, {i: r[key] for i, r in results[b][c].items()},
                       n_resamples=5000)
            if p.n:
                print(f"  {a} - {b:<14} C={c:<6} {key:<9} {p.diff:+.3f} [{p.low:+.3f}, {p.high:+.3f}] n={p.n} "
                      f"p={p.p_value if p.p_value is not None else float('nan'):.4f}")


def plot(results: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    first = next(iter(results.values()))[BUDGETS[0]]
    manuals = sorted({r["manual"] for r in first.values()})
    fig, axes = plt.subplots(1, len(manuals), figsize=(5 * len(manuals), 3.8), sharey=True)
    for ax, manual in zip(list(axes) if len(manuals) > 1 else [axes], manuals):
        for name, by_c in results.items():
            if not name.startswith("ham_") or name in ("ham_budget_bge_small", "ham_budget_links"):
                continue
            ys = [mean(by_c[c], "text@C", lambda r: r["manual"] == manual) for c in BUDGETS]
            ax.plot(BUDGETS, ys, marker="o", label=name.replace("ham_", "").replace("budget", "budgeted assembly")
                    .replace(f"_{RERANKER}", f" + {RERANKER} (default)"))
        ax.set_xscale("log", base=2)
        ax.set_xticks(BUDGETS, [f"{c // 1000}k" for c in BUDGETS])
        ax.set_title(f"{MANUALS.get(manual, manual)} ({sum(1 for r in first.values() if r['manual'] == manual)} questions)")
        ax.set_xlabel("characters of retrieved text")
        ax.grid(alpha=0.3)
    (axes[0] if len(manuals) > 1 else axes).set_ylabel("text recall")
    (axes[0] if len(manuals) > 1 else axes).legend(loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def saved(path: Path) -> dict:
    """A config's saved rows by budget; rows without ``sources`` were scored by the old rule (a
    gold passage counted on any page), which is said on stderr."""
    results = {int(c): rows for c, rows in json.loads(path.read_text()).items()}
    if any("sources" not in r for rows in results.values() for r in rows.values()):
        print(f"{path}: saved rows predate the gold-page rule (a passage counted on any page); run it again",
              file=sys.stderr)
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="devbench")
    parser.add_argument("--configs", nargs="*", help="only these named configs")
    parser.add_argument("--assembly", action="append", default=[], help="an override for the budgeted configs "
                        "(e.g. retrieval.assembly.parent_chars=400)")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--saved", action="store_true", help="report and plot the saved rows again")
    parser.add_argument("--figure", type=Path, help="where the figure goes (default: the dataset's own, "
                        "docs/retrieval_budget.png for devbench, docs/retrieval_budget_<dataset>.png otherwise)")
    parser.add_argument("overrides", nargs="*", help="overrides for every config (e.g. paths.cache_root=...)")
    args = parser.parse_args(argv)
    figure = args.figure or (FIGURE if args.dataset == "devbench" else
                             FIGURE.with_name(f"{FIGURE.stem}_{args.dataset}{FIGURE.suffix}"))
    chosen = {n: c for n, c in configs(args.assembly).items() if not args.configs or n in args.configs}
    results = {}
    for name, (run, overrides) in chosen.items():
        path = OUT / args.dataset / f"{name}.json"
        if args.saved:
            results[name] = saved(path)
            continue
        started = time.perf_counter()
        results[name] = run(name, [*args.overrides, *overrides], [f"dataset={args.dataset}"], args.limit)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(results[name]))
        print(f"{name}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    report(results)
    plot(results, figure)
    print(f"\nfigure: {figure}")


if __name__ == "__main__":
    main()
