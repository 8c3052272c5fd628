"""A local model is identified by the content of its files: moving or renaming a checkpoint keeps
its id (and every cache keyed by it), retraining it in place changes them."""
from __future__ import annotations

import json
import os
import shutil

import numpy as np

from ham.backends.local import local_model_id, minilm_path, weights_hash
from ham.conf import compose
from ham.index.encoders import SentenceTransformerEncoder
from ham.run.identity import model_identity, run_id


def _retrain_in_place(folder) -> None:
    """Same architecture, same file size, other weights: every float32 tensor of the safetensors
    file scaled in place (its header, and so its size, unchanged), written anew."""
    weights = folder / "model.safetensors"
    data = bytearray(weights.read_bytes())
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    for name, spec in header.items():
        if name != "__metadata__" and spec["dtype"] == "F32":
            a, b = (8 + n + o for o in spec["data_offsets"])
            data[a:b] = (np.frombuffer(bytes(data[a:b]), dtype=np.float32) * np.float32(1.05)).tobytes()
    weights.write_bytes(bytes(data))
    stat = weights.stat()
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))


def test_moving_a_checkpoint_keeps_its_id_and_retraining_it_changes_it(tmp_path, monkeypatch):
    monkeypatch.setenv("HAM_HASH_MEMO", str(tmp_path / "memo"))
    original = tmp_path / "ckpt" / "encoder-v1"
    shutil.copytree(minilm_path(), original)
    first = SentenceTransformerEncoder(str(original))
    cfg = lambda path: compose(["encoder=minilm", f"encoder.model={path}"])   # noqa: E731
    rid = run_id(cfg(original))
    before = first.encode(["the pump"])
    moved = tmp_path / "elsewhere" / "renamed-checkpoint"
    moved.parent.mkdir()
    shutil.move(str(original), moved)
    assert SentenceTransformerEncoder(str(moved)).model_id == first.model_id
    assert run_id(cfg(moved)) == rid and model_identity(str(moved)).startswith("local:")
    _retrain_in_place(moved)
    retrained = SentenceTransformerEncoder(str(moved))
    assert retrained.model_id != first.model_id           # the embeddings cache key follows
    assert run_id(cfg(moved)) != rid                      # and so does the run id
    assert not np.allclose(retrained.encode(["the pump"]), before)


def test_the_hash_is_remembered_by_path_size_and_mtime(tmp_path, monkeypatch):
    monkeypatch.setenv("HAM_HASH_MEMO", str(tmp_path / "memo"))
    model = tmp_path / "m"
    model.mkdir()
    (model / "weights.bin").write_bytes(b"\x00" * 64)
    first = weights_hash(model)
    assert list((tmp_path / "memo" / "content_hashes").rglob("*.json"))   # remembered on disk
    (model / "weights.bin").write_bytes(b"\x01" * 64)                     # same size, new mtime
    stat = (model / "weights.bin").stat()
    os.utime(model / "weights.bin", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert weights_hash(model) != first
    assert local_model_id("hf", model) == f"hf:{weights_hash(model)}"


def test_packaged_models_are_identified_by_their_files():
    assert model_identity("minilm") == f"minilm:{weights_hash(minilm_path())}"
    assert model_identity("Qwen/Qwen2.5-7B-Instruct") == "Qwen/Qwen2.5-7B-Instruct"   # a hub or API name as written
