"""Structural retrieval vs plain unit ranking on the demo questions: gold-text recall and image
recall at k = 1, 5, 15 (text) and 1, 5, 10 (images, k_v = 10), mean over the questions that have
gold of that kind. Uses the run's config (overrides as for `ham`), e.g.

    .venv/bin/python benchmarks/bench_retrieval_structural.py
    .venv/bin/python benchmarks/bench_retrieval_structural.py text_repr=st image_repr=li

Overrides of ``retrieval.ranker.*`` apply to the structural ranking only, e.g.
``retrieval.ranker.order=source``. Indexes come from (or go into) the shared cache, as in a run.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hydra.utils import instantiate  # noqa: E402

from ham.cache import FolderCache  # noqa: E402
from ham.cli.compose import compose_config  # noqa: E402
from ham.ingest.corpus import load_corpus  # noqa: E402
from ham.index.build import make_retriever, prepare  # noqa: E402
from ham.metrics.image import gold_text_recall, image_retrieval_recall  # noqa: E402
from ham.paths import resolve_path  # noqa: E402
from ham.datasets.questions import load_questions  # noqa: E402

TEXT_KS, IMAGE_KS = (1, 5, 15), (1, 5, 10)


def recalls(retriever, questions) -> dict[str, float]:
    sums: dict[str, list[float]] = {}
    for q in questions:
        query = retriever.query(q.question)
        text = [h.unit_id for h in retriever.ranked("text", query, max(TEXT_KS))]
        images = [h.unit_id for h in retriever.ranked("image", query, max(IMAGE_KS))]
        for k in TEXT_KS:
            r = gold_text_recall(q.gold_text, [retriever.units[u].content for u in text[:k]])
            if r is not None:
                sums.setdefault(f"text@{k}", []).append(r)
        for k in IMAGE_KS:
            r = image_retrieval_recall(q.gold_images, [retriever.units[u].image for u in images[:k]])
            if r is not None:
                sums.setdefault(f"image@{k}", []).append(r)
    return {name: sum(v) / len(v) for name, v in sums.items()} | {
        "n_text": len(sums.get("text@1", [])), "n_image": len(sums.get("image@1", []))}


def main(args: list[str]) -> None:
    ranker_overrides = [a for a in args if a.startswith("retrieval.ranker.")]  # structural run only
    overrides = [a for a in args if a not in ranker_overrides]
    cfg = compose_config(["progress=false", *overrides])
    cache = FolderCache(resolve_path(cfg.paths.cache_root, must_exist=False))
    corpus = load_corpus(resolve_path(cfg.dataset.path), cache)
    questions, _ = load_questions(resolve_path(cfg.dataset.questions))
    prepared = prepare(cfg, corpus, cache)
    plain = make_retriever(cfg, corpus, prepared)
    structural_cfg = compose_config(["progress=false", "retrieval=structural", *overrides, *ranker_overrides])
    structural = make_retriever(structural_cfg, corpus, prepared)
    rows = {"plain": recalls(plain, questions), "structural": recalls(structural, questions)}
    names = [f"text@{k}" for k in TEXT_KS] + [f"image@{k}" for k in IMAGE_KS]
    print(f"demo questions: {rows['plain']['n_text']} with gold text, {rows['plain']['n_image']} with gold images; "
          f"{prepared.representer.text.name}/{prepared.representer.image.name}, {prepared.encoder.model_id}, {cfg.retrieval.mode}")
    print(f"{'ranking':<12}" + "".join(f"{n:>10}" for n in names))
    for label, r in rows.items():
        print(f"{label:<12}" + "".join(f"{r[n]:>10.3f}" for n in names))
    ranker = instantiate(structural_cfg.retrieval.ranker)
    print(f"structural: per_section={ranker.per_section} weights={ranker.weights} expand={ranker.expand} "
          f"family_ratio={ranker.family_ratio} order={ranker.order}")


if __name__ == "__main__":
    main(sys.argv[1:])
