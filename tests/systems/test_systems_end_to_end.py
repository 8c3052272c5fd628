"""Each GraphRAG system end to end on the demo topology questions (slow; each needs its venv,
``make systems-venv SYSTEM=...``, and skips saying so without it): its own code indexes the demo
corpus and answers against the loopback chat server replying in its own extraction formats
(tests.support.graph_replies), embeddings from ham's MiniLM on the loopback endpoint; then the same
command again resumes: the index comes from the cache and no question is asked again."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ham.conf import compose
from ham.run.job import run
from tests.support.chat_server import ChatServer
from tests.support.graph_replies import GraphReplies

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
RUNNABLE = ("lightrag", "hipporag", "raganything")   # MegaRAG: its own test below


@pytest.mark.parametrize("system", RUNNABLE)
def test_a_system_indexes_answers_and_resumes(system, tmp_path):
    if not (ROOT / f".venv-{system}" / "bin" / "python").exists():
        pytest.skip(f".venv-{system} is not built (make systems-venv SYSTEM={system})")
    replies = GraphReplies()
    with ChatServer(responder=replies) as chat:
        overrides = ["experiment=demo_topology", f"system={system}", "system.index_scope=corpus", "generator=openai",
                     "generator.client.model=scripted", f"generator.client.base_url={chat.base_url}", "limit=8",
                     f"paths.output_root={tmp_path}", "progress=false"]
        out = run(compose(overrides, return_hydra_config=False))
        asked = len(chat.requests)
        metrics = json.loads((out / "metrics.json").read_text())
        info = metrics["index"]["system"]
        assert info["index"]["indexed"] == 1 and info["index"]["nodes"] > 0 and info["index"]["llm_calls"] > 0
        rows = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
        assert len(rows) == 8
        assert sum(1 for r in rows if r["failure"] is None) >= 6, [r["failure"] for r in rows]
        mapping = metrics["index"]["context_mapping"]
        assert mapping["by_kind"]["chunk"]["mapped"] > 0
        recall = metrics["metrics"]["gold_unit_recall"]
        assert recall["n"] > 0 and recall["mean"] > 0
        assert info["query"]["llm_calls"] >= 8
        # the same command again: finished, nothing rebuilt or asked
        run(compose(overrides, return_hydra_config=False))
        assert len(chat.requests) == asked
        # answering again (rerun) reuses the cached index: only query calls go out
        run(compose(overrides + ["rerun=true"], return_hydra_config=False))
        again = json.loads((out / "metrics.json").read_text())["index"]["system"]["index"]
        assert again["cached"] == 1


def _megarag_corpus(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """A few documents of the demo corpus (the credit-card chapter's HTML pages with their figures,
    and the PDF, whose pages MegaRAG gets as rendered images) and the demo topology questions
    whose evidence lies in them."""
    import shutil

    demo = ROOT / "ham" / "data" / "demo"
    corpus = tmp_path / "corpus"
    (corpus / "gnucash" / "figures").mkdir(parents=True)
    for page in (demo / "corpus" / "gnucash").glob("*c*.html"):
        if page.name.startswith(("cc-", "chapter_cc")):
            shutil.copy(page, corpus / "gnucash" / page.name)
    for figure in (demo / "corpus" / "gnucash" / "figures").glob("cc_*"):
        shutil.copy(figure, corpus / "gnucash" / "figures" / figure.name)
    shutil.copytree(demo / "corpus" / "pdf", corpus / "pdf")
    docs = {f"gnucash/{p.name}" for p in (corpus / "gnucash").glob("*.html")}
    kept = [line for line in (demo / "topology_questions.jsonl").read_text().splitlines()
            if {e.get("doc") for e in json.loads(line)["evidence"]} <= docs]
    questions = tmp_path / "questions.jsonl"
    questions.write_text("\n".join(kept) + "\n")
    return corpus, questions, [json.loads(line)["id"] for line in kept]


def test_megarag_indexes_page_assets_answers_and_resumes(tmp_path):
    """MegaRAG (its own code, .venv-megarag) on a few demo documents with the stand-in embeddings
    (mm_embedding=endpoint_text: not MegaRAG's retrieval, GME needs its weights): page assets with
    rendered PDF pages, its two-round construction, mix_two_step answers mapped onto ham's units."""
    if not (ROOT / ".venv-megarag" / "bin" / "python").exists():
        pytest.skip(".venv-megarag is not built (make systems-venv SYSTEM=megarag MEGARAG_SRC=<checkout>)")
    corpus, questions, ids = _megarag_corpus(tmp_path)
    assert len(ids) >= 5
    replies = GraphReplies()
    with ChatServer(responder=replies) as chat:
        overrides = ["experiment=demo_topology", f"dataset.path={corpus}", f"dataset.questions={questions}",
                     "system=megarag", "system.index_scope=corpus", "system.mm_embedding=endpoint_text",
                     "generator=openai", "generator.client.model=scripted", f"generator.client.base_url={chat.base_url}",
                     f"paths.output_root={tmp_path / 'out'}", "progress=false"]
        out = run(compose(overrides, return_hydra_config=False))
        asked = len(chat.requests)
        metrics = json.loads((out / "metrics.json").read_text())
        info = metrics["index"]["system"]
        print("megarag:", json.dumps({"index": info["index"], "query": info["query"],
                                      "mapping": metrics["index"]["context_mapping"], "seen": dict(replies.seen),
                                      "recall": metrics["metrics"]["gold_unit_recall"]}))
        assert info["index"]["indexed"] == 1 and info["index"]["nodes"] > 0 and info["index"]["llm_calls"] > 0
        assert info["options"]["mm_embedding"] == "endpoint_text"
        # its own construction ran: multimodal extraction, then the refinement round over the graph
        assert replies.seen["mm_extraction"] > 0 and replies.seen["mm_refine"] == replies.seen["mm_extraction"]
        workdir = Path(info["groups"]["corpus"]["workdir"])
        pages = json.loads((workdir / "ham_pages.json").read_text())
        assert [bool(p["page_image"]) for p in pages["pdf/expense_accounts.pdf"]] == [True, True]
        assert not any(p["page_image"] for p in pages["gnucash/cc-together1.html"])
        assert any(p["figure_images"] for p in pages["gnucash/cc-together1.html"])
        rows = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
        assert sorted(r["id"] for r in rows) == sorted(ids)
        failed = [r["failure"]["reason"] for r in rows if r["failure"]]
        assert len(failed) <= 2, [r["failure"] for r in rows if r["failure"]]
        assert sum(info["query"]["failures"].values()) == len(failed)      # failures counted by reason
        assert all(r["system"]["embedding"]["megarags_retrieval"] is False for r in rows if not r["failure"])
        assert replies.seen["two_step"] == len(rows) - len(failed)
        mapping = metrics["index"]["context_mapping"]
        assert mapping["by_kind"]["chunk"]["mapped"] == mapping["by_kind"]["chunk"]["items"] > 0
        assert set((mapping["by_kind"].get("image") or {"by_rule": {}})["by_rule"]) <= {"page"}
        assert metrics["metrics"]["gold_unit_recall"]["mean"] > 0
        # the same command again: finished, nothing rebuilt or asked
        run(compose(overrides, return_hydra_config=False))
        assert len(chat.requests) == asked
