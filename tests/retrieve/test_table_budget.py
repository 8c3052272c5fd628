"""How tables share the text budget (retrieval.k_tab): null, they compete for the k_t slots; N,
the N best tables come besides the k_t best text units, in the ranking's order; 0 leaves them out.
Rows label each unit's modality (text, table, image)."""
import numpy as np
import pytest

from ham.index.encoders import Encoded
from ham.index.hybrid import ScoredUnit
from ham.retrieve.retriever import Retriever
from ham.units import EvidenceUnit

# the text index's ranking, best first: t = text unit, T = table
RANKING = ["T1", "t1", "T2", "t2", "t3", "T3", "t4"]


def _unit(uid):
    kind = "table" if uid.startswith("T") else "text"
    return EvidenceUnit(unit_id=uid, doc_id="d", modality="text", kind=kind, content=uid, path=[], ancestors={},
                        local={}, relation={}, source="d.md", order=0)


class _Index:
    def check_encoder(self, model_id):
        pass


class _Ranker:
    """Stands in for the index search: the fixed ranking, cut at k."""

    def rank(self, index, query, k, units, fusion, pool):
        ids = RANKING if index.kind == "text" else ["img"]
        return [ScoredUnit(u, 1.0 - i / 10, 0.0, 0.0) for i, u in enumerate(ids[:k])]


class _Encoder:
    model_id = "fake"

    def encode_query(self, text):
        return Encoded(np.zeros((1, 2), dtype=np.float32))


def _retriever(**kw):
    text, image = _Index(), _Index()
    text.kind, image.kind = "text", "image"
    corpus = type("C", (), {"by_id": {u: _unit(u) for u in [*RANKING, "img"]}})()
    corpus.by_id["img"] = EvidenceUnit(unit_id="img", doc_id="d", modality="image", kind="image", content="",
                                       path=[], ancestors={}, local={}, relation={}, source="d.md", order=0,
                                       image="a.png")
    return Retriever(corpus, {"text": text, "image": image}, _Encoder(), ranker=_Ranker(), **kw)


@pytest.mark.parametrize("k_tab, expected", [
    (None, ["T1", "t1", "T2"]),                  # tables compete for the k_t = 3 slots
    (1, ["T1", "t1", "t2", "t3"]),               # 3 text units and besides them the best table
    (2, ["T1", "t1", "T2", "t2", "t3"]),
    (0, ["t1", "t2", "t3"]),                     # no tables
    (5, ["T1", "t1", "T2", "t2", "t3", "T3"]),   # fewer tables than asked: those there are
])
def test_k_tab(k_tab, expected):
    got = _retriever(k_t=3, k_v=1, k_tab=k_tab).retrieve("q")
    assert [h.unit.unit_id for h in got.text] == expected
    assert [h.rank for h in got.text] == list(range(1, len(expected) + 1))
    rows = [h.to_row() for h in got.text]
    assert {r["unit_id"]: r["modality"] for r in rows} == {u: "table" if u[0] == "T" else "text" for u in expected}
    assert got.images[0].to_row()["modality"] == "image"
