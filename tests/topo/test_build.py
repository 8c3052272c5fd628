"""ham-topo end to end against the loopback chat server with a scripted model: construction of
atomic QAs, bridge chains and synthesis questions, every counterfactual check (with rejections),
the report, the output loading and running as dataset=custom, and a build cut short by its request
budget resuming from the cache."""
import json

import pytest
from PIL import Image

from ham.conf import compose
from ham.datasets.questions import load_questions
from ham.topo.build import build
from tests.support.chat_server import ChatServer
from tests.support.topo_script import TopoScript

GUIDE = """# Card Guide

## 1. Opening

The worked example opens the data file gcashdata_5 before any purchase is recorded.

## 2. Charges

A service charge of 3 dollars appears on the March statement of the card.

![statement](img/statement.png)

Figure 1. The March statement.

Table 1. Service charge by month

| Month | Service charge | Note |
| --- | --- | --- |
| March | 3 | first |
| April | 5 | raised |

![april](img/april.png)

Figure 2. The April statement shows a balance of 300 dollars.
"""
BOOK = """# Checkbook

## Saving

Save the checkbook file as gcashdata_5 at the end of the chapter. The register then shows the checking account.

## Fees

Every service charge is booked as an expense; the monthly fee likewise.

The bank adds a service charge when the balance is low, and a monthly fee.

A service charge can be refunded by the bank on request; a monthly fee cannot.

The monthly fee is listed on each bank statement.

The monthly fee went up in April.
"""
Q1 = "Which data file does the worked example open?"
Q2 = "What does the register of gcashdata_5 show?"
Q3 = "How much is the service charge on the March statement?"
Q4 = "How is a service charge booked?"
Q5 = "When does the bank add a service charge?"
Q7 = "What closing balance does the March statement show?"
Q8 = "What balance does the April statement show?"
ATOMIC = {
    "opens the data file gcashdata_5": (Q1, "gcashdata_5", ["opens the data file gcashdata_5"]),
    "register then shows": (Q2, "the checking account", ["register then shows the checking account"]),
    "service charge of 3 dollars": (Q3, "3 dollars", ["service charge of 3 dollars"]),
    "booked as an expense": (Q4, "as an expense", ["booked as an expense"]),
    "balance is low": (Q5, "when the balance is low", ["balance is low"]),
    "refunded by the bank": ("Who founded the bank?", "nobody knows", ["founded by"]),        # unit_alone fails
    "closing balance of 455": (Q7, "455 dollars", ["closing balance of 455 dollars"]),       # only the description
    "balance of 300 dollars": (Q8, "300 dollars", ["balance of 300 dollars"]),               # the caption says it
    "March | 3": "Sorry, I cannot write a question about this table.",                          # unparseable
}
BRIDGE = "Which account does the register of the file the worked example opens show?"
COMPOSE = {
    (Q1, Q2): (BRIDGE, ["opens the data file gcashdata_5", "register then shows the checking account"]),
    (Q7, Q4): ("How is the fee on the statement with a 455 dollar closing balance booked?", ["booked as an expense"]),
    (Q7, Q5): ("When is the fee on the statement with a 455 dollar balance added?", ["closing balance of 455 dollars"]),
    (Q5, Q8): ("When the bank adds its fee, what does the April statement show?",
               ["balance is low", "balance of 300 dollars"]),
}
SYNTHESIS = {
    "service charge": ("What do the guide's statements and table say about the charge across the months?",
                       "3 dollars in March, 5 in April, and a 455 dollar closing balance.", "aggregation",
                       ["service charge of 3 dollars", "closing balance of 455 dollars", "April | 5"]),
    "monthly fee": ("How is the monthly fee treated, when is it added and can it be refunded?",
                    "Booked as an expense, added when the balance is low, never refunded.", "enumeration",
                    ["booked as an expense", "balance is low", "refunded by the bank"]),
}


def _corpus(tmp):
    root = tmp / "corpus"
    (root / "img").mkdir(parents=True)
    Image.new("RGB", (40, 30), (30, 90, 200)).save(root / "img" / "statement.png")
    Image.new("RGB", (40, 30), (200, 90, 20)).save(root / "img" / "april.png")
    (root / "guide.md").write_text(GUIDE)
    (root / "book.md").write_text(BOOK)
    descriptions = tmp / "descriptions.jsonl"
    descriptions.write_text(json.dumps({"image": "img/statement.png", "description":
                                        "The March statement lists a service charge and a closing balance of 455 dollars."}) + "\n")
    return root, descriptions


