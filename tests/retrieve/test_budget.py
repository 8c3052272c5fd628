"""The budgeted tree assembly (retrieval.budget) on small hand-built trees with fixed scores:
sections merged when most of them is relevant, a parent's own text after its child, the budget's
stop, evidence order (passages by rank, members in document order, image relations and metric
ranks through members) and images scored with their context."""
import pytest

from ham.index.hybrid import ScoredUnit
from ham.ingest.builder import Block, TreeBuilder
from ham.methods.ham import HamAssembler
from ham.metrics.topology import prompt_positions
from ham.retrieve.budget import BudgetedText, TextLength, TreeAssembly
from ham.retrieve.retriever import Hit, Retrieved
from ham.retrieve.sections import SectionMap
from ham.units import build_units

BRUSH = [f"Brush option {i}: a setting of the brush that is about sixty characters long." for i in range(4)]


def manual():
    b = TreeBuilder("m", "Manual", "m.md", "markdown")
    b.add(Block("heading", "1. Tools", level=1))
    b.add(Block("text", "Every tool shares these options: size, colour and opacity."))                # m:2
    b.add(Block("image", image="opts.png", image_path="opts.png", alt="the shared tool options"))   # m:3
    b.add(Block("heading", "1.1. Brush", level=2))
    for text in BRUSH:
        b.add(Block("text", text))                                                                    # m:5 .. m:8
    b.add(Block("image", image="brush.png", image_path="brush.png", alt="the brush"))                # m:9
    b.add(Block("heading", "1.2. Pencil", level=2))
    b.add(Block("text", "The pencil draws hard edges."))                                              # m:11
    b.add(Block("text", "The pencil has no soft mode."))                                              # m:12
    b.add(Block("heading", "2. Files", level=1))
    b.add(Block("text", "Save often."))                                                               # m:14
    b.add(Block("image", image="save.png", image_path="save.png", alt="the save dialog"))           # m:15
    return {u.unit_id: u for u in build_units(b.finish())}


UNITS = manual()


class FixedIndex:
    """Fixed fused scores; ``pool`` is what the search finds, ``extra`` rows join it."""

    def __init__(self, modality, scores, pool=None):
        self.unit_ids = [u for u, unit in UNITS.items() if unit.modality == modality]
        self.row_of = {u: i for i, u in enumerate(self.unit_ids)}
        self.scores = scores
        self.pool = set(pool if pool is not None else scores)
        self.searches = []

    def __len__(self):
        return len(self.unit_ids)

    def search(self, query, k, fusion=None, pool=100, extra=()):
        self.searches.append(sorted(self.unit_ids[r] for r in extra))
        found = self.pool | {self.unit_ids[r] for r in extra}
        ranked = sorted(found, key=lambda u: (-self.scores.get(u, 0.0), self.row_of[u]))
        return [ScoredUnit(u, self.scores.get(u, 0.0), 0.0, 0.0) for u in ranked][:k]


class TreeIndex(FixedIndex):
    """A fixed-score text index over another hand-built tree's units (every unit found)."""

    def __init__(self, units, scores):
        self.unit_ids = list(units)
        self.row_of = {u: i for i, u in enumerate(self.unit_ids)}
        self.scores, self.pool, self.searches = scores, set(scores), []


def run(text_scores, budget, image_scores=None, pool=None, k_t=15, k_v=3, **assembly):
    text = FixedIndex("text", text_scores, pool)
    images = FixedIndex("image", image_scores or {"m:3": 0.5, "m:9": 0.5, "m:15": 0.5})
    tmap, imap = SectionMap.of(text, UNITS), SectionMap.of(images, UNITS)
    got_text, got_images = BudgetedText(budget, TextLength("chars"), TreeAssembly(**assembly)).retrieve(
        None, text, images, tmap, imap, UNITS, None, 100, k_t, k_v)
    return got_text, got_images, text


def ids(passages):
    return [u.extra["members"] for u, _ in passages]


LOW = {"m:14": 0.0}   # a low-scoring unit elsewhere, so min-max scaling has a floor


