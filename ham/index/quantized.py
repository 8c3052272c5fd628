"""int8 encoders on a CPU (``encoder=minilm_int8``): a sentence-transformers model's Linear layers
quantised with torch's dynamic quantisation, weights per output channel and activations per batch,
so the matrix products run on int8 (VNNI / AVX2) kernels. Nothing is downloaded or trained: the
fp32 weights in the model folder are rounded when the model loads.

Per-channel weights matter: per-tensor weights (torch's default dynamic qconfig) gave MiniLM
embeddings a cosine of 0.93 on average to fp32's on 48 long PostgreSQL-manual strings (0.88 at
worst); per channel, 0.98 (0.965 at worst over 128 such strings). The embeddings are not fp32's, so the encoder's id
carries ``QUANTISATION`` and no cache key or run id mixes the two.

Each string is encoded alone. Activations are quantised per batch (their scale is the whole padded
batch's), so in a batch a string's vector depends on the strings beside it: on 400 devbench
passages, batches of 64 and one at a time agreed to a cosine of 0.92 at worst, and which strings
share a batch depends on what the embeddings cache already held. Alone it is a function of the
string, and faster on the CPU (9.1 s against 15.1 s for those 400, no padding).
"""
from __future__ import annotations

import warnings

from ham.index.encoders import SentenceTransformerEncoder

QUANTISATION = "int8-dynamic-per-channel-v2-alone"   # enters the model id: change it when the recipe changes


def check_cpu(device: str | None) -> None:
    if device is not None and not str(device).startswith("cpu"):
        raise ValueError(f"encoder=minilm_int8 runs on the CPU only (torch dynamic quantisation), not on "
                         f"{device}: use encoder=minilm there")


def quantise_int8(model):
    """``model`` (a torch module, e.g. a SentenceTransformer) on the CPU with every ``nn.Linear``
    replaced in place by a dynamically quantised int8 one (per-channel weights)."""
    import torch
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    if not any(isinstance(m, torch.nn.Linear) for m in model.modules()):
        raise ValueError(f"{type(model).__name__} has no Linear layers to quantise to int8")
    with warnings.catch_warnings():
        # torch.ao.quantization is deprecated in favour of torchao, which is not installed here
        warnings.simplefilter("ignore")
        quantize_dynamic(model.cpu(), {torch.nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8,
                         inplace=True)
    return model


class Int8SentenceTransformerEncoder(SentenceTransformerEncoder):
    """A sentence-transformers model (``minilm`` by default) quantised to int8 when it loads; its
    settings are SentenceTransformerEncoder's, its model id is the fp32 one plus ``QUANTISATION``."""

    model_batch = 1   # each string alone (module docstring)

    def __init__(self, **settings) -> None:
        super().__init__(**settings)
        check_cpu(self.device)
        self.model_id = f"{self.model_id}+{QUANTISATION}"

    @property
    def model(self):
        if self._model is None:
            from sentence_transformers import SentenceTransformer

            self._model = quantise_int8(SentenceTransformer(str(self.path), device="cpu"))
            if self.max_seq_length:
                self._model.max_seq_length = self.max_seq_length
        return self._model
