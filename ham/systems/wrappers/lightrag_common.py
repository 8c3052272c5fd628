"""The pieces LightRAG, RAG-Anything and MegaRAG share (all three build on LightRAG): the LLM
function over LightRAG's own OpenAI client, metered; the embedding function over the OpenAI SDK
(LightRAG's ``openai_embed`` truncates with tiktoken, which needs the internet); the tokenizer;
the graph size of a working folder; the retrieved context of a LightRAG ``raw_data`` record.
Runs inside the system's venv."""
from __future__ import annotations

import glob
import json
import os

import numpy as np
from protocol import Meter, RegexTokenizer, event_tolerant_http_client


class MeteredTracker:
    """LightRAG's ``token_tracker`` interface (``add_usage``), adding to the wrapper's meter."""

    def __init__(self, meter: Meter) -> None:
        self.meter = meter

    def add_usage(self, counts: dict) -> None:
        self.meter.add(prompt_tokens=counts.get("prompt_tokens", 0),
                       completion_tokens=counts.get("completion_tokens", 0))


def llm_function(config: dict, meter: Meter):
    """``llm_model_func`` for LightRAG: ``lightrag.llm.openai.openai_complete_if_cache`` against
    the run's endpoint, with the run's model, temperature and completion cap."""
    from lightrag.llm.openai import openai_complete_if_cache

    llm = config["llm"]
    tracker = MeteredTracker(meter)
    images_to_llm = bool((config.get("options") or {}).get("images_to_llm"))

    async def complete(prompt, system_prompt=None, history_messages=None, **kwargs):
        # RAG-Anything's image processor calls the LLM with the image (image_data, base64) when no
        # vision model is set; the OpenAI API takes it only as a content part of the message
        image = kwargs.pop("image_data", None)
        if image and images_to_llm:
            kwargs["messages"] = with_image(prompt, image, system_prompt, history_messages or [])
        kwargs.pop("hashing_kv", None)
        kwargs.pop("keyword_extraction", None)
        kwargs.pop("entity_extraction", None)
        kwargs.pop("_priority", None)
        kwargs.setdefault("temperature", llm.get("temperature", 0.0))
        if llm.get("max_tokens"):
            kwargs.setdefault("max_tokens", llm["max_tokens"])
        kwargs["openai_client_configs"] = {"http_client": event_tolerant_http_client()}
        try:
            reply = await openai_complete_if_cache(
                llm["model"], prompt, system_prompt=system_prompt, history_messages=history_messages or [],
                base_url=llm["base_url"], api_key=config["api_key"], token_tracker=tracker,
                timeout=llm.get("timeout"), **kwargs)
        except Exception as exc:
            meter.failed(exc)
            raise
        meter.add(llm_calls=1)
        return reply

    return complete


def image_mime(b64: str) -> str:
    """The MIME type of base64-encoded image bytes, from their magic number."""
    import base64

    head = base64.b64decode(b64[:16] + "=" * (-len(b64[:16]) % 4))
    for magic, mime in ((b"\x89PNG", "image/png"), (b"\xff\xd8", "image/jpeg"), (b"GIF8", "image/gif"),
                        (b"RIFF", "image/webp")):
        if head.startswith(magic):
            return mime
    return "application/octet-stream"


def with_image(prompt: str, image_b64: str, system_prompt: str | None, history: list) -> list[dict]:
    """The chat messages of a prompt with one image, as an OpenAI-compatible vision endpoint takes them."""
    user = {"role": "user", "content": [{"type": "text", "text": prompt}, {
        "type": "image_url", "image_url": {"url": f"data:{image_mime(image_b64)};base64,{image_b64}"}}]}
    return ([{"role": "system", "content": system_prompt}] if system_prompt else []) + list(history) + [user]


def raise_failed_documents(rag, loop, system: str) -> None:
    """Raise, naming up to three of them, when the LightRAG-based ``rag`` marked documents failed
    (LightRAG 1.5 asks ``get_docs_by_statuses``, 1.4 ``get_docs_by_status``; the error is in
    ``error_msg`` or, in MegaRAG's, ``error``)."""
    from lightrag.base import DocStatus

    status = rag.doc_status
    getter = getattr(status, "get_docs_by_statuses", None)
    failed = loop.run_until_complete(getter([DocStatus.FAILED]) if getter
                                     else status.get_docs_by_status(DocStatus.FAILED))
    if failed:
        detail = "; ".join(f"{getattr(v, 'file_path', None) or k}: "
                           f"{getattr(v, 'error_msg', None) or getattr(v, 'error', None) or v}"
                           for k, v in list(failed.items())[:3])
        raise RuntimeError(f"{system} marked {len(failed)} document(s) failed: {detail}")


