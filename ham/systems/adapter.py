"""The GraphRAG systems TopoGraphRAG-Bench compares, as ham components (config group ``system``):
each runs its own released code in its own venv through a wrapper script (``ham.systems.client``),
indexes the run's corpus with its default pipeline and answers the run's questions.

``index(corpus)`` builds one index per document (``index_scope: document``, the benchmark's:
"indexed independently at the document level") or one for the corpus (``corpus``), each in a
working folder under ``work_root`` named by the hash of what it depends on: the documents' units
as sent, the system and its pinned release, its indexing options, the LLM (model, temperature,
completion cap), the embedding model and the wrapper scripts' bytes. A folder with ``done.json``
is reused as it is; one without (a killed build) is wiped and built again; a document the system
fails on is recorded in ``failed.json`` with its reason, the others go on, and the next launch
tries it again. ``query(question)`` asks the index of the question's document (under
``document`` scope; a question whose evidence spans documents fails with ``spans_documents``).

Documents go to the wrapper as ham ingested them (``documents``): units in reading order with
their kind, text, page, box and image file; each wrapper turns them into its system's own input
(one text, passages, a MinerU-style content list, page assets).
"""
from __future__ import annotations

import json
import logging
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from ham.cache import key_of
from ham.datasets.evidence import doc_key, doc_keys
from ham.datasets.questions import Question
from ham.settings import Doc, Model, NotResult, OneOf, Range
from ham.systems.client import WRAPPERS, WrapperProcess

SCOPES = ("document", "corpus")
log = logging.getLogger("ham.systems")


@dataclass
class LLMEndpoint:
    """The OpenAI-compatible chat endpoint a system's LLM calls go to (``generator=openai``)."""

    base_url: str
    model: str
    temperature: float = 0.0
    max_tokens: int | None = None
    timeout: float = 300.0
    api_key: str | None = None

    def to_config(self) -> dict:
        return {"base_url": self.base_url, "model": self.model, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "timeout": self.timeout}


def document_names(units) -> dict[str, str]:
    """doc_id -> the name a system is given for the document: its source path, or where one file
    holds several documents (MMDocIR's parquet, TopoGraph's loaded_info.json) ``<source>#<doc_id>``,
    so that each is a document of its own to the system and its context maps back to it alone."""
    per_source: dict[str, set] = {}
    for unit in units:
        per_source.setdefault(unit.source, set()).add(unit.doc_id)
    return {u.doc_id: u.source if len(per_source[u.source]) == 1 else f"{u.source}#{u.doc_id}" for u in units}


def documents(corpus) -> dict[str, dict]:
    """name (``document_names``) -> the protocol's DOC (units in reading order), for every
    document of the corpus; ``file`` is the file it was read from where that is not its name."""
    names = document_names(corpus.units)
    out: dict[str, dict] = {}
    for unit in sorted(corpus.units, key=lambda u: (names[u.doc_id], u.order)):
        name = names[unit.doc_id]
        doc = out.setdefault(name, {"doc_id": unit.doc_id, "source": name, "units": []}
                             | ({"file": unit.source} if name != unit.source else {}))
        image = str(Path(corpus.root) / unit.image_path) if unit.image_path else None
        doc["units"].append({"unit_id": unit.unit_id, "kind": unit.kind, "modality": unit.modality,
                             "content": unit.content, "page": unit.page, "image_path": image,
                             "caption": unit.caption or unit.alt, "bbox": unit.extra.get("bbox"),
                             "heading_path": unit.heading_path})
    return out


QueryMode = Annotated[str | None, Doc("the system's query mode (LightRAG: local, global, hybrid, naive, mix; "
                                      "MegaRAG adds mix_two_step); None: the system's default")]


