"""The offline stage (paper 3.2, Figure 2a): section summaries and image descriptions, the strings
each representation embeds, embeddings and indexes, all cached under the cache root and shared by
every run of a grid.

Cache entries (``<cache root>/<kind>/<key>/``), each keyed by what determines its content:

  embeddings/  dense.npy (+ sparse.npz for BGE-M3), ids.json,  key: the exact strings embedded
               truncation.json                                 (unit ids + texts) x encoder id@revision
                                                                x configured window x long_text mode
  bm25/        the bm25s index, analyzer.json                  key: the exact strings x stemmer
  index/       dense.faiss, meta.json                          key: embeddings key x index config
  shards/, sharded/   with ``index.shard_size`` (``ham.index.shards``): the same per shard, then one
               merged index                                    key: the shard keys x index config
  summaries/, descriptions/   one JSON per model call          key: model id x prompt version x inputs

Keying on the strings themselves, rather than on names, covers the corpus content, the
representation config, its template version, and the summaries and descriptions inside the
strings: change any of them and the key changes; change only the generator, method, budget or
retrieval mode and every entry is reused. The strings are recomputed on each run (cheap: the
model calls behind summaries and descriptions are cached). ``meta.json`` records the corpus
hash, the representation config and the encoder id; an index is never searched with another
encoder (``Retriever`` raises an error naming both).
"""
from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path

from ham.cache import FolderCache, KeyedStore, key_of
from ham.ingest.corpus import Corpus
from ham.enrich.descriptions import Descriptions, describe_images
from ham.index.encoders import BatchedEncoder
from ham.index.dense import FaissSpec, FlatSpec
from ham.index.digest import INDEX_VERSION, strings_digest
from ham.index.hybrid import HybridIndex
from ham.index.shards import build_sharded
from ham.index.sparse import BM25Sparse, LexicalSparse
from ham.index.windows import encode_windowed, encoding_key_parts, is_windowed, truncation
from ham.text import NO_STEMMER, TOKENIZER_VERSION, stemmer_key
from ham.represent.templates import Representer
from ham.enrich.summaries import Summaries, summarise_sections

log = logging.getLogger("ham.index.build")


def index_modality(units: list, modality: str, representer: Representer, encoder: BatchedEncoder,
                   spec: FaissSpec, cache: FolderCache, corpus_hash: str = "",
                   engine=None) -> tuple[HybridIndex, dict]:
    """Embed and index one modality's units under the representer, reusing the cache. With
    ``spec.shard_size`` the index is built as shards (``ham.index.shards``), run through
    ``engine.map`` when given."""
    started = time.perf_counter()
    ids, texts = [u.unit_id for u in units], [representer(u) for u in units]
    sparse = [representer.sparse(u) for u in units]
    meta = {"corpus": corpus_hash, "modality": modality, "representation": representer.key(modality)}
    if encoder.has_sparse and spec.stem != NO_STEMMER:
        log.warning("index.stem=%s does not apply: %s's sparse side is its own lexical weights, not BM25",
                    spec.stem, encoder.model_id)
    if getattr(spec, "shard_size", None):   # index.shard_size / index=ivf_ondisk: ham.index.shards
        index, info = build_sharded(ids, texts, encoder, spec, cache, meta, sparse_texts=sparse,
                                    contents=[u.content for u in units], engine=engine)
    else:
        index, info = index_strings(ids, texts, encoder, spec, cache, meta, sparse_texts=sparse,
                                    contents=[u.content for u in units])
    info["seconds"] = round(time.perf_counter() - started, 3)
    return index, info


