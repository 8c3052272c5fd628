"""Throughput of the ``openai`` backbone against the loopback chat-completions server with a fixed
latency: achieved requests per second over the ideal ``concurrency / latency`` (targets: backend
>= 0.9, runner >= 0.85).

    .venv/bin/python benchmarks/bench_openai_throughput.py                 # 64 in flight, 100 ms
    .venv/bin/python benchmarks/bench_openai_throughput.py --concurrency 16 --rounds 20
    .venv/bin/python benchmarks/bench_openai_throughput.py --pin            # server on core 0, ham on core 1
    .venv/bin/python benchmarks/bench_openai_throughput.py --profile runner # cProfile of the runner loop

Figures, from one run each:
  raw      a bare aiohttp client (no SDK, no parsing): what the server and the machine allow
  backend  ``OpenAIGenerator.agenerate`` on ready-made prompts (the client alone)
  runner   ``ham.run.runner.answer_all`` through a ``Pipeline`` with prompt assembly (LLM-Based),
           parsing, scoring (image metrics) and the predictions file; retrieval is fixed evidence
The server runs in its own process so that its threads do not share the client's interpreter
lock; ``--pin`` puts it on its own core. Each figure takes a warm-up round first (connections
opened), then times ``rounds * concurrency`` requests. The runner's timed run is a whole
``answer_all`` (its event loop, new connections, the predictions file, closing), a fixed cost
printed beside it (measured on a run of ``concurrency`` questions); ``--rounds 30`` makes it a
smaller part of the figure, as it is of a real run. The load average is printed: on a shared two-core machine the
ratios move with it.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ham.backends.chat import ChatClient  # noqa: E402
from ham.generate.openai_chat import OpenAIGenerator  # noqa: E402
from ham.ingest.builder import Block, TreeBuilder  # noqa: E402
from ham.methods.llm_based import LlmBasedMethod  # noqa: E402
from ham.metrics.evaluator import Evaluator  # noqa: E402
from ham.datasets.questions import Question  # noqa: E402
from ham.run.pipeline import Pipeline  # noqa: E402
from ham.run.runner import answer_all  # noqa: E402
from tests.support.chat_server import ChatServer  # noqa: E402
from tests.support.evidence import evidence  # noqa: E402

LATENCY = 0.1   # set from --latency
ANSWER = "Install the pump on a level concrete base.\n<img1>\nThen connect the motor leads."


def serve(latency: float, ready, cpu: int | None) -> None:
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
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


def bench_raw(base_url: str, concurrency: int, n: int) -> float:
    import aiohttp

    body = json.dumps({"model": "bench", "messages": [{"role": "user", "content": "How do I install the pump?"}],
                       "max_tokens": 100}).encode()

    async def main() -> float:
        sem = asyncio.Semaphore(concurrency)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
            async def one():
                async with sem:
                    async with session.post(base_url + "/chat/completions", data=body,
                                            headers={"Content-Type": "application/json"}) as r:
                        await r.read()
            await asyncio.gather(*(one() for _ in range(concurrency)))
            start = time.perf_counter()
            await asyncio.gather(*(one() for _ in range(n)))
            return n / (time.perf_counter() - start)
    return asyncio.run(main())


def bench_backend(base_url: str, concurrency: int, n: int) -> float:
    gen = OpenAIGenerator(ChatClient("bench", base_url=base_url, concurrency=concurrency, max_retries=0))
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
    evaluator = Evaluator(["image_precision", "image_recall", "image_f1"])
    with tempfile.TemporaryDirectory() as tmp:
        def answer(count: int, name: str) -> float:
            gen = OpenAIGenerator(ChatClient("bench", base_url=base_url, concurrency=concurrency, max_retries=0))
            pipeline = Pipeline(retriever, LlmBasedMethod(), gen, evaluator)
            qs = [Question(f"{name}{i}", f"question {i}", gold_images=["img/base.png"]) for i in range(count)]
            start = time.perf_counter()
            rows = answer_all(qs, Path(tmp) / f"{name}.jsonl", pipeline, progress=False)
            seconds = time.perf_counter() - start
            if any(r["failure"] for r in rows):
                raise SystemExit(f"runner benchmark: some questions failed, e.g. {rows[0]['failure']}")
            return count / seconds
        warm = concurrency / answer(concurrency, "warm")
        print(f"  (runner start-up and close: {max(0.0, warm - LATENCY) * 1000:.0f} ms beyond one "
              f"latency round, measured on {concurrency} questions)")
        return answer(n, "timed")


BENCHES = {"raw": bench_raw, "backend": bench_backend, "runner": bench_runner}
TARGETS = {"raw": None, "backend": 0.9, "runner": 0.85}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds the server waits per request")
    parser.add_argument("--rounds", type=int, default=10, help="timed requests = rounds x concurrency")
    parser.add_argument("--pin", action="store_true", help="server on core 0, this process on core 1")
    parser.add_argument("--only", choices=list(BENCHES), action="append", help="run only these figures")
    parser.add_argument("--profile", choices=list(BENCHES), help="cProfile one figure (top 25 by own time)")
    args = parser.parse_args()
    global LATENCY
    LATENCY = args.latency
    cores = sorted(os.sched_getaffinity(0))
    pin = args.pin and len(cores) >= 2
    if pin:
        os.sched_setaffinity(0, {cores[1]})
    ready = mp.get_context("spawn").Queue()
    server = mp.get_context("spawn").Process(target=serve, args=(args.latency, ready, cores[0] if pin else None),
                                             daemon=True)
    server.start()
    try:
        base_url = ready.get(timeout=60)
        ideal = args.concurrency / args.latency
        n = args.rounds * args.concurrency
        load = os.getloadavg()[0]
        print(f"loopback server, {args.latency * 1000:.0f} ms latency, {args.concurrency} requests in flight, "
              f"{n} timed requests; ideal {ideal:.0f} requests/s; load {load:.2f} on {os.cpu_count()} cores"
              + ("; server pinned to core %d, ham to core %d" % (cores[0], cores[1]) if pin else ""))
        if args.profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.enable()
            achieved = BENCHES[args.profile](base_url, args.concurrency, n)
            profiler.disable()
            print(f"  {args.profile}: {achieved:.1f} requests/s under the profiler")
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
            return
        for name in args.only or list(BENCHES):
            achieved = BENCHES[name](base_url, args.concurrency, n)
            target = TARGETS[name]
            verdict = "" if target is None else \
                f"  ({'meets' if achieved / ideal >= target else 'below'} the {target} target)"
            print(f"  {name:<8} {achieved:7.1f} requests/s   ratio {achieved / ideal:.3f}{verdict}")
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