def test_a_section_whose_relevant_units_hold_most_of_its_text_comes_whole_in_document_order():
    scores = {"m:7": 1.0, "m:5": 0.9, "m:6": 0.6, **LOW}   # 3 of 4 equal blocks relevant; m:8 not even found
    text, _, _ = run(scores, budget=2000, parents_from=0)
    unit = text[0][0]
    assert unit.extra["members"] == ["m:5", "m:6", "m:7", "m:8"] and unit.extra["role"] == "section"
    assert unit.content == "\n".join(BRUSH), "the siblings merged in document order"
    assert unit.unit_id == "m:5+3" and unit.heading_path == ["1. Tools", "1.1. Brush"], "its heading path once"


def test_a_section_with_one_relevant_unit_gives_that_unit_only():
    scores = {"m:7": 1.0, "m:5": 0.2, **LOW}
    text, _, _ = run(scores, budget=2000, parents_from=0)
    assert ids(text)[0] == ["m:5", "m:7"] and text[0][0].extra["role"] == "units", \
        "m:7, and m:5 (found, not relevant) joined it later in the walk; m:6 and m:8 (not found) are not taken"
    assert ids(text)[1:] == [["m:14"]]
    text, _, _ = run({"m:7": 1.0, **LOW}, budget=2000, parents_from=0)
    assert ids(text)[0] == ["m:7"] and text[0][0].unit_id == "m:7"


def test_a_retrieved_child_brings_its_parents_own_text_right_after_it():
    scores = {"m:7": 1.0, "m:11": 0.8, "m:12": 0.7, **LOW}   # the parent's passage m:2: not even in the pool
    text, _, index = run(scores, budget=2000, merge_ratio=1.0)
    assert ids(text)[:2] == [["m:7"], ["m:2"]] and text[1][0].extra["role"] == "parent"
    assert ids(text)[2] == ["m:11", "m:12"], "the pencil section: its parent is already in the context"
    assert [u.content for u, _ in text].count(UNITS["m:2"].content) == 1, "a parent's text comes once"


def test_a_long_parent_gives_its_best_own_units_up_to_parent_chars():
    scores = {"m:7": 1.0, **LOW}
    text, _, index = run(scores, budget=2000, parent_chars=10)
    assert ids(text) == [["m:7"], ["m:14"]], "the parent's 58 characters do not fit in 10: nothing of it"
    text, _, index = run(scores, budget=2000, parent_chars=100)
    assert ids(text)[1] == ["m:2"]


def test_the_budget_stops_the_context_and_passages_are_cut_down_to_fit():
    scores = {"m:7": 1.0, "m:5": 0.9, "m:6": 0.8, "m:8": 0.7, "m:11": 0.6, "m:12": 0.55, **LOW}
    text, _, _ = run(scores, budget=250, parents_from=0)
    used = sum(len(u.content) for u, _ in text)
    assert used <= 250, used
    assert ids(text)[0] == ["m:5", "m:6", "m:7"], "the whole section (319 characters) did not fit: its best units did"
    text, _, _ = run(scores, budget=40, parents_from=0)
    assert len(text) == 1 and text[0][0].content == "Brush option 2: a setting of the brush …", \
        "the first unit always, cut to the budget between words and marked as cut (40 would end inside 'that')"
    assert BRUSH[2].startswith(text[0][0].content[:-2]) and len(text[0][0].content) <= 40
    # the row says so, and a unit shown in part is not counted as retrieved by the unit metrics
    from ham.metrics.topology import shown_units

    row = Hit(text[0][0], 1.0, 1).to_row()
    assert row["cut"] == {"shown_chars": 40, "full_chars": len(BRUSH[2])} and shown_units(row) == []
    assert text[0][0].local.get("next_text", "") == "", "no neighbour follows a cut passage in the prompt"
    text, _, _ = run(scores, budget=4, parents_from=0)
    assert text == [], "not one whole word fits: nothing, not a fragment of one"


