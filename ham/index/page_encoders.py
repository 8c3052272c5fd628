"""Page-image encoders (``conf/pages/``): a query and a page image become vectors.

Late interaction, one vector per token (``multi_vector``), scored by MaxSim
(``ham.index.late_interaction``), through transformers' own retrieval classes (colpali-engine
0.3.18 needs torchvision and transformers 5, which ham's stack cannot take):

``ColPaliEncoder``    ``ColPaliForRetrieval`` + ``ColPaliProcessor`` (PaliGemma; e.g.
                      ``vidore/colpali-v1.3-hf``)
``ColQwen2Encoder``   ``ColQwen2ForRetrieval`` + ``ColQwen2Processor``: Qwen2-VL checkpoints
                      (``vidore/colqwen2-v1.0-hf``) and, with the same class, Qwen2.5-VL ones
                      (ColQwen2.5): transformers 4.57's forward asks the vision tower for
                      ``get_dtype()``, which Qwen2.5-VL's tower does not have; the encoder gives that
                      one model instance the method (its parameters' dtype) and leaves the rest of
                      the forward as transformers wrote it

A page's vectors are every attended token of the processor's input (image patches and the
processor's prompt tokens, as the models score them); padding is dropped, so MaxSim never sees a
zero vector. A query's vectors are its attended tokens, the processor's query prefix and
augmentation tokens included.

Single vector, VisRAG-Ret's shape (``VisRAGEncoder``): the last hidden layer pooled by VisRAG's
position-weighted mean (token i of an attended sequence weighs i, counting from 1), L2-normalised;
queries carry VisRAG's instruction. ``interface="visrag"`` calls the model as VisRAG-Ret's own code
does (``model(text=..., image=..., tokenizer=...)`` returning ``last_hidden_state`` and
``attention_mask``; its remote code needs ``trust_remote_code``); ``interface="processor"`` runs any
transformers vision-language model folder (processor + ``AutoModelForImageTextToText``, hidden
states of the last layer).

Every encoder loads lazily, never downloads (``ham.backends.local.model_source``), runs on
``device`` (cuda when available) in ``dtype`` (bfloat16 on GPU, float32 on CPU unless set), in
batches of ``batch_size`` that halve on out-of-memory. Vectors come back as float32 numpy arrays.
``model_id`` is the weights' content hash (``kind:<hash>``), so caches survive a moved checkpoint.
"""
from __future__ import annotations

import logging
from typing import Annotated, Sequence

import numpy as np

from ham.backends.local import local_model_id, model_source, torch_device, torch_dtype
from ham.index.encoders import is_out_of_memory, torch_threads
from ham.settings import Doc, Model, NotResult, OneOf, Range

log = logging.getLogger("ham.index.page_encoders")
VISRAG_INSTRUCTION = "Represent this query for retrieving relevant documents: "
ENCODER_VERSION = "1"
MODEL = Annotated[str, Model(), Doc("a transformers-format folder or a hub id already in the HF cache (never "
                                    "downloaded)")]


