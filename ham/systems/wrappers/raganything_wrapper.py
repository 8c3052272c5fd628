"""RAG-Anything (``raganything`` 1.4.3 on ``lightrag-hku`` 1.4.16) behind ham's system protocol.
Runs in ``.venv-raganything``.

index   each document as RAG-Anything's content list (``content_list``: text blocks, tables with
        their bodies and captions, images by absolute file path with captions, each with its
        0-based ``page_idx``), inserted with ``RAGAnything.insert_content_list``: its default
        pipeline (text through LightRAG's extraction, each image and table through its modal
        processors, which describe the item with the LLM and add it to the graph as an entity with
        its own chunk). ham hands it the content list instead of PDFs because its parser, MinerU, is
        not installed (docs/systems.md); the wrapper skips RAG-Anything's check that it is (its one
        patch: ``_parser_installation_checked``). No vision model is configured: the modal processors' prompts
        go to the run's (text) LLM, as RAG-Anything does when ``vision_model_func`` is None.
query   RAG-Anything's text query is ``LightRAG.aquery(question, QueryParam(mode))`` on its LightRAG
        instance; the wrapper makes the same call as ``aquery_llm``, which returns the structured
        context with the answer (no patch). An image's chunk names its file (``Image Path: ...``):
        it is kept as the chunk's ``image_path``.
"""
from __future__ import annotations

import hashlib
import os
import re

from lightrag_common import embedding_function, llm_function, raise_failed_documents, remember_sources, tokenizer
from lightrag_wrapper import LightRAGWrapper
from protocol import run

IMAGE_PATH = re.compile(r"Image Path:\s*(\S+)")


def content_list(doc: dict) -> list[dict]:
    """A DOC (protocol.py) as RAG-Anything's content list; images without a file are left out."""
    out = []
    for u in doc["units"]:
        page = u.get("page") or 0
        if u["modality"] == "image":
            if u.get("image_path") and os.path.exists(u["image_path"]):
                out.append({"type": "image", "img_path": u["image_path"], "image_caption": [u.get("caption") or ""],
                            "image_footnote": [], "page_idx": page})
        elif u["kind"] == "table":
            out.append({"type": "table", "table_body": u.get("content") or "", "table_caption": [u.get("caption") or ""],
                        "table_footnote": [], "page_idx": page})
        elif (u.get("content") or "").strip():
            out.append({"type": "text", "text": u["content"], "page_idx": page})
    return out


def with_image_paths(context: dict) -> dict:
    for chunk in context.get("chunks") or []:
        m = IMAGE_PATH.search(chunk.get("content") or "")
        if m:
            chunk["image_path"] = m.group(1)
    return context


class RAGAnythingWrapper(LightRAGWrapper):
    def _open(self, workdir: str):
        if self.workdir == workdir:
            return self.rag
        self._close()
        from lightrag import LightRAG
        from raganything import RAGAnything, RAGAnythingConfig

        options = self.config.get("options") or {}
        llm = llm_function(self.config, self.meter)
        embed = embedding_function(self.config, self.meter)
        light = LightRAG(working_dir=workdir, workspace=os.path.basename(workdir.rstrip("/")), llm_model_func=llm,
                         llm_model_name=self.config["llm"]["model"], embedding_func=embed,
                         tokenizer=tokenizer(self.config), llm_model_max_async=int(options.get("llm_max_async", 4)))
        self.loop.run_until_complete(light.initialize_storages())
        from lightrag.kg.shared_storage import initialize_pipeline_status

        self.loop.run_until_complete(initialize_pipeline_status())
        self.anything = RAGAnything(config=RAGAnythingConfig(working_dir=workdir), lightrag=light,
                                    llm_model_func=llm, vision_model_func=None, embedding_func=embed)
        # the one patch: RAG-Anything checks that its PDF parser (MinerU) is installed before any
        # insert, also before insert_content_list, which parses nothing; the check is marked done
        self.anything._parser_installation_checked = True
        self.rag, self.workdir = light, workdir
        return light

    def info(self, request: dict) -> dict:
        from importlib.metadata import version

        return {"versions": {"raganything": version("raganything"), "lightrag-hku": version("lightrag-hku"),
                             "openai": version("openai")}}

    def index(self, request: dict) -> dict:
        from lightrag_common import graph_size

        self._open(request["workdir"])
        remember_sources(request["workdir"], request["documents"])
        inserted = 0
        for doc in request["documents"]:
            items = content_list(doc)
            if not items:
                continue
            self.loop.run_until_complete(self.anything.insert_content_list(
                items, file_path=doc["source"], doc_id="doc-" + hashlib.md5(doc["source"].encode()).hexdigest(),
                display_stats=False))
            inserted += 1
        raise_failed_documents(self.rag, self.loop, "RAG-Anything/LightRAG")
        self._close()
        return {"graph": graph_size(request["workdir"]), "documents": inserted}

    def query(self, request: dict) -> dict:
        reply = super().query(request)
        reply["context"] = with_image_paths(reply["context"])
        return reply


if __name__ == "__main__":
    run(RAGAnythingWrapper)
