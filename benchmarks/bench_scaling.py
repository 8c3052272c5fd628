"""Scaling of indexing from 1k to 100k units: time per unit and peak memory, each size in a fresh
process. Synthetic structured documents (sections, procedures of steps, figures) go through the
real path: ``ct``/``si`` strings with lead summaries, streaming encode to dense.npy, BM25, faiss.

Encoders: ``static`` (default) is a real but cheap sentence-transformers model built here from
all-MiniLM-L6-v2's own token embeddings (``StaticEmbedding``: mean of contextless token vectors,
384-d); on 2 CPU cores MiniLM itself encodes ~50-100 ct strings/s, so 100k units would take over
half an hour. ``minilm`` runs the default encoder (use --sizes 1000 10000).

Printed per size: seconds per 1k units (total and encode alone), peak RSS above the process's RSS
before indexing, for the encode stage and for the whole indexing (the latter includes the faiss
index itself: n x 384 x 4 bytes for ``flat``, which is the index, not a leak).

    .venv/bin/python benchmarks/bench_scaling.py [--sizes 1000 10000 100000] [--encoder static|minilm]
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

WORDS = [a + b for a in ("ab", "cor", "del", "fin", "gal", "hex", "ion", "jur", "kel", "lum", "mor", "nex",
                         "ol", "pra", "qui", "ros", "sil", "tor", "ul", "ven")
         for b in ("ant", "ber", "cis", "dor", "est", "fal", "gon", "hil", "ith", "lon", "mar", "nol",
                   "ock", "pus", "rin", "sa", "tum", "ux", "vel", "zed")]


def synthetic_documents(n_units: int, seed: int = 0):
    """Documents of 5 sections, each with 2 paragraphs, a procedure of 4 steps and a figure
    (7 units per section, so 35 per document) until ``n_units`` units exist."""
    from ham.ingest.builder import Block, TreeBuilder

    rng = random.Random(seed)

    def sentence(n: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."

    docs, made, d = [], 0, 0
    while made < n_units:
        b = TreeBuilder(f"doc{d}", f"Manual {d} of the {rng.choice(WORDS)} unit", f"doc{d}.md", "markdown")
        for s in range(5):
            b.add(Block("heading", f"{s + 1}. {sentence(3)}", level=1))
            b.add(Block("text", sentence(25) + " " + sentence(20)))
            b.add(Block("text", sentence(30)))
            for _ in range(4):
                b.add(Block("step", sentence(15)))
            b.add(Block("end_steps"))
            b.add(Block("image", image=f"img/{d}_{s}.png", image_path=f"img/{d}_{s}.png", alt=sentence(4)))
            made += 7
        docs.append(b.finish())
        d += 1
    return docs


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
        # peak: since the last reset (a stage); overall: since start (the whole build), so timing a
        # stage never hides memory the build used before it
        self.proc, self.peak, self.overall, self.running = psutil.Process(), 0, 0, True

    def now(self) -> int:
        return self.proc.memory_info().rss

    def reset(self) -> int:
        self.peak = self.now()
        self.overall = max(self.overall, self.peak)
        return self.peak

    def run(self) -> None:
        while self.running:
            now = self.now()
            self.peak, self.overall = max(self.peak, now), max(self.overall, now)
            time.sleep(0.005)


def child(n: int, encoder_name: str, work: Path) -> dict:
    from ham.cache import FolderCache, KeyedStore
    from ham.ingest.corpus import Corpus
    from ham.enrich.descriptions import Descriptions
    from ham.index.encoders import SentenceTransformerEncoder
    from ham.index.dense import FlatSpec
    from ham.index.build import build_indexes
    from ham.represent.templates import ContextualImage, ContextualText, Representer
    from ham.enrich.summaries import LeadSummariser, summarise_sections
    from ham.units import build_units

    docs = synthetic_documents(n)
    units = [u for d in docs for u in build_units(d)][:n]
    corpus = Corpus(work, f"synthetic-{n}", docs, units, {})
    model = "minilm" if encoder_name == "minilm" else str(static_encoder_folder(work.parent / "static-minilm"))
    encoder = SentenceTransformerEncoder(model, batch_size=64)
    encoder.model.encode(["warm up"])
    sampler = PeakRSS()
    sampler.start()
    encode_stats = {}
    real_encode_to = encoder.encode_to

    def measured_encode_to(texts, folder, desc="encode"):
        base, start = sampler.reset(), time.perf_counter()
        out = real_encode_to(texts, folder, desc)
        encode_stats["seconds"] = encode_stats.get("seconds", 0.0) + time.perf_counter() - start
        encode_stats["peak_mb"] = max(encode_stats.get("peak_mb", 0.0), (sampler.peak - base) / 2**20)
        return out

    encoder.encode_to = measured_encode_to
    base, start = sampler.reset(), time.perf_counter()
    sampler.overall = base
    summaries = summarise_sections(docs, units, LeadSummariser(), KeyedStore(work, "unused"))
    representer = Representer(ContextualText(), ContextualImage(), Descriptions({}, "none"), summaries)
    build_indexes(corpus, representer, encoder, FolderCache(work / "cache"), FlatSpec(use_gpu=False))
    total = time.perf_counter() - start
    sampler.running = False
    return {"n": len(units), "seconds": total, "encode_seconds": encode_stats["seconds"],
            "peak_mb": (sampler.overall - base) / 2**20, "encode_peak_mb": encode_stats["peak_mb"]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--encoder", choices=["static", "minilm"], default="static")
    parser.add_argument("--child", type=int)
    parser.add_argument("--work")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.encoder, Path(args.work))))
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            work = Path(tmp) / f"n{n}"
            work.mkdir()
            out = subprocess.run([sys.executable, __file__, "--child", str(n), "--encoder", args.encoder,
                                  "--work", str(work)], capture_output=True, text=True, check=True)
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
            r = rows[-1]
            print(f"{r['n']:>7} units: {1000 * r['seconds'] / r['n']:.3f} s/1k units "
                  f"(encode {1000 * r['encode_seconds'] / r['n']:.3f}), peak +{r['peak_mb']:.0f} MB "
                  f"(encode stage +{r['encode_peak_mb']:.0f} MB)", flush=True)
    per_unit = [r["seconds"] / r["n"] for r in rows]
    print(f"encoder {args.encoder}: time per unit, largest / smallest size: {per_unit[-1] / per_unit[0]:.2f} "
          f"(target within 1.5x); encode-stage peak {rows[0]['encode_peak_mb']:.0f} -> "
          f"{rows[-1]['encode_peak_mb']:.0f} MB")


if __name__ == "__main__":
    main()