def index_strings(ids: list[str], texts: list[str], encoder: BatchedEncoder, spec: FaissSpec,
                  cache: FolderCache, meta: dict | None = None,
                  sparse_texts: list[str] | None = None,
                  contents: list[str] | None = None) -> tuple[HybridIndex, dict]:
    """Embeddings, sparse side and faiss index of exact strings, each reused from the cache when
    present (keys: module docstring). ``meta`` is recorded with them. ``sparse_texts``: what BM25
    indexes, when it is not the embedded strings (``Representation.sparse``). With ``contents``
    (each unit's own content) the encoder's truncation is counted when the strings are embedded
    and kept beside the embeddings (``truncation.json``)."""
    digest = strings_digest(ids, texts)
    sparse_texts = texts if sparse_texts is None else sparse_texts
    sparse_digest = digest if sparse_texts is texts else strings_digest(ids, sparse_texts)
    meta = {**(meta or {}), "encoder": encoder.model_id, "strings": digest}

    windowed = is_windowed(encoder, contents)

    def embed(folder: Path) -> None:
        desc, plan = f"{meta.get('modality', '')} units", None
        if windowed:
            plan = encode_windowed(encoder, texts, contents, folder, desc)
        else:
            encoder.encode_to(texts, folder, desc=desc)
        if contents is not None:
            (folder / "truncation.json").write_text(json.dumps(truncation(contents, texts, encoder, plan)))
        (folder / "ids.json").write_text(json.dumps(ids))
        (folder / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True))

    ekey = embeddings_key(digest, encoder, windowed)
    efolder, e_reused = cache.get_or_build("embeddings", ekey, embed)
    sparse_folder, sparse_kind = efolder, LexicalSparse.kind
    if not encoder.has_sparse:
        sparse_kind = BM25Sparse.kind
        sparse_folder = bm25_folder(ids, sparse_texts, cache, sparse_digest, spec.stem)

    def build(folder: Path) -> None:
        import faiss
        import numpy as np

        vectors = np.load(efolder / "dense.npy", mmap_mode="r")
        faiss.write_index(spec.build(vectors), str(folder / "dense.faiss"))
        (folder / "meta.json").write_text(json.dumps(dict(meta, index=spec.params(), sparse=sparse_kind,
                                                          embeddings=ekey, size=len(ids), dim=int(vectors.shape[1])),
                                                     indent=2, sort_keys=True))

    ikey = key_of(["index", ekey, spec.params(), sparse_kind, INDEX_VERSION])
    ifolder, reused = cache.get_or_build("index", ikey, build)
    index = HybridIndex.load(ifolder, efolder, sparse_folder, spec)
    index.check_encoder(encoder.model_id)
    info = {"key": ikey, "reused": reused, "embeddings_key": ekey, "embeddings_reused": e_reused,
            "size": len(index), "index": spec.params(), "sparse": sparse_kind,
            "stem": spec.stem if sparse_kind == BM25Sparse.kind else None}
    if (efolder / "truncation.json").exists():
        info["truncation"] = json.loads((efolder / "truncation.json").read_text())
    return index, info


def embeddings_key(digest: str, encoder: BatchedEncoder, windowed: bool) -> str:
    """The embeddings entry's key: the strings' digest x encoder id x window setting and mode."""
    return key_of(["embeddings", digest, *encoding_key_parts(encoder, windowed)])


def embeddings_cached(ids: list[str], texts: list[str], encoder: BatchedEncoder, cache: FolderCache,
                      contents: list[str] | None = None) -> bool:
    """Whether ``index_strings`` would reuse these strings' embeddings (nothing to encode)."""
    return cache.has("embeddings", embeddings_key(strings_digest(ids, texts), encoder, is_windowed(encoder, contents)))


def bm25_folder(ids: list[str], sparse_texts: list[str], cache: FolderCache, digest: str | None = None,
                stem: str = NO_STEMMER) -> Path:
    """The BM25 index of exact strings, built or reused (key: the strings x index and tokenizer
    versions x the stemmer); the one entry both the full build and ``ham-ask``'s sparse-first
    answer use."""
    digest = digest or strings_digest(ids, sparse_texts)
    folder, _ = cache.get_or_build("bm25", key_of(["bm25", digest, INDEX_VERSION, TOKENIZER_VERSION,
                                                   *stemmer_key(stem)]),
                                   lambda folder: BM25Sparse.build(sparse_texts, stem).save(folder)
                                   if sparse_texts else None)
    return folder


