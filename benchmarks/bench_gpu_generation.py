"""Batched bf16 generation with the ``hf`` backbone on a GPU: generated tokens per second at batch
sizes 8, 32 and 64 against batch size 1, on a Llama-shaped model built from a config with random
weights (nothing is downloaded; the speed of a forward pass does not depend on the weights).

    .venv/bin/python benchmarks/bench_gpu_generation.py [--hidden 2048 --layers 16 --new-tokens 128]

Where no CUDA GPU is present it says so and exits without measuring. Replies are fixed-length
(end-of-sequence disabled) so every batch size does the same work per prompt.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ham.generate.hf import HFGenerator  # noqa: E402
from ham.methods.base import Prompt  # noqa: E402
from ham.retrieve.retriever import Retrieved  # noqa: E402
from tests.support.tiny_models import TRAINING_TEXT, tiny_causal_lm  # noqa: E402


def prompts(n: int, words: int) -> list[Prompt]:
    vocabulary = " ".join(TRAINING_TEXT).split()
    out = []
    for i in range(n):
        text = " ".join(vocabulary[(i + j) % len(vocabulary)] for j in range(words + i % 17))
        out.append(Prompt(text, text, {}, Retrieved([], []), "bench", "bench"))
    return out


def tokens_per_second(gen: HFGenerator, batch: list[Prompt]) -> float:
    import torch

    gen.generate_batch(batch[: gen.batch_size])          # warm-up: kernels, allocator
    torch.cuda.synchronize()
    start = time.perf_counter()
    out = gen.generate_batch(batch)
    torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    failed = [g.error for g in out if g.error]
    if failed:
        raise SystemExit(f"generation failed: {failed[0]}")
    return sum(g.usage["completion_tokens"] for g in out) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hidden", type=int, default=2048)
    parser.add_argument("--layers", type=int, default=16)
    parser.add_argument("--heads", type=int, default=16)
    parser.add_argument("--prompt-words", type=int, default=200)
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--prompts", type=int, default=64)
    args = parser.parse_args()

    import torch

    if not torch.cuda.is_available():
        print(f"No CUDA GPU here (torch {torch.__version__}, cuda available: False): this benchmark "
              "measures batched bf16 generation on a GPU and was not run.")
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = tiny_causal_lm(Path(tmp) / "model", hidden=args.hidden, layers=args.layers, heads=args.heads,
                                max_positions=4096)
        batch = prompts(args.prompts, args.prompt_words)
        results = {}
        for size in (1, 8, 32, 64):
            gen = HFGenerator(str(folder), max_new_tokens=args.new_tokens, batch_size=size, device="cuda",
                              max_prompt_tokens=4096)
            gen.model.generation_config.eos_token_id = None   # fixed-length replies: equal work per prompt
            gen._eos = set()
            work = batch[: max(8, size)] if size == 1 else batch
            results[size] = tokens_per_second(gen, work)
            del gen
            torch.cuda.empty_cache()
        params = sum(p.numel() for p in HFGenerator(str(folder), device="cuda").model.parameters())
    print(f"{torch.cuda.get_device_name(0)}; Llama-shaped model, {params / 1e6:.0f}M parameters, bf16; "
          f"{args.new_tokens} new tokens per prompt")
    for size, rate in results.items():
        print(f"  batch {size:>2}: {rate:9.1f} tokens/s   {rate / results[1]:6.2f} x batch 1")


if __name__ == "__main__":
    main()
