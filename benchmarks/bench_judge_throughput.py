"""Judging throughput: judge requests per second through the runner against the loopback
chat-completions server (a judge reply after a fixed latency), over the ideal
``concurrency / latency`` of the judge client (target >= 0.8 at 32 in flight), for two metric sets:

    quality    Overall Quality alone: one judge call per question
    topology   TCR@15, Overall Quality and every TopoGraphRAG-Bench judged metric (context
               precision per unit and joint, context recall, answer accuracy, faithfulness,
               response relevancy, step coverage): 13 calls per bridge-chain question, two of
               them waiting on another (faithfulness's statements, then their verdicts)

    .venv/bin/python benchmarks/bench_judge_throughput.py                  # 32 in flight, 100 ms
    .venv/bin/python benchmarks/bench_judge_throughput.py --concurrency 8 --rounds 20

The generator answers at once without a model (the extractive backbone's role, made async so
the runner's concurrent path is what is measured), so the time is the judge's: every judged
metric goes through ``Evaluator.ajudge`` and the judge's ``ChatClient``
(``judge.client.concurrency`` in flight). The server answers every prompt in its format
(``tests.support.topology_judge.ScriptedJudge``) from its own process. Nothing is cached (a
fresh cache folder). One warm-up round, then ``rounds * concurrency`` judge requests' worth of
questions are timed, as one whole ``answer_all`` (its start-up and close included).
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ham.backends.chat import ChatClient  # noqa: E402
from ham.datasets.questions import Question  # noqa: E402
from ham.generate.base import Generation, Generator  # noqa: E402
from ham.methods.llm_based import LlmBasedMethod  # noqa: E402
from ham.metrics.evaluator import Evaluator  # noqa: E402
from ham.metrics.judge import Judge  # noqa: E402
from ham.run.pipeline import Pipeline  # noqa: E402
from ham.run.runner import answer_all  # noqa: E402
from benchmarks.bench_openai_throughput import ANSWER, FixedRetriever, manual  # noqa: E402
from tests.support.chat_server import ChatServer  # noqa: E402
from tests.support.evidence import evidence  # noqa: E402

from tests.metrics.topology_cases import bridge  # noqa: E402
from tests.support.topology_judge import ScriptedJudge  # noqa: E402

SETS = {"quality": ["overall_quality"],
        "topology": ["tcr15", "overall_quality", "context_precision", "context_precision_joint", "context_recall",
                     "answer_accuracy", "faithfulness", "response_relevancy", "step_coverage"]}


def serve(latency: float, ready) -> None:
    with ChatServer(responder=ScriptedJudge(), latency=latency) as server:
        ready.put(server.base_url)
        while True:
            time.sleep(3600)


class InstantGenerator(Generator):
    """An async backbone that answers at once (no model, no request)."""

    model_id = "instant"
    is_async = True

    def __init__(self, batch_size: int) -> None:
        self.batch_size = batch_size

    async def agenerate(self, prompt) -> Generation:
        return Generation(ANSWER, self.model_id)


class HashEncoder:
    """Response relevancy's question vectors without a model (bag of hashed words)."""

    model_id = "hash"

    def encode(self, texts):
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, hash(w) % 64] += 1.0
        return out


def question(i: int, name: str, metric_set: str) -> Question:
    if metric_set == "quality":
        return Question(f"{name}{i}", f"question {i}", reference_answer="Install it on a base.")
    q = bridge(units=(("u-text",), ("u-image",)))
    q.id, q.question = f"{name}{i}", f"{q.question} ({i})"   # a new input each: nothing from the cache
    return q


def bench(base_url: str, concurrency: int, requests: int, metric_set: str) -> tuple[float, int]:
    """(judge requests per second, requests per question)."""
    retriever = FixedRetriever(evidence(manual()))
    names = SETS[metric_set]
    with tempfile.TemporaryDirectory() as tmp:
        def judged(count: int, name: str) -> tuple[float, int]:
            client = ChatClient("judge", base_url=base_url, api_key="k", temperature=0.0, max_retries=0,
                                concurrency=concurrency)
            prompts = {n: f"{n}_v1" for n in ("tcr15", "overall_quality", "context_precision", "context_recall",
                                               "answer_accuracy", "answer_accuracy_swapped",
                                               "faithfulness_statements", "faithfulness", "response_relevancy",
                                               "step_coverage")}
            judge = Judge(client, prompts, cache_root=Path(tmp) / name)
            evaluator = Evaluator(names, judge=judge, encoder=HashEncoder())
            pipeline = Pipeline(retriever, LlmBasedMethod(), InstantGenerator(concurrency), evaluator)
            qs = [question(i, name, metric_set) for i in range(count)]
            start = time.perf_counter()
            rows = answer_all(qs, Path(tmp) / f"{name}.jsonl", pipeline, progress=False)
            seconds = time.perf_counter() - start
            failed = [(r["id"], n) for r in rows for n in names if r["metrics"].get(n) is None
                      and (r["metrics"].get("judge") or {}).get(n, {}).get("error")]
            if failed:
                raise SystemExit(f"judging benchmark: {len(failed)} judgments failed, e.g. {failed[0]}")
            calls = sum((r["metrics"].get("judge") or {}).get(n, {}).get("calls", 1) for r in rows for n in names
                        if not (r["metrics"].get("judge") or {}).get(n, {}).get("skipped"))
            return calls / seconds, round(calls / count)
        per_question = judged(2, "probe")[1]
        judged(max(1, concurrency // per_question), "warm")
        return judged(max(1, requests // per_question), "timed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds the server waits per request")
    parser.add_argument("--rounds", type=int, default=10, help="timed requests = rounds x concurrency")
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    args = parser.parse_args()
    ready = mp.get_context("spawn").Queue()
    server = mp.get_context("spawn").Process(target=serve, args=(args.latency, ready), daemon=True)
    server.start()
    try:
        base_url = ready.get(timeout=60)
        ideal = args.concurrency / args.latency
        n = args.rounds * args.concurrency
        print(f"loopback judge, {args.latency * 1000:.0f} ms latency, {args.concurrency} judge requests in flight, "
              f"about {n} timed requests per metric set; ideal {ideal:.0f} requests/s; "
              f"load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
        for metric_set in args.sets:
            achieved, per_question = bench(base_url, args.concurrency, n, metric_set)
            ratio = achieved / ideal
            print(f"  {metric_set:9s} {per_question:3d} calls/question  {achieved:7.1f} requests/s   ratio {ratio:.3f}  "
                  f"({'meets' if ratio >= 0.8 else 'below'} the 0.8 target)")
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