def build_indexes(corpus: Corpus, representer: Representer, encoder: BatchedEncoder, cache: FolderCache,
                  spec: FaissSpec | None = None, engine=None) -> tuple[dict[str, HybridIndex], dict]:
    """One index per modality, keyed as the module docstring says (a sharded one's shards through
    ``engine``)."""
    indexes, info = {}, {}
    for modality in ("text", "image"):
        indexes[modality], info[modality] = index_modality(corpus.of_modality(modality), modality, representer,
                                                           encoder, spec or FlatSpec(), cache, corpus.content_hash,
                                                           engine)
    return indexes, info


@dataclass
class Indexed:
    """What the online stage needs from the offline one."""

    representer: Representer
    encoder: BatchedEncoder
    indexes: dict[str, HybridIndex]
    info: dict
    descriptions: Descriptions


@dataclass
class OfflineParts:
    """The offline stage's components, built from a config in one place (``ham.run.build``).
    ``summariser`` is None when no representation uses summaries (nothing is loaded for them);
    ``describer`` None when images get no description."""

    text_repr: object
    image_repr: object
    encoder: BatchedEncoder
    spec: FaissSpec
    summariser: object | None = None
    describer: object | None = None
    progress: bool = False
    engine: object | None = None   # runs a sharded build's shards (.map(fn, tasks)); None: in this process

    @property
    def uses_summaries(self) -> bool:
        return bool(self.text_repr.uses_summaries or self.image_repr.uses_summaries)


def build_representer(corpus: Corpus, cache: FolderCache, parts: OfflineParts) -> tuple[Representer, dict]:
    """Summaries and descriptions (cached model calls), and the representer that uses them."""
    info: dict = {"seconds": {}}
    started = time.perf_counter()
    summaries = Summaries({}, None)
    if parts.uses_summaries:
        if parts.summariser is None:
            raise ValueError(f"{parts.text_repr.name}/{parts.image_repr.name} use section summaries but no "
                             "summariser was given")
        summaries = summarise_sections(corpus.documents, corpus.units, parts.summariser,
                                       KeyedStore(cache.root, "summaries"), progress=parts.progress)
        info["summaries"] = summaries.stats.to_dict()
    info["seconds"]["summaries"] = round(time.perf_counter() - started, 3)
    started = time.perf_counter()
    descriptions = describe_images(corpus.units, corpus.root, parts.describer, KeyedStore(cache.root, "descriptions"),
                                   progress=parts.progress)
    info["seconds"]["descriptions"] = round(time.perf_counter() - started, 3)
    if descriptions.stats is not None:
        info["descriptions"] = descriptions.stats.to_dict()
    image_repr = parts.image_repr
    representer = Representer(parts.text_repr, image_repr, descriptions, summaries if summaries.stats else None)
    images = corpus.of_modality("image")
    missing = [u.unit_id for u in images if not descriptions.of(u)] if image_repr.uses_descriptions else []
    info["si_fallback_images"] = len(missing)
    if missing:
        log.warning("%s: %d of %d images have no context-aware description (%s); they are represented "
                    "without one", image_repr.name, len(missing), len(images), descriptions.model_id)
    return representer, info


def build_index(corpus: Corpus, cache: FolderCache, parts: OfflineParts) -> Indexed:
    """Everything the online stage needs: representer, encoder and one index per modality."""
    representer, info = build_representer(corpus, cache, parts)
    started = time.perf_counter()
    indexes, index_info = build_indexes(corpus, representer, parts.encoder, cache, parts.spec, parts.engine)
    info.update(index_info)
    info["seconds"]["index"] = round(time.perf_counter() - started, 3)
    info["summary_failures"] = info.get("summaries", {}).get("failed", 0)
    info["description_failures"] = info.get("descriptions", {}).get("failed", 0)
    return Indexed(representer, parts.encoder, indexes, info, representer.descriptions)