class PageEncoder:
    """Batching, devices and dtypes; subclasses load a model and encode one batch."""

    kind = ""
    multi_vector = True

    def __init__(self, model: MODEL,
                 batch_size: Annotated[int, Range(1), Doc("page images per forward pass (halved on out of "
                                                          "memory)")] = 4,
                 device: Annotated[str | None, Doc("cuda when available, else cpu")] = None,
                 dtype: Annotated[str | None, OneOf("float32", "float16", "bfloat16"),
                                  Doc("the precision vectors are computed in; None: bfloat16 on GPU, float32 "
                                      "on CPU")] = None,
                 query_threads: Annotated[int | None, Range(1), Doc("CPU threads one query encode uses")] = 1) -> None:
        if batch_size < 1:
            raise ValueError(f"pages.encoder.batch_size must be >= 1, not {batch_size}")
        if dtype not in (None, "float32", "float16", "bfloat16"):
            raise ValueError(f"pages.encoder.dtype must be float32, float16, bfloat16 or null, not {dtype!r}")
        self.model_name, self.batch_size, self.dtype_name = model, batch_size, dtype
        self.device_name, self.query_threads = device, query_threads
        self._path: str | None = None
        self._loaded = None

    @property
    def path(self) -> str:
        if self._path is None:
            self._path = model_source(self.model_name)
        return self._path

    @property
    def model_id(self) -> str:
        """The weights' hash, the dtype the vectors are computed in (``dtype`` null resolves by
        device) and the encoding version."""
        dtype = str(torch_dtype(torch_device(self.device_name), self.dtype_name)).replace("torch.", "")
        return f"{local_model_id(self.kind, self.path)}/{dtype}/v{ENCODER_VERSION}"

    def loaded(self):
        if self._loaded is None:
            import torch

            device = torch_device(self.device_name)
            dtype = torch_dtype(device, self.dtype_name)
            with torch.no_grad():
                self._loaded = self._load(self.path, device, dtype)
            self.device = device
        return self._loaded

    def _load(self, path: str, device: str, dtype):
        raise NotImplementedError

    def _image_batch(self, images: list) -> list[np.ndarray]:
        raise NotImplementedError

    def _query_batch(self, texts: list[str]) -> list[np.ndarray]:
        raise NotImplementedError

    def _halving(self, items: Sequence, encode) -> list[np.ndarray]:
        import torch

        out: list[np.ndarray] = []
        start, size = 0, self.batch_size
        while start < len(items):
            batch = list(items[start:start + size])
            try:
                with torch.no_grad():
                    out.extend(encode(batch))
            except (RuntimeError, MemoryError) as exc:
                if size == 1 or not is_out_of_memory(exc):
                    raise
                size = max(1, size // 2)
                log.warning("%s: out of memory; page batch size halved to %d", self.model_name, size)
                if torch.cuda.is_available():
                    torch.cuda.empty_cache()
                continue
            start += len(batch)
        return out

    def encode_images(self, images: Sequence) -> list[np.ndarray]:
        """One (tokens, dim) float32 array per image (one row for a single-vector encoder)."""
        self.loaded()
        return self._halving(images, self._image_batch)

    def encode_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        self.loaded()
        with torch_threads(self.query_threads):
            return self._halving(texts, self._query_batch)


def _to_device(batch, device: str, dtype):
    import torch

    return {k: (v.to(device, dtype=dtype) if torch.is_floating_point(v) else v.to(device))
            for k, v in batch.items()}


def _attended(embeddings, mask) -> list[np.ndarray]:
    """Each row's attended token vectors as float32 numpy."""
    rows = []
    for emb, m in zip(embeddings, mask):
        rows.append(emb[m.bool()].float().cpu().numpy())
    return rows


class _LateInteraction(PageEncoder):
    model_class = ""
    processor_class = ""

    def _load(self, path: str, device: str, dtype):
        import transformers

        processor = getattr(transformers, self.processor_class).from_pretrained(path, local_files_only=True)
        model = getattr(transformers, self.model_class).from_pretrained(path, dtype=dtype, local_files_only=True)
        model = model.to(device).eval()
        self._adapt(model)
        self.dtype = dtype
        return processor, model

    def _adapt(self, model) -> None:
        """Per-backbone adjustments (none here)."""

    def _run(self, batch) -> list[np.ndarray]:
        processor, model = self.loaded()
        inputs = _to_device(batch, self.device, self.dtype)
        return _attended(model(**inputs).embeddings, inputs["attention_mask"])

    def _image_batch(self, images: list) -> list[np.ndarray]:
        processor, _ = self.loaded()
        return self._run(processor(images=[im.convert("RGB") for im in images], return_tensors="pt"))

    def _query_batch(self, texts: list[str]) -> list[np.ndarray]:
        processor, _ = self.loaded()
        return self._run(processor(text=list(texts), return_tensors="pt"))


class ColPaliEncoder(_LateInteraction):
    kind = "colpali"
    model_class, processor_class = "ColPaliForRetrieval", "ColPaliProcessor"

    def __init__(self, model: MODEL = "vidore/colpali-v1.3-hf", **settings) -> None:
        super().__init__(model, **settings)


class ColQwen2Encoder(_LateInteraction):
    kind = "colqwen2"
    model_class, processor_class = "ColQwen2ForRetrieval", "ColQwen2Processor"

    def __init__(self, model: MODEL = "vidore/colqwen2-v1.0-hf", **settings) -> None:
        super().__init__(model, **settings)

    def _adapt(self, model) -> None:
        visual = model.vlm.visual
        if not hasattr(visual, "get_dtype"):   # a Qwen2.5-VL tower (module docstring)
            visual.get_dtype = lambda: next(visual.parameters()).dtype


def weighted_mean(hidden, mask):
    """VisRAG's pooling: token i of an attended sequence weighs i (from 1), then L2 normalisation."""
    import torch

    weights = (mask * mask.cumsum(dim=1)).unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * weights).sum(dim=1) / weights.sum(dim=1)
    return torch.nn.functional.normalize(pooled.float(), p=2, dim=-1)


