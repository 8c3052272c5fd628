"""faiss index types chosen by config (flat, HNSW, IVF-PQ) and the BGE-M3 lexical sparse side."""
import faiss
import numpy as np
import pytest
import scipy.sparse as sp
from hydra.utils import instantiate

from ham.index.dense import FlatSpec, HNSWSpec, IVFPQSpec
from ham.index.hybrid import Query
from ham.index.sparse import LexicalSparse
from ham.conf import compose


@pytest.fixture(scope="module")
def vectors():
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(20, 32))
    x = centres[rng.integers(0, 20, 2000)] + 0.3 * rng.normal(size=(2000, 32))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def recall_at_10(index, vectors, queries):
    exact = np.argsort(-(queries @ vectors.T), axis=1)[:, :10]
    _, found = index.search(queries, 10)
    return np.mean([len(set(a) & set(b)) / 10 for a, b in zip(exact, found)])


@pytest.mark.parametrize("name", ["flat", "hnsw", "ivfpq"])
def test_every_index_option_builds_from_its_config_file(name, vectors, tmp_path):
    spec = instantiate(compose([f"index={name}"], return_hydra_config=False).index)
    assert spec.params()["type"] == name
    if name == "ivfpq":
        spec.min_vectors, spec.nlist, spec.m = 1000, 16, 8   # a corpus big enough to train on
    index = spec.build(vectors)
    faiss.write_index(index, str(tmp_path / "i.faiss"))
    loaded = spec.load(tmp_path / "i.faiss")
    queries = vectors[:50] + 0.05
    floor = {"flat": 1.0, "hnsw": 0.9, "ivfpq": 0.4}[name]
    assert loaded.ntotal == len(vectors) and recall_at_10(loaded, vectors, queries) >= floor


def test_search_parameters_are_restored_after_loading(vectors, tmp_path):
    hnsw = HNSWSpec(m=8, ef_search=77)
    faiss.write_index(hnsw.build(vectors[:200]), str(tmp_path / "h.faiss"))
    assert hnsw.load(tmp_path / "h.faiss").hnsw.efSearch == 77
    ivf = IVFPQSpec(nlist=8, m=4, nprobe=5, min_vectors=500)
    faiss.write_index(ivf.build(vectors), str(tmp_path / "v.faiss"))
    loaded = ivf.load(tmp_path / "v.faiss")
    assert isinstance(loaded, faiss.IndexIVFPQ) and loaded.nprobe == 5 and loaded.nlist == 8


def test_ivfpq_on_a_small_corpus_is_exact_and_nlist_shrinks(vectors):
    assert isinstance(IVFPQSpec(min_vectors=10_000).build(vectors[:100]), faiss.IndexFlatIP)
    index = IVFPQSpec(nlist=1024, m=8, min_vectors=1000).build(vectors)
    assert index.nlist == len(vectors) // 39
    with pytest.raises(ValueError, match="m=5 sub-quantisers must divide the vector dimension 32"):
        IVFPQSpec(m=5, min_vectors=10).build(vectors)


def test_gpu_is_used_only_when_faiss_has_one():
    has_gpu = hasattr(faiss, "StandardGpuResources") and faiss.get_num_gpus() > 0
    assert FlatSpec().on_gpu() is has_gpu
    assert FlatSpec(use_gpu=False).on_gpu() is False and HNSWSpec(use_gpu=True).on_gpu() is False


def test_lexical_scores_are_sums_over_shared_tokens():
    docs = sp.csr_matrix(np.array([[0.0, 0.5, 0.0, 0.2], [0.3, 0.0, 0.0, 0.0], [0.0, 0.1, 0.9, 0.0]], np.float32))
    sparse = LexicalSparse(docs.tocsc())
    q = Query("", np.zeros(2, np.float32), [], {1: 2.0, 2: 1.0, 99: 5.0})   # token 99 is outside the vocabulary
    assert np.allclose(sparse.scores(q, 3), [1.0, 0.0, 0.2 + 0.9])
    assert np.allclose(sparse.scores(Query("", np.zeros(2), [], {}), 3), 0.0)
