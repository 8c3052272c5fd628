"""Model-free ranking variants under the default budget (issue 21): text recall within 4,000
characters on devbench for each variant, overall, by kind and by manual, with a paired 95%
bootstrap CI against the default (``ham``: ``units=blocks retrieval=budget``, 0.7 MiniLM + 0.3
BM25 over a pool of 100 per side).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_ranking_variants.py            # every family
    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_ranking_variants.py rocchio rm3

The default pipeline is built once (its indexes come from the run cache) and every variant
changes one thing of the ranking the tree assembly walks; the assembly, the budget and the
metrics are the default's (``bench_retrieval_quality``'s ``recall`` and ``within``):

    rocchio   dense pseudo-relevance feedback: q' = q + alpha * mean of the top m fused units'
              vectors, renormalised; the pool is searched again with q' (one pass)
    rm3       BM25 query expansion (RM3): the top m units' term distribution (score-weighted,
              length-normalised) gives n terms; query weights (1 - lambda) original + lambda those
    fusion    other fusions of the same pool: dense weight, reciprocal rank fusion, z-scores,
              max of the scaled scores, a per-query weight from each side's top spread
    pool      each side's pool depth
    smooth    a unit's scaled score plus beta * its neighbours' (the blocks before and after it in
              its section), before the walk
    length    a unit's scaled score minus gamma * log2(its length / the pool's median length):
              shorter units first at equal score, so more of them fit

``--misses`` prints, for the gold passages the default misses within the budget, the rank of the
first block holding each among the 200-deep fused, dense-only and sparse-only rankings.

Query transforms change the text ranking only: images are ranked with the original query (their
context passages from its text), so image@10 moves only under fusion, pool and smoothing.
Per-question rows go to ``outputs/bench/ranking_variants/``. This is a measurement script: none
of these variants is a setting of ham (docs/retrieval_budget.md, "Also measured, not kept").
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_retrieval_quality import CHAR_BUDGET, config, image_recall, recall, within  # noqa: E402
from ham.index.hybrid import DenseOnly, HybridFusion, Query, ScoredUnit, SparseOnly, _minmax  # noqa: E402
from ham.retrieve.budget import BudgetedText  # noqa: E402
from ham.run.build import build_pipeline  # noqa: E402
from ham.run.job import load_dataset_questions  # noqa: E402
from ham.text import normalise_ws, tokenize  # noqa: E402
from ham_analysis.stats import paired  # noqa: E402

OUT = Path("outputs/bench/ranking_variants")
FAMILIES = ("rocchio", "rm3", "fusion", "pool", "smooth", "length")


class RRF:
    """Reciprocal rank fusion: w / (k + dense rank) + (1 - w) / (k + sparse rank)."""

    def __init__(self, w: float = 0.7, k: int = 60) -> None:
        self.w, self.k = w, k

    def __call__(self, scores: np.ndarray) -> np.ndarray:
        out = np.zeros(scores.shape[1], dtype=np.float32)
        for side, w in ((0, self.w), (1, 1 - self.w)):
            rank = np.empty(scores.shape[1])
            rank[np.argsort(-scores[side], kind="stable")] = np.arange(1, scores.shape[1] + 1)
            out += (w / (self.k + rank)).astype(np.float32)
        return out


class ZScore:
    """w * z(dense) + (1 - w) * z(sparse), z over the pool."""

    def __init__(self, w: float = 0.7) -> None:
        self.w = w

    def __call__(self, scores: np.ndarray) -> np.ndarray:
        z = [(s - s.mean()) / (s.std() + 1e-9) for s in scores]
        return (self.w * z[0] + (1 - self.w) * z[1]).astype(np.float32)


class CombMax:
    """The larger of the two min-max scaled scores."""

    def __call__(self, scores: np.ndarray) -> np.ndarray:
        return np.maximum(_minmax(scores[0]), _minmax(scores[1])).astype(np.float32)


class Adaptive:
    """A per-query dense weight: each side's top score minus the mean of its next n-1 (scaled),
    times the prior weight (0.7 / 0.3), normalised to sum 1."""

    def __init__(self, n: int = 10, prior: float = 0.7) -> None:
        self.n, self.prior = n, prior

    def __call__(self, scores: np.ndarray) -> np.ndarray:
        d, s = _minmax(scores[0]), _minmax(scores[1])

        def spread(x):
            top = np.sort(x)[::-1][: self.n]
            return float(top[0] - top[1:].mean()) + 1e-6 if len(top) > 1 else 1.0

        cd, cs = spread(d) * self.prior, spread(s) * (1 - self.prior)
        w = cd / (cd + cs)
        return (w * d + (1 - w) * s).astype(np.float32)


class Bench:
    def __init__(self) -> None:
        self.cfg = config(["retrieval.k_t=50"], ["dataset=devbench"])
        self.questions, _ = load_dataset_questions(self.cfg)
        r = self.retriever = build_pipeline(self.cfg, with_evaluator=False).retriever
        self.text, self.images = r.indexes["text"], r.indexes.get("image")
        self.tmap = r._sections.of(self.text, r.units)
        self.imap = r._sections.of(self.images, r.units) if self.images is not None else None
        self.plain_search, self.plain_sparse = self.text.search, self.text.sparse_scores
        self.text.sparse_scores = self.weighted_sparse   # RM3's weighted query terms (plain queries unchanged)
        self._tokens: dict[str, list[str]] = {}

    def weighted_sparse(self, query) -> np.ndarray:
        weights = getattr(query, "weights", None)
        if weights is None:
            return self.plain_sparse(query)
        sparse = self.text.sparse
        vocab = sparse.bm25.vocab_dict
        items = [(vocab[t], w) for t, w in weights.items() if t in vocab]
        return sparse.column_sums([c for c, _ in items], [w for _, w in items])

    def top(self, query, m, fusion, pool):
        return self.plain_search(query, m, fusion, pool)

    def rocchio(self, alpha: float, m: int):
        def transform(q, fusion, pool):
            rows = [self.text.row_of[s.unit_id] for s in self.top(q, m, fusion, pool)]
            v = q.dense + alpha * np.asarray(self.text.vectors[rows], dtype=np.float32).mean(0)
            return Query(q.text, (v / np.linalg.norm(v)).astype(np.float32), q.tokens, q.lexical)
        return transform

    def rm3(self, lam: float, m: int, n_terms: int):
        def transform(q, fusion, pool):
            top = self.top(q, m, fusion, pool)
            mass = np.array([s.score for s in top])
            mass = mass / max(mass.sum(), 1e-9)
            feedback = Counter()
            for s, w in zip(top, mass.tolist()):
                toks = self.unit_tokens(s.unit_id)
                for t, c in Counter(toks).items():
                    feedback[t] += w * c / len(toks)
            terms = feedback.most_common(n_terms)
            z, orig = sum(x for _, x in terms) or 1.0, Counter(q.tokens)
            weights = {t: (1 - lam) * c / max(sum(orig.values()), 1) for t, c in orig.items()}
            for t, x in terms:
                weights[t] = weights.get(t, 0.0) + lam * x / z
            out = Query(q.text, q.dense, q.tokens, q.lexical)
            out.weights = weights
            return out
        return transform

    def unit_tokens(self, uid: str) -> list[str]:
        if uid not in self._tokens:
            self._tokens[uid] = tokenize([self.retriever.units[uid].content])[0] or ["<empty>"]
        return self._tokens[uid]

    def smoothed(self, beta: float, mode: str):
        text, section_of = self.text, self.tmap.section_of

        def search(query, k, fusion=None, pool=100, extra=()):
            ranked = self.plain_search(query, None, fusion, pool, extra)
            f = _minmax(np.array([s.score for s in ranked])).tolist()
            by_row = {text.row_of[s.unit_id]: fi for s, fi in zip(ranked, f)}
            out = []
            for s, fi in zip(ranked, f):
                r = text.row_of[s.unit_id]
                near = [by_row.get(x, 0.0) for x in (r - 1, r + 1) if 0 <= x < len(text) and section_of[x] == section_of[r]]
                bonus = (max(near) if mode == "max" else sum(near) / 2) if near else 0.0
                out.append(ScoredUnit(s.unit_id, fi + beta * bonus, s.dense, s.sparse))
            out.sort(key=lambda s: -s.score)
            return out[:k]
        return search

    def length_prior(self, gamma: float):
        units = self.retriever.units

        def search(query, k, fusion=None, pool=100, extra=()):
            ranked = self.plain_search(query, None, fusion, pool, extra)
            f = _minmax(np.array([s.score for s in ranked]))
            lengths = np.array([max(len(units[s.unit_id].content), 1) for s in ranked], dtype=float)
            g = f - gamma * np.log2(lengths / np.median(lengths))
            out = [ScoredUnit(s.unit_id, float(x), s.dense, s.sparse) for s, x in zip(ranked, g.tolist())]
            out.sort(key=lambda s: -s.score)
            return out[:k]
        return search

    def run(self, name: str, transform=None, fusion=None, pool: int | None = None, search=None) -> dict:
        r = self.retriever
        fusion, pool = fusion or r.fusion, pool or r.pool
        self.text.search = search or self.plain_search
        assemble = BudgetedText(r.budget, r.length, r.assembly)
        rows = {}
        try:
            for q in self.questions:
                query = r.query(q.question)
                text, images = assemble.retrieve(transform(query, fusion, pool) if transform else query, self.text,
                                                 self.images, self.tmap, self.imap, r.units, fusion, pool, r.k_t, r.k_v)
                if transform:   # images: the original query's (module docstring)
                    _, images = assemble.retrieve(query, self.text, self.images, self.tmap, self.imap, r.units,
                                                  fusion, pool, r.k_t, r.k_v)
                texts, sources = [u.content for u, _ in text], [u.source for u, _ in text]
                rows[q.id] = {"kinds": list(q.kinds) or ["all"],
                              "manual": q.meta.get("manual") or str(q.id).split("-")[0],
                              "text@1": recall(q.gold_text, texts[:1], sources, q.gold_pages),
                              "text@5": recall(q.gold_text, texts[:5], sources, q.gold_pages),
                              "text@4kc": recall(q.gold_text, within(texts, CHAR_BUDGET), sources, q.gold_pages),
                              "image@10": image_recall(q.gold_images, [r.units[s.unit_id].image for s in images][:10])}
        finally:
            self.text.search = self.plain_search
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / f"{name.replace(' ', '_').replace('=', '')}.jsonl").write_text(
            "".join(json.dumps({"id": i, **row}) + "\n" for i, row in rows.items()))
        return rows


def variants(bench: Bench, families) -> list[tuple[str, dict]]:
    out = []
    if "rocchio" in families:
        out += [(f"rocchio a={a} m={m}", {"transform": bench.rocchio(a, m)}) for a in (0.3, 0.6, 1.0) for m in (3, 5, 10)]
    if "rm3" in families:
        out += [(f"rm3 l={lam} m={m} n={n}", {"transform": bench.rm3(lam, m, n)})
                for lam in (0.3, 0.5) for m in (5, 10) for n in (10, 20)]
    if "fusion" in families:
        out += [(f"dense_weight={w}", {"fusion": HybridFusion(w)}) for w in (0.5, 0.6, 0.8, 0.9)]
        out += [("rrf w=0.7 k=60", {"fusion": RRF(0.7)}), ("rrf w=0.5 k=60", {"fusion": RRF(0.5)}),
                ("rrf w=0.5 k=10", {"fusion": RRF(0.5, 10)}), ("zscore w=0.7", {"fusion": ZScore(0.7)}),
                ("zscore w=0.5", {"fusion": ZScore(0.5)}), ("combmax", {"fusion": CombMax()}),
                ("adaptive n=10", {"fusion": Adaptive(10)}), ("adaptive n=30", {"fusion": Adaptive(30)})]
    if "pool" in families:
        out += [(f"pool={p}", {"pool": p}) for p in (30, 50, 200)]
    if "smooth" in families:
        out += [(f"neighbours {mode} b={b}", {"search": bench.smoothed(b, mode)})
                for b in (0.1, 0.2, 0.4) for mode in ("max", "mean")]
    if "length" in families:
        out += [(f"length prior g={g}", {"search": bench.length_prior(g)}) for g in (-0.1, -0.05, 0.05, 0.1, 0.2)]
    return out


def misses(bench: Bench) -> None:
    """Where the default's missed gold passages rank (module docstring)."""
    r, text = bench.retriever, bench.text
    contents = {u: normalise_ws(r.units[u].content) for u in text.unit_ids}
    ranks: dict[str, list[int]] = {"fused": [], "dense": [], "sparse": []}
    manuals, roles, outside = Counter(), Counter(), 0
    for q in bench.questions:
        query = r.query(q.question)
        passages, _ = BudgetedText(r.budget, r.length, r.assembly).retrieve(query, text, None, bench.tmap, None,
                                                                            r.units, r.fusion, r.pool, r.k_t, 0)
        for unit, _ in passages:
            roles[unit.extra.get("role")] += len(unit.content)
        on_page = (lambda source: source in q.gold_pages) if q.gold_pages else (lambda source: True)
        got = [normalise_ws(u.content) for u, _ in passages if on_page(u.source)]
        lists = {name: [s.unit_id for s in text.search(query, None, f, 200)]
                 for name, f in (("fused", r.fusion), ("dense", DenseOnly()), ("sparse", SparseOnly()))}
        for gold in map(normalise_ws, q.gold_text):
            if not gold or any(gold in t for t in got):
                continue
            holders = [u for u, c in contents.items() if gold in c and on_page(r.units[u].source)]
            if not holders:
                outside += 1
                continue
            manuals[q.meta.get("manual") or str(q.id).split("-")[0]] += 1
            for name, ids in lists.items():
                found = [ids.index(h) + 1 for h in holders if h in ids]
                ranks[name].append(min(found) if found else 10**6)
    n = len(ranks["fused"])
    print(f"missed gold passages held by one block: {n} ({dict(manuals)}); spanning blocks: {outside}")
    for name, rk in ranks.items():
        print(f"  {name:<6} median rank {float(np.median(rk)):.1f}; within 16: {sum(x <= 16 for x in rk)}, "
              f"30: {sum(x <= 30 for x in rk)}, 50: {sum(x <= 50 for x in rk)}; not in the top 200: "
              f"{sum(x == 10**6 for x in rk)}")
    either = [min(a, b) for a, b in zip(ranks["dense"], ranks["sparse"])]
    print(f"  dense or sparse within 16: {sum(x <= 16 for x in either)}")
    total = sum(roles.values())
    print("share of the retrieved characters by passage role: "
          + ", ".join(f"{role} {n / total:.3f}" for role, n in roles.most_common()))


