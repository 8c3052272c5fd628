"""MegaRAG (commit ca7c627, AI2Lab Source Code License: research and evaluation use only) behind
ham's system protocol (``protocol.py``). Runs in ``.venv-megarag``, whose path holds the MegaRAG
checkout (``make systems-venv SYSTEM=megarag``); nothing of MegaRAG is copied here.

index   each document as MegaRAG's ``pages_content`` JSON (the format of its
        ``egs/utils/build_page_assets.py``: ``{"0": {"text", "page_image", "figure_images"}, ...}``)
        inserted with ``MegaRAG.insert(input=<json>, file_paths=<source>)`` as its
        ``construct_mmkg.py`` does: its default construction (page chunks, multimodal extraction
        with the page image and figure crops, one refinement round over the graph). A page's
        text is its units in reading order (text, table bodies, image captions, as
        build_page_assets joins a MinerU page); its page image is rendered from the document's
        PDF with pypdfium2 at 150 dpi, JPEG (MegaRAG's ``run_build_mmkg.sh`` renders at 150 dpi,
        JPEG); its figure images are the files of its image units (and table images). A page
        is ham's page; a document ham reads without pages (HTML, Markdown) is cut into pages at
        unit boundaries of at most ``page_chars`` characters, with no page image.
        ``addon_params``: MegaRAG's template (``egs/.template/conf/addon_params.yaml``, read from
        the checkout) with ``entity_types`` from the run (the template's ``...`` is a placeholder
        to be replaced; unset: MegaRAG's own default, LightRAG's ``DEFAULT_ENTITY_TYPES``).
query   ``MegaRAG.aquery(question, QueryParam(mode="mix_two_step", chunk_top_k=6,
        enable_rerank=False))`` as its ``query_mmkg.py`` asks. aquery returns the answer text
        only, and its two branches (a hybrid KG query, a naive page query) build QueryParams of
        their own, so LightRAG's ``only_need_context`` cannot reach them. The wrapper records the
        context as the branches build it, by wrapping three ``megarag.operate`` functions that it
        calls unchanged: ``_build_query_context_with_image`` (the KG branch's context: its JSON
        blocks of entities, relations and chunks, exactly as its answer prompt holds them),
        ``process_chunks_unified`` for the naive branch (``source_type="vector"``: the pages whose
        text and page image its answer prompt holds), ``kg_query`` / ``naive_query`` (the two
        branch answers, kept in ``raw``). Queries open MegaRAG with ``enable_llm_cache=False``: a
        cached answer would skip retrieval, and with it the context.
LLM     every call through MegaRAG's own OpenAI path, ``megarag.llms.openai.openai_complete_if_cache``
        (vision messages: images as data URLs), with the run's model, endpoint, temperature and
        completion cap. Its ``gpt_4o_mini_complete`` hard-codes ``"gpt-4o-mini"``; the wrapper
        calls the function it wraps with the configured model instead (no patch). Like
        gpt_4o_mini_complete, it sends no ``response_format`` for keyword extraction (there the
        explicit ``keyword_extraction`` parameter shadows the kwargs it pops, so none is ever set).
        A page without an image (no PDF) contributes no image to the call.
embed   ``mm_embedding: gme``: GME (``Alibaba-NLP/gme-Qwen2-VL-2B-Instruct``) loaded from the local
        folder ``embedding_model`` as the egs scripts load it, embedding through MegaRAG's own
        ``hf_gme_embed`` (texts, page images, queries in one space): MegaRAG's retrieval; needs
        the weights (no hub access at run time) and, at a useful speed, a GPU.
        ``mm_embedding: endpoint_text``: a STAND-IN for plumbing checks, NOT MegaRAG's retrieval:
        texts go to the run's ``/v1/embeddings`` (ham's encoder on loopback), and an image is
        embedded as the text that stands for it (a page image: its page's text; a figure: its
        caption), found by the image's pixels. Said on stderr at start and in every reply.
patch   one: MegaRAG's vector storage opens every chunk's page image to embed it, which fails
        for a page with none (a document ham has no PDF for); the wrapper passes such pages to
        the same ``NanoMMVectorDBStorage.upsert`` without the empty image field, which takes its
        own text path (MegaRAG's code, unchanged). Pages with an image are upserted as before.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import sys
from importlib.metadata import version
from pathlib import Path

from lightrag_common import (MeteredTracker, raise_failed_documents, remember_sources, restore_sources,
                             source_restorer, tokenizer)
from protocol import Meter, event_tolerant_http_client, run

STAND_IN = ("mm_embedding=endpoint_text: STAND-IN embeddings (texts through the run's encoder, images as "
            "their page text or caption): not MegaRAG's retrieval (GME)")
RENDER_DPI = 150
JSON_BLOCK = re.compile(r"```json\s*\n(.*?)\n```", re.S)


class NoContext(Exception):
    """MegaRAG found nothing to build a context from: recorded as ``no_context``."""

    ham_reason = "no_context"


# ---------------------------------------------------------------------------- page assets

def pages_of(doc: dict, page_chars: int) -> list[dict]:
    """A DOC's pages in order: ``{"page": ham page or None, "units": [...]}``. Units with a page
    group by it; a document without pages is cut at unit boundaries up to ``page_chars``."""
    units = doc["units"]
    if any(u.get("page") is not None for u in units):
        by_page: dict[int, list] = {}
        for u in units:
            by_page.setdefault(u.get("page") or 0, []).append(u)
        return [{"page": p, "units": by_page[p]} for p in sorted(by_page)]
    pages, current, size = [], [], 0
    for u in units:
        n = len(unit_text(u))
        if current and size + n > page_chars:
            pages.append({"page": None, "units": current})
            current, size = [], 0
        current.append(u)
        size += n
    if current:
        pages.append({"page": None, "units": current})
    return pages


def unit_text(u: dict) -> str:
    if u["modality"] == "image":
        return (u.get("caption") or "").strip()
    return (u.get("content") or "").strip()


def pdf_pages(pdf: str | None, folder: Path, stem: str) -> dict[int, str]:
    """Every page of the PDF rendered at RENDER_DPI as JPEG: {page index: path}."""
    if not pdf or not os.path.exists(pdf):
        return {}
    import pypdfium2

    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    document = pypdfium2.PdfDocument(pdf)
    try:
        for n in range(len(document)):
            path = folder / f"{stem}_megarag_page_{n:04d}.jpg"
            document[n].render(scale=RENDER_DPI / 72).to_pil().convert("RGB").save(path, format="JPEG", quality=90)
            out[n] = str(path)
    finally:
        document.close()
    return out


def page_assets(doc: dict, workdir: str, page_chars: int) -> tuple[dict, list[dict], dict]:
    """(pages_content, one record per page: ham page, page image, figures; image texts for the
    stand-in: the page's text for its page image, a figure's caption)."""
    stem = hashlib.md5(doc["source"].encode()).hexdigest()[:10]
    rendered = pdf_pages(doc.get("pdf"), Path(workdir) / "page_images", stem)
    content, records, image_texts = {}, [], {}
    for index, page in enumerate(pages_of(doc, page_chars)):
        text = "\n".join(t for t in (unit_text(u) for u in page["units"]) if t)
        figures = [u["image_path"] for u in page["units"]
                   if u.get("image_path") and os.path.exists(u["image_path"])]
        image = rendered.get(page["page"], "") if page["page"] is not None else ""
        content[str(index)] = {"text": text, "page_image": image, "figure_images": figures}
        records.append({"index": index, "page": page["page"], "page_image": image, "figure_images": figures})
        if image:
            image_texts[image] = text
        for u in page["units"]:
            if u.get("image_path") in figures:
                image_texts[u["image_path"]] = u.get("caption") or ""
    return content, records, image_texts


def pixel_key(image) -> str:
    rgb = image.convert("RGB")
    return hashlib.md5(rgb.tobytes() + repr(rgb.size).encode()).hexdigest()


# ---------------------------------------------------------------------------- the wrapper

class MegaRAGWrapper:
    def __init__(self, config: dict, meter: Meter) -> None:
        self.config, self.meter = config, meter
        self.options = config.get("options") or {}
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)     # MegaRAG.insert runs on always_get_an_event_loop()
        self.rag, self.key = None, None
        self.recorded: dict = {}
        self._gme = None
        self.stand_in = self.options.get("mm_embedding") == "endpoint_text"
        if self.stand_in:
            print(f"WARNING {STAND_IN}", file=sys.stderr, flush=True)
        self._install_recorders()

    # ------------------------------------------------------------------ MegaRAG's functions

    def addon_params(self) -> dict:
        import megarag
        import yaml

        template = Path(megarag.__file__).resolve().parents[1] / "egs" / ".template" / "conf" / "addon_params.yaml"
        data = yaml.safe_load(template.read_text(encoding="utf-8")) or {}
        params = dict(data.get("addon_params", data))
        params.pop("entity_types", None)          # the template's "..." placeholder
        if self.options.get("entity_types"):
            params["entity_types"] = list(self.options["entity_types"])
        return params

    def llm_function(self):
        from megarag.llms.openai import openai_complete_if_cache

        llm, tracker = self.config["llm"], MeteredTracker(self.meter)

        async def complete(prompt, input_images=None, system_prompt=None, history_messages=None,
                           keyword_extraction=False, **kwargs):
            kwargs.pop("hashing_kv", None)
            kwargs.pop("_priority", None)
            kwargs.setdefault("temperature", llm.get("temperature", 0.0))
            if llm.get("max_tokens"):
                kwargs.setdefault("max_tokens", llm["max_tokens"])
            if llm.get("timeout"):
                kwargs.setdefault("timeout", llm["timeout"])
            kwargs["openai_client_configs"] = {"http_client": event_tolerant_http_client()}
            images = [p for p in (input_images or []) if p]     # a page without an image sends none
            try:
                reply = await openai_complete_if_cache(
                    llm["model"], prompt, system_prompt=system_prompt, history_messages=history_messages or [],
                    input_images=images or None, base_url=llm["base_url"], api_key=self.config["api_key"],
                    token_tracker=tracker, **kwargs)
            except Exception:
                self.meter.add(llm_failed_calls=1)
                raise
            self.meter.add(llm_calls=1)
            return reply

        return complete

    def embedding_function(self, workdir: str):
        from lightrag.utils import EmbeddingFunc

        if self.stand_in:
            from openai import AsyncOpenAI

            emb = self.config["embedding"]
            client = AsyncOpenAI(base_url=emb["base_url"], api_key=self.config["api_key"], timeout=120)
            texts_of_images = self._image_texts(workdir)

            async def embed(texts=[], images=[], is_query=False):   # noqa: B006 - MegaRAG's signature
                import numpy as np

                inputs = list(texts)
                if images:
                    keys = [pixel_key(im) for im in images]
                    missing = [k for k in keys if k not in texts_of_images]
                    if missing:
                        raise RuntimeError(f"stand-in embedding: {len(missing)} image(s) of no known page or figure")
                    found = [texts_of_images[k] for k in keys]
                    inputs = [f"{t} {i}".strip() for t, i in zip(inputs, found)] if inputs else found
                inputs = [t if t.strip() else "(empty)" for t in inputs]
                response = await client.embeddings.create(model=emb["model"], input=inputs, encoding_format="float")
                self.meter.add(embedding_calls=1, embedded_texts=len(inputs))
                return np.array([d.embedding for d in response.data], dtype=np.float32)

            return EmbeddingFunc(embedding_dim=int(emb["dim"]), max_token_size=32768, func=embed)

        from megarag.llms.hf import hf_gme_embed

        model = self._gme_model()
        limit = asyncio.Semaphore(int(self.addon_params().get("embed_parallel_limit", 1)))

        async def embed(texts=[], images=[], is_query=False):   # noqa: B006 - MegaRAG's signature
            async with limit:
                out = await hf_gme_embed(embed_model=model, texts=texts, images=images, is_query=is_query)
            self.meter.add(embedding_calls=1, embedded_texts=max(len(texts), len(images)))
            return out

        return EmbeddingFunc(embedding_dim=1536, max_token_size=32768, func=embed)   # the egs scripts' values

    def _gme_model(self):
        """GME from the local folder ``embedding_model``, as MegaRAG's egs scripts load it."""
        if self._gme is None:
            import torch
            from transformers import AutoModel

            folder = self.options.get("embedding_model")
            if not folder or not os.path.isdir(folder):
                raise FileNotFoundError(f"mm_embedding=gme needs embedding_model: a local folder of "
                                        f"Alibaba-NLP/gme-Qwen2-VL-2B-Instruct (got {folder!r})")
            cuda = torch.cuda.is_available()
            self._gme = AutoModel.from_pretrained(folder, torch_dtype=torch.float16 if cuda else torch.float32,
                                                  device_map="cuda" if cuda else None,
                                                  trust_remote_code=True).eval()
        return self._gme

    def _image_texts(self, workdir: str) -> dict:
        from PIL import Image

        path = os.path.join(workdir, "ham_image_texts.json")
        by_file = json.load(open(path)) if os.path.exists(path) else {}
        return {pixel_key(Image.open(f)): t for f, t in by_file.items() if os.path.exists(f)}

    def _install_recorders(self) -> None:
        """Wrap the functions the two query branches build their context with (module docstring),
        and MegaRAG's vector upsert for pages without an image (the one patch)."""
        import megarag.operate as operate
        from megarag.kg.nano_mm_vector_db_impl import NanoMMVectorDBStorage

        recorded = self.recorded
        build, unified = operate._build_query_context_with_image, operate.process_chunks_unified
        kg_query, naive_query = operate.kg_query, operate.naive_query

        async def build_recorded(*args, **kwargs):
            result = await build(*args, **kwargs)
            recorded.setdefault("kg_context", []).append(result)
            return result

        async def unified_recorded(*args, **kwargs):
            result = await unified(*args, **kwargs)
            if kwargs.get("source_type") == "vector":
                recorded.setdefault("naive_chunks", []).append(result)
            return result

        async def kg_recorded(*args, **kwargs):
            recorded["kg_answer"] = await kg_query(*args, **kwargs)
            return recorded["kg_answer"]

        async def naive_recorded(*args, **kwargs):
            recorded["image_answer"] = await naive_query(*args, **kwargs)
            return recorded["image_answer"]

        operate._build_query_context_with_image, operate.process_chunks_unified = build_recorded, unified_recorded
        operate.kg_query, operate.naive_query = kg_recorded, naive_recorded

        upsert = NanoMMVectorDBStorage.upsert

        async def upsert_pages(storage, data):
            with_image = {k: v for k, v in data.items() if "page_img" not in v or v["page_img"]}
            without = {k: {f: x for f, x in v.items() if f != "page_img"} for k, v in data.items() if k not in with_image}
            if with_image:
                await upsert(storage, with_image)
            if without:
                await upsert(storage, without)

        NanoMMVectorDBStorage.upsert = upsert_pages

    # ------------------------------------------------------------------ opening an index

    def _open(self, workdir: str, querying: bool):
        key = (workdir, querying)
        if self.key == key:
            return self.rag
        self._close()
        from lightrag.kg.shared_storage import initialize_pipeline_status
        from megarag import MegaRAG

        extra = {"enable_llm_cache": False} if querying else {}
        rag = MegaRAG(working_dir=workdir, workspace=os.path.basename(workdir.rstrip("/")),
                      llm_model_func=self.llm_function(), llm_model_name=self.config["llm"]["model"],
                      embedding_func=self.embedding_function(workdir), addon_params=self.addon_params(),
                      tokenizer=tokenizer(self.config), llm_model_max_async=int(self.options.get("llm_max_async", 4)),
                      **extra)
        self.loop.run_until_complete(rag.initialize_storages())
        self.loop.run_until_complete(initialize_pipeline_status())
        self.rag, self.key = rag, key
        return rag

    def _close(self) -> None:
        if self.rag is not None:
            self.loop.run_until_complete(self.rag.finalize_storages())
        self.rag, self.key = None, None

    # ------------------------------------------------------------------ protocol ops

    def info(self, request: dict) -> dict:
        commit = Path(sys.prefix, "megarag-commit")
        return {"versions": {"megarag": commit.read_text().strip() if commit.exists() else "unknown",
                             "lightrag-hku": version("lightrag-hku"), "openai": version("openai"),
                             "transformers": version("transformers"), "pypdfium2": version("pypdfium2"),
                             "mm_embedding": self.options.get("mm_embedding")}}

    def index(self, request: dict) -> dict:
        workdir = request["workdir"]
        page_chars = int(self.options.get("page_chars") or 3000)
        inputs, sources, pages, image_texts = [], [], {}, {}
        for doc in request["documents"]:
            content, records, texts = page_assets(doc, workdir, page_chars)
            if not any(p["text"] or p["figure_images"] for p in content.values()):
                continue
            inputs.append(json.dumps(content, ensure_ascii=False))
            sources.append(doc["source"])
            pages[doc["source"]] = records
            image_texts.update(texts)
        remember_sources(workdir, request["documents"])
        with open(os.path.join(workdir, "ham_pages.json"), "w") as fh:
            json.dump(pages, fh)
        with open(os.path.join(workdir, "ham_image_texts.json"), "w") as fh:
            json.dump(image_texts, fh)
        rag = self._open(workdir, querying=False)
        if inputs:
            rag.insert(input=inputs, file_paths=sources)
            raise_failed_documents(rag, self.loop, "MegaRAG")
        self._close()
        return {"graph": graph_size(workdir), "documents": len(inputs),
                "pages": sum(len(r) for r in pages.values()),
                "page_images": sum(1 for r in pages.values() for p in r if p["page_image"]),
                "figure_images": sum(len(p["figure_images"]) for r in pages.values() for p in r)}

    def query(self, request: dict) -> dict:
        from lightrag.base import QueryParam
        from lightrag.prompt import PROMPTS

        workdir = request["workdir"]
        rag = self._open(workdir, querying=True)
        self.recorded.clear()
        param = QueryParam(mode=self.options.get("mode") or "mix_two_step",
                           chunk_top_k=int(self.options.get("chunk_top_k") or 6), enable_rerank=False)
        if self.options.get("top_k"):
            param.top_k = int(self.options["top_k"])
        answer = self.loop.run_until_complete(rag.aquery(request["question"], param=param))
        context = self.context(rag, workdir)
        raw = {"kg_answer": self.recorded.get("kg_answer"), "image_answer": self.recorded.get("image_answer"),
               "kg_context_built": len(self.recorded.get("kg_context") or [])}
        if not any(context[k] for k in ("entities", "relations", "chunks")):
            raise NoContext(f"MegaRAG retrieved nothing (KG answer: {str(raw['kg_answer'])[:120]!r})")
        if isinstance(answer, str) and answer.strip() == PROMPTS["fail_response"]:
            raise NoContext("MegaRAG answered with its fail response")
        return {"answer": answer, "context": context, "raw": raw,
                "embedding": {"mm_embedding": self.options.get("mm_embedding"),
                              "megarags_retrieval": not self.stand_in, **({"note": STAND_IN} if self.stand_in else {})}}

    # ------------------------------------------------------------------ the recorded context

    def context(self, rag, workdir: str) -> dict:
        """CONTEXT (protocol.py): the KG branch's entities, relations and chunks as its prompt
        holds them (``branch: kg``), then the naive branch's pages (``branch: naive``, each with
        its ham page) and their page images."""
        entities, relations, chunks, images = [], [], [], []
        for built in self.recorded.get("kg_context") or []:
            if not built:
                continue
            text = built[0] if isinstance(built, tuple) else built
            blocks = [json.loads(b) for b in JSON_BLOCK.findall(text)]
            if len(blocks) >= 3:
                entities += [{**e, "branch": "kg"} for e in blocks[0]]
                relations += [{**r, "branch": "kg"} for r in blocks[1]]
                chunks += [{**c, "branch": "kg"} for c in blocks[2]]
        pages = json.load(open(os.path.join(workdir, "ham_pages.json")))
        restore = source_restorer(workdir)
        for processed in self.recorded.get("naive_chunks") or []:
            ids = [c.get("id") for c in processed]
            stored = self.loop.run_until_complete(rag.text_chunks.get_by_ids(ids)) if ids else []
            for chunk, record in zip(processed, stored):
                record = record or {}
                path = chunk.get("file_path")
                source = restore(path) if isinstance(path, str) and path else path
                index = record.get("chunk_order_index")
                page = next((p for p in pages.get(source, []) if p["index"] == index), {})
                chunks.append({"content": chunk.get("content"), "file_path": chunk.get("file_path"),
                               "chunk_id": chunk.get("id"), "branch": "naive", "page_index": index,
                               "page": page.get("page"), "page_img": record.get("page_img"),
                               "fig_imgs": record.get("fig_imgs")})
                if record.get("page_img"):
                    images.append({"path": record["page_img"], "kind": "page_image", "page": page.get("page"),
                                   "file_path": chunk.get("file_path"), "chunk_id": chunk.get("id")})
        restore_sources(workdir, entities)
        restore_sources(workdir, relations)
        restore_sources(workdir, chunks)
        restore_sources(workdir, images)
        return {"entities": entities, "relations": relations, "chunks": chunks, "images": images}


def graph_size(workdir: str) -> dict:
    """Nodes and edges of MegaRAG's knowledge graph (the GraphML file of its working folder, not
    the per-round snapshots under ``iterative_refinement/``); communities: None, it builds none."""
    import networkx as nx

    files = sorted(p for p in Path(workdir).rglob("*.graphml") if "iterative_refinement" not in p.parts)
    if not files:
        return {"nodes": 0, "edges": 0, "communities": None, "graph_file": None}
    graph = nx.read_graphml(files[0])
    return {"nodes": graph.number_of_nodes(), "edges": graph.number_of_edges(), "communities": None,
            "graph_file": os.path.relpath(files[0], workdir)}


if __name__ == "__main__":
    run(MegaRAGWrapper)
