"""TopoGraphRAG-Bench: benchmark.json questions (single hop, bridge chain, synthesis) in the one
question form, and loaded_info.json documents as trees."""
import json

from ham.datasets.topograph import TopographReader
from ham.ingest import ingest_corpus
from tests.datasets.conftest import TOPOGRAPH

BENCHMARK = TOPOGRAPH / "annotations" / "benchmark.json"


def _questions():
    questions, problems = TopographReader().read(BENCHMARK)
    return {q.id: q for q in questions}, problems


def test_single_hop_has_one_gold_layout_and_its_modality_as_kind():
    qs, _ = _questions()
    q = qs["doc0_sh_0002"]
    assert q.topology == "single_hop" and q.kinds == ["figure"]
    assert [(e.doc, e.layout, e.page, e.modality) for e in q.evidence] == [("0", "1", 0, "image")]
    assert q.reference_answer == q.answer_short == "81%"
    assert q.meta["shared_entity"] == "Hispanic" and q.meta["doc_id"] == 0


def test_bridge_chain_keeps_hop_order_bridge_entities_and_the_modality_path():
    qs, _ = _questions()
    q = qs["doc0_mh_0001"]
    assert q.topology == "bridge_chain"
    assert q.bridge_entities == ["Hispanic"]
    assert [(e.layout, e.page, e.modality) for e in q.evidence] == [("1", 0, "image"), ("2", 1, "table")]
    assert [(h.sub_question, h.result, h.modality, h.evidence) for h in q.hops] == [
        ("Which group's financial optimism reached 81% in 2015?", "Hispanic", "image", 0),
        ("What was the unemployment rate of Hispanic workers?", "6.6%", "table", 1)]
    assert q.kinds == ["figure→table"] and q.meta["hop_path"] == "figure→table"
    assert q.meta["cross_modal"] is True and q.meta["cross_page"] is True
    assert q.reference_answer == "6.6%"


def test_a_trace_listed_out_of_order_is_put_in_hop_order():
    qs, problems = _questions()
    q = qs["doc1_mh_0001"]
    assert [h.result for h in q.hops] == ["Northern Line", "40 kroner"]
    assert [e.layout for e in q.evidence] == ["0", "1"]
    assert not any("doc1_mh_0001" in p for p in problems)


def test_synthesis_has_evidence_points_linked_to_distinct_evidence():
    qs, _ = _questions()
    q = qs["doc0_syn_0001"]
    assert q.topology == "synthesis" and q.kinds == ["figure+table+text"]
    assert [(e.layout, e.modality) for e in q.evidence] == [("1", "image"), ("2", "table"), ("3", "text")]
    assert [(p.fact_id, p.data_points, p.evidence) for p in q.evidence_points] == [
        ("f1", ["67%", "81%"], 0), ("f2", ["6.6%"], 1), ("f3", ["2006"], 2)]
    assert q.reference_answer.startswith("Optimism rose") and q.answer_short is None
    assert q.meta["pattern_type"] == "trend" and q.meta["key_data_cited"] == ["81%", "6.6%"]
    # two points from one layout share one evidence item
    two = qs["doc0_syn_0002"]
    assert len(two.evidence) == 1 and [p.evidence for p in two.evidence_points] == [0, 0]


def test_problems_carry_the_line_where_the_record_starts():
    qs, problems = _questions()
    assert len(qs) == 6
    lines = BENCHMARK.read_text().splitlines()
    missing = next(p for p in problems if "doc0_sh_0009: no question" in p)
    lineno = int(missing.split(":")[1])
    assert lines[lineno - 1].strip() == "{" and '"doc0_sh_0009"' in lines[lineno]
    assert any("unknown question_type 'comparison' (question skipped)" in p for p in problems)
    assert any("num_sources_required is 3 but there are 2 evidence points" in p for p in problems)


def test_syntax_error_in_the_array_skips_that_record_only(tmp_path):
    good = {"sh_id": "a", "doc_id": 0, "question": "Q1?", "answer": "x",
            "source": {"modality": "text", "layout_id": 0, "page_id": 0}}
    other = dict(good, sh_id="b", question="Q2?")
    text = json.dumps([good], indent=2)[:-2] + ',\n  {\n    "sh_id": "broken"\n    "doc_id": 0\n  },\n' + \
        json.dumps([other], indent=2)[2:]
    path = tmp_path / "benchmark.json"
    path.write_text(text)
    questions, problems = TopographReader().read(path)
    assert [q.id for q in questions] == ["a", "b"]
    assert len(problems) == 1 and f"{path}:13: not valid JSON" in problems[0]


def test_jsonl_form_and_ids_without_question_type(tmp_path):
    rows = [{"mh_id": "m1", "doc_id": 3, "question": "Q?", "final_answer": "A",
             "reasoning_trace": [{"hop": 1, "source_modality": "text", "source_page": 0, "source_layout": 5,
                                  "sub_question": "s", "result": "r"}]},
            {"question_id": "z", "sq_id": "s1", "doc_id": 3, "question": "Q2?",
             "answer": {"evidence_points": [], "synthesis_conclusion": "c"}}]
    path = tmp_path / "b.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    questions, problems = TopographReader().read(path)
    assert [(q.id, q.topology) for q in questions] == [("m1", "bridge_chain"), ("z", "synthesis")]
    assert questions[0].kinds == ["text"]


def test_loaded_info_documents_become_page_trees_with_layout_meta():
    docs, report = ingest_corpus(TOPOGRAPH)
    assert [d.id for d in docs] == ["alpha-report", "beta-guide"]
    alpha = docs[0]
    assert [c.title for c in alpha.root.children] == ["Page 1", "Page 2", "Page 3"]
    leaves = {n.meta["layout_id"]: n for n in alpha.leaves()}
    figure = leaves[1]
    assert figure.kind == "image" and figure.image_path == "layout_images/alpha-report_1.jpg"
    assert figure.caption == "Figure 1: Financial optimism among Hispanic adults"
    assert figure.meta["doc_id"] == 0 and figure.meta["modality"] == "figure"
    assert figure.meta["topic"].startswith("Share of adults") and figure.meta["ocr_text"] == "67% 81% 2008 2015"
    table = leaves[2]
    assert table.kind == "table" and table.text.startswith("Table 1: Unemployment rate by group\nGroup Rate")
    assert table.image_path == "layout_images/alpha-report_2.jpg"
    fallback = leaves[4]
    assert fallback.kind == "text" and fallback.meta["image_missing"] is True
    assert fallback.text.startswith("Figure 2: Trend in household income\nA bar chart")
    problems = [p.problem for p in report.problems]
    assert any("figure layout(s) 4 have no image file" in p for p in problems)
    assert any(p.startswith("line 84: not a document") for p in problems)
    assert report.ignored_files == []                     # benchmark.json is claimed
