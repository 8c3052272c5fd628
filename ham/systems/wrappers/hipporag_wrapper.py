"""HippoRAG 2 (``hipporag`` 2.0.0a4) behind ham's system protocol. Runs in ``.venv-hipporag``.

index   the document's passages (units in reading order, packed up to ``passage_chars``
        characters, never split) through ``HippoRAG.index``: its default pipeline (online OpenIE
        with its NER and triple prompts against the run's LLM, passage/entity/fact embeddings,
        the igraph knowledge graph with synonymy edges) under ``save_dir``.
query   ``HippoRAG.rag_qa``: fact retrieval, recognition-memory filtering, Personalized PageRank,
        its QA prompt over the top ``top_k`` passages; the retrieved passages come back in the
        ``QuerySolution`` with their scores (no patch needed).

The import shim: hipporag's ``llm/vllm_offline.py`` imports ``vllm`` at module level, so
``import hipporag`` fails without it, though only ``openie_mode="offline"`` uses it; vLLM's wheels
are CUDA builds. The wrapper registers a module ``vllm`` whose names raise when used, so the online
(OpenAI-compatible) path runs on CPU; where vLLM is installed (a GPU machine) the real one is used.
Embeddings go to the run's endpoint through hipporag's own ``OpenAIEmbeddingModel`` (chosen by an
embedding model name containing ``text-embedding``, its rule), with ``embedding_base_url``.
"""
from __future__ import annotations

import importlib.util
import os
import sys
import types

from protocol import Meter, event_tolerant_http_client, run

EMBEDDING_NAME = "text-embedding-ham"   # hipporag picks its OpenAI embedding client by this substring


def install_vllm_shim() -> bool:
    if importlib.util.find_spec("vllm") is not None:
        return False
    shim = types.ModuleType("vllm")

    class Unavailable:
        def __init__(self, *a, **k):
            raise RuntimeError("vLLM is not installed (CUDA only): hipporag's offline mode cannot run here")

    shim.SamplingParams = shim.LLM = Unavailable
    sys.modules["vllm"] = shim
    return True


def passages(doc: dict, limit: int) -> list[str]:
    out, current = [], ""
    for u in doc["units"]:
        text = (u.get("caption") if u["modality"] == "image" else u.get("content")) or ""
        text = text.strip()
        if not text:
            continue
        if current and len(current) + len(text) + 2 > limit:
            out.append(current)
            current = ""
        current = f"{current}\n\n{text}" if current else text
    if current:
        out.append(current)
    return out


class HippoRAGWrapper:
    def __init__(self, config: dict, meter: Meter) -> None:
        self.config, self.meter = config, meter
        self.shimmed = install_vllm_shim()
        self.rag, self.workdir, self.sources = None, None, {}

    def _open(self, workdir: str):
        if self.workdir == workdir:
            return self.rag
        from hipporag import HippoRAG
        from hipporag.utils.config_utils import BaseConfig

        llm, emb = self.config["llm"], self.config["embedding"]
        options = self.config.get("options") or {}
        os.environ["OPENAI_API_KEY"] = self.config["api_key"]
        cfg = BaseConfig(save_dir=workdir, llm_name=llm["model"], llm_base_url=llm["base_url"],
                         embedding_model_name=EMBEDDING_NAME, embedding_base_url=emb["base_url"],
                         openie_mode="online", temperature=llm.get("temperature", 0.0),
                         qa_top_k=int(options.get("top_k") or 5), force_index_from_scratch=False,
                         # the run's completion cap (hipporag's own default is 2048)
                         **({"max_new_tokens": int(llm["max_tokens"])} if llm.get("max_tokens") else {}))
        self.rag = HippoRAG(global_config=cfg)
        from openai import OpenAI

        # its own client, with a transport that also reads a server's streamed reply (protocol.py)
        self.rag.llm_model.openai_client = OpenAI(base_url=llm["base_url"], http_client=event_tolerant_http_client(False),
                                                  max_retries=self.rag.llm_model.max_retries)
        self._meter_llm(self.rag)
        self.workdir = workdir
        return self.rag

    def _meter_llm(self, rag) -> None:
        """Count hipporag's LLM calls and their tokens at its one entry point, ``CacheOpenAI.infer``
        (its metadata carries the server's token counts), and its embedding calls."""
        llm = rag.llm_model
        infer = llm.infer

        def metered(*args, **kwargs):
            try:
                message, metadata, *rest = infer(*args, **kwargs)
            except Exception as exc:
                self.meter.failed(exc)
                raise
            if not (metadata or {}).get("cache_hit"):
                self.meter.add(llm_calls=1, prompt_tokens=(metadata or {}).get("prompt_tokens", 0),
                               completion_tokens=(metadata or {}).get("completion_tokens", 0))
            return (message, metadata, *rest)

        llm.infer = metered
        encoder = rag.embedding_model
        batch = encoder.batch_encode

        def counted(texts, **kwargs):
            self.meter.add(embedding_calls=1, embedded_texts=len(texts) if isinstance(texts, list) else 1)
            return batch(texts, **kwargs)

        encoder.batch_encode = counted

    def info(self, request: dict) -> dict:
        from importlib.metadata import version

        return {"versions": {"hipporag": version("hipporag"), "openai": version("openai"),
                             "torch": version("torch"), "vllm": "import shim (not installed)" if self.shimmed
                             else version("vllm")}}

    def index(self, request: dict) -> dict:
        rag = self._open(request["workdir"])
        limit = int((self.config.get("options") or {}).get("passage_chars") or 1200)
        texts, sources = [], {}
        for doc in request["documents"]:
            for p in passages(doc, limit):
                texts.append(p)
                sources[p] = doc["source"]
        import json

        with open(os.path.join(request["workdir"], "ham_sources.json"), "w") as fh:
            json.dump(sources, fh)
        rag.index(docs=texts)
        graph = rag.graph
        return {"graph": {"nodes": graph.vcount(), "edges": graph.ecount(), "communities": None},
                "documents": len(request["documents"]), "passages": len(texts)}

    def query(self, request: dict) -> dict:
        import json

        rag = self._open(request["workdir"])
        with open(os.path.join(request["workdir"], "ham_sources.json")) as fh:
            sources = json.load(fh)
        solutions, responses, metadata = rag.rag_qa(queries=[request["question"]])
        solution = solutions[0]
        scores = list(getattr(solution, "doc_scores", None) if getattr(solution, "doc_scores", None) is not None else [])
        docs = list(solution.docs or [])
        top_k = int((self.config.get("options") or {}).get("top_k") or 5)
        chunks = [{"content": d, "file_path": sources.get(d), "score": float(scores[i]) if i < len(scores) else None,
                   "rank": i + 1} for i, d in enumerate(docs[:top_k])]
        return {"answer": solution.answer, "context": {"entities": [], "relations": [], "chunks": chunks, "images": []},
                "raw": {"question": solution.question, "answer": solution.answer, "docs": docs[:top_k],
                        "doc_scores": [float(s) for s in scores[:top_k]], "response": responses[0] if responses else None}}


if __name__ == "__main__":
    run(HippoRAGWrapper)
