"""MegaRAG's adapter on a reply recorded from its own code (fast, no venv): the wrapper's reply to
demo question topo-s01 (tests/systems/data/megarag_reply.json: MegaRAG ca7c627 run end to end
against the scripted chat server, stand-in embeddings; entities and relations trimmed to 3
each) becomes a scored ham row over the demo corpus's units: chunks mapped by text, its page
image by page, entities and relations counted unmapped; and the settings MegaRAG adds enter
the run id."""
import copy
import json
from pathlib import Path

import pytest

from ham.conf import compose
from ham.datasets.evidence import resolve_evidence
from ham.datasets.questions import load_questions
from ham.run.build import configured_cache, load_configured_corpus
from ham.run.identity import run_id
from ham.systems.mapping import ContextMapper
from ham.systems.rows import system_row

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    cfg = compose(["experiment=demo_topology", f"paths.output_root={tmp_path_factory.mktemp('out')}"],
                  return_hydra_config=False)
    corpus = load_configured_corpus(cfg, configured_cache(cfg))
    questions, _ = load_questions(ROOT / "ham" / "data" / "demo" / "topology_questions.jsonl")
    resolve_evidence(questions, corpus.units)   # gold evidence -> unit ids, as a run does before scoring
    return cfg, corpus, {q.id: q for q in questions}


def _row(demo, reply):
    from ham.metrics.evaluator import Evaluator

    cfg, corpus, questions = demo
    metrics = copy.deepcopy(cfg.metrics)
    metrics.names = ["gold_unit_recall"]
    return system_row(questions[reply["question_id"]], reply, ContextMapper(corpus.units), corpus.by_id, "megarag",
                      "scripted", Evaluator.from_config(metrics))


def test_a_recorded_megarag_reply_becomes_a_scored_row(demo):
    reply = json.loads((DATA / "megarag_reply.json").read_text())
    row = _row(demo, reply)
    kinds = [r["system_kind"] for r in row["retrieved_text"]]
    assert kinds == ["entity"] * 3 + ["relation"] * 3 + ["chunk"] * 12
    # entity names come from LightRAG 1.4's "entity" field (MegaRAG's context), relations from entity1/entity2
    assert all(r["text"].split(" (")[0] for r in row["retrieved_text"][:3])
    assert " -> " in row["retrieved_text"][3]["text"] and not row["retrieved_text"][3]["text"].startswith(" ->")
    chunks = row["retrieved_text"][6:]
    assert all(c["mapped_by"] == "text" and c["members"] for c in chunks)
    # the naive branch's page of the PDF maps to that page's units, in its document
    pdf_chunk = next(c for c, raw in zip(chunks, reply["context"]["chunks"]) if raw["file_path"].endswith(".pdf"))
    assert {demo[1].by_id[u].page for u in pdf_chunk["members"]} == {0}
    (image,) = row["retrieved_images"]
    assert image["mapped_by"] == "page" and image["source"] == "pdf/expense_accounts.pdf" and image["page"] == 1
    page0 = [u.unit_id for u in demo[1].units if u.source == "pdf/expense_accounts.pdf" and u.page == 0]
    assert image["members"] == page0 and len(page0) > 1
    coverage = row["system"]["coverage"]
    assert coverage["mapped"] == 13 and coverage["unmapped"] == 6
    assert coverage["by_kind"]["entity"]["unmapped_reasons"] == {"generated description": 3}
    assert coverage["by_kind"]["image"]["by_rule"] == {"page": 1}
    # the gold passage of topo-s01 (cc-concepts1.html) is in the context: recall 1
    assert row["metrics"]["gold_unit_recall"] == 1.0
    assert row["failure"] is None and row["answer"][0]["text"] == reply["answer"].strip()
    assert row["system"]["embedding"]["megarags_retrieval"] is False       # the stand-in, said in the row
    assert row["generation"]["attempts"] == reply["usage"]["llm_calls"] == 4


def test_a_page_image_maps_by_its_page_and_a_figure_by_its_file(demo):
    """The rules MegaRAG's images meet: a page image by (document, page); a figure crop by file
    name (MegaRAG's query sends page images only; its chunks keep the page's figure files)."""
    reply = json.loads((DATA / "megarag_reply.json").read_text())
    reply["context"]["images"][0]["page"] = 1
    figure = next(u for u in demo[1].units if u.source == "gnucash/cc-together1.html" and u.image_path)
    reply["context"]["images"].append({"path": "/elsewhere/" + Path(figure.image_path).name, "kind": "figure",
                                       "file_path": "gnucash/cc-together1.html"})
    page_image, figure_row = _row(demo, reply)["retrieved_images"]
    assert page_image["members"] == [u.unit_id for u in demo[1].units
                                     if u.source == "pdf/expense_accounts.pdf" and u.page == 1]
    assert (figure_row["mapped_by"], figure_row["members"]) == ("image", [figure.unit_id])


def _id(*overrides):
    return run_id(compose(["generator=openai", "system=megarag", *overrides], return_hydra_config=False))


def test_megarags_settings_enter_the_run_id():
    base = _id()
    assert _id("system.mm_embedding=endpoint_text") != base
    assert _id("system.embedding_model=/models/gme") != base
    assert _id("system.entity_types='account,transaction'") != base
    assert _id("system.page_chars=1500") != base
    assert _id("system.venv=/elsewhere") == base


def test_megarag_without_gme_weights_says_how_to_run(tmp_path):
    from ham.systems.adapter import LLMEndpoint, MegaRAGSystem

    cfg = compose(["system=megarag", "generator=openai"], return_hydra_config=False)
    assert cfg.system.query_mode == "mix_two_step" and cfg.system.chunk_top_k == 6 and cfg.system.mm_embedding == "gme"
    with pytest.raises(ValueError, match="needs system.embedding_model.*mm_embedding=endpoint_text"):
        MegaRAGSystem().start(LLMEndpoint("http://127.0.0.1:9/v1", "m"), {"base_url": "x", "model": "e", "dim": 4},
                              tmp_path, tmp_path / "log")