def test_k_t_caps_the_passages_and_a_later_unit_joins_its_sections_passage():
    scores = {"m:7": 1.0, "m:11": 0.9, "m:14": 0.8, "m:5": 0.7}
    text, _, _ = run(scores, budget=2000, k_t=2, parents_from=0, merge_ratio=1.0)
    assert ids(text) == [["m:5", "m:7"], ["m:11"]], "m:5 joined the brush passage; Files got no passage"


def test_evidence_order_prompt_relations_and_metric_ranks_go_through_members():
    scores = {"m:7": 1.0, "m:5": 0.9, "m:6": 0.6, "m:11": 0.5, **LOW}
    text, images, _ = run(scores, budget=2000, image_scores={"m:9": 0.9, "m:3": 0.1, "m:15": 0.8})
    hits = [Hit(u, s, r) for r, (u, s) in enumerate(text, 1)]
    image_hits = [Hit(UNITS[s.unit_id], s.score, r) for r, s in enumerate(images, 1)]
    assert [h.unit.extra["role"] for h in hits][:2] == ["section", "parent"]
    prompt = HamAssembler()("How do brush options work?", Retrieved(hits, image_hits))
    assert prompt.text.count("Manual > 1. Tools > 1.1. Brush") == 2, "the passage's path once, and the brush image's"
    assert "belongs after text block T1" in prompt.text, "the brush image's target (m:8) is inside passage T1"
    rows = [h.to_row() for h in hits]
    assert rows[0]["members"] == ["m:5", "m:6", "m:7", "m:8"]
    ranks = prompt_positions(rows, [])
    assert ranks["m:6"] == 1 and ranks["m:2"] == 2, "every member ranks where its passage does"


def test_images_in_the_context_are_scored_candidates_not_added_blindly():
    scores = {"m:7": 1.0, **LOW}
    # the parent's screenshot m:3 is not in the image pool; the unrelated save dialog ranks above it alone
    image_scores = {"m:15": 0.6, "m:3": 0.55, "m:9": 0.0}
    index_pool = ["m:15", "m:9"]
    text = FixedIndex("text", scores)
    images = FixedIndex("image", image_scores, index_pool)
    got_text, got = BudgetedText(2000, TextLength("chars"), TreeAssembly(image_weight=0.2)).retrieve(
        None, text, images, SectionMap.of(text, UNITS), SectionMap.of(images, UNITS), UNITS, None, 100, 15, 3)
    order = [s.unit_id for s in got]
    assert order[0] == "m:3", "the parent's screenshot joined the pool and its context lifted it"
    assert {"m:3", "m:9"} <= set(images.searches[-1]), "context images (the child's and the parent's) were scored"
    # with no own score, context alone does not beat a matching image
    images = FixedIndex("image", {"m:15": 0.9, "m:3": 0.0, "m:9": 0.0}, ["m:15"])
    _, got = BudgetedText(2000, TextLength("chars"), TreeAssembly(image_weight=0.2)).retrieve(
        None, text, images, SectionMap.of(text, UNITS), SectionMap.of(images, UNITS), UNITS, None, 100, 15, 3)
    assert got[0].unit_id == "m:15"


def test_tokens_need_the_generators_tokenizer_and_count_with_it():
    with pytest.raises(ValueError, match="tokenizer"):
        TextLength("tokens", None)
    words = TextLength("tokens", lambda s: len(s.split()))
    assert words("a b c") == 3 and words.cut("one two three four", 2) == "one two"
    scores = {"m:7": 1.0, "m:5": 0.9, "m:6": 0.8, "m:8": 0.7, **LOW}
    text = FixedIndex("text", scores)
    images = FixedIndex("image", {"m:9": 1.0})
    got, _ = BudgetedText(30, words, TreeAssembly(parents_from=0)).retrieve(
        None, text, images, SectionMap.of(text, UNITS), SectionMap.of(images, UNITS), UNITS, None, 100, 15, 1)
    assert sum(words(u.content) for u, _ in got) <= 30 and len(got[0][0].extra["members"]) == 2


