"""A redo asks the server again: rows redone by ``run.redo_failures`` and rows answered again by
``rerun=true`` bypass the generation cache (replaying the stored reply redid nothing), counted in
the server's requests."""
from __future__ import annotations

import json

from ham.run.job import run
from tests.run.test_resume_job import _corpus
from tests.support.chat_server import ChatServer
from ham.conf import compose


def _cfg(tmp_path, server, *extra):
    root, questions = (tmp_path / "manual", tmp_path / "questions.jsonl") if (tmp_path / "manual").exists() \
        else _corpus(tmp_path)
    return compose(["dataset=custom", f"dataset.path={root}", f"dataset.questions={questions}", "progress=false",
                    f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}",
                    "generator=openai", "generator.client.model=m", f"generator.client.base_url={server.base_url}",
                    "metrics.names=[image_f1]", *extra])


def _rows(out):
    return [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]


def test_redoing_empty_replies_asks_the_server_again(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    reply = {"text": ""}
    with ChatServer(responder=lambda body: reply["text"]) as server:
        out = run(_cfg(tmp_path, server))
        assert [r["failure"]["reason"] for r in _rows(out)] == ["empty"] * 3 and len(server.requests) == 3
        reply["text"] = "Replace it every six months."
        run(_cfg(tmp_path, server))                     # a plain resume keeps content failures
        assert len(server.requests) == 3
        run(_cfg(tmp_path, server, "run.redo_failures=[retryable,empty]"))
        assert len(server.requests) == 6, "the redone rows were asked again, not replayed from the cache"
        assert all(r["failure"] is None for r in _rows(out))


def test_rerun_asks_every_question_again_unless_told_to_reuse_successes(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with ChatServer(responder=lambda body: "Replace it every six months.") as server:
        run(_cfg(tmp_path, server))
        assert len(server.requests) == 3
        run(_cfg(tmp_path, server, "rerun=true"))
        assert len(server.requests) == 6
        out = run(_cfg(tmp_path, server, "rerun=true", "run.reuse_cached_successes=true"))
        assert len(server.requests) == 6, "successes served from the cache when asked to"
        assert all(r["generation"]["cached"] for r in _rows(out))
