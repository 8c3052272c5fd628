"""Per-question scores of one prediction and the run's aggregate (``metrics.json``).

A ``QuestionCase`` holds what the metrics look at: the question with its gold annotations, the
retrieved text and images, and the parsed answer (None for a failed generation). Scorers, listed
in ``Evaluator.scorers``, each add their metrics to a question's scores:

    image_set_scores     IR, gold-text recall, Image P/R/F1           (ham/metrics/image.py)
    ContextScores        Img-CBS through one shared BERTScore scorer   (ham/metrics/bertscore.py)
    JudgedScores         TCR@15 and Overall Quality via the LLM judge (ham/metrics/judge.py)
    average_score        per-question mean of Img-F1, Img-CBS, Qual./5 (ham/metrics/__init__.py)

A failed generation scores 0 on every generation metric (Overall Quality included, without asking
the judge) and stays in the denominator. Without a judge (``judge=none``) the judged metrics are
None for every question and ``metrics.json`` marks them not computed, with the reason.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from omegaconf import DictConfig

from ham.generate.answer import InterleavedAnswer, parse_reference
from ham.metrics import AVERAGE_SCORE_PARTS, REGISTRY, aggregate, average_score
from ham.metrics.bertscore import ContextScorer, context_pairs
from ham.metrics.image import failed_prf, gold_text_recall, image_prf, image_retrieval_recall
from ham.metrics.judge import Judge, build_judge
from ham.datasets.questions import Question
from ham.retrieve.retriever import Retrieved

TCR_K = 15   # TCR@15 judges the top 15 retrieved text units as one set
NO_JUDGE = "not computed: no judge configured (judge=none)"


@dataclass
class QuestionCase:
    question: Question
    text_hits: list[dict]      # {heading_path, text, score}, in rank order
    image_hits: list[dict]     # {image, caption, score}, in rank order
    answer: InterleavedAnswer | None

    @property
    def reference(self) -> InterleavedAnswer | None:
        return parse_reference(self.question.reference_answer) if self.question.reference_answer else None

    @classmethod
    def from_retrieved(cls, q: Question, retrieved: Retrieved, answer: InterleavedAnswer | None) -> "QuestionCase":
        text = [{"heading_path": h.unit.heading_path, "text": h.unit.content, "score": h.score} for h in retrieved.text]
        images = [{"image": h.unit.image, "caption": h.unit.caption or h.unit.alt, "score": h.score}
                  for h in retrieved.images]
        return cls(q, text, images, answer)

    @classmethod
    def from_row(cls, q: Question, row: dict) -> "QuestionCase":
        """From a line of ``predictions.jsonl`` (to score a finished run again)."""
        answer = InterleavedAnswer.from_dict(row["answer"]) if row.get("answer") else None
        return cls(q, row.get("retrieved_text", []), row.get("retrieved_images", []), answer)


def image_set_scores(case: QuestionCase) -> dict:
    gold = case.question.gold_images
    scores = {"ir": image_retrieval_recall(gold, [h["image"] for h in case.image_hits]),
              "gold_text_recall": gold_text_recall(case.question.gold_text, [h["text"] for h in case.text_hits])}
    scores.update(image_prf(gold, case.answer.images) if case.answer is not None else failed_prf())
    return scores


class ContextScores:
    def __init__(self, scorer: ContextScorer, window: int) -> None:
        self.scorer, self.window = scorer, window

    def __call__(self, case: QuestionCase) -> dict:
        reference = case.reference
        if reference is None or not reference.images:
            return {"img_cbs": None}
        pairs = context_pairs(case.answer, reference, self.window)
        f1 = self.scorer.f1([a for _, a, _ in pairs], [r for _, _, r in pairs])
        return {"img_cbs": sum(f1) / len(f1) if f1 else 0.0}


# ---- what each judged metric shows its judge -------------------------------------------------

def _render(answer: InterleavedAnswer | None, captions: dict[str, str]) -> str:
    if answer is None:
        return "(none)"
    parts = [s.text if s.type == "text" else f"[IMAGE: {s.image} | {captions.get(s.image) or s.text or 'no caption'}]"
             for s in answer.segments]
    return "\n".join(p for p in parts if p.strip())


def _passages(hits: list[dict]) -> str:
    return "\n\n".join(f"[{i}] ({' > '.join(h.get('heading_path') or []) or 'no heading'})\n{h['text']}"
                       for i, h in enumerate(hits, 1)) or "(none)"


def tcr_fields(case: QuestionCase) -> dict[str, str]:
    return {"question": case.question.question, "reference": _render(case.reference, {}),
            "evidence": _passages(case.text_hits[:TCR_K])}


def quality_fields(case: QuestionCase) -> dict[str, str]:
    captions = {h["image"]: h.get("caption") or "" for h in case.image_hits}
    images = "\n".join(f"[IMAGE: {h['image']} | {h.get('caption') or 'no caption'}]" for h in case.image_hits)
    evidence = _passages(case.text_hits) + ("\n\nImages:\n" + images if images else "")
    return {"question": case.question.question, "reference": _render(case.reference, {}),
            "evidence": evidence, "answer": _render(case.answer, captions)}


@dataclass(frozen=True)
class JudgedMetric:
    fields: Callable[[QuestionCase], dict[str, str]]
    zero_if_generation_failed: bool   # a generation metric: 0 for a failed generation, judge not asked


JUDGED_METRICS = {"tcr15": JudgedMetric(tcr_fields, False),
                  "overall_quality": JudgedMetric(quality_fields, True)}


class JudgedScores:
    """One judged metric; per-question detail goes under ``scores["judge"][metric]``."""

    def __init__(self, judge: Judge, metric: str) -> None:
        self.judge, self.metric, self.spec = judge, metric, JUDGED_METRICS[metric]

    def __call__(self, case: QuestionCase) -> dict:
        if case.answer is None and self.spec.zero_if_generation_failed:
            return {self.metric: 0.0, "judge": {self.metric: {"skipped": "generation failed: scored 0"}}}
        judgment = self.judge.judge(self.metric, self.spec.fields(case))
        return {self.metric: judgment.value, "judge": {self.metric: judgment.to_dict()}}


class Evaluator:
    """Per-question metrics and the run summary. ``judge_cfg`` is the ``judge`` config group."""

    def __init__(self, cfg: DictConfig, judge_cfg=None, cache_root: str | Path = "outputs/cache",
                 judge: Judge | None = None, scorer: ContextScorer | None = None) -> None:
        bs = cfg.bertscore
        self.scorer = scorer or ContextScorer(model=bs.model, num_layers=bs.num_layers, batch_size=bs.batch_size,
                                              device=bs.device, rescale_with_baseline=bs.rescale_with_baseline,
                                              baseline_path=bs.baseline_path)
        self.judge = judge if judge is not None else build_judge(judge_cfg, cache_root)
        judged = [m for m in JUDGED_METRICS if self.judge is not None and m in self.judge.prompts]
        self.not_computed = {m: (f"not computed: judge {self.judge.model} has no prompt for {m}" if self.judge
                                 else NO_JUDGE) for m in JUDGED_METRICS if m not in judged}
        self.scorers = [image_set_scores, ContextScores(self.scorer, int(cfg.img_cbs_window)),
                        *(JudgedScores(self.judge, m) for m in judged)]

    def __call__(self, q: Question, retrieved: Retrieved, answer: InterleavedAnswer | None) -> dict:
        return self.score(QuestionCase.from_retrieved(q, retrieved, answer))

    def score(self, case: QuestionCase) -> dict:
        scores: dict = {name: None for name in self.not_computed}
        details: dict = {}
        for scorer in self.scorers:
            out = scorer(case)
            details.update(out.pop("judge", {}))
            scores.update(out)
        scores["average_score"] = average_score(scores)
        scores = {k: (round(v, 6) if isinstance(v, float) else v) for k, v in scores.items()}
        if details:
            scores["judge"] = details
        return scores

    def summary(self, rows: list[dict]) -> dict:
        failures = Counter(r["failure"]["reason"] for r in rows if r.get("failure"))
        per_question = [r["metrics"] for r in rows]
        metrics = aggregate(per_question, list(REGISTRY), self.not_computed)
        metrics["average_score"]["parts"] = [m for m in AVERAGE_SCORE_PARTS if m not in self.not_computed]
        return {"n_questions": len(rows), "failures": dict(failures), "n_failures": sum(failures.values()),
                "metrics": metrics, "bertscore_hash": self.scorer.hash, "bertscore": self.scorer.info,
                "judge": self.judge_summary(per_question)}

    def judge_summary(self, per_question: list[dict]) -> dict:
        if self.judge is None:
            return {"backend": "none", "reason": NO_JUDGE}
        failures: dict[str, Counter] = {}
        cached = Counter()
        for scores in per_question:
            for metric, detail in (scores.get("judge") or {}).items():
                if detail.get("error"):
                    failures.setdefault(metric, Counter())[detail["error"].split(":", 1)[0]] += 1
                cached[metric] += bool(detail.get("cached"))
        return {**self.judge.info(), "failures": {m: sum(c.values()) for m, c in failures.items()},
                "failure_reasons": {m: dict(c) for m, c in failures.items()}, "cached": dict(cached)}