class VisRAGEncoder(PageEncoder):
    kind = "visrag"
    multi_vector = False

    def __init__(self, model: MODEL = "openbmb/VisRAG-Ret",
                 interface: Annotated[str, OneOf("visrag", "processor"), Doc(
                     "visrag: VisRAG-Ret's own model code; processor: any transformers VLM folder")] = "visrag",
                 query_instruction: Annotated[str, Doc("prefixed to every query")] = VISRAG_INSTRUCTION,
                 trust_remote_code: Annotated[bool, NotResult(
                     "whether a model's own code may run: the model loads, or the run stops saying why; what it "
                     "computes is the model's (pages.encoder.model)"), Doc(
                     "interface=visrag runs VisRAG-Ret's remote code only when true")] = False,
                 **settings) -> None:
        if interface not in ("visrag", "processor"):
            raise ValueError(f"pages.encoder.interface must be 'visrag' or 'processor', not {interface!r}")
        super().__init__(model, **settings)
        self.interface, self.query_instruction = interface, query_instruction
        self.trust_remote_code = trust_remote_code

    @property
    def model_id(self) -> str:
        return f"{super().model_id}/{self.interface}"

    def _load(self, path: str, device: str, dtype):
        self.dtype = dtype
        if self.interface == "processor":
            from ham.backends.local import load_vision_lm

            processor, model = load_vision_lm(path, device, dtype)
            processor.tokenizer.padding_side = "right"
            return processor, model
        if not self.trust_remote_code:
            raise ValueError(f"{self.model_name}: VisRAG-Ret runs its own model code; set "
                             "pages.encoder.trust_remote_code=true to allow it (or interface=processor)")
        from transformers import AutoModel, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=True, local_files_only=True)
        model = AutoModel.from_pretrained(path, dtype=dtype, trust_remote_code=True, local_files_only=True)
        return tokenizer, model.to(device).eval()

    def _pooled(self, hidden, mask) -> list[np.ndarray]:
        return [row[None, :] for row in weighted_mean(hidden, mask).cpu().numpy()]

    def _visrag(self, texts: list[str], images: list | None) -> list[np.ndarray]:
        tokenizer, model = self.loaded()
        out = model(text=texts, image=images if images is not None else [None] * len(texts), tokenizer=tokenizer)
        return self._pooled(out.last_hidden_state, out.attention_mask)

    def _processor(self, texts: list[str], images: list | None) -> list[np.ndarray]:
        processor, model = self.loaded()
        if images is not None:
            prompt = processor.apply_chat_template([{"role": "user", "content": [{"type": "image"}]}],
                                                   add_generation_prompt=False)
            batch = processor(text=[prompt] * len(images), images=images, return_tensors="pt", padding=True)
        else:
            batch = processor.tokenizer(texts, return_tensors="pt", padding=True)
        inputs = _to_device(batch, self.device, self.dtype)
        out = model(**inputs, output_hidden_states=True)
        return self._pooled(out.hidden_states[-1], inputs["attention_mask"])

    def _image_batch(self, images: list) -> list[np.ndarray]:
        images = [im.convert("RGB") for im in images]
        run = self._visrag if self.interface == "visrag" else self._processor
        return run([""] * len(images), images)

    def _query_batch(self, texts: list[str]) -> list[np.ndarray]:
        run = self._visrag if self.interface == "visrag" else self._processor
        return run([self.query_instruction + t for t in texts], None)
