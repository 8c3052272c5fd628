"""MMDocRAG: gold quotes as ordered evidence, the interleaved answer's image quotes as image
references, and its citation rule."""
from ham.datasets.mmdocrag import cited_quotes, MmdocragReader
from tests.datasets.conftest import MMDOCRAG

FILE = MMDOCRAG / "evaluation_15.jsonl"


def _questions():
    questions, problems = MmdocragReader().read(FILE)
    return {q.id: q for q in questions}, problems


def test_gold_quotes_become_evidence_in_gold_order():
    qs, _ = _questions()
    q = qs["101"]
    assert [(e.modality, e.doc, e.layout, e.page) for e in q.evidence] == [
        ("image", "alpha-report", "2", 0), ("text", "alpha-report", "3", 0)]
    assert q.evidence[0].image == "images/alpha-report_image1.jpg" and q.evidence[0].text is None
    assert q.evidence[1].text == "Figure 1: Confidence rose between 2008 and 2015."
    assert q.gold_text == ["Figure 1: Confidence rose between 2008 and 2015."]
    assert q.gold_images == ["images/alpha-report_image1.jpg"]
    assert q.kinds == ["descriptive"] and q.answer_short == "It rose from 67% to 81%."


def test_reference_answer_points_images_at_their_files_and_keeps_text_citations():
    qs, _ = _questions()
    q = qs["101"]
    assert "![Bar chart of confidence in 2008 and 2015](images/alpha-report_image1.jpg)" in q.reference_answer
    assert "[2]" in q.reference_answer
    assert q.meta["answer_interleaved"].count("(image1)") == 1
    assert cited_quotes(q.meta["answer_interleaved"]) == ["text2", "image1"]


def test_table_image_quote_is_table_evidence():
    qs, _ = _questions()
    q = qs["102"]
    assert [(e.modality, e.layout, e.page) for e in q.evidence] == [("table", "5", 1)]
    assert q.gold_images == ["images/alpha-report_image2.jpg"]
    assert q.answer_short == "['67', '81']"


def test_problems_are_noted_with_their_line():
    qs, problems = _questions()
    assert sorted(qs) == ["101", "102", "103"]
    assert f"{FILE}:3: not valid JSON" in problems[0]
    note = problems[1]
    assert note.startswith(f"{FILE}:4: ")
    assert "gold quote 'text9' is not among the candidate quotes" in note
    assert "image7" in note and "no quote_id" in note
    assert problems[2] == f"{FILE}:5: not an object with q_id and question (question skipped)"
    q = qs["103"]
    assert [e.layout for e in q.evidence] == ["0"]
    assert q.gold_images == []                      # the answer's unknown image is not gold
    assert "(image7)" in q.reference_answer


def test_cited_quotes_follows_mmdocrag_rule():
    answer = "A [3] and [12], again [3].\n![x](image2) then ![y](image10) and ![x](image2)"
    assert cited_quotes(answer) == ["text3", "text12", "image2", "image10"]
    assert cited_quotes("") == []


def test_image_metrics_match_gold_images_through_their_resolved_units(mmdocir_units):
    """MMDocRAG's gold images are its own crops (images/<doc>_imageN.jpg); the corpus is MMDocIR's
    layouts, whose image references never equal them: IR and Img-P/R/F1 scored 0 whatever was
    retrieved or shown. They match through the units the gold quote resolved to."""
    from ham.answer import InterleavedAnswer, Segment
    from ham.datasets.evidence import resolve_evidence
    from ham.datasets.golds import gold_problems
    from ham.metrics.evaluator import Evaluator
    from ham.retrieve.retriever import Hit

    questions, _ = MmdocragReader().read(MMDOCRAG / "evaluation_15.jsonl")
    q = next(q for q in questions if q.id == "101")
    assert q.gold_images == ["images/alpha-report_image1.jpg"]
    assert not [p for p in gold_problems([q], mmdocir_units) if "gold image" in p]   # the evidence mapping says
    resolve_evidence([q], mmdocir_units)
    item = next(e for e in q.evidence if e.modality == "image")
    gold = next(u for u in mmdocir_units if u.unit_id in item.units and u.modality == "image")
    other = next(u for u in mmdocir_units if u.modality == "image" and u.unit_id not in item.units)
    rows = [Hit(u, 1.0, r).to_row() for r, u in enumerate((other, gold), 1)]
    assert rows[1]["image"] != q.gold_images[0]                        # the layout's own image reference
    evaluator = Evaluator(["ir", "image_precision", "image_recall", "image_f1"])
    shown = InterleavedAnswer([Segment("text", text="Confidence rose."), Segment("image", image=rows[1]["image"])])
    assert evaluator(q, [], rows, shown) == {"ir": 1.0, "image_precision": 1.0, "image_recall": 1.0,
                                             "image_f1": 1.0}   # the segment's unit found by its row
    both = InterleavedAnswer([Segment("text", text="x"), Segment("image", image=rows[0]["image"], unit_id=other.unit_id),
                              Segment("image", image=rows[1]["image"], unit_id=gold.unit_id)])
    assert evaluator(q, [], rows, both)["image_precision"] == 0.5
    wrong = InterleavedAnswer([Segment("text", text="x"), Segment("image", image=rows[0]["image"], unit_id=other.unit_id)])
    assert evaluator(q, [], rows[:1], wrong) == {"ir": 0.0, "image_precision": 0.0, "image_recall": 0.0, "image_f1": 0.0}
