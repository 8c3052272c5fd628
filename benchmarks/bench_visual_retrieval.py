"""What page retrieval costs on CPU, from one run: index bytes per page and query latency of exact
MaxSim against token-pooled and half-precision variants, beside ham's own unit index on the same
pages, and the agreement of ham's nDCG with pytrec_eval.

    .venv/bin/python benchmarks/bench_visual_retrieval.py [--pages 500 --tokens 1030 --dim 128]

1. The demo PDF through a tiny random ColPali (tests/support/tiny_models.py; its vectors are 8-wide,
   so its bytes say nothing about a real model's, only that the pipeline counts them): pages,
   vectors per page, bytes per page for each pool factor and store dtype.
2. ham's unit index on the demo PDF (MiniLM dense + BM25, ``ham.index.footprint``) for scale.
3. ColPali's real shape (default 1,030 token vectors of 128 dims per page, as colpali-v1.3 gives a
   448 x 448 page: 1,024 patches and its prompt tokens) with random unit vectors: bytes per page
   and the p50 / p95 latency of one 20-vector query's exact MaxSim over ``--pages`` pages, exact and
   pooled by 2, 3 and 4 (random vectors do not cluster like real patches, so this measures cost
   only; what pooling costs in nDCG needs real models: benchmarks/gpu_visual_retrieval.py).
   float16 rows are converted to float32 for every query's matrix product: half the bytes, not
   half the time.
4. nDCG@5 and @10 of 1,000 random graded rankings, ham against pytrec_eval: the largest difference.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from ham.cache import FolderCache  # noqa: E402
from ham.index.late_interaction import hierarchical_pool, maxsim_scores  # noqa: E402


def _unit(rows):
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


def tiny_demo(work: Path) -> None:
    from ham.conf import compose
    from ham.index.footprint import index_bytes
    from ham.index.page_encoders import ColPaliEncoder
    from ham.retrieve.pages import PageRetrieval
    from ham.run.build import build_pipeline
    from tests.support.tiny_models import tiny_colpali

    model = tiny_colpali(work / "colpali")
    cfg = compose(["dataset=demo_pdf", "units=blocks", "retrieval=hybrid", "method=page_based", "progress=false",
                   "reranker=none", f"paths.output_root={work / 'out'}"], return_hydra_config=False)
    pipeline = build_pipeline(cfg)
    cache = FolderCache(work / "out" / "cache")
    print("1. demo PDF, tiny random ColPali (8-dim vectors: the pipeline's accounting, not a real model's bytes)")
    for pool, dtype in ((1, "float32"), (1, "float16"), (2, "float16"), (3, "float16")):
        spec = PageRetrieval(ColPaliEncoder(str(model)), mode="pages", pool_factor=pool, store_dtype=dtype)
        paged, info = spec.attach(pipeline.retriever, pipeline.corpus, cache)
        times = []
        for _ in range(20):
            started = time.perf_counter()
            paged.retrieve("Why is there nothing to reconcile in an expense account?")
            times.append((time.perf_counter() - started) * 1000)
        pi = info["page_index"]
        print(f"   pool {pool} {dtype:7s}: {pi['items']} pages, {pi['vectors_per_item']:.1f} vectors/page, "
              f"{pi['bytes_per_item']:.0f} bytes/page; query (encode + MaxSim) p50 {np.percentile(times, 50):.2f} ms")
    units = index_bytes(pipeline.retriever.indexes)
    pages = len({(u.doc_id, u.page) for u in pipeline.corpus.units if u.page is not None})
    print(f"2. ham's unit index on the same PDF (MiniLM 384-d + BM25): {units['total']} bytes, "
          f"{units['total'] / pages:.0f} bytes/page over {units['text']['units']} text units, {pages} pages")


def real_shape(n_pages: int, tokens: int, dim: int, repeats: int) -> None:
    rng = np.random.default_rng(0)
    pages = [_unit(rng.standard_normal((tokens, dim))) for _ in range(n_pages)]
    query = _unit(rng.standard_normal((20, dim)))
    print(f"3. ColPali's shape, {n_pages} pages x {tokens} vectors x {dim} dims (random unit vectors), "
          "one 20-vector query, exact MaxSim")
    base = None
    for pool in (1, 2, 3, 4):
        pooled = [hierarchical_pool(p, pool) for p in pages] if pool > 1 else pages
        for dtype in ((np.float32, np.float16) if pool == 1 else (np.float16,)):
            store = np.concatenate(pooled).astype(dtype)
            offsets = np.cumsum([0] + [len(p) for p in pooled]).astype(np.int64)
            per_page = (store.nbytes + offsets.nbytes) / n_pages
            times = []
            for _ in range(repeats):
                started = time.perf_counter()
                maxsim_scores(query, store, offsets)
                times.append((time.perf_counter() - started) * 1000)
            base = base or per_page
            print(f"   pool {pool} {np.dtype(dtype).name:7s}: {per_page:9.0f} bytes/page ({per_page / base:.3f} of "
                  f"exact float32), p50 {np.percentile(times, 50):7.1f} ms, p95 {np.percentile(times, 95):7.1f} ms")


def ndcg_agreement(n: int) -> None:
    import pytrec_eval

    from ham.datasets.questions import Question
    from ham.metrics.ranking import ndcg_at
    from ham.metrics.registry import Case

    rng = np.random.default_rng(1)
    qrels, run, cases = {}, {}, {}
    for qi in range(n):
        judged = rng.choice(200, size=int(rng.integers(1, 8)), replace=False)
        grades = rng.integers(0, 4, size=len(judged))
        grades[0] = max(grades[0], 1)
        qrels[f"q{qi}"] = {f"d#{j}": int(g) for j, g in zip(judged, grades)}
        ranked = rng.permutation(200)[:20]
        run[f"q{qi}"] = {f"d#{j}": float(20 - r) for r, j in enumerate(ranked)}
        rows = [{"doc_id": "d", "page": int(j) + 1} for j in ranked]
        cases[f"q{qi}"] = Case(Question(id="q", question="?", meta={"page_qrels": qrels[f"q{qi}"]}), [], [], None,
                               pages=rows)
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.5,10"}).evaluate(run)
    worst = max(abs(ndcg_at(cases[q], k) - reference[q][f"ndcg_cut_{k}"]) for q in qrels for k in (5, 10))
    mean = np.mean([reference[q]["ndcg_cut_10"] for q in qrels])
    print(f"4. nDCG@5/@10 over {n} graded random rankings: largest |ham - pytrec_eval| = {worst:.2e} "
          f"(mean nDCG@10 {mean:.3f})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--tokens", type=int, default=1030)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as work:
        tiny_demo(Path(work))
    real_shape(args.pages, args.tokens, args.dim, args.repeats)
    ndcg_agreement(1000)


if __name__ == "__main__":
    main()