def embedding_function(config: dict, meter: Meter):
    """``embedding_func`` for LightRAG: the run's ``/v1/embeddings`` endpoint through the OpenAI SDK."""
    from lightrag.utils import EmbeddingFunc
    from openai import AsyncOpenAI

    emb = config["embedding"]
    client = AsyncOpenAI(base_url=emb["base_url"], api_key=config["api_key"], timeout=emb.get("timeout", 120))

    async def embed(texts: list[str], **_ignored) -> np.ndarray:
        response = await client.embeddings.create(model=emb["model"], input=list(texts), encoding_format="float")
        meter.add(embedding_calls=1, embedded_texts=len(texts))
        return np.array([d.embedding for d in response.data], dtype=np.float32)

    return EmbeddingFunc(embedding_dim=int(emb["dim"]), max_token_size=None, func=embed)


def tokenizer(config: dict):
    """LightRAG's ``Tokenizer`` around ``RegexTokenizer`` (``tokenizer: regex``, the default), or
    LightRAG's own tiktoken one (``tokenizer: tiktoken``; its BPE file must be in tiktoken's cache)."""
    from lightrag.utils import TiktokenTokenizer, Tokenizer

    if config.get("tokenizer", "regex") == "tiktoken":
        return TiktokenTokenizer()
    return Tokenizer("ham-regex-words", RegexTokenizer())


def graph_size(workdir: str) -> dict:
    """Nodes and edges of the knowledge graph LightRAG's default NetworkX storage wrote (its GraphML
    file); communities: None, LightRAG builds none."""
    import networkx as nx

    files = sorted(glob.glob(os.path.join(workdir, "**", "*.graphml"), recursive=True))
    if not files:
        return {"nodes": 0, "edges": 0, "communities": None, "graph_file": None}
    graph = nx.read_graphml(files[0])
    return {"nodes": graph.number_of_nodes(), "edges": graph.number_of_edges(), "communities": None,
            "graph_file": os.path.relpath(files[0], workdir)}


def document_text(doc: dict) -> str:
    """A document as one text, in reading order: every text and table unit's content, and each
    image's caption where the document prints one (what a text-only system reads of a page)."""
    parts = []
    for unit in doc["units"]:
        if unit["modality"] == "image":
            if unit.get("caption"):
                parts.append(unit["caption"])
        elif unit.get("content"):
            parts.append(unit["content"])
    return "\n\n".join(parts)


def _known_sources(path: str) -> dict[str, list[str]]:
    known = json.load(open(path)) if os.path.exists(path) else {}
    return {k: v if isinstance(v, list) else [v] for k, v in known.items()}   # older folders: one source


def remember_sources(workdir: str, docs: list[dict]) -> None:
    """LightRAG keeps only a file path's last part (``cc-concepts1.html``); the working folder
    remembers which documents each stands for (``manual_a/index.html`` and ``manual_b/index.html``
    share one), so the context names ham's source path again."""
    path = os.path.join(workdir, "ham_sources.json")
    known = _known_sources(path)
    for d in docs:
        sources = known.setdefault(os.path.basename(d["source"]), [])
        if d["source"] not in sources:
            sources.append(d["source"])
    with open(path, "w") as fh:
        json.dump(known, fh)


def source_restorer(workdir: str):
    """A path LightRAG gave -> ham's source path: the path itself when it is one, else the one
    source its last part stands for; a last part several sources share stays as LightRAG gave it
    (the context mapper then finds its units by text alone, never in the wrong document)."""
    known = _known_sources(os.path.join(workdir, "ham_sources.json"))
    full = {s for sources in known.values() for s in sources}

    def restore(p: str) -> str:
        if p in full:
            return p
        sources = known.get(os.path.basename(p), [])
        return sources[0] if len(sources) == 1 else p

    return restore


def restore_sources(workdir: str, items: list[dict]) -> list[dict]:
    """Each item's ``file_path`` as ham's source path (``source_restorer``)."""
    restore = source_restorer(workdir)
    for item in items:
        fp = item.get("file_path")
        if isinstance(fp, str) and fp:
            item["lightrag_file_path"] = fp
            item["file_path"] = "<SEP>".join(restore(p) for p in fp.split("<SEP>"))
    return items


def context_of(data: dict, workdir: str) -> dict:
    """LightRAG's structured retrieval (``raw_data["data"]`` of ``aquery_llm`` / ``aquery_data``)
    in the protocol's CONTEXT shape, every field as LightRAG returned it (``file_path`` back to
    ham's source path, LightRAG's own kept as ``lightrag_file_path``)."""
    data = data or {}
    return {"entities": restore_sources(workdir, list(data.get("entities") or [])),
            "relations": restore_sources(workdir, list(data.get("relationships") or [])),
            "chunks": restore_sources(workdir, list(data.get("chunks") or [])), "images": []}
