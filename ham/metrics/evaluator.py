"""Per-question scores of one prediction and the run's aggregate (``metrics.json``).

The run's metrics are ``metrics.names`` (the registry in ``ham/metrics/registry.py``); each is
computed on the question's ``Case`` with the resources it needs. A failed generation scores 0
on every generation metric (Overall Quality included, without asking the judge) and stays in the
denominator. A metric whose resource is absent is *not computed*: None for every question, and
``metrics.json`` says why (``judge=none``, or a judge without a prompt for it). A judge that
gives no valid verdict leaves that question's value None and is counted in ``n_failed``, with its
reasons (``failure_reasons``) beside the metric in ``metrics.json``.

Concurrency: every metric that needs the judge is a coroutine. ``ajudge(case)`` awaits all of a
question's judged metrics at once (each one's own calls at once too: context precision's verdict
per unit, answer accuracy's two ratings); ``score(case, judged)`` then computes the rest with those
values, and never calls a judge. The runner does this for every question in flight, on its event
loop, so judging is as concurrent as the judge client allows (``judge.client.concurrency``,
with its retries and request budget). ``__call__`` is the synchronous form for one question
(``ham.backends.aio.run_sync``: never ``asyncio.run`` inside a running loop).
"""
from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass
from typing import List, Optional

from ham.backends.aio import run_sync
from ham.datasets.questions import Question
from ham.answer import InterleavedAnswer
from ham.metrics.registry import METRICS_VERSION, Case, Metric, Resources, Scored, aggregate, ordered
from ham.settings import Content, Doc, Model, Range, setting

NO_JUDGE = "not computed: no judge configured (judge=none)"


@dataclass
class BertScoreSettings:
    """The BERTScore scorer, loaded only when a chosen metric needs it (``ham.metrics.bertscore``)."""

    model: str = setting("minilm", Model(), Doc("minilm (bundled), or roberta-large (bert-score's English default) "
                                                "with num_layers 17"))
    num_layers: Optional[int] = setting(None, Range(1), Doc("the layer scored (null: the bundled MiniLM's 6, "
                                                            "bert-score's default for a hub name, e.g. "
                                                            "roberta-large's 17; mandatory for a local path)"))
    batch_size: int = setting(32, Range(1))
    device: Optional[str] = setting(None, Doc("cuda when available, else cpu"))
    rescale_with_baseline: bool = setting(False, Doc("bert-score's baseline rescaling (needs baseline_path for "
                                                     "a local model)"))
    baseline_path: Optional[str] = setting(None, Content(), Doc("the baseline file for a local model"))


