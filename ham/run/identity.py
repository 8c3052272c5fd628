"""Run identity: a short hash of what changes a run's results, and nothing else.

Every key of the resolved config (``hydra`` aside) falls in exactly one of four classes, each a list
of dora-style globs over dotted keys (``*`` matches across dots):

    EXCLUDE   cannot change results: names, locations, devices, batch sizes, concurrency, retries,
              timeouts, endpoints and key variables, caches, logging, prices (each pattern says why)
    CONTENT   a file or folder of inputs: it enters by its content hash, never by its location
              (moving the corpus or the questions file keeps the id; editing them changes it)
    MODEL     a model: a hub id or API name as written, a local folder or file by the content
              hash of its files (``ham.backends.local.weights_hash``), so moving or renaming a
              checkpoint keeps the id and retraining it in place changes it
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

from ham.backends.local import BUNDLED_MODELS, weights_hash
from ham.cache import content_hash, key_of
from ham.conf import plain

log = logging.getLogger("ham.run.identity")

EXCLUDE = {   # pattern -> why no key it matches can change a result (tests/config/test_identity.py runs them)
    "name": "the run's folder name",
    "dataset.name": "the dataset's display name; its files enter by content (dataset.path, dataset.questions)",
    "paths.*": "where outputs and caches live; caches are keyed by content, so a fresh one recomputes the same",
    "run.*": "what a resume redoes and whether a rerun may reuse stored replies: which rows are (re)asked, "
             "never what a row's result is",
    "logger.*": "a mirror of the run folder in experiment tracking",
    "rerun": "answer every question again into the same run: the same results are expected",
    "progress": "the progress bar",
    "cost.*": "the price table: cents are computed from the recorded token counts after the run",
    "*.pricing": "which price row the cost table uses",
    "*batch_size": "how many inputs one model call takes: the same outputs, batched",
    "*concurrency": "how many requests are in flight",
    "*device": "where a model runs, not what it computes",
    "*.max_retries": "retries decide whether a reply arrives (a retryable failure is redone), not which",
    "*.timeout": "a deadline decides whether a reply arrives (a timeout is redone on resume), not which",
    "*.backoff_*": "the wait between retries",
    "*.base_url": "the endpoint; the served model is recorded per row (generation.served_model) and the "
                  "server enters the generation and judgment caches",
    "*.base_url_env": "the name of the variable holding the endpoint",
    "*.api_key_env": "the name of the variable holding the key",
    "*.require_api_key": "whether a missing key stops the run before it starts",
    "*.http_backend": "the HTTP transport (aiohttp or httpx) carrying the same request",
    "*.request_budget": "a cap on requests decides whether a reply arrives (budget_exhausted is redone), not which",
    "*cache_root": "where a component's cache lives; entries are keyed by content",
    "*.show_progress": "a progress bar",
    "*.use_gpu": "faiss on the GPU or the CPU: the same index",
    "*threads": "how many CPU threads one query encode uses",
    "topo.*": "ham-topo's settings: a run never reads them (the build records its own in its report)",
    "system.venv": "where the system's venv lives; the release it pins enters through system._target_ (each "
                   "system class names its release) and the index cache keys the wrapper scripts' bytes",
    "system.llm_max_async": "how many LLM calls a system keeps in flight",
    "system.embedding_base_url": "the embedding endpoint; the encoder enters as encoder.*",
}
CONTENT = ["dataset.path", "dataset.questions", "dataset.descriptions", "describer.path",
           "metrics.bertscore.baseline_path"]
MODEL = ["*.model", "method.clip_model", "method.semantic_model"]
HASH = [
    "seed", "limit", "generator.seed", "summariser.seed", "describer.seed", "judge.client.seed", "index.seed",
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
    "system._target_", "system.index_scope", "system.query_mode", "system.top_k", "system.chunk_top_k",
    "system.tokenizer", "system.passage_chars",
    "judge._target_", "judge.client._target_", "judge.client.temperature", "judge.client.max_tokens",
    "judge.client.max_new_tokens", "judge.client.max_prompt_tokens", "judge.client.stream", "judge.prompts.*",
]
CLASSES = {"exclude": EXCLUDE, "content": CONTENT, "model": MODEL, "hash": HASH}
# groups whose option ``none`` (``_target_: null``) leaves no key in the record, so a run without
# the group keeps the id it had before the group existed
OPTIONAL_GROUPS = ("system",)


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
    """A local model folder or file as ``local:<content hash>``, a packaged model (``minilm``,
    ``smollm2``) as ``name:<content hash>`` of the files its package ships; anything else (hub id,
    API name) as written."""
    if not isinstance(value, str) or not value:
        return value
    if value in BUNDLED_MODELS:
        try:
            return f"{value}:{weights_hash(BUNDLED_MODELS[value]())}"
        except (FileNotFoundError, ImportError):
            return value   # its package is not installed: a run that loads it fails saying so
    if Path(value).expanduser().exists():
        return f"local:{weights_hash(value)}"
    return value


def identity(cfg: DictConfig, memo_root: str | Path | None = None) -> dict:
    """The flat record a run id hashes (module docstring). ``memo_root`` keeps content hashes
    between runs (keyed by path, sizes and modification times)."""
    data = plain(cfg)
    for group in OPTIONAL_GROUPS:
        if isinstance(data.get(group), dict) and data[group].get("_target_") is None:
            data.pop(group)
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
