"""LightRAG (``lightrag-hku`` 1.5.7) behind ham's system protocol (``protocol.py``). Runs in
``.venv-lightrag``.

index   ``LightRAG.ainsert`` of each document as one text (``lightrag_common.document_text``) with
        its source path as ``file_paths``: LightRAG's default pipeline (token chunking, LLM entity
        and relation extraction with its own prompts, description merging, NetworkX graph,
        nano-vectordb vectors) in the working folder.
query   ``LightRAG.aquery_llm`` in the configured mode (LightRAG's default: ``mix``): one call
        that returns the structured retrieval (entities, relationships, chunks: what the answer
        prompt was built from) and the answer. LightRAG 1.5 exposes the context itself, so no
        patch is needed (GraphRAG-Bench patched ``kg_query`` of older releases to get it).
"""
from __future__ import annotations

import asyncio
import hashlib
import os
from importlib.metadata import version

from lightrag_common import (context_of, document_text, embedding_function, graph_size, llm_function,
                             raise_failed_documents, remember_sources, tokenizer)
from protocol import Meter, run


class NoContext(Exception):
    """LightRAG found nothing to answer from (its ``no_results``): recorded as ``no_context``."""

    ham_reason = "no_context"


class LightRAGWrapper:
    def __init__(self, config: dict, meter: Meter) -> None:
        self.config, self.meter = config, meter
        self.loop = asyncio.new_event_loop()
        self.rag, self.workdir = None, None

    def _open(self, workdir: str):
        if self.workdir == workdir:
            return self.rag
        self._close()
        from lightrag import LightRAG

        options = self.config.get("options") or {}
        # a workspace per folder: LightRAG keeps storages in process-wide namespaces keyed by
        # workspace, so two folders with the default (empty) one would share their data
        rag = LightRAG(working_dir=workdir, workspace=os.path.basename(workdir.rstrip("/")), llm_model_func=llm_function(self.config, self.meter),
                       llm_model_name=self.config["llm"]["model"],
                       embedding_func=embedding_function(self.config, self.meter), tokenizer=tokenizer(self.config),
                       llm_model_max_async=int(options.get("llm_max_async", 4)))
        self.loop.run_until_complete(rag.initialize_storages())
        self.rag, self.workdir = rag, workdir
        return rag

    def _close(self) -> None:
        if self.rag is not None:
            self.loop.run_until_complete(self.rag.finalize_storages())
        self.rag, self.workdir = None, None

    def info(self, request: dict) -> dict:
        return {"versions": {"lightrag-hku": version("lightrag-hku"), "openai": version("openai")}}

    def index(self, request: dict) -> dict:
        rag = self._open(request["workdir"])
        docs = [d for d in request["documents"] if document_text(d).strip()]
        texts = [document_text(d) for d in docs]
        ids = ["doc-" + hashlib.md5(d["source"].encode()).hexdigest() for d in docs]
        remember_sources(request["workdir"], docs)
        if texts:
            self.loop.run_until_complete(rag.ainsert(texts, ids=ids, file_paths=[d["source"] for d in docs]))
            raise_failed_documents(rag, self.loop, "LightRAG")
        self._close()   # flush every storage to the working folder
        return {"graph": graph_size(request["workdir"]), "documents": len(texts)}

    def query(self, request: dict) -> dict:
        from lightrag import QueryParam

        rag = self._open(request["workdir"])
        options = self.config.get("options") or {}
        param = QueryParam(mode=options.get("mode") or "mix")
        if options.get("top_k"):
            param.top_k = int(options["top_k"])
        if options.get("chunk_top_k"):
            param.chunk_top_k = int(options["chunk_top_k"])
        result = self.loop.run_until_complete(rag.aquery_llm(request["question"], param=param))
        llm = result.get("llm_response") or {}
        if "status" not in result and not result.get("data"):
            # LightRAG 1.4 (RAG-Anything's): no keywords extracted from a question of 50 characters or
            # more, so nothing is retrieved and its kg_query returns the canned fail response
            # with no raw data, which aquery_llm passes on without a status
            raise NoContext(f"LightRAG retrieved nothing (no keywords extracted?); it answered "
                            f"{str(llm.get('content'))[:100]!r}")
        if result.get("status") != "success":
            reason = (result.get("metadata") or {}).get("failure_reason")
            if reason == "no_results":
                raise NoContext(f"LightRAG: {result.get('message')}")
            raise RuntimeError(f"LightRAG: {result.get('status')}: {result.get('message')}")
        raw = {k: v for k, v in result.items() if k != "llm_response"}
        raw["llm_response"] = {k: v for k, v in llm.items() if k != "response_iterator"}
        return {"answer": llm.get("content"), "context": context_of(result.get("data"), request["workdir"]),
                "raw": raw}


if __name__ == "__main__":
    run(LightRAGWrapper)