@dataclass
class MetricsSettings:
    """The ``metrics`` group: which registered metrics a run computes, and their settings."""

    names: List[str] = setting(default_factory=list, doc=Doc(
        "the metrics a run computes (ham/metrics/: one registered object each; docs/metrics.md lists them)"))
    img_cbs_window: int = setting(30, Range(1), Doc("words each side of an image (Img-CBS context)"))
    bertscore: BertScoreSettings = setting(default_factory=BertScoreSettings, doc=Doc("the BERTScore scorer"))


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
                 answer: InterleavedAnswer | None, pages: list[dict] | None = None,
                 ranking: list[dict] | None = None) -> dict:
        return self.score(Case(question, text, images, answer, pages=list(pages or []), ranking=list(ranking or [])))

    def judge_now(self, case: Case) -> dict[str, Scored]:
        """``ajudge`` from synchronous code (one question; its own event loop, ``run_sync``)."""
        async def judge_once():
            try:
                return await self.ajudge(case)
            finally:
                await self.aclose()
        return run_sync(judge_once) if self.async_judged else {}

    @property
    def async_judged(self) -> list[str]:
        """The chosen, computed metrics that ``ajudge`` scores: every one that needs the judge."""
        return [m.name for m in self.metrics if m.is_async and m.name not in self.not_computed]

    def bind_cpu(self, executor) -> None:
        """Where judged metrics run their CPU work (``Resources.on_cpu``): the runner's stage thread."""
        self.resources.cpu = executor

    async def ajudge(self, case: Case) -> dict[str, Scored]:
        """Every judged metric of one question, all their judge requests in flight together."""
        names = self.async_judged
        found = await asyncio.gather(*(self._metric(n).compute(case, self.resources) for n in names))
        return dict(zip(names, found))

    def _metric(self, name: str) -> Metric:
        return next(m for m in self.metrics if m.name == name)

    @property
    def judge_concurrency(self) -> int:
        """Judge requests the judge's client keeps in flight (1 without a judge)."""
        judge = self.resources.judge
        return max(1, int(judge.concurrency)) if judge is not None else 1

    async def aclose(self) -> None:
        if self.resources.judge is not None:
            await self.resources.judge.aclose()

    def score(self, case: Case, judged: dict[str, Scored] | None = None) -> dict:
        """Per-question values. ``judged``: what ``ajudge`` returned for this case (the runner
        passes it); None judges here first (``judge_now``)."""
        scores: dict = {}
        details: dict = {}
        judged = self.judge_now(case) if judged is None else judged
        for m in self.metrics:
            if m.name in self.not_computed:
                scores[m.name] = None
                continue
            if any((details.get(p) or {}).get("error") for p in m.after):
                scores[m.name] = case.scores[m.name] = None   # not a mean over fewer parts: failed too
                continue
            if m.is_async and m.name not in judged:
                raise RuntimeError(f"metric {m.name} needs the judge: await Evaluator.ajudge(case) first "
                                   "and pass its result (the runner does)")
            out = judged[m.name] if m.name in judged else m.compute(case, self.resources)
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
        for m in self.metrics:   # a derived metric fails where a judged part it reads failed (``score``)
            if m.after:
                failed[m.name] += sum(1 for q in per_question if q.get(m.name) is None and any(
                    ((q.get("judge") or {}).get(p) or {}).get("error") for p in m.after))
        metrics = aggregate(per_question, self.names, self.not_computed, dict(failed))
        reasons = self._judge_failures(per_question)
        for m in self.metrics:
            if m.name in self.not_computed:
                continue
            if "judge" in m.needs:
                metrics[m.name]["failure_reasons"] = dict(reasons.get(m.name, {}))
            if m.after:
                parts = [p for p in m.after if p in self.names and p not in self.not_computed]
                metrics[m.name]["parts"] = parts
                metrics[m.name]["parts_left_out"] = {p: self.not_computed.get(p, "not in metrics.names")
                                                     for p in m.after if p not in parts}
                # questions averaged over fewer parts than the run has (a part undefined or failed there)
                metrics[m.name]["n_partial"] = sum(1 for q in per_question if q.get(m.name) is not None
                                                   and any(q.get(p) is None for p in parts))
        scorer = self.resources.bertscore
        return {"n_questions": len(rows), "metrics_version": METRICS_VERSION, "failures": dict(failures),
                "n_failures": sum(failures.values()),
                "metrics": metrics, "bertscore_hash": getattr(scorer, "hash", None),
                "bertscore": getattr(scorer, "info", None), "judge": self.judge_summary(per_question)}

    @staticmethod
    def _judge_failures(per_question: list[dict]) -> dict[str, Counter]:
        """metric -> Counter of judge failure reasons (the error's first word: api_error, timeout,
        unparseable, ...)."""
        failures: dict[str, Counter] = {}
        for scores in per_question:
            for name, detail in (scores.get("judge") or {}).items():
                if detail.get("error"):
                    failures.setdefault(name, Counter())[detail["error"].split(":", 1)[0]] += 1
        return failures

    def judge_summary(self, per_question: list[dict]) -> dict:
        judge = self.resources.judge
        if judge is None:
            return {"backend": "none", "reason": NO_JUDGE}
        failures = self._judge_failures(per_question)
        cached = Counter()
        for scores in per_question:
            for name, detail in (scores.get("judge") or {}).items():
                cached[name] += bool(detail.get("cached"))
        return {**judge.info(), "failures": {m: sum(c.values()) for m, c in failures.items()},
                "failure_reasons": {m: dict(c) for m, c in failures.items()}, "cached": dict(cached)}


class FunctionEvaluator:
    """Scores each question with a plain function ``fn(question, text, images, answer) -> dict``
    (a notebook's own scorer); no judged metrics."""

    async_judged: list[str] = []
    judge_concurrency = 1

    def __init__(self, fn) -> None:
        self.fn = fn

    def __call__(self, question: Question, text: list[dict], images: list[dict],
                 answer: InterleavedAnswer | None, pages: list[dict] | None = None,
                 ranking: list[dict] | None = None) -> dict:
        return self.fn(question, text, images, answer)