class _Encoder:
    model_id = "fixed"

    def encode_query(self, text):
        import numpy as np

        from ham.index.encoders import Encoded
        return Encoded(np.zeros((1, 2), dtype=np.float32))


def _retriever(**kw):
    from ham.retrieve.retriever import Retriever

    scores = {"m:7": 1.0, "m:5": 0.9, "m:6": 0.6, "m:11": 0.5, **LOW}
    text, images = FixedIndex("text", scores), FixedIndex("image", {"m:9": 0.9, "m:3": 0.1, "m:15": 0.8})
    for index in (text, images):
        index.check_encoder = lambda model_id: None
    corpus = type("C", (), {"by_id": UNITS})()
    return Retriever(corpus, {"text": text, "image": images}, _Encoder(), k_t=3, k_v=2, **kw)


def test_the_budget_settings_change_what_is_retrieved():
    def text_of(**kw):
        return [h.unit.unit_id for h in _retriever(**kw).retrieve("q").text]

    plain = text_of()
    assert plain == ["m:7", "m:5", "m:6"], "no budget: the k_t best units"
    assert text_of(budget=2000) == ["m:5+3", "m:2", "m:11"]
    assert text_of(budget=100, assembly=TreeAssembly(last="skip")) == ["m:7", "m:14"], \
        "the parent (58 characters) no longer fits, nor the pencil's 28; Files' 11 do"
    cut = _retriever(budget=100).retrieve("q").text
    assert [h.unit.unit_id for h in cut] == ["m:7", "m:11"] and cut[1].unit.content == "The pencil draws hard …", \
        "last=cut: the pencil unit is cut to the room left (24 characters) between words and the context is full"
    assert text_of(budget=2000, assembly=TreeAssembly(merge_ratio=1.0)) == ["m:5+2", "m:2", "m:11"]
    assert text_of(budget=2000, assembly=TreeAssembly(parents_from=0)) == ["m:5+3", "m:11", "m:14"]
    with pytest.raises(ValueError, match="no token counter"):
        _retriever(budget=100, budget_unit="tokens").retrieve("q")
    tokens = _retriever(budget=12, budget_unit="tokens")
    tokens.count_with(lambda s: len(s.split()))
    assert [h.unit.unit_id for h in tokens.retrieve("q").text] == ["m:7"], "12 words: one brush option"
    with pytest.raises(ValueError, match="does not combine"):
        _retriever(budget=100, k_tab=1)
    assert text_of(budget=2000, reranker=WordReranker(top_n=4))[0] == "m:11", \
        "a reranker combines with a budget: its order is the walk's"


class WordReranker:
    """A reranker whose model scores a unit by the query words it holds (as ``Reranker.rerank``
    returns them: the top_n reordered with the model's scores, the rest behind in fused order)."""

    def __init__(self, top_n=50, words=("pencil",)):
        self.top_n, self.words, self.asked = top_n, set(words), []

    def rerank(self, query, scored, units):
        head, tail = scored[: self.top_n], scored[self.top_n:]
        self.asked.append(query)
        value = {s.unit_id: float(len(self.words & set(units[s.unit_id].content.lower().rstrip(".").split())))
                 for s in head}
        return sorted((ScoredUnit(s.unit_id, value[s.unit_id], 0.0, 0.0) for s in head),
                      key=lambda s: -s.score) + tail


