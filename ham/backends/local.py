"""Plumbing shared by the summariser and describer backends: concurrent OpenAI-compatible chat
calls through ``ham.backends.chat.ChatClient``, and batched greedy generation with a local transformers
model. Nothing here downloads: local models load from a folder or the Hugging Face cache only."""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Sequence

from ham.enrich.calls import CallResult
from ham.backends.chat import ChatClient


def chat_many(client: ChatClient, conversations: Sequence[list[dict]]) -> list[CallResult]:
    """One chat call per conversation (the client bounds concurrency); errors become results."""
    return [CallResult(r.text, r.error) for r in client.chat_many(list(conversations))]


def folder_revision(path: Path) -> str:
    """A short content hash of a model folder's file names and sizes (part of model ids)."""
    h = hashlib.sha256()
    for f in sorted(path.rglob("*")):
        if f.is_file():
            h.update(f"{f.relative_to(path)}:{f.stat().st_size}".encode())
    return h.hexdigest()[:12]


def model_source(model: str) -> str:
    """A local folder, or a hub id that must already be in the Hugging Face cache."""
    if Path(model).expanduser().exists():
        return str(Path(model).expanduser())
    from huggingface_hub import snapshot_download

    try:
        return snapshot_download(model, local_files_only=True)
    except Exception as exc:  # huggingface_hub raises several kinds for "not cached"
        raise FileNotFoundError(f"model {model!r} is neither a folder nor in the Hugging Face cache "
                                f"(ham never downloads at run time): {exc}") from exc


def torch_device(device: str | None) -> str:
    import torch

    return device or ("cuda" if torch.cuda.is_available() else "cpu")


def torch_dtype(device: str):
    import torch

    return torch.bfloat16 if device.startswith("cuda") else torch.float32


def generate_new_text(model, tokenizer, inputs: dict, max_new_tokens: int) -> list[str]:
    """Greedy generation for a left-padded batch; returns only the newly generated text."""
    import torch

    inputs = {k: v.to(model.device) for k, v in inputs.items() if k != "token_type_ids"}
    with torch.inference_mode():
        out = model.generate(**inputs, max_new_tokens=max_new_tokens, do_sample=False,
                             pad_token_id=tokenizer.pad_token_id)
    new_tokens = out[:, inputs["input_ids"].shape[1]:]
    return [t.strip() for t in tokenizer.batch_decode(new_tokens, skip_special_tokens=True)]


def chat_prompt(tokenizer_or_processor, content, fallback: str) -> str:
    """The model's chat template applied to one user turn, or ``fallback`` when it has none."""
    if getattr(tokenizer_or_processor, "chat_template", None):
        return tokenizer_or_processor.apply_chat_template(
            [{"role": "user", "content": content}], add_generation_prompt=True, tokenize=False)
    return fallback
