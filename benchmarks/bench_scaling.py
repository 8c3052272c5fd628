"""Scaling of indexing from 1k to 10M units in bounded memory: the sharded build (ham.index.shards,
``index=ivf_ondisk``), each size in a fresh process.

The synthetic corpus is generated shard by shard (never all units as Python objects at once):
documents of 5 sections, each with 2 paragraphs, a procedure of 4 steps and a figure (35 units a
document), every document from its own seed, so a shard makes exactly the documents its units
belong to. Each shard's units go through the real path: ``ct``/``si`` strings with lead summaries
(``Representer``), the BM25 strings (``Representer.sparse``), ``run_shard`` (streaming encode to
the shard's dense.npy, term counts), then ``merge_shards``: IVF-PQ (nlist 1024, m 16, trained on
100k vectors drawn with the seed) with on-disk inverted lists, BM25 as memory-mapped CSC arrays,
ids on disk. Under ``min_vectors`` (10k) the dense side is exact (flat). Text and image units
share one index here (the run builds one per modality).

Encoders: ``static`` (default) is a real but cheap sentence-transformers model built here from
all-MiniLM-L6-v2's own token embeddings (``StaticEmbedding``: mean of contextless token vectors,
384-d); on 2 CPU cores MiniLM itself encodes ~50-100 ct strings/s. ``minilm`` runs the default
encoder (use --sizes 1000 10000).

Printed per size: seconds per 1k units (whole build, and its merge alone); peak RSS above the
baseline (the process after loading the encoder, faiss, scipy and bm25s and encoding one string:
the encoder's memory is the baseline); bytes on disk (the merged index: faiss file + on-disk lists
+ BM25 + ids; and the shards' embeddings, which exact rescoring reads); query latency p50/p95 of
one hybrid retrieval (dense + BM25, fused, top 15 of a pool of 100) over 200 queries of 2-5 corpus
words, alone and with the query's encode. Latency target at 1M units: p50 of hybrid retrieval
below 50 ms a query (docs/scale.md).

    .venv/bin/python benchmarks/bench_scaling.py [--sizes 1000 10000 100000 1000000 10000000]
        [--shard-size 100000] [--encoder static|minilm] [--work DIR [--resume]]

A killed run goes on with ``--work DIR --resume``: finished shards are reused (the strings are
generated again to find their keys), so its times and peak cover only the shards built after it.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# the tokenizers' own thread pool on top of torch's: 4x slower encoding on a busy 2-core machine (measured)
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

WORDS = [a + b for a in ("ab", "cor", "del", "fin", "gal", "hex", "ion", "jur", "kel", "lum", "mor", "nex",
                         "ol", "pra", "qui", "ros", "sil", "tor", "ul", "ven")
         for b in ("ant", "ber", "cis", "dor", "est", "fal", "gon", "hil", "ith", "lon", "mar", "nol",
                   "ock", "pus", "rin", "sa", "tum", "ux", "vel", "zed")]
UNITS_PER_DOC = 35
LATENCY_TARGET_MS = 50.0   # p50 of one hybrid retrieval at 1M units


def synthetic_document(d: int, seed: int = 0):
    """Document ``d``: 5 sections, each with 2 paragraphs, a procedure of 4 steps and a figure
    (7 units a section), from its own seed."""
    from ham.ingest.builder import Block, TreeBuilder

    rng = random.Random(f"{seed}:{d}")

    def sentence(n: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."

    b = TreeBuilder(f"doc{d}", f"Manual {d} of the {rng.choice(WORDS)} unit", f"doc{d}.md", "markdown")
    for s in range(5):
        b.add(Block("heading", f"{s + 1}. {sentence(3)}", level=1))
        b.add(Block("text", sentence(25) + " " + sentence(20)))
        b.add(Block("text", sentence(30)))
        for _ in range(4):
            b.add(Block("step", sentence(15)))
        b.add(Block("end_steps"))
        b.add(Block("image", image=f"img/{d}_{s}.png", image_path=f"img/{d}_{s}.png", alt=sentence(4)))
    return b.finish()


def synthetic_documents(n_units: int, seed: int = 0, first_doc: int = 0):
    """Documents from ``first_doc`` on until they hold ``n_units`` units."""
    return [synthetic_document(d, seed) for d in range(first_doc, first_doc + -(-n_units // UNITS_PER_DOC))]


def shard_strings(start: int, stop: int, seed: int = 0):
    """Ids, ct/si strings, BM25 strings and contents of global units [start, stop)."""
    from ham.enrich.descriptions import Descriptions
    from ham.cache import KeyedStore
    from ham.enrich.summaries import LeadSummariser, summarise_sections
    from ham.represent.templates import ContextualImage, ContextualText, Representer
    from ham.units import build_units

    first, last = start // UNITS_PER_DOC, -(-stop // UNITS_PER_DOC)
    docs = [synthetic_document(d, seed) for d in range(first, last)]
    units = [u for doc in docs for u in build_units(doc)]
    if len(units) != (last - first) * UNITS_PER_DOC:
        raise RuntimeError(f"a synthetic document has {len(units) / (last - first)} units, not {UNITS_PER_DOC}")
    units = units[start - first * UNITS_PER_DOC: stop - first * UNITS_PER_DOC]
    summaries = summarise_sections(docs, units, LeadSummariser(), KeyedStore(tempfile.gettempdir(), "unused"))
    rep = Representer(ContextualText(), ContextualImage(), Descriptions({}, "none"), summaries)
    return ([u.unit_id for u in units], [rep(u) for u in units], [rep.sparse(u) for u in units],
            [u.content for u in units])


def static_encoder_folder(folder: Path) -> Path:
    """all-MiniLM-L6-v2's token embeddings as a sentence-transformers StaticEmbedding model."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import StaticEmbedding

    from ham.backends.local import minilm_path

    if not (folder / "modules.json").exists():
        minilm = SentenceTransformer(str(minilm_path()), device="cpu")
        weights = minilm[0].auto_model.embeddings.word_embeddings.weight.detach().cpu().numpy()
        static = StaticEmbedding(minilm.tokenizer.backend_tokenizer, embedding_weights=weights)
        SentenceTransformer(modules=[static]).save(str(folder))
    return folder


