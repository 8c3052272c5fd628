"""Gold evidence -> unit ids: each rule (layout id, bbox overlap, verbatim passage, image
reference), the order they are tried in, and the record a run stores."""
import json

import pytest

from ham.datasets.evidence import BBOX_THRESHOLD, EvidenceResolver, doc_key, resolve_evidence
from ham.datasets.mmdocir import MmdocirReader
from ham.datasets.mmdocrag import MmdocragReader
from ham.datasets.questions import Evidence, Question
from ham.datasets.topograph import TopographReader
from ham.units import EvidenceUnit
from tests.datasets.conftest import MMDOCIR, MMDOCRAG, TOPOGRAPH


def unit(uid, doc="d", page=0, layout=None, bbox=None, content="", kind="text", image=None, **extra):
    meta = dict(extra)
    if layout is not None:
        meta["layout_id"] = layout
    if bbox is not None:
        meta["bbox"] = bbox
    return EvidenceUnit(unit_id=uid, doc_id=doc, modality="image" if kind == "image" else "text", kind=kind,
                        content=content, path=[], ancestors={}, local={}, relation={}, source="s", order=0,
                        page=page, image=image, image_path=image, extra=meta)


def q(*evidence):
    return Question(id="q", question="?", evidence=list(evidence))


def test_doc_names_compare_without_pdf_and_whitespace():
    assert doc_key("alpha-report.pdf") == doc_key("alpha-report") == "alpha-report"
    assert doc_key("Car Loan.PDF") == "Car_Loan" and doc_key(0) == "0" and doc_key(None) is None


def test_layout_rule_matches_document_and_layout_id():
    units = [unit("d:1", layout=7), unit("e:1", doc="e", layout=7)]
    question = q(Evidence(doc="d.pdf", layout="7"))
    record = resolve_evidence([question], units)
    assert question.evidence[0].units == ["d:1"]
    assert record.questions[0].matched[0].rule == "layout"


def test_bbox_rule_uses_share_of_gold_or_unit_with_the_threshold():
    left = unit("d:1", layout=0, bbox=[0, 0, 50, 10])
    right = unit("d:2", layout=1, bbox=[50, 0, 100, 10])
    tiny = unit("d:3", layout=2, bbox=[0, 9, 100, 20])       # shares 10% of its area with the gold box
    resolver = EvidenceResolver([left, right, tiny])
    spanning = q(Evidence(doc="d", page=0, bbox=[0, 0, 100, 10]))
    mapping = resolver.resolve(spanning)
    assert mapping.matched[0].rule == "bbox" and spanning.evidence[0].units == ["d:1", "d:2"]
    assert mapping.matched[0].scores["d:1"] == {"of_gold": 0.5, "of_unit": 1.0}
    assert mapping.matched[0].coverage == 1.0
    # a small gold box inside a big unit matches by its share of the gold box
    inside = q(Evidence(doc="d", page=0, bbox=[10, 2, 20, 8]))
    assert resolver.resolve(inside).matched[0].units == ["d:1"]
    # other page, or below the threshold on both shares: unresolved, with the best share reported
    graze = q(Evidence(doc="d", page=0, bbox=[40, 5, 60, 30]))     # 10%, 10% and 44% of it; 10%, 10%, 20% of them
    reason = resolver.resolve(graze).unresolved[0]["reason"]
    assert reason == "no unit on page 0 overlaps the bbox by 0.5 (best share of the gold box 0.44)"
    assert resolver.resolve(q(Evidence(doc="d", page=1, bbox=[0, 0, 100, 10]))).unresolved
    assert BBOX_THRESHOLD == 0.5


def test_a_layout_id_that_contradicts_the_bbox_is_not_used():
    units = [unit("d:1", page=0, layout=3, bbox=[0, 0, 10, 10]), unit("d:2", page=1, layout=6, bbox=[0, 0, 10, 10])]
    item = Evidence(doc="d", layout="3", page=1, bbox=[0, 0, 10, 10])
    mapping = EvidenceResolver(units).resolve(q(item))
    assert mapping.matched[0].rule == "bbox" and item.units == ["d:2"]
    assert "layout id 3 is not on page 1; the id is not used" in mapping.notes[0]


