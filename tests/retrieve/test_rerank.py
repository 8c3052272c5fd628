"""Reranking: a tiny cross-encoder built here rescoring fused candidates, cached per query."""
import pytest

from ham.index.hybrid import ScoredUnit
from ham.ingest.builder import Block, TreeBuilder
from ham.retrieve.rerank import CrossEncoderReranker, Reranker, passage
from ham.units import build_units
from tests.support.tiny_models import tiny_cross_encoder


@pytest.fixture(scope="module")
def units():
    b = TreeBuilder("r", "Manual", "r.md", "markdown")
    b.add(Block("heading", "1. Oil", level=1))
    for text in ("Check the oil level every month.", "Install the pump on a level base.",
                 "Open the reconcile window.", "Enter the closing balance."):
        b.add(Block("text", text))
    return {u.unit_id: u for u in build_units(b.finish())}


class Scripted(Reranker):
    """A reranker whose model scores a passage by how many query words it holds."""

    model_id = "scripted"

    def _scores(self, query, texts):
        words = set(query.lower().split())
        return [len(words & set(t.lower().replace(".", "").split())) for t in texts]


def _pool(units):
    ids = list(units)
    return [ScoredUnit(u, 1.0 - i / 10, 0.0, 0.0) for i, u in enumerate(ids)]


def test_the_top_n_are_reordered_by_the_model_and_the_rest_keep_the_fused_order(units, tmp_path):
    pool = _pool(units)
    reranker = Scripted(top_n=3, batch_size=2, cache_root=str(tmp_path))
    out = reranker.rerank("check the oil level", pool, units)
    assert [s.unit_id for s in out[:3]] == ["r:2", "r:3", "r:4"]
    assert [s.unit_id for s in out[3:]] == [s.unit_id for s in pool[3:]], "beyond top_n: the fused order"
    assert out[0].score == 4 and reranker.calls == 3


def test_scores_are_cached_per_query_and_only_new_pairs_are_asked(units, tmp_path):
    pool = _pool(units)
    first = Scripted(top_n=3, cache_root=str(tmp_path))
    first.rerank("check the oil level", pool, units)
    again = Scripted(top_n=4, cache_root=str(tmp_path))       # a wider candidate set, same query
    again.rerank("check the oil level", pool, units)
    assert again.calls == 1, "three pairs came from the cache"
    other = Scripted(top_n=3, cache_root=str(tmp_path))
    other.rerank("install the pump", pool, units)
    assert other.calls == 3


def test_the_passage_carries_the_heading_path(units):
    assert passage(units["r:2"]).startswith("Manual > 1. Oil\n") and passage(units["r:2"]).endswith("every month.")


def test_a_real_cross_encoder_folder_scores_pairs(units, tmp_path):
    folder = tiny_cross_encoder(tmp_path / "ce")
    reranker = CrossEncoderReranker(str(folder), top_n=4, batch_size=2, device="cpu", cache_root=str(tmp_path))
    out = reranker.rerank("check the oil", _pool(units), units)
    assert sorted(s.unit_id for s in out) == sorted(units) and reranker.calls == 4
    assert out[0].score >= out[1].score >= out[2].score >= out[3].score
    from ham.backends.local import weights_hash

    assert reranker.model_id == f"cross-encoder:{weights_hash(folder)}"
    with pytest.raises(ValueError, match="top_n"):
        Scripted(top_n=0)


def test_the_retriever_reranks_the_text_pool_before_cutting_to_k_t(units, tmp_path):
    from ham.cache import FolderCache
    from ham.index.build import build_indexes
    from ham.index.encoders import SentenceTransformerEncoder
    from ham.ingest.corpus import Corpus
    from ham.represent.templates import IsolatedText, LocalImage, Representer
    from ham.retrieve.retriever import Retriever

    corpus = Corpus(tmp_path, "t", [], list(units.values()), {})
    encoder = SentenceTransformerEncoder("minilm")
    indexes, _ = build_indexes(corpus, Representer(IsolatedText(), LocalImage()), encoder, FolderCache(tmp_path))
    plain = Retriever(corpus, indexes, encoder, k_t=2, k_v=0)
    reranked = Retriever(corpus, indexes, encoder, k_t=2, k_v=0, reranker=Scripted(top_n=4))
    question = "closing balance reconcile window"
    assert {h.unit.unit_id for h in reranked.retrieve(question).text} == {"r:4", "r:5"}   # two words each
    assert len(plain.retrieve(question).text) == 2