class GraphSystem:
    """Base of the four systems. Class attributes name the system, its wrapper script and the
    release the venv pins; ``__init__`` takes what a run may change (a system's own defaults are
    re-declared by its class, the rest passed on through ``**kwargs``)."""

    system = ""
    wrapper = ""
    release = ""
    index_options = ("tokenizer",)        # the options that change what indexing builds

    def __init__(self,
                 venv: Annotated[str, NotResult(
                     "where the system's venv lives; the release it pins enters by system._target_ (each class "
                     "names its release), the versions it reports are recorded in run.json"),
                     Doc("the system's virtualenv (make systems-venv SYSTEM=NAME); empty: .venv-<system>")] = "",
                 index_scope: Annotated[str, OneOf(*SCOPES), Doc(
                     "document: one index per document (the benchmark's); corpus: one for all documents")] = "document",
                 query_mode: QueryMode = None,
                 top_k: Annotated[int | None, Range(1), Doc("entities/relations (LightRAG family) or passages "
                                                            "(HippoRAG) retrieved; None: the system's default")] = None,
                 chunk_top_k: Annotated[int | None, Range(1), Doc("chunks kept for the answer prompt; None: the "
                                                                  "system's default")] = None,
                 tokenizer: Annotated[str, OneOf("regex", "tiktoken"), Doc(
                     "how the system counts tokens when it chunks and truncates: tiktoken needs its BPE file "
                     "from the internet (docs/systems.md)")] = "regex",
                 llm_max_async: Annotated[int, Range(1), NotResult(
                     "how many LLM calls the system keeps in flight: the same calls, concurrently"),
                     Doc("the system's LLM concurrency")] = 4,
                 embedding_base_url: Annotated[str | None, NotResult(
                     "the embedding endpoint; the encoder it serves enters the id as encoder.*"),
                     Doc("an OpenAI-compatible /v1/embeddings; None: the run's encoder on loopback")] = None,
                 timeout: Annotated[float, Range(1.0), Doc("seconds one index or query request may take (a "
                                                           "timeout failure)")] = 1800.0) -> None:
        self.venv = Path(venv or f".venv-{self.system}")
        self.index_scope, self.query_mode, self.top_k, self.chunk_top_k = index_scope, query_mode, top_k, chunk_top_k
        self.tokenizer, self.llm_max_async = tokenizer, llm_max_async
        self.embedding_base_url, self.timeout = embedding_base_url, timeout
        self.process: WrapperProcess | None = None
        self.records: dict[str, dict] = {}
        self._group_of_doc: dict[str, str] = {}

    # ------------------------------------------------------------------ settings

    @property
    def python(self) -> Path:
        """The venv's python: a relative ``venv`` from the working directory, else from the checkout
        ham runs from (where ``make systems-venv`` builds it); absolute, not resolved (the venv is
        found through the link)."""
        if self.venv.is_absolute() or self.venv.exists():
            return self.venv.absolute() / "bin" / "python"
        return Path(__file__).resolve().parents[2] / self.venv / "bin" / "python"

    def options(self) -> dict:
        return {"mode": self.query_mode, "top_k": self.top_k, "chunk_top_k": self.chunk_top_k,
                "tokenizer": self.tokenizer, "llm_max_async": self.llm_max_async}

    def wrapper_hash(self) -> str:
        names = sorted({self.wrapper, "protocol.py", *self.shared_scripts()})
        return key_of({n: (WRAPPERS / n).read_text(encoding="utf-8") for n in names})

    def shared_scripts(self) -> tuple[str, ...]:
        return ("lightrag_common.py",)

    def start(self, llm: LLMEndpoint, embedding: dict, work_root: Path, log_path: Path) -> None:
        """Bind the run's endpoints (``embedding``: base_url, model, dim, model_id) and folders."""
        if not (WRAPPERS / self.wrapper).exists():
            raise FileNotFoundError(f"system={self.system}: its wrapper {WRAPPERS / self.wrapper} is not written yet "
                                    "(docs/systems.md says which systems run)")
        self.llm, self.embedding, self.work_root = llm, embedding, Path(work_root)
        config = {"llm": llm.to_config(), "embedding": {k: embedding[k] for k in ("base_url", "model", "dim")},
                  "tokenizer": self.tokenizer, "options": self.options()}
        self.process = WrapperProcess(self.python, self.wrapper, config, llm.api_key, log_path, self.timeout)

    def close(self) -> None:
        if self.process is not None:
            self.process.close()

    def info(self) -> dict:
        reply = self.process.request("info")
        return reply.get("versions") or {"error": reply.get("detail")}

    # ------------------------------------------------------------------ indexing

    def groups(self, corpus) -> dict[str, list[dict]]:
        docs = documents(corpus)
        if self.index_scope == "corpus":
            return {"corpus": list(docs.values())}
        return {source: [doc] for source, doc in docs.items()}

    def index_key(self, docs: list[dict]) -> str:
        return key_of({"system": self.system, "release": self.release, "wrapper": self.wrapper_hash(),
                       "documents": docs, "llm": {k: v for k, v in self.llm.to_config().items()
                                                 if k in ("model", "temperature", "max_tokens")},
                       "embedding": self.embedding.get("model_id") or self.embedding["model"],
                       "options": {k: self.options()[k] for k in self.index_options}})[:16]

    def index(self, corpus, progress=None) -> dict[str, dict]:
        """Every group's index record (module docstring); ``progress(group, record)`` is told each."""
        names = document_names(corpus.units)
        for unit in corpus.units:
            for key in doc_keys(unit) - {doc_key(unit.source)} | {doc_key(names[unit.doc_id]), doc_key(unit.doc_id)}:
                self._group_of_doc[key] = names[unit.doc_id] if self.index_scope == "document" else "corpus"
        for group, docs in self.groups(corpus).items():
            record = self._index_group(group, docs)
            self.records[group] = record
            if progress is not None:
                progress(group, record)
        return self.records

    def _index_group(self, group: str, docs: list[dict]) -> dict:
        key = self.index_key(docs)
        workdir = self.work_root / self.system / key
        done = workdir / "done.json"
        if done.exists():
            return {**json.loads(done.read_text()), "cached": True}
        if workdir.exists():
            shutil.rmtree(workdir)   # a build that was killed or failed: start it again
        workdir.mkdir(parents=True)
        started = time.time()
        reply = self.process.request("index", workdir=str(workdir.resolve()), documents=docs)
        record = {"group": group, "key": key, "workdir": str(workdir), "documents": [d["source"] for d in docs],
                  "units": sum(len(d["units"]) for d in docs), "ok": bool(reply.get("ok")),
                  "graph": reply.get("graph"), "usage": reply.get("usage"),
                  "seconds": round(time.time() - started, 3), "cached": False}
        if reply.get("ok"):
            done.write_text(json.dumps(record, indent=1))
        else:
            record.update(reason=reply.get("reason"), detail=reply.get("detail"))
            (workdir / "failed.json").write_text(json.dumps(record, indent=1))
        return record

    # ------------------------------------------------------------------ answering

    def group_of(self, question: Question) -> tuple[str | None, str | None]:
        """(the group whose index answers the question, or None and the failure reason)."""
        if self.index_scope == "corpus":
            return "corpus", None
        groups = {self._group_of_doc.get(doc_key(e.doc)) for e in question.evidence if e.doc is not None}
        groups |= {self._group_of_doc.get(doc_key(question.meta.get("doc_id")))} if "doc_id" in question.meta else set()
        if None in groups:
            return None, "no_document"
        if len(groups) > 1:
            return None, "spans_documents"
        if not groups:
            return None, "no_document"
        return groups.pop(), None

    def query(self, question: Question) -> dict:
        group, reason = self.group_of(question)
        if group is None:
            detail = ("its evidence names documents indexed separately (index_scope=document)"
                      if reason == "spans_documents" else "no indexed document is named by its evidence")
            return {"ok": False, "reason": reason, "detail": detail, "group": None}
        record = self.records.get(group)
        if record is None or not record.get("ok"):
            return {"ok": False, "reason": "index_failed", "group": group,
                    "detail": f"the index of {group} failed: {(record or {}).get('reason')}: {(record or {}).get('detail')}"}
        reply = self.process.request("query", workdir=str(Path(record["workdir"]).resolve()), question=question.question)
        return {**reply, "group": group, "index_key": record["key"]}


