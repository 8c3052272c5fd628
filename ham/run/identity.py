"""Run identity: a short hash of what changes a run's results, and nothing else.

Every key of the resolved config (``hydra`` aside) falls in exactly one of four classes, each a list
of dora-style globs over dotted keys (``*`` matches across dots):

    EXCLUDE   cannot change results: names, locations, devices, batch sizes, concurrency, retries,
              timeouts, endpoints and key variables, caches, logging, prices
    CONTENT   a file or folder of inputs: it enters by its content hash, never by its location
              (moving the corpus or the questions file keeps the id; editing them changes it)
    MODEL     a model: a hub id or API name as written, a local folder as ``name@revision``
              (its file names and sizes), so moving a checkpoint keeps the id
    HASH      everything else that can change a result, by value

``tests/config`` walks every option of every group and fails when a key is in none of the lists
or in two, so a new key is classified on purpose. At run time an unclassified key (say a
``+site.x=...`` override) is hashed: two runs are merged only when nothing unknown differs.
``identity(cfg)`` is the flat record that is hashed; ``run.json`` stores it, and analysis keys
its table cells by it.
"""
from __future__ import annotations

import fnmatch
import logging
from pathlib import Path

from omegaconf import DictConfig

from ham.backends.local import folder_revision
from ham.cache import content_hash, key_of
from ham.conf import plain

log = logging.getLogger("ham.run.identity")

EXCLUDE = [
    "name", "dataset.name", "paths.*", "run.*", "logger.*", "rerun", "progress", "cost.*", "*.pricing",
    "*batch_size", "*concurrency", "*device", "*.max_retries", "*.timeout", "*.backoff_*",
    "*.base_url", "*.base_url_env", "*.api_key_env", "*.require_api_key", "*.http_backend",
    "*.request_budget", "*cache_root", "*.show_progress", "*.use_gpu", "*threads",
    "topo.*",   # ham-topo's settings: a run never reads them (the build records its own in its report)
]
CONTENT = ["dataset.path", "dataset.questions", "dataset.descriptions", "describer.path",
           "metrics.bertscore.baseline_path"]
MODEL = ["*.model", "method.clip_model", "method.semantic_model"]
HASH = [
    "seed", "limit",
    "dataset.reader._target_", "dataset.subset", "dataset.sample", "dataset.sample_seed",
    "units._target_", "units.captions", "units.min_chars", "units.max_chars", "units.steps",
    "text_repr._target_", "text_repr.sparse", "image_repr._target_",
    "summariser._target_", "summariser.sentences", "summariser.max_words", "summariser.max_tokens",
    "summariser.max_new_tokens", "summariser.max_prompt_tokens", "summariser.temperature",
    "describer._target_", "describer.max_words", "describer.max_tokens", "describer.max_new_tokens",
    "describer.max_side", "describer.temperature", "describer.max_prompt_tokens",
    "encoder._target_", "encoder.max_length", "encoder.max_seq_length", "encoder.query_max_length",
    "encoder.long_text",
    "encoder.use_fp16",
    "index._target_", "index.m", "index.ef_construction", "index.ef_search", "index.nlist", "index.nbits",
    "index.nprobe", "index.train_size", "index.min_vectors",
    "retrieval._target_", "retrieval.k_t", "retrieval.k_v", "retrieval.k_tab", "retrieval.pool",
    "retrieval.fusion._target_", "retrieval.fusion.dense_weight", "retrieval.ranker", "retrieval.ranker.*",
    "retrieval.diversity", "retrieval.diversity.*", "retrieval.budget", "retrieval.budget_unit",
    "retrieval.assembly._target_", "retrieval.assembly.*",
    "reranker._target_", "reranker.top_n", "reranker.max_length", "reranker.use_fp16",
    "retrieval.graph.follow", "retrieval.graph.seeds", "retrieval.graph.hops", "retrieval.graph.fan_out",
    "retrieval.graph.weight", "retrieval.graph.max_words", "retrieval.graph.per_unit", "retrieval.graph.min_chars",
    "retrieval.graph.min_units", "retrieval.graph.max_share",
    "method._target_", "method.template", "method.max_images", "method.min_score", "method.semantic_weight",
    "generator._target_", "generator.temperature", "generator.max_tokens", "generator.max_tokens_field",
    "generator.max_new_tokens", "generator.max_prompt_tokens", "generator.truncation_is_failure",
    "generator.stream", "generator.extra_body", "generator.extra_body.*", "generator.dtype",
    "generator.max_sentences", "generator.per_unit", "generator.max_images", "generator.rank_weight",
    "metrics.names", "metrics.img_cbs_window", "metrics.bertscore.num_layers",
    "metrics.bertscore.rescale_with_baseline",
    "judge._target_", "judge.client._target_", "judge.client.temperature", "judge.client.max_tokens",
    "judge.client.max_new_tokens", "judge.client.max_prompt_tokens", "judge.client.stream", "judge.prompts.*",
]
CLASSES = {"exclude": EXCLUDE, "content": CONTENT, "model": MODEL, "hash": HASH}


def _matches(key: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(key, p) for p in patterns)


def classify(key: str) -> list[str]:
    """The classes whose globs match ``key`` (exactly one for a classified key)."""
    return [name for name, patterns in CLASSES.items() if _matches(key, patterns)]


def flatten(data: dict, prefix: str = "") -> dict:
    """Dotted key -> leaf value (lists are values; an empty mapping is a value)."""
    out: dict = {}
    for key, value in data.items():
        full = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.update(flatten(value, full + "."))
        else:
            out[full] = value
    return out


def model_identity(value):
    """A local model folder as ``name@revision``; anything else (hub id, API name) as written."""
    if isinstance(value, str) and value and Path(value).expanduser().is_dir():
        path = Path(value).expanduser()
        return f"{path.name}@{folder_revision(path)}"
    return value


def identity(cfg: DictConfig, memo_root: str | Path | None = None) -> dict:
    """The flat record a run id hashes (module docstring). ``memo_root`` keeps content hashes
    between runs (keyed by path, sizes and modification times)."""
    data = plain(cfg)
    record, unclassified = {}, []
    for key, value in flatten(data).items():
        classes = classify(key)
        if "exclude" in classes:
            continue
        if "content" in classes:
            record[key] = _content(value, memo_root)
        elif "model" in classes:
            record[key] = model_identity(value)
        else:
            if not classes:
                unclassified.append(key)
            record[key] = value
    if unclassified:
        log.info("run id: keys no identity rule names are hashed by value: %s", ", ".join(unclassified))
    return record


def _content(value, memo_root):
    """The content hash of an input file or folder; one that does not exist (yet) enters as
    ``missing:<value>`` (a run on it fails when it loads its data)."""
    from ham.paths import resolve_path

    if value is None:
        return None
    try:
        return content_hash(resolve_path(value), memo_root)
    except FileNotFoundError:
        return f"missing:{value}"


def run_id(cfg: DictConfig, memo_root: str | Path | None = None) -> str:
    return key_of(identity(cfg, memo_root))[:10]
