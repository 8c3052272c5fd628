"""Indexing overhead: wall time of ham's indexing of the demo corpus's unit strings (length-sorted
streaming encode to dense.npy, BM25, faiss flat index, save, load; strings longer than the
window embedded as windows, ``encoder.long_text=windows``, the default) over the raw batched
``SentenceTransformer.encode`` of the same strings, windows included, with the same model and
batch size: the ratio is ham's overhead, not the cost of embedding more of each unit.
Target: <= 1.15. Both are measured twice in this run, alternating, best of each; the model is
loaded and warmed first, so neither side pays for loading.

    .venv/bin/python benchmarks/bench_index.py [--repeat 2]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hydra.utils import instantiate  # noqa: E402

from ham.cache import FolderCache  # noqa: E402
from ham.cli.compose import compose_config  # noqa: E402
from ham.ingest.corpus import load_corpus  # noqa: E402
from ham.index.encoders import SentenceTransformerEncoder  # noqa: E402
from ham.index.dense import FlatSpec  # noqa: E402
from ham.index.build import build_representer, index_strings  # noqa: E402
from ham.run.build import offline_parts  # noqa: E402
from ham.index.windows import plan_windows  # noqa: E402
from ham.paths import resolve_path  # noqa: E402


def demo_strings() -> tuple[list[str], list[str], list[str]]:
    cfg = compose_config(["progress=false"])
    cache = FolderCache(resolve_path(cfg.paths.cache_root, must_exist=False))
    corpus = load_corpus(resolve_path(cfg.dataset.path), cache, instantiate(cfg.units))
    representer, _ = build_representer(corpus, cache, offline_parts(cfg))
    return [u.unit_id for u in corpus.units], [representer(u) for u in corpus.units], [u.content for u in corpus.units]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    ids, texts, contents = demo_strings()
    encoder = SentenceTransformerEncoder("minilm", batch_size=64)
    encoder.model.encode(texts[:64], batch_size=64)   # load and warm up
    plan = plan_windows(texts, contents, encoder)
    embedded = plan.first_strings(texts) + plan.further_windows
    raw_times, ham_times = [], []
    for _ in range(args.repeat):
        start = time.perf_counter()
        encoder.model.encode(embedded, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
                             show_progress_bar=False)
        raw_times.append(time.perf_counter() - start)
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            index, info = index_strings(ids, texts, encoder, FlatSpec(), FolderCache(tmp), contents=contents)
            ham_times.append(time.perf_counter() - start)
            assert not info["reused"] and len(index) == len(texts)
    raw, ham = min(raw_times), min(ham_times)
    print(f"{len(texts)} demo unit strings (ct/si), {len(plan.rows)} of them windowed into {plan.extra} more "
          f"strings, {encoder.model_id}, batch 64")
    print(f"raw SentenceTransformer.encode: {raw:.2f} s   (runs: {', '.join(f'{t:.2f}' for t in raw_times)})")
    print(f"ham index_strings (encode_to + bm25 + faiss + save + load): {ham:.2f} s   "
          f"(runs: {', '.join(f'{t:.2f}' for t in ham_times)})")
    print(f"ratio indexing / raw encode: {ham / raw:.3f}   (target <= 1.15)")


if __name__ == "__main__":
    main()