class LightRAGSystem(GraphSystem):
    """LightRAG (HKUDS), ``lightrag-hku`` 1.5.7: text-only GraphRAG; query mode ``mix`` (its default)."""

    system, wrapper, release = "lightrag", "lightrag_wrapper.py", "lightrag-hku==1.5.7"

    def __init__(self, query_mode: QueryMode = "mix", **kwargs) -> None:
        super().__init__(query_mode=query_mode, **kwargs)


class HippoRAGSystem(GraphSystem):
    """HippoRAG 2 (OSU-NLP-Group), ``hipporag`` 2.0.0a4: OpenIE triples, a passage-entity graph,
    Personalized PageRank; passages cut at unit boundaries up to ``passage_chars``."""

    system, wrapper, release = "hipporag", "hipporag_wrapper.py", "hipporag==2.0.0a4"
    index_options = ("passage_chars",)

    def __init__(self, top_k: Annotated[int | None, Range(1), Doc(
                     "passages handed to its QA step (its qa_top_k default)")] = 5,
                 passage_chars: Annotated[int, Range(1), Doc(
                     "a passage is units in reading order up to this many characters")] = 1200,
                 **kwargs) -> None:
        super().__init__(top_k=top_k, **kwargs)
        self.passage_chars = passage_chars

    def options(self) -> dict:
        return {**super().options(), "passage_chars": self.passage_chars}

    def shared_scripts(self) -> tuple[str, ...]:
        return ()