def _cfg(tmp, root, descriptions, server, cache, out, *extra):
    return compose(["dataset=custom", "units=blocks",  # one unit per card: the scripted replies are written per leaf
                    "dataset.name=cards", f"dataset.path={root}", f"dataset.descriptions={descriptions}",
                    "generator=openai", "generator.client.model=scripted", f"generator.client.base_url={server.base_url}",
                    "generator.client.require_api_key=false", "generator.client.max_retries=0", "generator.client.concurrency=4",
                    "topo.entities.max_share=1.0", "topo.bridges.max=10", "topo.batch=8", f"topo.out={out}",
                    f"paths.output_root={tmp / 'outputs'}", f"paths.cache_root={cache}", "progress=false", *extra],
                   return_hydra_config=False)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("topo")
    root, descriptions = _corpus(tmp)
    script = TopoScript(ATOMIC, COMPOSE, SYNTHESIS)
    with ChatServer(responder=script) as server:
        out = build(_cfg(tmp, root, descriptions, server, tmp / "cache", tmp / "built"))
        first_requests = len(server.requests)
        again = build(_cfg(tmp, root, descriptions, server, tmp / "cache", tmp / "built_again"))
        second_requests = len(server.requests) - first_requests
    return {"out": out, "again": again, "tmp": tmp, "root": root, "descriptions": descriptions, "script": script,
            "requests": first_requests, "second_requests": second_requests,
            "report": json.loads((out / "report.json").read_text())}


def _rejected(out):
    return {r["question"]: r["rejected"] for r in map(json.loads, (out / "rejected.jsonl").read_text().splitlines())}


def test_construction_and_every_check_keep_and_reject_what_they_should(built):
    report, out = built["report"], built["out"]
    assert report["kept"]["by_topology"] == {"single_hop": 6, "bridge_chain": 1, "synthesis": 1}
    reasons = report["rejected"]["by_reason"]
    assert reasons["unit_alone_insufficient"] == 1
    assert reasons["answerable_from_hop1"] == 1 and reasons["answerable_from_hop2"] == 1
    assert reasons["answerable_from_text_only"] == 2, "the April figure's caption and a bridge through it"
    assert reasons["text_retrieval_reaches_conclusion"] == 1
    assert reasons["names_bridge_entity"] >= 1
    rejected = _rejected(out)
    assert rejected["Who founded the bank?"] == {"check": "unit_alone", "reason": "unit_alone_insufficient"}
    assert rejected[Q8] == {"check": "text_only", "reason": "answerable_from_text_only"}
    assert rejected[SYNTHESIS["monthly fee"][0]]["check"] == "text_top_k"
    assert report["construction_failures"]["atomic_qa"] == 1, "the unparseable table reply made no question"
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert [(f["task"], f["units"]) for f in failures] == [("atomic_qa", ["guide:8"])]
    assert "no <question> tag" in failures[0]["error"]
    assert report["calls"]["tasks"]["atomic_qa"]["unparseable"] == 1
    assert report["rejected"]["by_topology"]["bridge_chain"]["answerable_from_hop2"] == 1


def test_the_kept_questions_carry_their_topology(built):
    questions, problems = load_questions(built["out"] / "questions.jsonl")
    assert not problems
    by_q = {q.question: q for q in questions}
    bridge = by_q[BRIDGE]
    assert bridge.topology == "bridge_chain" and bridge.bridge_entities == ["gcashdata_5"]
    assert [h.sub_question for h in bridge.hops] == [Q1, Q2] and [h.evidence for h in bridge.hops] == [0, 1]
    assert [e.doc for e in bridge.evidence] == ["guide", "book"] and bridge.meta["cross_page"]
    assert "gcashdata_5" not in bridge.question and bridge.answer_short == "the checking account"
    synthesis = next(q for q in questions if q.topology == "synthesis")
    assert [e.modality for e in synthesis.evidence] == ["text", "image", "table"], "the three required points"
    assert [p.evidence for p in synthesis.evidence_points] == [0, 1, 2] and synthesis.meta["pattern_type"] == "aggregation"
    assert len(synthesis.meta["dropped_points"]) == 3, "the leave-one-out check dropped the points not needed"
    figure = by_q[Q7]
    assert figure.topology == "single_hop" and figure.evidence[0].modality == "image" and figure.meta["cross_modal"]
    checks = [c["check"] for c in figure.meta["checks"]]
    assert checks == ["unit_alone", "text_only"]
    report = built["report"]
    assert report["kept"]["by_path"]["bridge_chain: text→text"] == 1
    assert report["evidence_resolution"]["unresolved"] == 0
    assert report["evidence_resolution"]["items_resolving_to_their_unit_alone"] == report["evidence_resolution"]["items"]