def test_a_reranker_orders_the_walk_and_its_scores_decide_what_is_relevant():
    scores = {"m:7": 1.0, "m:5": 0.9, "m:6": 0.8, "m:11": 0.5, "m:12": 0.4, **LOW}
    text, images = FixedIndex("text", scores), FixedIndex("image", {"m:9": 0.5})
    tmap, imap = SectionMap.of(text, UNITS), SectionMap.of(images, UNITS)
    query = type("Q", (), {"text": "the pencil"})()

    def walk(reranker):
        got, _ = BudgetedText(2000, TextLength("chars"), TreeAssembly(parents_from=0, merge_ratio=1.0), reranker).retrieve(
            query, text, images, tmap, imap, UNITS, None, 100, 15, 1)
        return [(u.extra["members"], round(score, 3)) for u, score in got]

    assert walk(None)[0][0] == ["m:5", "m:6", "m:7"], "the fused order: the brush first"
    reranker = WordReranker(top_n=5)
    assert walk(reranker) == [(["m:11", "m:12"], 1.0), (["m:5", "m:6", "m:7"], 0.0), (["m:14"], 0.0)], \
        "the pencil units lead; the brush units, which the model scores lowest, are relevant no more " \
        "(scaled to 0) and join one passage as the walk reaches them"
    assert reranker.asked == ["the pencil"]
    assert walk(WordReranker(top_n=1)) == [(["m:5", "m:6", "m:7"], 1.0), (["m:11", "m:12"], 0.0), (["m:14"], 0.0)], \
        "only the fused best was reranked (alone, so at the top): the rest follow at 0 in the fused order"


def test_enclosing_sections_up_to_parent_depth_come_nearest_first_within_parent_chars():
    b = TreeBuilder("g", "Guide", "g.md", "markdown")
    b.add(Block("heading", "1. Plotting", level=1))
    b.add(Block("text", "Open the Plot dialog from the File menu."))                      # g:2, grandparent
    b.add(Block("heading", "1.1. Formats", level=2))
    b.add(Block("text", "Every format shares the layer list."))                           # g:4, parent
    b.add(Block("heading", "1.1.1. SVG", level=3))
    b.add(Block("text", "SVG has no unit system: export in the units you import with."))  # g:6
    units = {u.unit_id: u for u in build_units(b.finish())}

    index = TreeIndex(units, {"g:6": 1.0})
    tmap = SectionMap.of(index, units)

    def passages(**kw):
        text, _ = BudgetedText(2000, TextLength("chars"), TreeAssembly(**kw)).retrieve(
            None, index, None, tmap, None, units, None, 100, 15, 0)
        return [u.extra["members"] for u, _ in text]

    assert passages() == [["g:6"], ["g:4"], ["g:2"]], "the child, then its parent's and grandparent's own text"
    assert passages(parent_depth=1) == [["g:6"], ["g:4"]]
    assert passages(parent_chars=40) == [["g:6"], ["g:4"]], "the grandparent's 40 characters no longer fit"
    assert passages(parents_from=0) == [["g:6"]]


def test_a_table_is_never_merged_with_running_text_and_keeps_its_kind():
    b = TreeBuilder("t", "Tables", "t.md", "markdown")
    b.add(Block("heading", "1. Limits", level=1))
    b.add(Block("text", "The limits depend on the board class."))      # t:2
    b.add(Block("table", "Class | Width\n1 | 0.8 mm\n2 | 0.5 mm"))    # t:3
    b.add(Block("text", "Ask the manufacturer for the class."))         # t:4
    units = {u.unit_id: u for u in build_units(b.finish())}

    index = TreeIndex(units, {"t:2": 1.0, "t:3": 0.9, "t:4": 0.8})
    text, _ = BudgetedText(2000, TextLength("chars"), TreeAssembly()).retrieve(
        None, index, None, SectionMap.of(index, units), None, units, None, 100, 15, 0)
    assert [u.extra["members"] for u, _ in text] == [["t:2", "t:4"], ["t:3"]]
    assert Hit(text[1][0], 0.9, 2).to_row()["modality"] == "table"


def test_the_pipeline_binds_the_generators_tokenizer_or_refuses_a_token_budget():
    from ham.generate.base import Generator
    from ham.generate.extractive import ExtractiveGenerator
    from ham.run.build import token_counter

    class Local(Generator):
        def count_tokens(self, text):
            return len(text.split())

    words = _retriever(budget=12, budget_unit="tokens")
    words.count_with(token_counter(Local()))
    assert [h.unit.unit_id for h in words.retrieve("q").text] == ["m:7"]
    with pytest.raises(ValueError, match="tokenizer"):
        _retriever(budget=12, budget_unit="tokens").count_with(token_counter(ExtractiveGenerator()))
    chars = _retriever(budget=100)
    chars.count_with(token_counter(ExtractiveGenerator()))   # a character budget needs no tokenizer
    assert chars.retrieve("q").text