def test_a_layout_id_that_also_names_units_on_other_pages_keeps_only_the_items_page():
    # per-page layout ids repeat across pages: the units on the item's page decide, the others are not gold
    units = [unit("d:1", page=0, layout=2), unit("d:5", page=1, layout=2)]
    item = Evidence(doc="d", layout="2", page=1)
    mapping = EvidenceResolver(units).resolve(q(item))
    assert mapping.matched[0].rule == "layout" and item.units == ["d:5"]
    assert "also names 1 unit(s) off page 1" in mapping.notes[0]


def test_passage_rule_is_a_normalised_substring_within_the_document():
    units = [unit("d:1", content="Press the  RED button\nto start."), unit("e:1", doc="e", content="press the red button")]
    item = Evidence(doc="d", text="press the red   button to")
    assert EvidenceResolver(units).resolve(q(item)).matched[0].rule == "passage" and item.units == ["d:1"]
    anywhere = Evidence(text="press the red button")
    EvidenceResolver(units).resolve(q(anywhere))
    assert anywhere.units == ["d:1", "e:1"]


def test_image_rule_matches_reference_path_or_file_name():
    units = [unit("d:1", kind="image", image="figs/pump.png"), unit("d:2", kind="image", image="figs/other.png")]
    exact = Evidence(doc="d", image="figs/pump.png")
    by_name = Evidence(doc="d", image="images/pump.png")
    record = resolve_evidence([q(exact, by_name)], units)
    assert exact.units == ["d:1"] and by_name.units == ["d:1"]
    assert [m.rule for m in record.questions[0].matched] == ["image", "image"]


def test_rules_are_tried_in_order_and_reasons_are_recorded():
    units = [unit("d:1", layout=1, content="alpha"), unit("d:2", layout=2, content="beta")]
    item = Evidence(doc="d", layout="1", text="beta")         # the layout id wins over the passage
    assert EvidenceResolver(units).resolve(q(item)).matched[0].units == ["d:1"]
    lost = Evidence(doc="d", layout="9", text="gamma", image="x.png")
    reason = EvidenceResolver(units).resolve(q(lost)).unresolved[0]["reason"]
    assert reason == ("no unit has layout id 9; the passage is in no unit's content; no unit shows image 'x.png'")
    gone = EvidenceResolver(units).resolve(q(Evidence(doc="zz", layout="1"))).unresolved[0]["reason"]
    assert gone == "document 'zz' is not in the corpus"


def test_mmdocir_fixture_questions_map_to_layout_units(mmdocir_units):
    questions, _ = MmdocirReader().read(MMDOCIR / "MMDocIR_annotations.jsonl")
    record = resolve_evidence(questions, mmdocir_units)
    by_id = {q.id: q for q in questions}
    layout_of = {u.unit_id: (u.doc_id, u.extra["layout_id"]) for u in mmdocir_units}

    def layouts(qid):
        return [[layout_of[u] for u in e.units] for e in by_id[qid].evidence]

    assert layouts("alpha-report.pdf#0") == [[("alpha-report", 2)]]                  # bbox
    assert layouts("alpha-report.pdf#1") == [[("alpha-report", 1)]]                  # layoutindex
    # a table's layout is its text unit and its image-side twin: either retrieved finds it
    assert layouts("alpha-report.pdf#3") == [[("alpha-report", 5), ("alpha-report", 5)], [("alpha-report", 1)]]
    assert by_id["alpha-report.pdf#3"].evidence[0].units[1] == by_id["alpha-report.pdf#3"].evidence[0].units[0] + "#image"
    assert layouts("alpha-report.pdf#4") == [[("alpha-report", 4)]]                  # the title's text unit
    assert layouts("alpha-report.pdf#5") == [[("alpha-report", 6)]]                  # wrong id, bbox decides
    assert layouts("alpha-report.pdf#6") == [[("alpha-report", 8)]]                  # figure kept as text
    assert layouts("beta-guide.pdf#0") == [[("beta-guide", 0), ("beta-guide", 1)]]   # one box, two layouts
    assert layouts("beta-guide.pdf#1") == [[("beta-guide", 3)]]
    rows = {m.question_id: m for m in record.questions}
    assert rows["alpha-report.pdf#5"].notes == ["evidence 0: layout id 3 is not on page 1; the id is not used"]
    assert "no area" in rows["beta-guide.pdf#4"].unresolved[0]["reason"]
    assert "best share of the gold box 0.33" in rows["beta-guide.pdf#5"].unresolved[0]["reason"]
    assert rows["delta-missing.pdf#0"].unresolved[0]["reason"] == "document 'delta-missing.pdf' is not in the corpus"
    summary = record.summary()
    assert summary["by_rule"] == {"bbox": 7, "layout": 3} and summary["unresolved"] == 3
    assert summary["questions"] == 13 and summary["fully_resolved_questions"] == 10


