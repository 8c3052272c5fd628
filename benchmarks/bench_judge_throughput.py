"""Judging throughput: judged questions per second through the runner against the loopback
chat-completions server (a judge reply after a fixed latency), over the ideal
``concurrency / latency`` of the judge client (target >= 0.8 at 32 in flight).

    .venv/bin/python benchmarks/bench_judge_throughput.py                  # 32 in flight, 100 ms
    .venv/bin/python benchmarks/bench_judge_throughput.py --concurrency 8 --rounds 20

The generator answers at once without a model (the extractive backbone's role, made async so
the runner's concurrent path is what is measured), so the time is the judge's: each question
asks one judged metric, Overall Quality, through ``Evaluator.ajudge`` and the judge's
``ChatClient`` (``judge.client.max_concurrency`` in flight). Nothing is cached (a fresh cache
folder). The server runs in its own process. One warm-up round, then ``rounds * concurrency``
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

VERDICT = ("Correct. <correctness>4</correctness><completeness>4</completeness><grounding>5</grounding>"
           "<coherence>4</coherence><overall>4</overall>")


def serve(latency: float, ready) -> None:
    with ChatServer(responder=lambda body: VERDICT, latency=latency) as server:
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


def bench(base_url: str, concurrency: int, n: int) -> float:
    retriever = FixedRetriever(evidence(manual()))
    with tempfile.TemporaryDirectory() as tmp:
        def judged(count: int, name: str) -> float:
            client = ChatClient("judge", base_url=base_url, api_key="k", temperature=0.0, max_retries=0,
                                max_concurrency=concurrency)
            judge = Judge(client, {"overall_quality": "overall_quality_v1"}, cache_root=Path(tmp) / name)
            evaluator = Evaluator(["overall_quality"], judge=judge)
            pipeline = Pipeline(retriever, LlmBasedMethod(), InstantGenerator(concurrency), evaluator)
            qs = [Question(f"{name}{i}", f"question {i}", reference_answer="Install it on a base.")
                  for i in range(count)]
            start = time.perf_counter()
            rows = answer_all(qs, Path(tmp) / f"{name}.jsonl", pipeline, progress=False)
            seconds = time.perf_counter() - start
            bad = [r["metrics"]["judge"]["overall_quality"] for r in rows
                   if r["metrics"].get("overall_quality") != 4.0]
            if bad:
                raise SystemExit(f"judging benchmark: {len(bad)} questions not judged, e.g. {bad[0]}")
            return count / seconds
        judged(concurrency, "warm")
        return judged(n, "timed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds the server waits per request")
    parser.add_argument("--rounds", type=int, default=10, help="timed questions = rounds x concurrency")
    args = parser.parse_args()
    ready = mp.get_context("spawn").Queue()
    server = mp.get_context("spawn").Process(target=serve, args=(args.latency, ready), daemon=True)
    server.start()
    try:
        base_url = ready.get(timeout=60)
        ideal = args.concurrency / args.latency
        n = args.rounds * args.concurrency
        print(f"loopback judge, {args.latency * 1000:.0f} ms latency, {args.concurrency} judge requests in flight, "
              f"{n} timed questions (one judged metric each); ideal {ideal:.0f} questions/s; "
              f"load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
        achieved = bench(base_url, args.concurrency, n)
        ratio = achieved / ideal
        print(f"  judged   {achieved:7.1f} questions/s   ratio {ratio:.3f}  "
              f"({'meets' if ratio >= 0.8 else 'below'} the 0.8 target)")
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
