"""Real page retrievers on a GPU machine: the checks CPU tests cannot make (they run tiny random
models), then grid=structure_vs_pixels on the demo's PDF and a ViDoRe set, printing the table.

    HF_HUB_OFFLINE=1 python benchmarks/gpu_visual_retrieval.py \\
        --colpali /models/colpali-v1.3-hf [--colqwen2 /models/colqwen2-v1.0-hf] \\
        [--visrag /models/VisRAG-Ret] [--vidore $HAM_DATA/vidore/vidore_v3_hr --limit 200] [--out DIR]

(``--device cpu`` with tiny random models is how this script itself is tested:
tests/integration/test_gpu_script.py, slow.)

Models are folders in transformers' format (or hub ids already in the local HF cache: nothing is
downloaded). Each must already be on the machine; ColQwen2.5 needs a converted checkpoint
(docs/visual_retrieval.md) and is passed as --colqwen2.

1. Real-model checks on the demo PDF's two pages, each printed with PASS / FAIL:
   - ham's ColPali/ColQwen2 encoder against transformers' own ``processor.score_retrieval`` on the
     same inputs (the multi-vector scores must agree to bf16/fp16 tolerance, and rank alike);
   - exact MaxSim of the stored index (float16 rows) against brute force on the encoder's float32
     vectors;
   - a relevant query ranks its own page first (the demo's questions name their gold page);
   - fp32 against bf16 encodings: the page ranking of every demo question is the same.
2. The grid's arms per dataset (``pages``: none, colpali_pages, colpali_pooled, colpali, and
   colqwen2 / visrag pages alone when given), run with ``ham.run.job.run`` on ``device=cuda``,
   ``dtype=bfloat16``; then ``ham-analyze``'s structure_vs_pixels table (nDCG@5/@10, page recall,
   evidence recall with 95% CIs beside index bytes and p50/p95 query latency) and the Pareto plot,
   printed and written under ``--out``.

Expected cost on one H200: the demo PDF in seconds; vidore_v3_hr's corpus (~1,100 pages) about a
minute per model to encode in bf16 at batch 16. ``--limit`` caps the questions, not the corpus.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

RESULTS: list[tuple[str, bool, str]] = []


def report(name: str, ok: bool, detail: str) -> None:
    RESULTS.append((name, ok, detail))
    print(f"  [{'PASS' if ok else 'FAIL'}] {name}: {detail}", flush=True)


def demo_pages(work: Path, dpi: int):
    """The demo PDF's page units and its questions (gold page per question)."""
    from ham.cache import FolderCache
    from ham.conf import compose
    from ham.datasets.questions import load_questions
    from ham.granularity import Blocks
    from ham.ingest.corpus import load_corpus
    from ham.ingest.pages import collect_pages
    from ham.paths import resolve_path

    cfg = compose(["dataset=demo_pdf"], return_hydra_config=False)
    cache = FolderCache(work / "cache")
    corpus = load_corpus(resolve_path(cfg.dataset.path), cache, Blocks())
    pages, _ = collect_pages(corpus, cache, dpi)
    questions, _ = load_questions(cfg.dataset.questions)
    return corpus, cache, pages, questions


def check_model(kind: str, model: str, work: Path, device: str, interface: str = "visrag") -> None:
    import torch

    from ham.datasets.pages import page_gold, page_keys
    from ham.images import open_image
    from ham.index import page_encoders
    from ham.retrieve.pages import PageRetrieval

    cls = {"colpali": page_encoders.ColPaliEncoder, "colqwen2": page_encoders.ColQwen2Encoder,
           "visrag": page_encoders.VisRAGEncoder}[kind]
    extra = {"trust_remote_code": True, "interface": interface} if kind == "visrag" else {}
    print(f"\n1. {kind}: {model}", flush=True)
    corpus, cache, pages, questions = demo_pages(work, 144)
    images = [open_image(Path(p.image_path)) for p in pages]
    texts = [q.question for q in questions]
    enc = cls(model, device=device, dtype="bfloat16", batch_size=8, **extra)
    started = time.perf_counter()
    page_vecs = enc.encode_images(images)
    if device == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - started
    query_vecs = enc.encode_queries(texts)
    print(f"  {len(pages)} pages encoded in {seconds:.2f} s (first call includes loading); "
          f"{np.mean([len(v) for v in page_vecs]):.0f} vectors/page of dim {page_vecs[0].shape[1]}")

    brute = np.array([[float((q @ p.T).max(axis=1).sum()) for p in page_vecs] for q in query_vecs])
    if enc.multi_vector:
        processor, _ = enc.loaded()
        reference = processor.score_retrieval([torch.from_numpy(q) for q in query_vecs],
                                              [torch.from_numpy(p) for p in page_vecs]).float().numpy()
        diff = float(np.abs(reference - brute).max() / max(1e-6, np.abs(reference).max()))
        report(f"{kind} MaxSim = processor.score_retrieval", diff < 1e-3 and
               (reference.argmax(1) == brute.argmax(1)).all(), f"largest relative difference {diff:.2e}")

    spec = PageRetrieval(enc, mode="pages", store_dtype="float16")
    paged, info = spec.attach(None, corpus, cache)
    stored = np.array([paged.index.scores(q) for q in query_vecs])
    order = [paged.index.position[p.page_id] for p in pages]
    diff = float(np.abs(stored[:, order] - brute).max() / max(1e-6, np.abs(brute).max()))
    report(f"{kind} stored float16 index = brute force float32", diff < 1e-2, f"largest relative difference {diff:.2e}, "
           f"{info['page_index']['bytes_per_item']:.0f} bytes/page")

    hits = []
    for row, q in zip(brute, questions):
        gold = {key for key, grade in page_gold(q).items() if grade > 0}
        if gold:
            best = pages[int(np.argmax(row))]
            hits.append(bool(page_keys(best.doc_id, best.page) & gold))
    report(f"{kind} gold page ranked first", bool(hits) and np.mean(hits) >= 0.75,
           f"{sum(hits)} of {len(hits)} demo questions (2 pages: chance is about half)")

    fp32 = cls(model, device=device, dtype="float32", batch_size=8, **extra)
    p32, q32 = fp32.encode_images(images), fp32.encode_queries(texts)
    brute32 = np.array([[float((q @ p.T).max(axis=1).sum()) for p in p32] for q in q32])
    same = (np.argsort(-brute32, axis=1) == np.argsort(-brute, axis=1)).all(axis=1).mean()
    report(f"{kind} bf16 ranks as fp32", same >= 0.875, f"{same:.0%} of questions rank the pages alike (a near tie may flip)")
    del enc, fp32
    if device == "cuda":
        torch.cuda.empty_cache()