def test_report_counts_calls_tokens_and_the_cache(built):
    calls = built["report"]["calls"]
    assert calls["total"]["calls"] == built["requests"] and calls["total"]["fresh"] == built["requests"]
    assert calls["total"]["prompt_tokens"] > 0 and calls["total"]["completion_tokens"] > 0
    assert set(calls["tasks"]) >= {"atomic_qa", "bridge_compose", "synthesis", "check:unit_alone", "check:hop1_alone",
                                   "check:hop2_alone", "check:all_points", "check:leave_one_out", "check:text_top_k",
                                   "check:text_only"}
    assert calls["prompts"]["atomic_qa"] == "atomic_qa_v1"
    assert (built["out"] / "report.md").read_text().startswith("# Topology build: cards")
    assert built["second_requests"] == 0, "a second build is answered from the generation cache"
    again = json.loads((built["again"] / "report.json").read_text())
    assert again["calls"]["total"]["cached"] == again["calls"]["total"]["calls"]
    assert (built["again"] / "questions.jsonl").read_text() == (built["out"] / "questions.jsonl").read_text()


def test_the_questions_run_as_dataset_custom_with_structural_metrics(built, tmp_path):
    from ham.run.job import run

    cfg = compose(["dataset=custom", "dataset.name=cards_topo", f"dataset.path={built['root']}",
                   f"dataset.questions={built['out'] / 'questions.jsonl'}", f"dataset.descriptions={built['descriptions']}",
                   "metrics.names=[gold_unit_recall,both_hops,ordered_chain,evidence_point_coverage]",
                   "retrieval=graph", f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={built['tmp'] / 'cache'}",
                   "progress=false"])
    metrics = json.loads((run(cfg) / "metrics.json").read_text())["metrics"]
    assert metrics["gold_unit_recall"]["n"] == 8 and metrics["both_hops"]["n"] == 1
    assert metrics["evidence_point_coverage"]["n"] == 1


def test_a_build_cut_by_its_request_budget_resumes_from_the_cache(built, tmp_path):
    root, descriptions = built["root"], built["descriptions"]
    with ChatServer(responder=TopoScript(ATOMIC, COMPOSE, SYNTHESIS)) as server:
        cut = build(_cfg(tmp_path, root, descriptions, server, tmp_path / "cache", tmp_path / "cut",
                         "generator.client.request_budget=5"))
        report = json.loads((cut / "report.json").read_text())
        assert len(server.requests) == 5
        assert report["calls"]["total"]["generation_failures"] > 0
        failures = {k: v for t in report["calls"]["tasks"].values() for k, v in t["generation_failures"].items()}
        assert set(failures) == {"budget_exhausted"}
        assert report["kept"]["total"] < built["report"]["kept"]["total"], "nothing unchecked is kept"
        # every failure is written, not only the report's five examples
        failures = [json.loads(line) for line in (cut / "failures.jsonl").read_text().splitlines()]
        counts = report["construction_failures"]
        assert len(failures) == sum(counts[t] for t in ("entities", "atomic_qa", "bridge_compose", "synthesis")) > 5
        assert all(f["units"] and "budget" in f["error"] for f in failures if f["task"] == "atomic_qa")
        done = len(server.requests)
        resumed = build(_cfg(tmp_path, root, descriptions, server, tmp_path / "cache", tmp_path / "resumed"))
        assert len(server.requests) - done == built["requests"] - 5, "only the calls not yet answered are sent"
    assert (resumed / "questions.jsonl").read_text() == (built["out"] / "questions.jsonl").read_text()


def test_gold_evidence_names_its_document_not_the_file_it_was_read_from():
    # TopoGraph's loaded_info.json holds every document: gold named by the file had resolved to units
    # of other documents, and its page keys ("loaded_info.json#0") matched no retrieved page
    from ham.datasets.evidence import resolve_evidence
    from ham.datasets.pages import page_gold, page_keys
    from ham.datasets.questions import Question
    from ham.ingest import ingest_corpus
    from ham.topo.build import evidence_of
    from ham.units import build_units
    from tests.datasets.conftest import TOPOGRAPH

    docs, _ = ingest_corpus(TOPOGRAPH)
    units = [u for d in docs for u in build_units(d)]
    assert len({u.doc_id for u in units}) > len({u.source for u in units})       # several documents, one file
    for u in (u for u in units if u.extra.get("layout_id") is not None and "#" not in u.unit_id):
        item = evidence_of(u)
        item.units = []
        resolve_evidence([Question(id="x", question="?", evidence=[item])], units)
        assert u.unit_id in item.units and all(x.startswith(u.doc_id + ":") for x in item.units), (u.unit_id, item.units)
        assert all(x.split("#")[0] == u.unit_id for x in item.units), "its own unit (and its image twin) only"
        if u.page is not None:
            assert set(page_gold(Question(id="x", question="?", evidence=[evidence_of(u)]))) == page_keys(u.doc_id, u.page)


