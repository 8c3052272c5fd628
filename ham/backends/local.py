"""Local transformers models, one implementation for every stage that runs one (the HF generator
and VLM, the summariser, the describer, the judge, the CLIP filter, the encoders' ids):

    model_source(model)      a local folder, or a hub id already in the Hugging Face cache; nothing
                             is ever downloaded (a missing model is a FileNotFoundError saying so)
    folder_revision(path)    a short hash of a folder's file names and sizes, part of model ids
    torch_device / dtype     cuda when available, else cpu; bfloat16 on GPU, float32 on CPU
    load_causal_lm(...)      tokenizer (left padding, a pad token) and model in eval mode
    load_vision_lm(...)      processor (PIL image processing, no torchvision) and model

Generation itself (one EOS rule, over-length prompts, batching) is ``ham.generate.hf``.
"""
from __future__ import annotations

import hashlib
import logging
from pathlib import Path

log = logging.getLogger("ham.backends.local")


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
    from huggingface_hub.errors import HFValidationError, LocalEntryNotFoundError

    try:
        return snapshot_download(model, local_files_only=True)
    except (LocalEntryNotFoundError, HFValidationError, OSError) as exc:
        raise FileNotFoundError(f"model {model!r} is neither a folder nor in the Hugging Face cache "
                                f"(ham never downloads at run time): {exc}") from exc


def torch_device(device: str | None) -> str:
    import torch

    return device or ("cuda" if torch.cuda.is_available() else "cpu")


def torch_dtype(device: str, name: str | None = None):
    """``name`` (``float32``, ``bfloat16``...) when given, else bfloat16 on GPU and float32 on CPU."""
    import torch

    if name:
        return getattr(torch, name)
    return torch.bfloat16 if device.startswith("cuda") else torch.float32


def load_causal_lm(path: str, device: str, dtype):
    """(tokenizer, model) of a causal LM folder: left padding for batches, a pad token (the EOS
    token when the model has none), eval mode on ``device``."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    tokenizer.padding_side = "left"
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype, local_files_only=True).to(device).eval()
    if not tokenizer.chat_template:
        log.warning("%s has no chat template: prompts are sent as plain text", path)
    return tokenizer, model


def load_vision_lm(path: str, device: str, dtype):
    """(processor, model) of a vision-language model folder, the processor in its PIL ("slow")
    version, which needs no torchvision."""
    from transformers import AutoModelForImageTextToText, AutoProcessor

    try:
        processor = AutoProcessor.from_pretrained(path, use_fast=False, local_files_only=True)
    except ImportError as exc:   # e.g. Qwen2-VL's video processor imports torchvision
        raise ImportError(f"the processor of {path} needs a package that is missing ({exc}); for Qwen2/2.5-VL "
                          "that is torchvision, in the build that matches the installed torch (GPU "
                          "machines: pip install torchvision with the same CUDA tag as torch)") from exc
    processor.tokenizer.padding_side = "left"
    if processor.tokenizer.pad_token_id is None:
        processor.tokenizer.pad_token = processor.tokenizer.eos_token
    model = AutoModelForImageTextToText.from_pretrained(path, dtype=dtype, local_files_only=True).to(device).eval()
    return processor, model