def test_topograph_questions_map_by_integer_doc_id_and_layout(topograph_units):
    questions, _ = TopographReader().read(TOPOGRAPH / "annotations" / "benchmark.json")
    record = resolve_evidence(questions, topograph_units)
    chain = next(q for q in questions if q.id == "doc0_mh_0001")
    kinds = {u.unit_id: u.kind for u in topograph_units}
    assert [[kinds[u] for u in e.units] for e in chain.evidence] == [["image"], ["table", "table"]]   # + twin
    assert record.summary()["unresolved"] == 0
    assert all(not m.notes for m in record.questions)      # modalities agree, the missing figure included


def test_mmdocrag_quotes_map_to_mmdocir_layouts(mmdocir_units):
    questions, _ = MmdocragReader().read(MMDOCRAG / "evaluation_15.jsonl")
    resolve_evidence(questions, mmdocir_units)
    layout_of = {u.unit_id: u.extra["layout_id"] for u in mmdocir_units}
    first = next(q for q in questions if q.id == "101")
    assert [[layout_of[u] for u in e.units] for e in first.evidence] == [[2], [3]]


def test_record_serialises_and_can_leave_the_questions_untouched(tmp_path, mmdocir_units):
    questions, _ = MmdocirReader().read(MMDOCIR / "MMDocIR_annotations.jsonl")
    record = resolve_evidence(questions, mmdocir_units, fill=False)
    assert all(not e.units for q in questions for e in q.evidence)
    path = tmp_path / "evidence_mapping.json"
    record.write(path)
    data = json.loads(path.read_text())
    assert data["bbox_threshold"] == 0.5 and data["rules"] == ["layout", "bbox", "passage", "image"]
    assert data["questions"][0]["matched"][0]["rule"] == "bbox"


@pytest.mark.parametrize("threshold, expected", [(0.5, []), (0.3, ["d:1"])])
def test_threshold_is_a_parameter(threshold, expected):
    units = [unit("d:1", bbox=[0, 0, 100, 10])]
    item = Evidence(doc="d", page=0, bbox=[0, 6, 100, 16])      # 40% of the gold box, 40% of the unit
    EvidenceResolver(units, bbox_threshold=threshold).resolve(q(item))
    assert item.units == expected


def test_doc_is_also_matched_against_the_units_source_file():
    # ham's own question files (the demo's topology questions) name a unit's document by its
    # source file relative to the corpus root
    a = unit("gnucash:7", doc="gnucash", content="A credit card account is a short-term loan.")
    a.source = "gnucash/cc-concepts1.html"
    b = unit("other:1", doc="other", content="A credit card account is a short-term loan.")
    question = q(Evidence(doc="gnucash/cc-concepts1.html", text="a short-term loan"))
    record = resolve_evidence([question], [a, b])
    assert question.evidence[0].units == ["gnucash:7"] and record.questions[0].matched[0].rule == "passage"
