"""Per-question scores of one prediction and the run's aggregate (``metrics.json``)."""
from __future__ import annotations

from collections import Counter

from omegaconf import DictConfig

from ham.answer import InterleavedAnswer, parse_reference
from ham.metrics import aggregate
from ham.metrics.bertscore import ContextScorer, context_pairs
from ham.metrics.image import failed_prf, gold_text_recall, image_prf, image_retrieval_recall
from ham.questions import Question
from ham.retrieve import Retrieved


class Evaluator:
    """Per-question metrics; Img-CBS through one shared BERTScore scorer. A failed generation
    (``answer`` None) scores 0 on every generation metric."""

    def __init__(self, cfg: DictConfig) -> None:
        bs = cfg.bertscore
        self.window = int(cfg.img_cbs_window)
        self.scorer = ContextScorer(model=bs.model, num_layers=bs.num_layers, batch_size=bs.batch_size,
                                    device=bs.device, rescale_with_baseline=bs.rescale_with_baseline,
                                    baseline_path=bs.baseline_path)

    def __call__(self, q: Question, retrieved: Retrieved, answer: InterleavedAnswer | None) -> dict:
        reference = parse_reference(q.reference_answer) if q.reference_answer else None
        gold = q.gold_images
        scores: dict = {
            "ir": image_retrieval_recall(gold, [h.unit.image for h in retrieved.images]),
            "gold_text_recall": gold_text_recall(q.gold_text, [h.unit.content for h in retrieved.text]),
        }
        scores.update(image_prf(gold, answer.images) if answer is not None else failed_prf())
        if reference is None or not reference.images:
            scores["img_cbs"] = None
        else:
            pairs = context_pairs(answer, reference, self.window)
            f1 = self.scorer.f1([a for _, a, _ in pairs], [r for _, _, r in pairs])
            scores["img_cbs"] = sum(f1) / len(f1) if f1 else 0.0
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in scores.items()}

    def summary(self, rows: list[dict]) -> dict:
        failures = Counter(r["failure"]["reason"] for r in rows if r.get("failure"))
        return {"n_questions": len(rows), "failures": dict(failures), "n_failures": sum(failures.values()),
                "metrics": aggregate([r["metrics"] for r in rows]), "bertscore_hash": self.scorer.hash}