def test_a_synthesis_questions_entities_are_its_points_data_points_held_by_its_evidence(built):
    # the whole conclusion as its one "entity" had made entity recall 0 whatever was retrieved
    from ham.metrics.registry import Case
    from ham.metrics.structural import benchmark_entity_recall, entity_items

    questions, _ = load_questions(built["out"] / "questions.jsonl")
    synthesis = next(q for q in questions if q.topology == "synthesis")
    assert synthesis.answer_short is None and synthesis.reference_answer
    points = [d for p in synthesis.evidence_points for d in p.data_points]
    assert points, [p.fact for p in synthesis.evidence_points]
    from ham.ingest import ingest_corpus
    from ham.units import build_units

    docs, _ = ingest_corpus(built["root"])
    units = {u.unit_id: u for d in docs for u in build_units(d)}
    shown = "\n".join(units[e.units[0]].content for e in synthesis.evidence)   # text, or a figure's caption
    items = entity_items(Case(synthesis, [], [], None))
    assert items == points and benchmark_entity_recall(items, shown) == 1.0, (items, shown)
    assert not {"A", "The", "An"} & set(items)


def test_unit_ids_not_in_the_corpus_stop_the_build_and_ineligible_ones_are_reported(built, tmp_path, caplog):
    # a misspelt id had been dropped silently: none matching, an empty benchmark "succeeded"
    root, descriptions = built["root"], built["descriptions"]
    with ChatServer(responder=TopoScript(ATOMIC, COMPOSE, SYNTHESIS)) as server:
        with pytest.raises(ValueError, match=r"2 of 3 id\(s\) are not units of the corpus .*: guide:99, nope:1"):
            build(_cfg(tmp_path, root, descriptions, server, built["tmp"] / "cache", tmp_path / "bad",
                       "topo.unit_ids=[guide:99,guide:2,nope:1]"))
        assert server.requests == [], "no model call before the ids are checked"
        atomic = {json.loads(line)["unit_id"] for line in (built["out"] / "atomic.jsonl").read_text().splitlines()}
        short = "book:8"   # "The monthly fee went up in April.": seven words, no question
        with caplog.at_level("WARNING", logger="ham.topo.build"):
            out = build(_cfg(tmp_path, root, descriptions, server, built["tmp"] / "cache", tmp_path / "some",
                             f"topo.unit_ids=[{short},{sorted(atomic)[0]}]"))
    report = json.loads((out / "report.json").read_text())
    assert report["units"]["selected"] == 1
    assert report["units"]["requested_not_eligible"] == [
        {"unit": short, "reason": "fewer than topo.min_words=12 words of evidence"}]
    assert f"topo.unit_ids: {short} gets no question" in caplog.text
    assert f"Requested unit {short} gets no question" in (out / "report.md").read_text()


def test_the_report_says_which_constraint_left_no_synthesis_group(built, tmp_path):
    # anchors are capped at max_share of the units: under 50 units the default 0.1 leaves none in the
    # 5 units synthesis needs, and the report had said nothing
    assert built["report"]["stages"]["no_synthesis_groups"] is None
    with ChatServer(responder=TopoScript(ATOMIC, COMPOSE, SYNTHESIS)) as server:
        out = build(_cfg(tmp_path, built["root"], built["descriptions"], server, built["tmp"] / "cache",
                         tmp_path / "capped", "topo.entities.max_share=0.1"))
        report = json.loads((out / "report.json").read_text())
        assert report["stages"]["synthesis_groups"] == 0
        assert "floor(topo.entities.max_share=0.1 x 12 units)) = 2 units, fewer than topo.synthesis.min_units=5" \
            in report["stages"]["no_synthesis_groups"]
        assert "No synthesis group: no entity can anchor" in (out / "report.md").read_text()
        out = build(_cfg(tmp_path, built["root"], built["descriptions"], server, built["tmp"] / "cache",
                         tmp_path / "points", "topo.synthesis.min_points=7"))
    assert json.loads((out / "report.json").read_text())["stages"]["no_synthesis_groups"].startswith(
        "none of the 2 anchor(s) in >= 5 units has topo.synthesis.min_points=7 selected units")
