"""Throughput of the ``openai`` backbone against the loopback chat-completions server with a fixed
latency: achieved requests per second over the ideal ``concurrency / latency`` (target >= 0.9).

    .venv/bin/python benchmarks/bench_openai_throughput.py                 # 64 in flight, 100 ms
    .venv/bin/python benchmarks/bench_openai_throughput.py --concurrency 16 --rounds 20

Two figures, from one run each:
  backend  ``OpenAIGenerator.agenerate`` on ready-made prompts (the client alone);
  runner   ``ham.run.runner.answer_all`` with prompt assembly (LLM-Based), parsing and the
           predictions file, retrieval replaced by fixed evidence and scoring by a no-op.
The server runs in its own process so that its threads do not share the client's interpreter
lock. Both take a warm-up round first (connections opened), then time ``rounds * concurrency``
requests.
"""
from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ham.generate.openai_chat import OpenAIGenerator  # noqa: E402
from ham.ingest.builder import Block, TreeBuilder  # noqa: E402
from ham.methods.llm_based import LlmBasedMethod  # noqa: E402
from ham.datasets.questions import Question  # noqa: E402
from ham.run.runner import answer_all  # noqa: E402
from tests.support.chat_server import ChatServer  # noqa: E402
from tests.support.evidence import evidence  # noqa: E402

ANSWER = "Install the pump on a level concrete base.\n<img1>\nThen connect the motor leads."


def serve(latency: float, ready) -> None:
    with ChatServer(responder=lambda body: ANSWER, latency=latency) as server:
        ready.put(server.base_url)
        while True:
            time.sleep(3600)


def manual():
    b = TreeBuilder("manual", "Pump Manual", "manual.md", "markdown")
    for kind, text, extra in [("heading", "1. Installation", {"level": 1}),
                              ("text", "Install the pump on a level concrete base.", {}),
                              ("image", None, {"image": "img/base.png", "image_path": "img/base.png", "alt": "base"}),
                              ("text", "Connect the motor leads to the terminal block.", {})]:
        b.add(Block(kind, text, **extra) if text else Block(kind, **extra))
    return b.finish()


class FixedRetriever:
    def __init__(self, retrieved):
        self.retrieved = retrieved

    def retrieve(self, question):
        return self.retrieved


def bench_backend(base_url: str, concurrency: int, n: int) -> float:
    gen = OpenAIGenerator("bench", base_url=base_url, concurrency=concurrency, max_retries=0)
    prompt = LlmBasedMethod()("How do I install the pump?", evidence(manual()))

    async def main() -> float:
        try:
            await asyncio.gather(*(gen.agenerate(prompt) for _ in range(concurrency)))   # warm-up
            start = time.perf_counter()
            out = await asyncio.gather(*(gen.agenerate(prompt) for _ in range(n)))
            seconds = time.perf_counter() - start
        finally:
            await gen.aclose()
        failed = [g.error for g in out if g.error]
        if failed:
            raise SystemExit(f"{len(failed)} requests failed, e.g. {failed[0]}")
        return n / seconds
    return asyncio.run(main())


def bench_runner(base_url: str, concurrency: int, n: int) -> float:
    retriever = FixedRetriever(evidence(manual()))
    with tempfile.TemporaryDirectory() as tmp:
        def answer(count: int, name: str) -> float:
            gen = OpenAIGenerator("bench", base_url=base_url, concurrency=concurrency, max_retries=0)
            qs = [Question(f"{name}{i}", f"question {i}") for i in range(count)]
            start = time.perf_counter()
            rows = answer_all(qs, Path(tmp) / f"{name}.jsonl", retriever, LlmBasedMethod(), gen,
                              lambda q, r, a: {}, progress=False)
            seconds = time.perf_counter() - start
            if any(r["failure"] for r in rows):
                raise SystemExit("runner benchmark: some questions failed")
            return count / seconds
        answer(concurrency, "warm")
        return answer(n, "timed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds the server waits per request")
    parser.add_argument("--rounds", type=int, default=10, help="timed requests = rounds x concurrency")
    args = parser.parse_args()
    ready = mp.get_context("spawn").Queue()
    server = mp.get_context("spawn").Process(target=serve, args=(args.latency, ready), daemon=True)
    server.start()
    try:
        base_url = ready.get(timeout=60)
        ideal = args.concurrency / args.latency
        n = args.rounds * args.concurrency
        print(f"loopback server, {args.latency * 1000:.0f} ms latency, {args.concurrency} requests in flight, "
              f"{n} timed requests; ideal {ideal:.0f} requests/s")
        for name, bench in (("backend", bench_backend), ("runner", bench_runner)):
            achieved = bench(base_url, args.concurrency, n)
            verdict = "meets" if achieved / ideal >= 0.9 else "below"
            print(f"  {name:<8} {achieved:7.1f} requests/s   ratio {achieved / ideal:.3f}  ({verdict} the 0.9 target)")
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