class PeakRSS(threading.Thread):
    """Samples this process's resident set size every few milliseconds."""

    def __init__(self) -> None:
        import psutil

        super().__init__(daemon=True)
        self.proc, self.peak, self.running = psutil.Process(), 0, True

    def now(self) -> int:
        return self.proc.memory_info().rss

    def run(self) -> None:
        while self.running:
            self.peak = max(self.peak, self.now())
            time.sleep(0.005)


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def child(n: int, encoder_name: str, shard_size: int, work: Path, log) -> dict:
    import faiss  # noqa: F401  (libraries loaded before the baseline: their code is not the corpus's)
    import numpy as np
    import scipy.sparse  # noqa: F401
    import torch

    from ham.index.dense import IVFOnDiskSpec
    from ham.index.encoders import BatchedEncoder, SentenceTransformerEncoder
    from ham.index.hybrid import HybridFusion, Query
    from ham.index.shards import ShardTask, merge_shards, run_shard
    from ham.text import tokenize

    torch.set_num_threads(int(os.environ.get("HAM_BENCH_THREADS", "2")))
    model = "minilm" if encoder_name == "minilm" else str(static_encoder_folder(work.parent / "static-minilm"))
    encoder = SentenceTransformerEncoder(model, batch_size=256)
    spec = encoder.spec()
    encoder = BatchedEncoder.from_spec(spec)   # the instance run_shard will use
    encoder.model.encode(["warm up"])
    tokenize(["warm up"])
    shard_strings(0, 1)
    cache_root = work / "cache"
    sampler = PeakRSS()
    base = sampler.peak = sampler.now()
    sampler.start()
    started = time.perf_counter()
    results, gen_seconds = [], 0.0
    for s, start in enumerate(range(0, n, shard_size)):
        t0 = time.perf_counter()
        ids, texts, sparse, contents = shard_strings(start, min(n, start + shard_size))
        gen_seconds += time.perf_counter() - t0
        task = ShardTask(s, tuple(ids), tuple(texts), tuple(contents), spec, str(cache_root), tuple(sparse))
        del ids, texts, sparse, contents
        results.append(run_shard(task))
        del task
        log(f"  shard {s}: {results[-1]['rows']} units{' (reused)' if results[-1]['reused'] else ''}, "
            f"{time.perf_counter() - started:.0f} s, "
            f"peak +{(sampler.peak - base) / 2**20:.0f} MB")
    merge_started = time.perf_counter()
    index, info = merge_shards(results, IVFOnDiskSpec(), cache_root)
    merge_seconds = time.perf_counter() - merge_started
    total = time.perf_counter() - started
    build_peak = sampler.peak - base
    log(f"  merged: {total:.0f} s (merge {merge_seconds:.0f} s), peak +{build_peak / 2**20:.0f} MB")

    rng = random.Random(7)
    texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 5))) for _ in range(200)]
    fusion, search_ms, total_ms = HybridFusion(), [], []
    for i, text in enumerate(texts):
        t0 = time.perf_counter()
        query = Query(text, encoder.encode_query(text).dense[0], tokenize([text])[0])
        t1 = time.perf_counter()
        hits = index.search(query, 15, fusion, pool=100)
        t2 = time.perf_counter()
        if i >= 5:   # the first few warm the memory maps
            search_ms.append(1000 * (t2 - t1))
            total_ms.append(1000 * (t2 - t0))
        assert len(hits) == min(15, n)
    sampler.running = False
    merged_bytes = folder_bytes(cache_root / "sharded")
    shard_bytes = sum((Path(r["folder"]) / "dense.npy").stat().st_size for r in results)
    return {"n": n, "seconds": total, "merge_seconds": merge_seconds, "strings_seconds": gen_seconds,
            "peak_mb": build_peak / 2**20, "base_mb": base / 2**20, "merged_bytes": merged_bytes,
            "embeddings_bytes": shard_bytes, "faiss": type(index.dense).__name__,
            "search_p50_ms": float(np.percentile(search_ms, 50)), "search_p95_ms": float(np.percentile(search_ms, 95)),
            "query_p50_ms": float(np.percentile(total_ms, 50)), "query_p95_ms": float(np.percentile(total_ms, 95)),
            "shards": info["shards"]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000, 1000000])
    parser.add_argument("--shard-size", type=int, default=100_000)
    parser.add_argument("--encoder", choices=["static", "minilm"], default="static")
    parser.add_argument("--work", help="a folder for the caches (default: a temporary one, removed after)")
    parser.add_argument("--resume", action="store_true",
                        help="with --work: keep the shards a killed run finished (each is content-addressed) and go on")
    parser.add_argument("--child", type=int)
    args = parser.parse_args()
    if args.child:
        def log(line):
            print(line, file=sys.stderr, flush=True)
        print(json.dumps(child(args.child, args.encoder, args.shard_size, Path(args.work), log)))
        return
    rows = []
    tmp = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="bench_scaling-"))
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        for n in args.sizes:
            work = tmp / f"n{n}"
            if not (args.resume and args.work):
                shutil.rmtree(work, ignore_errors=True)
            work.mkdir(exist_ok=True)
            out = subprocess.run([sys.executable, __file__, "--child", str(n), "--encoder", args.encoder,
                                  "--shard-size", str(args.shard_size), "--work", str(work)],
                                 stdout=subprocess.PIPE, text=True, check=True)
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
            shutil.rmtree(work, ignore_errors=True)
            r = rows[-1]
            print(f"{r['n']:>8} units ({r['shards']} shards, {r['faiss']}): {1000 * r['seconds'] / r['n']:.3f} s/1k units "
                  f"(strings {1000 * r['strings_seconds'] / r['n']:.3f}, merge {1000 * r['merge_seconds'] / r['n']:.3f}); "
                  f"peak RSS +{r['peak_mb']:.0f} MB above the {r['base_mb']:.0f} MB baseline; "
                  f"on disk: index {r['merged_bytes'] / 2**20:.0f} MB + embeddings {r['embeddings_bytes'] / 2**20:.0f} MB "
                  f"({r['merged_bytes'] / r['n']:.0f} + {r['embeddings_bytes'] / r['n']:.0f} B/unit); "
                  f"hybrid retrieval p50 {r['search_p50_ms']:.2f} ms, p95 {r['search_p95_ms']:.2f} ms "
                  f"(with the query's encode {r['query_p50_ms']:.2f} / {r['query_p95_ms']:.2f})", flush=True)
    finally:
        if not args.work:
            shutil.rmtree(tmp, ignore_errors=True)
    per_unit = [r["seconds"] / r["n"] for r in rows]
    print(f"encoder {args.encoder}: time per unit, largest / smallest size {per_unit[-1] / per_unit[0]:.2f}; "
          f"peak RSS above baseline {rows[0]['peak_mb']:.0f} -> {rows[-1]['peak_mb']:.0f} MB "
          f"(target at 10M: < 4096 MB)")
    at_1m = [r for r in rows if r["n"] == 1_000_000]
    if at_1m:
        p50 = at_1m[0]["search_p50_ms"]
        print(f"latency at 1M: hybrid retrieval p50 {p50:.2f} ms / target {LATENCY_TARGET_MS:.0f} ms = "
              f"{p50 / LATENCY_TARGET_MS:.2f} ({'met' if p50 <= LATENCY_TARGET_MS else 'missed'})")


if __name__ == "__main__":
    main()
