"""Per-question scores of one prediction and the run's aggregate (``metrics.json``).

The run's metrics are ``metrics.names`` (the registry in ``ham/metrics/registry.py``); each is
computed on the question's ``Case`` with the resources it needs. A failed generation scores 0
on every generation metric (Overall Quality included, without asking the judge) and stays in the
denominator. A metric whose resource is absent is *not computed*: None for every question, and
``metrics.json`` says why (``judge=none``, or a judge without a prompt for it). A judge that
gives no valid verdict leaves that question's value None and is counted in ``n_failed``.
"""
from __future__ import annotations

from collections import Counter

from ham.datasets.questions import Question
from ham.generate.answer import InterleavedAnswer
from ham.metrics.registry import Case, Metric, Resources, Scored, aggregate, ordered

NO_JUDGE = "not computed: no judge configured (judge=none)"


class Evaluator:
    def __init__(self, names: list[str], judge=None, bertscore=None, encoder=None,
                 settings: dict | None = None) -> None:
        self.metrics: list[Metric] = ordered(list(names))
        self.resources = Resources(judge=judge, bertscore=bertscore, encoder=encoder, settings=dict(settings or {}))
        self.not_computed = {m.name: reason for m in self.metrics if (reason := self._missing(m))}

    @classmethod
    def from_config(cls, cfg, judge=None, encoder=None, bertscore=None) -> "Evaluator":
        """From the ``metrics`` config group; the BERTScore scorer is loaded only when a chosen
        metric needs it."""
        names = list(cfg.names)
        if bertscore is None and any("bertscore" in m.needs for m in ordered(names)):
            from ham.metrics.bertscore import ContextScorer

            bs = cfg.bertscore
            bertscore = ContextScorer(model=bs.model, num_layers=bs.num_layers, batch_size=bs.batch_size,
                                      device=bs.device, rescale_with_baseline=bs.rescale_with_baseline,
                                      baseline_path=bs.baseline_path)
        return cls(names, judge=judge, bertscore=bertscore, encoder=encoder,
                   settings={"img_cbs_window": int(cfg.img_cbs_window)})

    @property
    def names(self) -> list[str]:
        return [m.name for m in self.metrics]

    def _missing(self, m: Metric) -> str | None:
        judge = self.resources.judge
        if "judge" in m.needs:
            if judge is None:
                return NO_JUDGE
            lacking = [p for p in m.judge_prompts if p not in judge.prompts]
            if lacking:
                return f"not computed: judge {judge.model} has no prompt for {', '.join(lacking)}"
        if "bertscore" in m.needs and self.resources.bertscore is None:
            return "not computed: no BERTScore scorer"
        if "encoder" in m.needs and self.resources.encoder is None:
            return "not computed: no encoder"
        return None

    def __call__(self, question: Question, text: list[dict], images: list[dict],
                 answer: InterleavedAnswer | None) -> dict:
        return self.score(Case(question, text, images, answer))

    def score(self, case: Case) -> dict:
        scores: dict = {}
        details: dict = {}
        for m in self.metrics:
            if m.name in self.not_computed:
                scores[m.name] = None
                continue
            out = m.compute(case, self.resources)
            if isinstance(out, Scored):
                details[m.name] = out.detail
                out = out.value
            scores[m.name] = round(out, 6) if isinstance(out, float) else out
            case.scores[m.name] = out
        if details:
            scores["judge"] = details
        return scores

    def summary(self, rows: list[dict]) -> dict:
        failures = Counter(r["failure"]["reason"] for r in rows if r.get("failure"))
        per_question = [r["metrics"] for r in rows]
        failed = Counter(name for q in per_question for name, d in (q.get("judge") or {}).items() if d.get("error"))
        metrics = aggregate(per_question, self.names, self.not_computed, dict(failed))
        for m in self.metrics:
            if m.after and m.name not in self.not_computed:
                metrics[m.name]["parts"] = [p for p in m.after if p in self.names and p not in self.not_computed]
        scorer = self.resources.bertscore
        return {"n_questions": len(rows), "failures": dict(failures), "n_failures": sum(failures.values()),
                "metrics": metrics, "bertscore_hash": getattr(scorer, "hash", None),
                "bertscore": getattr(scorer, "info", None), "judge": self.judge_summary(per_question)}

    def judge_summary(self, per_question: list[dict]) -> dict:
        judge = self.resources.judge
        if judge is None:
            return {"backend": "none", "reason": NO_JUDGE}
        failures: dict[str, Counter] = {}
        cached = Counter()
        for scores in per_question:
            for name, detail in (scores.get("judge") or {}).items():
                if detail.get("error"):
                    failures.setdefault(name, Counter())[detail["error"].split(":", 1)[0]] += 1
                cached[name] += bool(detail.get("cached"))
        return {**judge.info(), "failures": {m: sum(c.values()) for m, c in failures.items()},
                "failure_reasons": {m: dict(c) for m, c in failures.items()}, "cached": dict(cached)}
