"""Time to first answer on a new manual: ``ham-ask`` from an empty cache, stage by stage, for each
encoder option, and each encoder's strings/s on the manual's own unit strings.

    .venv/bin/python benchmarks/bench_first_answer.py --corpus /path/to/manual \\
        --encoders minilm minilm_int8 [--question "..."] [--threads 1] [--repeat 1] [--sample 256]

Strings/s: the same ``--sample`` unit strings (ct/si, as the index embeds them, seeded sample) are
encoded by every encoder, alternating, ``--repeat`` times; the best run of each counts, and the
ratio is to the first encoder. Time to first answer: each encoder's ``ham-ask``
(``ask_sparse_first`` as ``ham/cli/ask.py`` runs it: the sparse-first answer, then the full one)
in a fresh process on an empty cache, alternating encoders, so every row pays for its imports,
model load, ingest, summaries, encoding, BM25 and faiss and the first answer. The stages: ingest (parse + units), summaries and descriptions,
encode (seconds inside the encoder; strings counted, windows included), index (the rest of
indexing: BM25, faiss, saving) and answer (the first question). The load average is printed
before and after each run: the machine may be shared, so compare ratios within one run.
torch uses ``--threads`` threads (default 1, as every benchmark here). ``first``: when ``ham-ask``'s
sparse-first answer (BM25 alone, ``ham.run.sparse_first``) was printed, before the dense index.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUESTION = "How do I create an index without blocking writes to the table?"


def overrides(corpus: Path, encoder: str, cache: Path) -> list[str]:
    return ["progress=false", "dataset=custom", f"dataset.path={corpus}", f"paths.cache_root={cache}",
            f"encoder={encoder}", "reranker=none"]   # retrieval, not reranking (docs/retrieval.md#speed)


def first_answer(corpus: Path, encoder: str, question: str, threads: int) -> dict:
    """One ``ham-ask`` from an empty cache, in this process, stage by stage; ``preliminary``: the
    seconds (in this process) until the sparse-first answer was ready."""
    started = time.perf_counter()
    import torch

    torch.set_num_threads(threads)
    import ham.run.build as run_build
    from ham.conf import compose
    from ham.index.encoders import BatchedEncoder
    from ham.run.sparse_first import ask_sparse_first

    stages: dict[str, float] = {}
    counted = {"strings": 0, "seconds": 0.0, "on": True}

    def timed(name, fn):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                stages[name] = stages.get(name, 0.0) + time.perf_counter() - t0
        return wrapper

    real_iter = BatchedEncoder.iter_encoded

    def iter_encoded(self, texts, desc="encode"):
        # time inside the encoder only (not the consumer's writes between batches)
        it = real_iter(self, texts, desc)
        while True:
            t0 = time.perf_counter()
            try:
                item = next(it)
            except StopIteration:
                counted["seconds"] += time.perf_counter() - t0
                return
            counted["seconds"] += time.perf_counter() - t0
            counted["strings"] += len(item[0])
            yield item

    BatchedEncoder.iter_encoded = iter_encoded
    run_build.load_configured_corpus = timed("ingest", run_build.load_configured_corpus)
    run_build.build_offline = timed("offline", run_build.build_offline)
    with tempfile.TemporaryDirectory() as cache:
        cfg = compose(overrides(corpus, encoder, Path(cache)), return_hydra_config=False)
        asks: list[float] = []
        real_ask = run_build.Pipeline.ask

        def ask(self, q):
            t0 = time.perf_counter()
            try:
                return real_ask(self, q)
            finally:
                asks.append(time.perf_counter() - t0)

        run_build.Pipeline.ask = ask   # the last ask is the full answer's (the first, with one, the preliminary's)
        preliminary = {}

        def on_preliminary(row, pending, root):
            preliminary.update(at=time.perf_counter() - started, answered=row.get("failure") is None)

        pipeline, row = ask_sparse_first(cfg, question, on_preliminary, with_evaluator=False)
    seconds = pipeline.info.get("seconds", {})
    units = {m: len(ix) for m, ix in pipeline.retriever.indexes.items()}
    represent = float(seconds.get("summaries", 0.0)) + float(seconds.get("descriptions", 0.0))
    return {"encoder": encoder, "model_id": pipeline.info.get("encoder"), "units": units,
            "strings": counted["strings"], "ingest": stages["ingest"], "represent": represent,
            "encode": counted["seconds"],
            "index": float(seconds.get("index", 0.0)) - counted["seconds"],
            "answer": asks[-1], "in_process": time.perf_counter() - started,
            "preliminary": preliminary.get("at"), "preliminary_answered": preliminary.get("answered"),
            "answered": row.get("failure") is None, "threads": threads}


def sample_strings(corpus: Path, n: int) -> list[str]:
    """``n`` of the manual's text and image unit strings as the default representation builds them."""
    from hydra.utils import instantiate

    from ham.cache import FolderCache
    from ham.conf import compose
    from ham.index.build import build_representer
    from ham.ingest.corpus import load_corpus
    from ham.run.build import offline_parts

    with tempfile.TemporaryDirectory() as cache:
        cfg = compose(overrides(corpus, "minilm", Path(cache)), return_hydra_config=False)
        built = load_corpus(corpus, FolderCache(cache), instantiate(cfg.units))
        representer, _ = build_representer(built, FolderCache(cache), offline_parts(cfg))
        strings = [representer(u) for u in built.units]
    return random.Random(0).sample(strings, min(n, len(strings)))