class RAGAnythingSystem(GraphSystem):
    """RAG-Anything (HKUDS), ``raganything`` 1.4.3 on LightRAG 1.4.16: multimodal GraphRAG; ham
    hands it the corpus as its content list (``insert_content_list``), not PDFs for MinerU."""

    system, wrapper, release = "raganything", "raganything_wrapper.py", "raganything==1.4.3"
    index_options = ("tokenizer", "images_to_llm")

    def __init__(self, query_mode: QueryMode = "mix",
                 images_to_llm: Annotated[bool, Doc(
                     "send each image to the run's LLM as an image part when RAG-Anything describes it (a "
                     "vision endpoint); false: its prompt (caption, surrounding text) alone, as text")] = False,
                 **kwargs) -> None:
        super().__init__(query_mode=query_mode, **kwargs)
        self.images_to_llm = images_to_llm

    def options(self) -> dict:
        return {**super().options(), "images_to_llm": self.images_to_llm}


class MegaRAGSystem(GraphSystem):
    """MegaRAG (AI-Application-and-Integration-Lab), commit ca7c627: multimodal KG over page
    assets (page text, page image, figure crops), one refinement round, ``mix_two_step``
    answering (its query script's settings). Its retrieval embeds texts and page images with
    GME (``mm_embedding: gme``, the weights in ``embedding_model``); ``endpoint_text`` is a
    stand-in for plumbing checks (texts through the run's encoder, images as their page text or
    caption), not MegaRAG's retrieval: it is logged at start, recorded in every row's ``system``
    and, as a setting, in the run id. A document's pages are rendered from its PDF where it has
    one (``pdf`` in the DOC the wrapper gets)."""

    system, wrapper, release = "megarag", "megarag_wrapper.py", "megarag@ca7c627c1e8885b729585fcc6e80062fed5aba2b"
    index_options = ("tokenizer", "mm_embedding", "embedding_model", "entity_types", "page_chars")

    def __init__(self, query_mode: QueryMode = "mix_two_step",
                 chunk_top_k: Annotated[int | None, Range(1), Doc("chunks kept for the answer prompt (its query "
                                                                  "script's 6)")] = 6,
                 mm_embedding: Annotated[str, OneOf("gme", "endpoint_text"), Doc(
                     "gme: MegaRAG's retrieval (GME text+image embeddings, embedding_model); endpoint_text: a "
                     "STAND-IN for plumbing checks, not MegaRAG's retrieval (texts through the run's encoder, "
                     "images as their page text or caption)")] = "gme",
                 embedding_model: Annotated[str | None, Model(), Doc(
                     "a local folder of Alibaba-NLP/gme-Qwen2-VL-2B-Instruct (mm_embedding=gme; nothing is "
                     "downloaded at run time)")] = None,
                 entity_types: Annotated[str | None, Doc(
                     "comma-separated entity types for extraction (its template's entity_types, a placeholder "
                     "to be set per domain); None: MegaRAG's default (LightRAG's organization, person, geo, event, "
                     "category)")] = None,
                 page_chars: Annotated[int, Range(1), Doc(
                     "a document ham reads without pages (HTML, Markdown) is cut into pages of at most this many "
                     "characters at unit boundaries (MegaRAG's unit is the page)")] = 3000,
                 **kwargs) -> None:
        super().__init__(query_mode=query_mode, chunk_top_k=chunk_top_k, **kwargs)
        self.mm_embedding, self.embedding_model = mm_embedding, embedding_model
        self.entity_types, self.page_chars = entity_types, page_chars

    def options(self) -> dict:
        types = [t.strip() for t in (self.entity_types or "").split(",") if t.strip()] or None
        return {**super().options(), "mm_embedding": self.mm_embedding, "embedding_model": self.embedding_model,
                "entity_types": types, "page_chars": self.page_chars}

    def start(self, llm: LLMEndpoint, embedding: dict, work_root: Path, log_path: Path) -> None:
        if self.mm_embedding == "gme" and not self.embedding_model:
            raise ValueError("system=megarag: mm_embedding=gme (MegaRAG's retrieval) needs system.embedding_model, a "
                             "local folder of Alibaba-NLP/gme-Qwen2-VL-2B-Instruct; for a plumbing check without it, "
                             "system.mm_embedding=endpoint_text (a stand-in, not MegaRAG's retrieval)")
        if self.mm_embedding == "endpoint_text":
            message = ("system=megarag with mm_embedding=endpoint_text: STAND-IN embeddings, not MegaRAG's retrieval "
                       "(GME); its numbers are plumbing checks only")
            log.warning(message)
            print(f"WARNING: {message}", file=sys.stderr)
        super().start(llm, embedding, work_root, log_path)

    def groups(self, corpus) -> dict[str, list[dict]]:
        groups = super().groups(corpus)
        for docs in groups.values():
            for doc in docs:
                doc["pdf"] = pdf_of(Path(corpus.root), doc.get("file", doc["source"]))
        return groups

    def query(self, question: Question) -> dict:
        reply = super().query(question)
        reply.setdefault("embedding", {"mm_embedding": self.mm_embedding,
                                       "megarags_retrieval": self.mm_embedding == "gme"})
        return reply


def pdf_of(root: Path, source: str) -> str | None:
    """The PDF a document's pages are pages of: the source itself, or MinerU's ``<name>_origin.pdf``
    beside its ``<name>_content_list.json`` / ``_middle.json``; None when there is none."""
    path = root / source
    if path.suffix.lower() == ".pdf":
        return str(path) if path.exists() else None
    for tail in ("_content_list.json", "_middle.json", "_content_list_v2.json"):
        if path.name.endswith(tail):
            origin = path.with_name(path.name[: -len(tail)] + "_origin.pdf")
            return str(origin) if origin.exists() else None
    return None
