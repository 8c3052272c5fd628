"""The cache a grid shares: what is reused when only some config values change, keyed call
results, and the encoder-mismatch error."""
import json

import numpy as np
import pytest

from ham.cache import FolderCache, KeyedStore
from ham.cli.compose import compose_config
from ham.ingest.corpus import load_corpus
from ham.run.build import build_offline
from ham.paths import PROJECT_ROOT
from ham.retrieve.retriever import Retriever

CORPUS = PROJECT_ROOT / "tests" / "fixtures" / "ingest" / "markdown"


def _cfg(tmp_path, *overrides):
    return compose_config(["dataset=custom", f"dataset.path={CORPUS}", "dataset.questions=unused.jsonl",
                           f"paths.cache_root={tmp_path}", "progress=false", *overrides])


@pytest.fixture(scope="module")
def first(tmp_path_factory):
    root = tmp_path_factory.mktemp("cache")
    cfg = _cfg(root)
    cache = FolderCache(root)
    corpus = load_corpus(CORPUS, cache)
    return root, corpus, build_offline(cfg, corpus, cache)


def _prepare(root, corpus, *overrides):
    return build_offline(_cfg(root, *overrides), corpus, FolderCache(root))


def test_first_build_then_full_reuse_when_only_generator_method_or_budget_change(first):
    root, corpus, built = first
    assert not built.info["text"]["reused"] and not built.info["image"]["reused"]
    again = _prepare(root, corpus, "generator=smollm2", "retrieval.k_t=5", "retrieval=dense", "method.template=ham_v1")
    for modality in ("text", "image"):
        assert again.info[modality]["reused"] and again.info[modality]["embeddings_reused"]
        assert again.info[modality]["key"] == built.info[modality]["key"]
    assert again.encoder._model is None, "a fully cached index never loads the encoder"


def test_index_type_change_reuses_embeddings(first):
    root, corpus, built = first
    hnsw = _prepare(root, corpus, "index=hnsw")
    assert hnsw.info["text"]["embeddings_reused"] and not hnsw.info["text"]["reused"]
    assert hnsw.info["text"]["embeddings_key"] == built.info["text"]["embeddings_key"]


def test_representation_change_rebuilds_only_that_modality(first):
    root, corpus, built = first
    st = _prepare(root, corpus, "text_repr=st")
    assert not st.info["text"]["embeddings_reused"] and st.info["image"]["reused"]
    flat = _prepare(root, corpus, "text_repr=flat_text")
    assert flat.info["text"]["key"] == st.info["text"]["key"], "identical strings share one index"


def test_summary_change_changes_the_ct_key(first):
    root, corpus, built = first
    longer = _prepare(root, corpus, "summariser.sentences=3")
    assert longer.info["text"]["key"] != built.info["text"]["key"]


def test_index_meta_records_provenance(first):
    root, corpus, built = first
    meta = json.loads((root / "index" / built.info["text"]["key"] / "meta.json").read_text())
    assert meta["encoder"] == built.encoder.model_id and meta["corpus"] == corpus.content_hash
    assert meta["representation"]["name"] == "ct" and meta["representation"]["summaries"].startswith("lead:")
    assert meta["sparse"] == "bm25" and meta["index"] == {"type": "flat"}


def test_an_index_is_never_searched_with_another_encoder(first):
    _, corpus, built = first

    class Other:
        model_id = "sentence-transformers:other@123"

    with pytest.raises(ValueError, match=r"built with encoder 'sentence-transformers:[0-9a-f]{16}'.*'sentence-transformers:other@123'"):
        Retriever(corpus, built.indexes, Other())


def test_retriever_from_config_finds_the_right_unit(first):
    root, corpus, built = first
    from hydra.utils import instantiate

    retriever = instantiate(_cfg(root).retrieval, _partial_=True)(corpus=corpus, indexes=built.indexes,
                                                                  encoder=built.encoder)
    hits = retriever.retrieve("How do I log in to the web interface of the router?")
    assert len(hits.text) <= 15 and len(hits.images) <= 10 and hits.images
    # one index per modality: an image never takes a text slot, nor text an image slot (k_t, k_v)
    assert {h.unit.modality for h in hits.text} == {"text"} and {h.unit.modality for h in hits.images} == {"image"}
    assert set(built.indexes["text"].unit_ids) == {u.unit_id for u in corpus.units if u.modality == "text"}
    assert any("web-login" in h.unit.image for h in hits.images[:2])


def test_keyed_store_round_trip_and_unreadable_entry(tmp_path):
    store = KeyedStore(tmp_path, "calls")
    assert store.get("ab12") is None
    store.put("ab12", {"text": "hello"})
    assert store.get("ab12") == {"text": "hello"}
    (tmp_path / "calls" / "ab" / "ab12.json").write_text("{torn")
    assert store.get("ab12") is None


def test_exact_scores_come_from_the_stored_embeddings(first):
    root, corpus, built = first
    dense = np.load(root / "embeddings" / built.info["text"]["embeddings_key"] / "dense.npy", mmap_mode="r")
    index = built.indexes["text"]
    assert dense.shape[0] == built.info["text"]["size"] and np.array_equal(index.vectors, dense)
    hnsw = _prepare(root, corpus, "index=hnsw").indexes["text"]
    assert np.array_equal(hnsw.vectors, dense)   # HNSW keeps the full vectors: a view of them


def test_the_corpus_cache_is_keyed_by_the_ingest_code_as_well_as_its_version(tmp_path, monkeypatch):
    # a change to the code that reads documents, version bumped or not, never reuses the old trees
    import ham.ingest.corpus as corpus_module
    cache = FolderCache(tmp_path)
    load_corpus(CORPUS, cache)
    built = {p.name for p in (tmp_path / "corpus").iterdir()}
    load_corpus(CORPUS, cache)
    assert {p.name for p in (tmp_path / "corpus").iterdir()} == built, "the same code reuses its trees"
    monkeypatch.setattr(corpus_module, "ingest_code_hash", lambda: "other code")
    calls = []
    real = corpus_module.ingest_corpus
    monkeypatch.setattr(corpus_module, "ingest_corpus", lambda root: calls.append(root) or real(root))
    load_corpus(CORPUS, cache)
    assert calls == [CORPUS] and len(list((tmp_path / "corpus").iterdir())) == len(built) + 1



def test_the_corpus_cache_is_keyed_by_the_parsers_versions(tmp_path, monkeypatch):
    # a pdfplumber or markdown-it-py upgrade may read a file another way: its trees are read anew
    import importlib.metadata
    import ham.ingest.corpus as corpus_module

    cache = FolderCache(tmp_path)
    load_corpus(CORPUS, cache)
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version",
                        lambda name: "99.0" if name == "markdown-it-py" else real(name))
    corpus_module.ingest_environment.cache_clear()
    try:
        assert "markdown-it-py==99.0" in corpus_module.ingest_environment()
        load_corpus(CORPUS, cache)
    finally:
        corpus_module.ingest_environment.cache_clear()
    assert len(list((tmp_path / "corpus").iterdir())) == 2, "not the tree read by the other version"