def strings_per_second(corpus: Path, encoders: list[str], n: int, repeat: int, threads: int) -> None:
    import torch
    from hydra.utils import instantiate

    from ham.conf import compose

    torch.set_num_threads(threads)
    texts = sample_strings(corpus, n)
    built = {}
    for name in encoders:
        with tempfile.TemporaryDirectory() as cache:
            built[name] = instantiate(compose(overrides(corpus, name, Path(cache)), return_hydra_config=False).encoder)
        built[name].encode(texts[:4])   # load and warm up
    runs: dict[str, list[float]] = {name: [] for name in encoders}
    vectors = {}
    for _ in range(repeat):
        for name, encoder in built.items():
            t0 = time.perf_counter()
            vectors[name] = encoder.encode(texts)
            runs[name].append(time.perf_counter() - t0)
    base = encoders[0]
    print(f"strings/s on {len(texts)} unit strings of {corpus.name} (mean {sum(map(len, texts)) / len(texts):.0f} "
          f"chars), torch threads {threads}, load {load()}:")
    for name in encoders:
        best = min(runs[name])
        cos = (vectors[name] * vectors[base]).sum(axis=1) if vectors[name].shape == vectors[base].shape else None
        close = f"cosine to {base}: mean {cos.mean():.4f}, min {cos.min():.4f}" if cos is not None else ""
        print(f"  {name:<14} {len(texts) / best:8.1f} strings/s   x{min(runs[base]) / best:5.2f}   "
              f"runs {', '.join(f'{t:.1f}' for t in runs[name])} s   {close}")


def first_seconds(row: dict) -> str:
    if row.get("preliminary") is None:
        return "-"
    return f"{row['wall'] - row['in_process'] + row['preliminary']:.0f}"


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, required=True, help="a manual's folder (dataset=custom)")
    parser.add_argument("--encoders", nargs="+", default=["minilm", "minilm_int8"], help="encoder options")
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each encoder, alternating")
    parser.add_argument("--sample", type=int, default=256, help="unit strings for strings/s (0: skip)")
    parser.add_argument("--skip-first-answer", action="store_true")
    parser.add_argument("--one", help=argparse.SUPPRESS)   # the child process: one encoder's ham-ask
    args = parser.parse_args()
    corpus = args.corpus.resolve()
    if args.one:
        print(json.dumps(first_answer(corpus, args.one, args.question, args.threads)))
        return
    if args.sample:
        strings_per_second(corpus, args.encoders, args.sample, args.repeat, args.threads)
    if args.skip_first_answer:
        return
    rows = []
    for _ in range(args.repeat):
        for name in args.encoders:
            before, t0 = load(), time.perf_counter()
            out = subprocess.run([sys.executable, __file__, "--corpus", str(corpus), "--one", name,
                                  "--question", args.question, "--threads", str(args.threads)],
                                 capture_output=True, text=True, cwd=ROOT)
            wall = time.perf_counter() - t0
            if out.returncode:
                raise SystemExit(f"ham-ask with encoder={name} failed:\n{out.stderr[-3000:]}")
            row = json.loads(out.stdout.strip().splitlines()[-1])
            rows.append({**row, "wall": wall, "load": f"{before} -> {load()}"})
            print(f"  done: {name} {wall:.0f} s", file=sys.stderr, flush=True)
    print(f"\nham-ask from an empty cache on {corpus.name}, torch threads {args.threads} (seconds):")
    print(f"{'encoder':<14}{'wall':>8}{'ingest':>8}{'repr':>7}{'encode':>8}{'strings':>9}{'str/s':>7}"
          f"{'index':>7}{'answer':>8}{'ratio':>7}{'first':>7}  load before -> after")
    best = {r["encoder"]: min(x["wall"] for x in rows if x["encoder"] == r["encoder"]) for r in rows}
    base = best[args.encoders[0]]
    for r in rows:
        print(f"{r['encoder']:<14}{r['wall']:8.0f}{r['ingest']:8.1f}{r['represent']:7.1f}{r['encode']:8.0f}"
              f"{r['strings']:9d}{r['strings'] / max(r['encode'], 1e-9):7.1f}{r['index']:7.1f}{r['answer']:8.2f}"
              f"{base / r['wall']:7.2f}{first_seconds(r):>7}  {r['load']}")
    print("first: seconds until the sparse-first (BM25) answer was printed, process start included")
    print(f"units {rows[0]['units']}; every run answered: {all(r['answered'] for r in rows)}; "
          f"every preliminary answered: {all(r['preliminary_answered'] for r in rows)}; "
          f"model ids: {sorted({r['model_id'] for r in rows})}")


if __name__ == "__main__":
    main()
