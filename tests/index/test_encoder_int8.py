"""encoder=minilm_int8: the bundled MiniLM quantised to int8 when it loads. It loads offline, its
embeddings stay close to fp32's, and its model id (so every cache key and the run id) differs."""
import numpy as np
import pytest

from ham.cache import FolderCache
from ham.conf import compose
from ham.index.dense import FlatSpec
from ham.index.encoders import SentenceTransformerEncoder
from ham.index.build import index_strings
from ham.index.quantized import QUANTISATION, Int8SentenceTransformerEncoder
from ham.run.job import configured_run_id

SENTENCES = [
    "How do I reconcile an account?",
    "VACUUM reclaims storage occupied by dead tuples; plain VACUUM can run in parallel with reads and writes.",
    "To route a track, press X, click the pad to start from, then click to place each corner.",
    "pg_dump -j runs the dump in parallel by dumping that many tables at once; it needs the directory format.",
    "The Plot dialog writes Gerber, SVG, DXF and PostScript files of the selected board layers.",
]
# measured: 0.984-0.995 on short sentences like these; on 128 long unit strings of the PostgreSQL
# manual 0.981 on average, 0.965 at worst (per-tensor quantisation gave 0.88 at worst there)
MIN_COSINE = 0.97


@pytest.fixture(scope="module")
def encoders():
    """Both encoders, loaded with the hub switched off (as a laptop without network would)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("TRANSFORMERS_OFFLINE", "1")
        pair = SentenceTransformerEncoder("minilm"), Int8SentenceTransformerEncoder(model="minilm")
        for encoder in pair:
            assert encoder.model is not None
    return pair


def test_int8_loads_offline_with_every_linear_layer_quantised(encoders):
    import torch
    from torch.ao.nn.quantized.dynamic import Linear as DynamicInt8Linear

    modules = list(encoders[1].model.modules())
    quantised = [m for m in modules if isinstance(m, DynamicInt8Linear)]
    # six layers of q, k, v, attention output, intermediate, output, and the (unused) BERT pooler
    assert len(quantised) == 6 * 6 + 1
    assert {m.weight().dtype for m in quantised} == {torch.qint8}
    assert not any(type(m) is torch.nn.Linear for m in modules)
    assert encoders[1].encode(SENTENCES[:1]).shape == (1, 384)


def test_int8_embeddings_are_close_to_fp32_but_not_equal(encoders):
    fp32, int8 = (e.encode(SENTENCES) for e in encoders)
    cosine = (fp32 * int8).sum(axis=1)
    assert np.allclose(np.linalg.norm(int8, axis=1), 1.0, atol=1e-5)
    assert cosine.min() > MIN_COSINE, cosine
    assert cosine.max() < 0.99999   # really quantised: not fp32's vectors under another name
    # the nearest sentence of each sentence (other than itself) is the same under both
    assert ((fp32 @ fp32.T - 2 * np.eye(5)).argmax(1) == (int8 @ int8.T - 2 * np.eye(5)).argmax(1)).all()


def test_int8_has_its_own_model_id_and_cache_entries(encoders, tmp_path):
    fp32, int8 = encoders
    assert int8.model_id == f"{fp32.model_id}+{QUANTISATION}" and int8.model_id != fp32.model_id
    cache = FolderCache(tmp_path)
    ids, texts = ["a", "b"], SENTENCES[:2]
    _, a = index_strings(ids, texts, fp32, FlatSpec(), cache)
    _, b = index_strings(ids, texts, int8, FlatSpec(), cache)
    assert not b["embeddings_reused"] and a["embeddings_key"] != b["embeddings_key"] and a["key"] != b["key"]


def test_the_option_changes_the_run_id():
    def cfg(encoder):
        return compose([f"encoder={encoder}"], return_hydra_config=False)

    from hydra.utils import instantiate

    encoder = instantiate(cfg("minilm_int8").encoder)
    assert isinstance(encoder, Int8SentenceTransformerEncoder) and encoder.name == "minilm"
    assert configured_run_id(cfg("minilm_int8")) != configured_run_id(cfg("minilm"))


def test_a_gpu_device_is_refused():
    with pytest.raises(ValueError, match="CPU only"):
        Int8SentenceTransformerEncoder(model="minilm", device="cuda")


def test_an_int8_vector_is_the_same_whatever_is_encoded_with_it(encoders):
    # activations are quantised per run: batched, a string's vector depended on the strings beside it
    _, int8 = encoders
    alone = np.vstack([int8.encode([s]) for s in SENTENCES])
    assert np.array_equal(int8.encode(SENTENCES), alone)


def test_int8_is_rebuilt_from_its_spec_in_another_process_as_sharded_builds_do():
    # its constructor takes **settings; the spec had recorded them as one 'settings' keyword, which
    # SentenceTransformerEncoder refused, so every sharded or on-disk build with it failed
    from ham.index.encoders import BatchedEncoder

    built = Int8SentenceTransformerEncoder(model="minilm", batch_size=8)
    again = BatchedEncoder.from_spec(built.spec())
    assert type(again) is Int8SentenceTransformerEncoder and again.model_id == built.model_id
    assert again.batch_size == 8
