"""Fast (no system venv): the loopback embedding endpoint, a reply in a system's own context shape
becoming a scored prediction row, run identity of system=..., and the failure path of a missing venv."""
import base64
import json
import urllib.request

import numpy as np
import pytest

from ham.systems.embedding_server import EmbeddingServer
from ham.conf import compose
from ham.datasets.questions import Evidence, Hop, Question
from ham.run.identity import run_id
from ham.systems.mapping import ContextMapper
from ham.systems.rows import system_row
from tests.systems.test_mapping import UNITS


class HashEncoder:
    """A real (if crude) encoder: a vector from character trigram hashes, L2-normalised."""

    dim = 16

    def encode(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for j in range(len(t) - 2):
                out[i, hash(t[j:j + 3]) % self.dim] += 1
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def _post(url, body):
    req = urllib.request.Request(url + "/embeddings", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def test_embedding_server_speaks_openai_float_and_base64():
    enc = HashEncoder()
    with EmbeddingServer(enc, model_name="hash") as server:
        floats = _post(server.base_url, {"model": "hash", "input": ["a credit card", "a loan"]})
        packed = _post(server.base_url, {"model": "hash", "input": "a loan", "encoding_format": "base64"})
        with pytest.raises(urllib.error.HTTPError) as bad:
            _post(server.base_url, {"model": "hash", "input": [[1, 2, 3]]})
    assert [d["index"] for d in floats["data"]] == [0, 1]
    assert np.allclose(floats["data"][1]["embedding"], enc.encode(["a loan"])[0], atol=1e-6)
    decoded = np.frombuffer(base64.b64decode(packed["data"][0]["embedding"]), dtype="<f4")
    assert np.allclose(decoded, enc.encode(["a loan"])[0], atol=1e-6)
    assert bad.value.code == 400 and server.served["requests"] == 2 and server.served["inputs"] == 3


# a reply as LightRAG 1.5.7's aquery_llm returns its data (entities, relationships, chunks), recorded
LIGHTRAG_REPLY = {"ok": True, "answer": "No: the card is a loan.", "group": "corpus", "index_key": "k",
                  "usage": {"llm_calls": 2, "prompt_tokens": 900, "completion_tokens": 12, "seconds": 0.4},
                  "context": {"entities": [{"entity_name": "Credit Card", "entity_type": "concept",
                                            "description": "A loan.", "source_id": "chunk-1", "file_path": "doc.pdf"}],
                              "relations": [{"src_id": "Credit Card", "tgt_id": "Loan", "keywords": "is",
                                             "description": "A card is a loan.", "file_path": "doc.pdf"}],
                              "chunks": [{"content": UNITS[2].content, "file_path": "doc.pdf", "chunk_id": "c2"},
                                         {"content": UNITS[0].content + " " + UNITS[1].content,
                                          "file_path": "doc.pdf", "chunk_id": "c1"}],
                              "images": [{"path": "/x/pay.png", "file_path": "doc.pdf"}]}}


def _question():
    return Question(id="q", question="Is the bill an expense?", topology="bridge_chain", reference_answer="No.",
                    evidence=[Evidence(doc="doc.pdf", units=["d:1"]), Evidence(doc="doc.pdf", units=["d:3"])],
                    hops=[Hop("a?", "loan", evidence=0), Hop("b?", "monthly", evidence=1)])


def test_a_recorded_reply_becomes_a_row_the_structural_metrics_score():
    from ham.metrics.evaluator import Evaluator

    mapper = ContextMapper(UNITS)
    metrics = compose(["metrics=topology"], return_hydra_config=False).metrics
    metrics.names = ["gold_unit_recall", "both_hops", "ordered_chain"]
    evaluator = Evaluator.from_config(metrics)
    row = system_row(_question(), LIGHTRAG_REPLY, mapper, {u.unit_id: u for u in UNITS}, "lightrag", "m", evaluator)
    kinds = [r["system_kind"] for r in row["retrieved_text"]]
    assert kinds == ["entity", "relation", "chunk", "chunk"]
    assert row["retrieved_text"][3]["members"] == ["d:1", "d:2"] and row["retrieved_images"][0]["unit_id"] == "d:4"
    assert row["metrics"]["gold_unit_recall"] == 1.0 and row["metrics"]["both_hops"] == 1.0
    # hop 1's unit (d:1) comes after hop 2's (d:3) in the system's context order
    assert row["metrics"]["ordered_chain"] == 0.0
    assert row["system"]["coverage"]["unmapped"] == 2 and row["system"]["coverage"]["mapped"] == 3
    assert row["generation"]["usage"] == {"prompt_tokens": 900, "completion_tokens": 12}
    assert row["answer"][0]["text"] == "No: the card is a loan." and row["failure"] is None


def test_a_failed_reply_is_a_row_with_its_reason():
    reply = {"ok": False, "reason": "spans_documents", "detail": "two documents", "usage": {}}
    row = system_row(_question(), reply, ContextMapper(UNITS), {}, "lightrag", "m")
    assert row["failure"]["reason"] == "spans_documents" and row["answer"] is None and row["retrieved_text"] == []


def _id(*overrides):
    return run_id(compose(list(overrides), return_hydra_config=False))


def test_system_none_keeps_every_earlier_run_id_and_each_system_setting_changes_it():
    base = compose([], return_hydra_config=False)
    assert "system" in base and base.system._target_ is None
    plain = _id("generator=openai")
    lightrag = _id("generator=openai", "system=lightrag")
    assert lightrag != plain != _id("generator=openai", "system=hipporag")
    assert _id("generator=openai", "system=lightrag", "system.index_scope=corpus") != lightrag
    assert _id("generator=openai", "system=lightrag", "system.query_mode=hybrid") != lightrag
    raganything = _id("generator=openai", "system=raganything")
    assert _id("generator=openai", "system=raganything", "system.images_to_llm=true") != raganything
    # where the venv lives, the embedding endpoint and concurrency do not change results
    assert _id("generator=openai", "system=lightrag", "system.venv=/elsewhere", "system.llm_max_async=9",
               "system.embedding_base_url=http://127.0.0.1:9/v1") == lightrag


def test_a_system_run_needs_an_openai_generator_and_its_venv(tmp_path):
    from ham.run.build import build_system_pipeline

    with pytest.raises(ValueError, match="OpenAI-compatible generator"):
        build_system_pipeline(compose(["system=lightrag"], return_hydra_config=False))
    from ham.systems.adapter import LightRAGSystem, LLMEndpoint

    system = LightRAGSystem(venv=str(tmp_path / "no-venv"))
    system.start(LLMEndpoint("http://127.0.0.1:9/v1", "m"), {"base_url": "x", "model": "e", "dim": 4},
                 tmp_path, tmp_path / "log")
    with pytest.raises(FileNotFoundError, match="make systems-venv"):
        system.info()


def test_system_settings_are_checked_at_compose_time():
    from ham.conf import ConfigError

    with pytest.raises(ConfigError, match="index_scope=page: must be one of document, corpus"):
        compose(["system=lightrag", "system.index_scope=page"], return_hydra_config=False)
    with pytest.raises(ConfigError, match="passage_chars=0: must be >= 1"):
        compose(["system=hipporag", "system.passage_chars=0"], return_hydra_config=False)
    with pytest.raises(ConfigError, match="passage_chars"):
        compose(["system=lightrag", "+system.passage_chars=5"], return_hydra_config=False)


def test_a_streamed_reply_to_a_plain_request_becomes_the_completion_the_sdk_expects():
    """``transformers serve`` answers ``stream: false`` with server-sent events; the wrappers'
    transport (ham/systems/wrappers/protocol.py, stdlib part) joins them into one completion."""
    import importlib.util

    from ham.systems.client import WRAPPERS

    spec = importlib.util.spec_from_file_location("protocol", WRAPPERS / "protocol.py")
    protocol = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(protocol)
    body = (b'data: {"id":"x","model":"smollm2","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}\n\n'
            b'data: {"id":"x","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"length"}]}\n\n'
            b'data: {"id":"x","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}\n\ndata: [DONE]\n\n')
    done = protocol.completion_from_events(body)
    assert done["choices"][0]["message"]["content"] == "Hello" and done["choices"][0]["finish_reason"] == "length"
    assert done["model"] == "smollm2" and done["usage"] == {"prompt_tokens": 5, "completion_tokens": 2}
    bare = protocol.completion_from_events(b'data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\n')
    assert bare["usage"]["prompt_tokens"] == 0 and bare["choices"][0]["message"]["content"] == "x"


def test_a_redone_questions_earlier_attempts_count_in_the_query_totals(tmp_path):
    # a failed attempt's calls are spent: answered again on a later launch, its cost had vanished
    from types import SimpleNamespace

    from ham.run.system_pipeline import SystemPipeline

    failed = {"ok": False, "reason": "llm_failed", "detail": "x", "group": "doc.pdf",
              "usage": {"llm_calls": 5, "llm_failed_calls": 5, "prompt_tokens": 5000, "completion_tokens": 50,
                        "llm_failure_reasons": {"APITimeoutError": 5}}}
    answered = {**LIGHTRAG_REPLY, "group": "doc.pdf",
                "usage": {"llm_calls": 2, "prompt_tokens": 900, "completion_tokens": 12}}
    replies = iter([failed, failed, answered])

    class System:
        system, records, llm = "lightrag", {"doc.pdf": {"ok": True}}, SimpleNamespace(model="m")

        def query(self, q):
            return next(replies)

        def close(self):
            pass

    pred = tmp_path / "predictions.jsonl"
    totals = []
    for _ in range(3):
        pipeline = SystemPipeline(retriever=None, assembler=None, generator=None, evaluator=None,
                                  corpus=SimpleNamespace(by_id={u.unit_id: u for u in UNITS}), info={"system": {}},
                                  system=System(), mapper=ContextMapper(UNITS))
        rows = pipeline.answer_all([_question()], pred, progress=False, redo_failures=frozenset({"llm_failed"}))
        totals.append(pipeline.info["system"]["query"])
    assert [t["llm_calls"] for t in totals] == [5, 10, 12]
    assert totals[-1]["prompt_tokens"] == 10900 and totals[-1]["completion_tokens"] == 112
    assert totals[-1]["llm_failed_calls"] == 10 and totals[-1]["llm_failure_reasons"] == {"APITimeoutError": 10}
    assert totals[-1]["redone"] == 2 and totals[-1]["failures"] == {}
    assert rows[0]["system"]["usage"]["llm_calls"] == 2, "the row's own usage is its answering attempt's"
    assert rows[0]["system"]["usage_earlier"]["attempts"] == 2
    assert len(pred.read_text().splitlines()) == 1
    # the run's cost block prices every attempt too, as the query totals count them
    from ham.generate.cost import cost_summary

    cost = cost_summary(rows, {"pricing": "p", "prices": {"p": {"prompt": 1.0, "completion": 2.0}}}, None)
    assert cost["prompt_tokens"]["total"] == 10900 and cost["completion_tokens"]["total"] == 112
    assert cost["cents_total"] == round((10900 * 1.0 + 112 * 2.0) / 1e4, 4)
