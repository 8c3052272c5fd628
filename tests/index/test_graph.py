"""Retrieval along the evidence graph: edges by kind, seeds and expansion, rescoring on the pool's
scale, the budgets, how each hit was reached, and retrieval=graph from a config."""
import json

import numpy as np
import pytest

from ham.cache import FolderCache
from ham.index.build import build_indexes
from ham.index.encoders import BatchedEncoder, Encoded
from ham.ingest.builder import Block, TreeBuilder
from ham.ingest.corpus import Corpus
from ham.represent.templates import IsolatedText, LocalImage, Representer
from ham.index.entities import EntitySettings
from ham.retrieve.graph import GraphSettings, EvidenceGraph, GraphRetriever
from ham.retrieve.retriever import Retriever
from ham.units import build_units


class BagEncoder(BatchedEncoder):
    """Bag of words over the corpus's vocabulary: a unit sharing no word with the query scores 0."""

    model_id = "bag-graph-test"

    def __init__(self, texts):
        words = sorted({w for t in texts for w in _words(t)})
        self.vocab = {w: i for i, w in enumerate(words)}
        self.dim = len(self.vocab)
        self.batch_size = 8

    def _encode_batch(self, texts):
        out = np.zeros((len(texts), len(self.vocab)), dtype=np.float32)
        for r, t in enumerate(texts):
            for w in _words(t):
                if w in self.vocab:
                    out[r, self.vocab[w]] += 1
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return Encoded(out / np.where(norms == 0, 1, norms))


def _words(text):
    return [w.strip(".,?:").lower() for w in text.split() if w.strip(".,?:")]


def _docs():
    a = TreeBuilder("cards", "Credit Cards", "cards.md", "markdown")
    a.add(Block("heading", "1. Worked example", level=1))
    a.add(Block("text", "The example opens the data file gcashdata_5 first."))             # cards:2
    a.add(Block("text", "Purchases are entered in the card register."))                   # cards:3
    a.add(Block("heading", "1.1. Interest", level=2))
    a.add(Block("text", "A monthly charge appears on the statement."))                    # cards:5
    a.add(Block("image", image="img/interest.png", image_path="img/interest.png", alt="charge dialog"))
    a.add(Block("text", "Figure 2. The charge dialog."))
    b = TreeBuilder("book", "Checkbook", "book.md", "markdown")
    b.add(Block("heading", "1. Saving", level=1))
    b.add(Block("text", "Save everything under gcashdata_5 at the end."))                 # book:2
    b.add(Block("text", "Deposits arrive every week."))                                    # book:3
    b.add(Block("heading", "2. Filler", level=1))
    for i in range(4):
        b.add(Block("text", f"Unrelated filler paragraph {i} about opening hours."))
    return [a.finish(), b.finish()]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("graph")
    docs = _docs()
    units = [u for d in docs for u in build_units(d)]
    corpus = Corpus(tmp, "graph-test", docs, units, {})
    encoder = BagEncoder([u.content for u in units] + ["which data file does the example open"])
    indexes, _ = build_indexes(corpus, Representer(IsolatedText(), LocalImage()), encoder, FolderCache(tmp / "cache"))
    return corpus, indexes, encoder, tmp


def _graph(setup, **graph):
    corpus, indexes, encoder, tmp = setup
    options = {k: graph.pop(k) for k in ("k_t", "k_v", "pool", "k_tab") if k in graph}
    settings = GraphSettings(**graph, entities=EntitySettings(max_share=0.5))
    return GraphRetriever(corpus, indexes, encoder, **{"k_t": 3, "k_v": 1, **options}, graph=settings,
                          cache_root=str(tmp / "cache"))


def test_edges_by_kind(setup):
    corpus = setup[0]
    units = corpus.by_id
    graph = EvidenceGraph(units)
    siblings = {e.target for e in graph.of("cards:2", "tree") if e.relation == "sibling"}
    assert siblings == {"cards:3"}
    parents = {e.target for e in graph.of("cards:5", "tree") if e.relation == "parent"}
    assert parents == {"cards:2", "cards:3"}, "the enclosing section's own units"
    image = next(u for u in corpus.units if u.modality == "image")
    linked = {e.target: e.relation for e in graph.of(image.unit_id, "captions")}
    assert linked.get("cards:5") == "figure_caption" and image.relation["caption_unit"] in linked
    assert image.unit_id in {e.target for e in graph.of("cards:5", "captions")}, "both ways"


