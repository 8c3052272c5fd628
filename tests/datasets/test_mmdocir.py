"""MMDocIR annotations: the messy ``type`` values, gold bboxes and layout ids as Evidence, and the
line-numbered problems of a malformed file."""
import json

import pytest

from ham.datasets.mmdocir import evidence_modality, MmdocirReader, normalise_type
from tests.datasets.conftest import MMDOCIR

ANNOTATIONS = MMDOCIR / "MMDocIR_annotations.jsonl"


@pytest.mark.parametrize("raw, kinds", [
    ("['Chart']", ["chart"]),
    ("['Table', 'Pure-text (Plain-text)']", ["table", "text"]),
    ("['Pure-text (Plain-text)', 'Generalized-text (Layout)', 'Chart']", ["text", "layout", "chart"]),
    ("['Chart', 'Figure', 'Chart']", ["chart", "figure"]),
    ("[]", []),
    ("text-only", ["text"]),
    ("multimodal-t", ["table"]),
    ("multimodal-f", ["figure"]),
    ("meta-data", ["meta"]),
    ("una-web", ["unanswerable"]),
    (None, []),
])
def test_type_values_of_the_real_file_normalise(raw, kinds):
    assert normalise_type(raw) == (kinds, [])


def test_unknown_and_unparsable_type_labels_are_kept_and_flagged():
    assert normalise_type("['Figure', 'Weird-thing']") == (["figure", "weird-thing"], ["weird-thing"])
    assert normalise_type("['Chart'") == (["['chart'"], ["['chart'"])


def test_evidence_modality_only_when_the_kinds_agree():
    assert evidence_modality(["chart", "figure"]) == "image"
    assert evidence_modality(["text", "layout"]) == "text"
    assert evidence_modality(["table", "text"]) is None
    assert evidence_modality(["meta"]) is None
    assert evidence_modality([]) is None


def test_reads_questions_with_raw_type_and_ordered_bbox_evidence():
    questions, problems = MmdocirReader().read(ANNOTATIONS)
    by_id = {q.id: q for q in questions}
    assert len(questions) == 13
    q = by_id["alpha-report.pdf#3"]
    assert q.kinds == ["table", "text"]
    assert q.meta["type_raw"] == "['Table', 'Pure-text (Plain-text)']"
    assert [(e.page, e.bbox) for e in q.evidence] == [(1, [50.0, 80.0, 560.0, 300.0]), (0, [50.0, 80.0, 560.0, 160.0])]
    assert all(e.doc == "alpha-report.pdf" and e.layout is None and e.modality is None for e in q.evidence)
    assert q.reference_answer == q.answer_short == "['2015', 'Alpha Research Center']"
    assert q.meta["multi_page"] and q.meta["multi_layout"]
    assert q.meta["layout_indices"] == [0, 8] and q.meta["global_index"] == 3


def test_layoutindex_becomes_the_evidence_layout_id_and_evidence_text_stays_in_meta():
    questions, _ = MmdocirReader().read(ANNOTATIONS)
    q = next(q for q in questions if q.id == "alpha-report.pdf#1")
    assert q.kinds == ["text"] and q.meta["type_raw"] == "text-only"
    assert [(e.layout, e.modality) for e in q.evidence] == [("1", "text")]
    assert q.meta["evidence"].startswith('"...The Alpha Research Center')
    assert q.meta["layoutindex"] == [1]


def test_typo_key_of_the_dataset_card_is_read():
    questions, _ = MmdocirReader().read(ANNOTATIONS)
    q = next(q for q in questions if q.id == "beta-guide.pdf#0")
    assert q.meta["layout_indices"] == [9, 13]


def test_problems_name_their_line_and_the_rest_still_loads():
    questions, problems = MmdocirReader().read(ANNOTATIONS)
    text = "\n".join(problems)
    assert f"{ANNOTATIONS}:2: question 3 has no Q (question skipped)" in problems
    assert f"{ANNOTATIONS}:2: question 4: layout_mapping[0]: bbox [300, 100, 300, 450] has no area" in problems
    assert "'weird-thing' are not known MMDocIR types" in text
    assert f"{ANNOTATIONS}:3: not valid JSON" in text
    assert f"{ANNOTATIONS}:4: not a document object with doc_name (document skipped)" in problems
    assert len(problems) == 5
    # the document after the broken lines still loads, and the skipped question keeps its number free
    ids = [q.id for q in questions]
    assert "delta-missing.pdf#0" in ids and "beta-guide.pdf#3" not in ids and "beta-guide.pdf#4" in ids


def test_layoutindex_that_does_not_pair_with_the_mapping_is_ignored(tmp_path):
    path = tmp_path / "a.jsonl"
    doc = {"doc_name": "x.pdf", "domain": "News", "page_indices": [0, 0], "layout_indices": [0, 1],
           "questions": [{"Q": "q?", "A": "a", "page_id": [0], "type": "text-only", "layoutindex": [1, 2],
                          "layout_mapping": [{"page": 0, "page_size": [1, 1], "bbox": [0, 0, 1, 1]}]}]}
    path.write_text(json.dumps(doc) + "\n")
    questions, problems = MmdocirReader().read(path)
    assert questions[0].evidence[0].layout is None
    assert problems == [f"{path}:1: question 0: layoutindex [1, 2] does not pair with the 1 layout_mapping "
                        "entries (layout ids ignored)"]


def test_missing_file_is_a_problem_not_a_crash(tmp_path):
    questions, problems = MmdocirReader().read(tmp_path / "none.jsonl")
    assert questions == [] and "cannot read" in problems[0]
