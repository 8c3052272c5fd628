"""Metrics: one registered object each (``registry.py``), the judges, and the evaluator.

    registry.py   Metric, @metric, the registry, aggregations, the per-question Case
    image.py      IR, gold-text recall, Image P / R / F1
    bertscore.py  Img-CBS (one shared BERTScore scorer)
    judged.py     TCR@15 and Overall Quality through the LLM judge
    average.py    Average Score (and the M Avg. parts used by analysis)
    structural.py judge-free retrieval metrics by exact gold unit ids, entity recall (topology)
    ragas_context.py, ragas_answer.py, step_coverage.py
                  TopoGraphRAG-Bench's judged metrics, RAGAS's formulas (topology.py: the
                  enriched reference, claims and steps they judge; judge_calls.py: several calls
                  behind one value)
    mramg.py      MRAMG-Bench's image ordering score, ROUGE-Lsum, answer BERTScore
    quotes.py     MMDocRAG's quote selection P / R / F1
    judge.py      the judge: chat backend, versioned prompts, strict parsing, cached verdicts
    evaluator.py  a run's chosen metrics (``metrics.names``) per question and their summary

Per-question values of None are left out of the aggregate and the number of questions used is
reported beside every one. None means *undefined* for that question (IR or Img-CBS without
reference images) or, for a judged metric, that the judge gave no valid score (counted as
``n_failed``). A metric whose resource is absent (``judge=none``) is *not computed*: its summary
says so with the reason instead of a value.
"""
from ham.metrics.registry import AGGREGATIONS, Case, Metric, Resources, Scored, aggregate, metric, registry

__all__ = ["AGGREGATIONS", "Case", "Metric", "Resources", "Scored", "aggregate", "metric", "registry"]
