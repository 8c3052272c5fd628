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


@pytest.fixture(scope="module")
def indexed(units, tmp_path_factory):
    from ham.cache import FolderCache
    from ham.index.build import build_indexes
    from ham.index.encoders import SentenceTransformerEncoder
    from ham.ingest.corpus import Corpus
    from ham.represent.templates import IsolatedText, LocalImage, Representer

    root = tmp_path_factory.mktemp("indexed")
    corpus = Corpus(root, "t", [], list(units.values()), {})
    encoder = SentenceTransformerEncoder("minilm")
    indexes, _ = build_indexes(corpus, Representer(IsolatedText(), LocalImage()), encoder, FolderCache(root))
    return corpus, indexes, encoder


def test_the_retriever_reranks_the_text_pool_before_cutting_to_k_t(indexed):
    from ham.retrieve.retriever import Retriever

    plain = Retriever(*indexed, k_t=2, k_v=0)
    reranked = Retriever(*indexed, k_t=2, k_v=0, reranker=Scripted(top_n=4))
    question = "closing balance reconcile window"
    assert {h.unit.unit_id for h in reranked.retrieve(question).text} == {"r:4", "r:5"}   # two words each
    assert len(plain.retrieve(question).text) == 2


class Logits(Scripted):
    """Scripted's order on a raw-logit scale, all below the fused scores' [0, 1]."""

    def _scores(self, query, texts):
        return [s - 10.0 for s in super()._scores(query, texts)]


def _ids(retriever, question):
    return [h.unit.unit_id for h in retriever.retrieve(question).text]


def test_structural_retrieval_groups_the_reranked_pool_not_the_fused_one(indexed):
    from ham.retrieve.retriever import Retriever
    from ham.retrieve.structural import SectionRanker

    question = "closing balance reconcile window"
    reranker = Scripted(top_n=4)
    structural = Retriever(*indexed, k_t=2, k_v=0, ranker=SectionRanker(), reranker=reranker)
    assert set(_ids(structural, question)) == {"r:4", "r:5"} and reranker.calls == 4
    check = Scripted(top_n=4)
    oil = Retriever(*indexed, k_t=1, k_v=0, ranker=SectionRanker(), reranker=check)
    assert _ids(oil, "check the oil level every month") == ["r:2"] and check.calls == 4


@pytest.mark.parametrize("how", ["mmr", "graph"])
def test_after_a_reranker_no_candidate_it_did_not_see_outranks_one_it_did(indexed, how):
    """Its head on a raw-logit scale (below 0) and the tail on the fused scale ([0, 1]) must not be
    compared as they are: the reranked order's first top_n stay first under pure-relevance MMR and
    under a graph retriever that follows nothing."""
    from ham.retrieve.diversity import MMR
    from ham.retrieve.graph import GraphRetriever, GraphSettings
    from ham.retrieve.retriever import Retriever

    question = "closing balance reconcile window"
    reranked = _ids(Retriever(*indexed, k_t=4, k_v=0, reranker=Logits(top_n=2)), question)
    if how == "mmr":
        other = Retriever(*indexed, k_t=4, k_v=0, reranker=Logits(top_n=2), diversity=MMR(weight=1.0))
    else:
        other = GraphRetriever(*indexed, k_t=4, k_v=0, pool=4, reranker=Logits(top_n=2),
                               graph=GraphSettings(follow=[]))
    assert _ids(other, question)[:2] == reranked[:2]


def test_scores_made_with_another_max_length_are_not_served_from_the_cache(units, tmp_path):
    pool = _pool(units)
    short = Scripted(top_n=3, cache_root=str(tmp_path))
    short.max_length = 8
    short.rerank("check the oil level", pool, units)
    longer = Scripted(top_n=3, cache_root=str(tmp_path))
    longer.max_length = 512
    longer.rerank("check the oil level", pool, units)
    assert longer.calls == 3, "a pair truncated at 8 tokens scores differently: asked again"
    again = Scripted(top_n=3, cache_root=str(tmp_path))
    again.max_length = 8
    again.rerank("check the oil level", pool, units)
    assert again.calls == 0


def test_fused_weight_interpolates_the_models_order_with_the_fused_one(units):
    # fused: r:2 1.0, r:3 0.9, r:4 0.8, r:5 0.7; the model: r:5 and r:4 hold the query's words
    pool = _pool(units)
    query = "enter the closing balance in the reconcile window"
    assert [s.unit_id for s in Scripted(top_n=4).rerank(query, pool, units)] == ["r:5", "r:4", "r:2", "r:3"]
    # scaled, the model gives 1, 2/3, 0, 0 (r:5, r:4, r:2, r:3) and the fused order 0, 1/3, 1, 2/3
    mixed = Scripted(top_n=4, fused_weight=0.25).rerank(query, pool, units)
    assert [s.unit_id for s in mixed] == ["r:5", "r:4", "r:2", "r:3"] and mixed[0].score == pytest.approx(0.75)
    mostly_fused = Scripted(top_n=4, fused_weight=0.75).rerank(query, pool, units)
    assert [s.unit_id for s in mostly_fused] == ["r:2", "r:3", "r:4", "r:5"]
    assert mostly_fused[0].score == pytest.approx(0.75)
    with pytest.raises(ValueError, match="fused_weight"):
        Scripted(fused_weight=1.5)


def test_the_bundled_onnx_cross_encoder_ranks_the_answering_passage_first(units, tmp_path):
    from ham.retrieve.rerank import OnnxCrossEncoderReranker

    reranker = OnnxCrossEncoderReranker(top_n=4, fused_weight=0.0, cache_root=str(tmp_path))
    out = reranker.rerank("How often should I check the oil level?", _pool(units)[::-1], units)
    assert out[0].unit_id == "r:2" and reranker.calls == 4
    assert reranker.model_id.startswith("onnx-cross-encoder:")
    truncated = OnnxCrossEncoderReranker(top_n=4, fused_weight=0.0, max_length=8, cache_root=str(tmp_path))
    truncated.rerank("How often should I check the oil level?", _pool(units), units)
    assert truncated.calls == 4, "another max_length: scored again, not served from the cache"


def test_a_pairs_onnx_score_is_the_same_whatever_is_scored_with_it_or_cached_before(units, tmp_path):
    # the int8 model scales activations over its whole input: batched, a pair's score moved with its
    # batch-mates, and the per-pair cache then held scores that depended on which config asked first
    from ham.retrieve.rerank import OnnxCrossEncoderReranker

    query = "How often should I check the oil level?"
    texts = [u.content * n for u, n in zip(units.values(), (1, 12, 1, 5))]
    alone = [OnnxCrossEncoderReranker(cache_root=None)._scores(query, [t])[0] for t in texts]
    together = OnnxCrossEncoderReranker(cache_root=None)._scores(query, texts)
    assert together == alone
    warmed = OnnxCrossEncoderReranker(cache_root=str(tmp_path))
    warmed.scores(query, [("u3", texts[3])])                   # an earlier config asked for one pair
    assert warmed.scores(query, [(f"u{i}", t) for i, t in enumerate(texts)]) == alone