def run_grid(dataset: list[str], arms: dict[str, list[str]], out: Path, limit: int | None, device: str) -> Path:
    from ham.conf import compose
    from ham.run.job import run

    common = ["grid=structure_vs_pixels", f"paths.output_root={out}", "progress=false", *dataset]
    if limit:
        common.append(f"limit={limit}")
    pages = [f"pages.encoder.device={device}", "pages.encoder.dtype=bfloat16", "pages.encoder.batch_size=16"]
    folder = None
    for arm, overrides in arms.items():
        started = time.perf_counter()
        folder = run(compose([*common, *overrides, f"encoder.device={device}", *(pages if arm != "none" else [])]))
        metrics = json.loads((folder / "metrics.json").read_text())["metrics"]
        show = {m: round(metrics[m]["mean"], 3) for m in ("ndcg_5", "ndcg_10", "page_recall_1", "page_recall_5")
                if m in metrics and metrics[m].get("mean") is not None}
        print(f"  {arm}: {time.perf_counter() - started:.0f} s, {show}", flush=True)
    return folder.parent.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--colpali", required=True)
    parser.add_argument("--colqwen2")
    parser.add_argument("--visrag")
    parser.add_argument("--visrag-interface", default="visrag", choices=("visrag", "processor"))
    parser.add_argument("--vidore", help="a ViDoRe BEIR set folder (corpus/, queries/, qrels/)")
    parser.add_argument("--limit", type=int, default=None, help="questions per run (the corpus is whole)")
    parser.add_argument("--out", default="outputs/gpu_visual_retrieval")
    parser.add_argument("--skip-checks", action="store_true")
    parser.add_argument("--device", default="cuda", help="cpu: a dry run of this script with tiny models")
    args = parser.parse_args()
    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("no CUDA device: this script is the GPU check (CPU: benchmarks/bench_visual_retrieval.py)")
    print(f"{torch.cuda.get_device_name(0) if args.device == 'cuda' else 'cpu'}, torch {torch.__version__}", flush=True)
    out = Path(args.out).resolve()
    models = {"colpali": args.colpali, "colqwen2": args.colqwen2, "visrag": args.visrag}
    if not args.skip_checks:
        for kind, model in models.items():
            if model:
                check_model(kind, model, out / "checks", args.device, args.visrag_interface)

    arms = {"none": ["pages=none"],
            "colpali_pages": ["pages=colpali_pages", f"pages.encoder.model={args.colpali}"],
            "colpali_pooled": ["pages=colpali_pooled", f"pages.encoder.model={args.colpali}"],
            "colpali": ["pages=colpali", f"pages.encoder.model={args.colpali}"]}
    if args.colqwen2:
        arms["colqwen2_pages"] = ["pages=colqwen2", "pages.mode=pages", f"pages.encoder.model={args.colqwen2}"]
    if args.visrag:
        arms["visrag_pages"] = ["pages=visrag", "pages.mode=pages", f"pages.encoder.model={args.visrag}",
                                "pages.encoder.trust_remote_code=true", f"pages.encoder.interface={args.visrag_interface}"]
    datasets = {"demo_pdf": []}
    if args.vidore:
        folder = Path(args.vidore).resolve()
        datasets[folder.name] = ["dataset=vidore", f"dataset.subset={folder.name}", f"dataset.path={folder}"]
    from ham_analysis.cli import analyze

    for name, overrides in datasets.items():
        print(f"\n2. grid=structure_vs_pixels on {name}", flush=True)
        runs = run_grid(overrides, arms, out / name, args.limit, args.device)
        written, problems = analyze([runs], out / name / "analysis", n_resamples=1000)
        for problem in problems:
            print(f"  analysis: {problem}")
        table = out / name / "analysis" / "structure_vs_pixels.md"
        print(table.read_text() if table.exists() else "  (no table written)")
        print("  written: " + ", ".join(str(p) for p in written if "pareto" in p.name or "pixels" in p.name))

    failed = [name for name, ok, _ in RESULTS if not ok]
    print(f"\nchecks: {len(RESULTS) - len(failed)} passed, {len(failed)} failed" + (f": {failed}" if failed else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