def test_no_edge_kind_followed_is_plain_hybrid(setup):
    corpus, indexes, encoder, _ = setup
    question = "which data file does the example open"
    plain = Retriever(corpus, indexes, encoder, k_t=3, k_v=1).retrieve(question)
    graph = _graph(setup, follow=[]).retrieve(question)
    assert [h.unit.unit_id for h in graph.text] == [h.unit.unit_id for h in plain.text]
    assert [h.unit.unit_id for h in graph.images] == [h.unit.unit_id for h in plain.images]
    assert all(h.via["how"] == "seed" for h in graph.text)


@pytest.mark.parametrize("pool", [100, 1])
def test_a_shared_entity_brings_the_unit_the_question_does_not_match(setup, pool):
    question = "which data file does the example open"
    corpus, indexes, encoder, _ = setup
    plain = [h.unit.unit_id for h in Retriever(corpus, indexes, encoder, k_t=3, k_v=1, pool=pool).retrieve(question).text]
    assert "book:2" not in plain
    retriever = _graph(setup, follow=["entities"], seeds=1, pool=pool)
    hits = retriever.retrieve(question).text
    via = {h.unit.unit_id: h.via for h in hits}
    assert hits[0].unit.unit_id == "cards:2" and via["cards:2"]["how"] == "seed" and via["cards:2"]["expanded"]
    assert via["book:2"] == {"how": "entity", "from": "cards:2", "hop": 1, "relation": "entity", "entity": "gcashdata_5"}
    assert len(hits) == 3, "the same k_t"
    if pool == 1:
        assert retriever.stats["scored_outside_pool"] >= 1, "scored on the pool's scale, outside it"
    assert hits[1].to_row()["via"]["how"] in ("entity", "seed")


def test_tree_and_captions_reach_neighbours_and_images_keep_their_budget(setup):
    question = "monthly charge statement"
    hits = _graph(setup, follow=["captions"], seeds=1, k_v=1).retrieve(question)
    image = hits.images[0]
    assert image.unit.modality == "image" and image.via["how"] in ("caption", "seed")
    tree = _graph(setup, follow=["tree"], seeds=1, k_t=4).retrieve(question).text
    reached = {h.unit.unit_id: h.via for h in tree}
    assert reached["cards:2"]["how"] == "tree" and reached["cards:2"]["relation"] == "parent"
    assert len(tree) == 4


def test_two_hops_go_further_than_one(setup):
    question = "monthly charge statement"
    one = _graph(setup, follow=["tree", "entities"], seeds=1, hops=1, k_t=6).retrieve(question)
    two = _graph(setup, follow=["tree", "entities"], seeds=1, hops=2, k_t=6).retrieve(question)
    hop2 = {h.unit.unit_id: h.via for h in two.text if h.via.get("hop") == 2}
    assert "book:2" in hop2 and hop2["book:2"]["from"] == "cards:2", "statement -> parent section -> shared entity"
    assert "book:2" not in {h.unit.unit_id for h in one.text if h.via["how"] != "seed"}


def test_bad_options_are_refused(setup):
    with pytest.raises(ValueError, match="unknown edge kind"):
        _graph(setup, follow=["tree", "citations"])
    with pytest.raises(ValueError, match="hops=0: must be >= 1"):
        _graph(setup, hops=0)


def test_retrieval_graph_from_a_config_records_the_path_in_rows(tmp_path):
    from ham.conf import compose
    from ham.run.pipeline import build_pipeline

    root = tmp_path / "corpus"
    root.mkdir()
    (root / "a.md").write_text("# Cards\n\n## Example\n\nThe example opens gcashdata_5 first.\n\n"
                               "Purchases go in the register.\n")
    (root / "b.md").write_text("# Book\n\n## Saving\n\nSave everything as gcashdata_5 at the end.\n")
    cfg = compose(["dataset=custom", f"dataset.path={root}", "retrieval=graph", "retrieval.k_t=3",
                   f"paths.cache_root={tmp_path / 'cache'}", "progress=false"], return_hydra_config=False)
    pipeline = build_pipeline(cfg, with_evaluator=False)
    assert isinstance(pipeline.retriever, GraphRetriever) and pipeline.retriever.descriptions is not None
    rows = [h.to_row() for h in pipeline.retriever.retrieve("Which file does the example open?").text]
    assert rows and all("via" in r and r["via"]["how"] in ("seed", "tree", "caption", "entity") for r in rows)
    assert list((tmp_path / "cache" / "entities").iterdir()), "the entity links are cached per corpus"
    json.dumps(rows)