def linked_manual():
    """A tool page whose text links to a shared options page elsewhere in the manual (refs set as
    ham.ingest.links sets them) and to a chapter that has no text of its own."""
    b = TreeBuilder("l", "Manual", "l.md", "markdown")
    b.add(Block("heading", "1. Selection tools", level=1))
    b.add(Block("heading", "1.1. Rectangle", level=2))
    b.add(Block("text", "Draws a rectangle; the shared options are under Common options.",
                meta={"refs": ["l:9", "l:4"]}))                                             # l:3
    b.add(Block("heading", "2. Reference", level=1))                                           # l:4
    b.add(Block("heading", "2.1. Paths", level=2))                                             # l:5
    b.add(Block("heading", "2.1.1. Path basics", level=3))                                     # l:6
    b.add(Block("text", "A path is a curve."))                                                 # l:7
    b.add(Block("heading", "3. Common options", level=1))                                      # l:8
    b.add(Block("heading", "3.1. Shared", level=2))                                            # l:9
    b.add(Block("text", "Antialiasing smooths the edges of every selection."))                 # l:10
    b.add(Block("image", image="opts.png", image_path="opts.png", alt="tool options"))         # l:11
    b.add(Block("text", "Feather edges blurs the border of the selection by a radius."))       # l:12
    b.add(Block("heading", "4. Files", level=1))
    b.add(Block("text", "Save often."))                                                        # l:14
    units = {u.unit_id: u for u in build_units(b.finish())}
    return units


def test_a_retrieved_unit_brings_the_sections_it_links_to_within_ref_chars():
    units = linked_manual()
    text_units = {u: x for u, x in units.items() if x.modality == "text"}
    index = TreeIndex(text_units, {"l:3": 1.0, "l:12": 0.2, "l:14": 0.0})
    images = TreeIndex({"l:11": units["l:11"]}, {"l:11": 0.0})
    tmap, imap = SectionMap.of(index, units), SectionMap.of(images, units)

    def run_linked(**kw):
        text, got = BudgetedText(2000, TextLength("chars"), TreeAssembly(merge_ratio=1.0, **kw)).retrieve(
            None, index, images, tmap, imap, units, None, 100, 15, 1)
        return [(u.extra["members"], u.extra["role"]) for u, _ in text], got

    passages, got = run_linked()
    assert passages == [(["l:3"], "units"), (["l:12"], "units"), (["l:14"], "units")], \
        "links are not followed by default"
    alone = got[0].score   # context from l:12's own weak passage only
    passages, got = run_linked(ref_chars=300)
    assert passages == [(["l:3"], "units"), (["l:10", "l:12"], "linked"), (["l:7"], "linked"), (["l:14"], "units")], \
        "the linked sections' text right after the child, in link order: the shared options whole, and a " \
        "chapter without text of its own its subsections' text; l:12, then in the context, comes once"
    assert [s.unit_id for s in got] == ["l:11"] and got[0].score > alone, \
        "the linked section's screenshot is a scored image candidate with its context"
    passages, _ = run_linked(ref_chars=70)
    assert [m for m, role in passages if role == "linked"] == [["l:12"]], \
        "the shared options (112 characters) do not fit in 70: their best-scoring unit does; the second link no longer fits"
    passages, _ = run_linked(ref_chars=300, parents_from=0)
    assert all(role != "linked" for _, role in passages), "links follow the first parents_from passages only"


def test_merge_ratio_accepts_its_documented_range_0_to_1():
    # docs/options.md gives 0.0 .. 1.0; 0 had been refused
    assert TreeAssembly(merge_ratio=0.0).merge_ratio == 0.0
    with pytest.raises(ValueError, match="merge_ratio"):
        TreeAssembly(merge_ratio=1.5)