def mean(rows: dict, key: str, keep=lambda r: True) -> float:
    values = [r[key] for r in rows.values() if keep(r) and r[key] is not None]
    return sum(values) / len(values)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("families", nargs="*", default=list(FAMILIES), help=f"of {', '.join(FAMILIES)}")
    parser.add_argument("--misses", action="store_true", help="only where the default's misses rank")
    args = parser.parse_args(argv)
    bench = Bench()
    if args.misses:
        misses(bench)
        return
    base = bench.run("ham")
    kinds = sorted({k for r in base.values() for k in r["kinds"]})
    manuals = sorted({r["manual"] for r in base.values()})
    print("| variant | text @4k | Δ @4k [95% CI] | @1 | @5 | image @10 | " + " | ".join(kinds + manuals) + " |")
    print("| --- " * (6 + len(kinds) + len(manuals)) + "|")
    for name, kw in [("default (ham)", {})] + variants(bench, args.families):
        rows = bench.run(name, **kw) if kw else base
        if rows is base:
            delta = "–"
        else:
            p = paired({i: r["text@4kc"] for i, r in rows.items()}, {i: r["text@4kc"] for i, r in base.items()},
                       n_resamples=5000)
            delta = f"{p.diff:+.3f} [{p.low:+.3f}, {p.high:+.3f}]"
        groups = [mean(rows, "text@4kc", lambda r, k=k: k in r["kinds"]) for k in kinds]
        groups += [mean(rows, "text@4kc", lambda r, m=m: r["manual"] == m) for m in manuals]
        print(f"| {name} | {mean(rows, 'text@4kc'):.3f} | {delta} | {mean(rows, 'text@1'):.3f} | "
              f"{mean(rows, 'text@5'):.3f} | {mean(rows, 'image@10'):.3f} | " + " | ".join(f"{g:.3f}" for g in groups)
              + " |", flush=True)


if __name__ == "__main__":
    main()
