"""A local vision-language model (Qwen2.5-VL, LLaVA, ...) through ``AutoProcessor`` and
``AutoModelForImageTextToText``, for ``mllm_based`` prompts: each attached image goes where its
``[[image:N]]`` marker sits, as an image entry of the chat template. Batching, left padding,
dtype and failures as in ``ham.generate.hf``. Image processors are loaded in their PIL ("slow")
versions, which need no torchvision; Qwen2/2.5-VL processors in transformers 4.57 also build a
video processor that does (a clear error says so). An unreadable image fails its prompt
(``bad_input``), not the run.
"""
from __future__ import annotations

from typing import Annotated

from ham.backends.local import load_vision_lm
from ham.generate.hf import HFGenerator
from ham.settings import Doc, Model, Range


class HFVisionGenerator(HFGenerator):
    def __init__(self, model: Annotated[str, Model(), Doc("a local VLM folder or a hub id in the HF cache")],
                 max_new_tokens: Annotated[int, Range(1)] = 1024,
                 batch_size: Annotated[int, Range(1), Doc("prompts per padded batch")] = 4, **kwargs) -> None:
        super().__init__(model, max_new_tokens=max_new_tokens, batch_size=batch_size, **kwargs)

    def _load(self, path: str) -> None:
        self.processor, self.model = load_vision_lm(path, self.device, self.dtype)
        self.tokenizer = self.processor.tokenizer

    def _render(self, prompt) -> str:
        parts = prompt.parts() if hasattr(prompt, "parts") else [("text", prompt.text)]
        content = [{"type": "text", "text": value} if kind == "text" else {"type": "image"} for kind, value in parts]
        return self.processor.apply_chat_template([{"role": "user", "content": content}],
                                                  add_generation_prompt=True, tokenize=False)

    def _encode(self, prompts: list, rendered: list[str]):
        images = [value.load() for p in prompts if hasattr(p, "parts") for kind, value in p.parts() if kind == "image"]
        return self.processor(text=rendered, images=images or None, padding=True, return_tensors="pt")
