"""ham-ask's sparse-first answer (ham.run.sparse_first): the same ranking as sparse-only retrieval
over the full index, from the BM25 entry the full build then reuses, offered only where the dense
side is the whole difference."""
import numpy as np
import pytest

from ham.conf import compose
from ham.index.hybrid import HybridFusion, Query, SparseOnly, SparseSideIndex
from ham.run.build import build_pipeline, configured_cache, load_configured_corpus
from ham.run.sparse_first import ask_sparse_first, sparse_first_pipeline, why_not_sparse_first

QUESTIONS = ["How do I reconcile my checking account?", "What is a split transaction?",
             "How do I record the payment of a loan?"]


@pytest.fixture()
def cfg(tmp_path):
    return compose([f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}",
                    "progress=false"], return_hydra_config=False)


def test_the_preliminary_ranking_is_sparse_only_retrieval_over_the_full_index(cfg):
    # the same units in the same order; the budgeted scores may differ (the full index's pool also
    # holds the dense side's candidates, which the assembly's section scores see)
    cache = configured_cache(cfg)
    corpus = load_configured_corpus(cfg, cache)
    pre, pending = sparse_first_pipeline(cfg, cache, corpus)
    assert pre is not None and pending == {"text": len(corpus.of_modality("text")),
                                           "image": len(corpus.of_modality("image"))}
    bm25_entries = sorted(p.name for p in (cache.root / "bm25").iterdir())
    full = build_pipeline(cfg, with_evaluator=False, corpus=corpus, generator=pre.generator)
    assert sorted(p.name for p in (cache.root / "bm25").iterdir()) == bm25_entries, "the full build reuses BM25"
    full.retriever.fusion = SparseOnly()
    for question in QUESTIONS:
        a, b = pre.retriever.retrieve(question), full.retriever.retrieve(question)
        assert [h.unit.unit_id for h in a.text] == [h.unit.unit_id for h in b.text], question
        assert [h.unit.unit_id for h in a.images] == [h.unit.unit_id for h in b.images], question
    full.retriever.fusion = HybridFusion()
    hybrid = full.retriever.retrieve(QUESTIONS[0])
    assert [h.unit.unit_id for h in hybrid.text] != [h.unit.unit_id for h in pre.retriever.retrieve(QUESTIONS[0]).text], \
        "the preliminary answer is not the full one (else the test above compares nothing)"
    assert sparse_first_pipeline(cfg, cache, corpus) == (None, {}), "a built index needs no preliminary answer"


def test_ask_sparse_first_answers_twice_on_a_new_cache_and_once_after(cfg, monkeypatch):
    import sentence_transformers

    loads, real_init = [], sentence_transformers.SentenceTransformer.__init__

    def counted_init(self, *args, **kwargs):
        loads.append(args[0] if args else kwargs.get("model_name_or_path"))
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(sentence_transformers.SentenceTransformer, "__init__", counted_init)
    seen = []
    pipeline, row = ask_sparse_first(cfg, QUESTIONS[0], on_preliminary=lambda r, pending, root: seen.append(r),
                                     with_evaluator=False)
    assert len(seen) == 1 and seen[0]["answer"] and row["answer"]
    assert len(loads) == 1, f"the preliminary and the full answer share one encoder, loaded once: {loads}"
    assert seen[0]["retrieved_text"] != row["retrieved_text"]
    ask_sparse_first(cfg, QUESTIONS[1], on_preliminary=lambda r, pending, root: seen.append(r), with_evaluator=False)
    assert len(seen) == 1


@pytest.mark.parametrize("override, reason", [
    ("system=lightrag", "system"), ("pages=colpali", "page retrieval"), ("retrieval=mmr", "MMR"),
    ("retrieval=graph", "not the plain Retriever"), ("index=ivf_ondisk", "sharded")])
def test_configs_where_the_dense_side_is_not_the_whole_difference_get_no_preliminary_answer(override, reason):
    why = why_not_sparse_first(compose([override], return_hydra_config=False))
    assert why is not None and reason in why
    assert why_not_sparse_first(compose([], return_hydra_config=False)) is None


def test_a_sparse_side_index_is_searched_under_sparse_fusion_only():
    class Scores:
        def scores(self, query, n):
            return np.array([0.0, 3.0, 1.0, 2.0], dtype=np.float32)

    index = SparseSideIndex(["a", "b", "c", "d"], Scores(), {"encoder": "x"})
    query = Query("q", np.zeros(4, dtype=np.float32), ["q"])
    assert [s.unit_id for s in index.search(query, 2, SparseOnly(), pool=2)] == ["b", "d"]
    assert [s.unit_id for s in index.search(query, None, SparseOnly(), pool=2, extra=[0])] == ["b", "d", "a"]
    with pytest.raises(ValueError, match="no dense side"):
        index.search(query, 3, HybridFusion())


def test_a_stemmed_index_is_what_the_preliminary_answer_builds_and_the_full_build_reuses(tmp_path):
    cfgs = {stem: compose([f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / stem}",
                           "progress=false", f"index.stem={stem}"], return_hydra_config=False)
            for stem in ("none", "english")}
    rankings = {}
    for stem, cfg in cfgs.items():
        cache = configured_cache(cfg)
        corpus = load_configured_corpus(cfg, cache)
        pre, _ = sparse_first_pipeline(cfg, cache, corpus)
        assert pre.retriever.indexes["text"].sparse.stem == stem
        entries = sorted(p.name for p in (cache.root / "bm25").iterdir())
        full = build_pipeline(cfg, with_evaluator=False, corpus=corpus, generator=pre.generator)
        assert sorted(p.name for p in (cache.root / "bm25").iterdir()) == entries
        assert full.retriever.indexes["text"].sparse.stem == stem
        full.retriever.fusion = SparseOnly()
        rankings[stem] = [[h.unit.unit_id for h in full.retriever.retrieve(q).text] for q in QUESTIONS]
    assert rankings["none"] != rankings["english"], "the stemmer changes what BM25 retrieves"
