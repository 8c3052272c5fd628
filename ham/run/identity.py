"""Run identity: a short hash of what changes a run's results, and nothing else.

Each key of the resolved config (``hydra`` aside) falls in one of five classes, read from the
declaration of the setting it is (``ham.settings``: a component's signature, a settings block's
fields), never from a list kept here:

    exclude   ``NotResult("why")`` on the setting, or a name that ``EXCLUDE`` matches (the
              cross-cutting ones: batch sizes, devices, concurrency, retries, timeouts, endpoints
              and key variables, caches, progress bars; each pattern says why): left out
    content   ``Content()``: a file or folder of inputs, by its content hash, never its location
              (moving the corpus or the questions file keeps the id; editing them changes it)
    model     ``Model()``: a hub id or API name as written, a local folder or file by the content
              hash of its files (``ham.backends.local.weights_hash``), so moving or renaming a
              checkpoint keeps the id and retraining it in place changes it
    prompt    ``PromptRef()``: a prompt shipped with ham by its name as written, a ``.txt`` path by
              its file's content hash (editing a prompt file changes the id, as editing a corpus does)
    hash      everything else, by value: a new setting is hashed unless it says otherwise, and a
              key no declaration names (a ``+site.x=...`` override the checks let through) too

A precision left to the device (``dtype: null``: bfloat16 on GPU, float32 on CPU; ``use_fp16:
null``: fp16 on GPU) enters as what it resolves to with the block's ``device`` on this machine:
the device is where a model runs, but the precision it picks there changes the numbers, so a GPU
and a CPU run of one config are two runs (``resolved_precision``).

``tests/config/test_identity_verified.py`` varies every hashed key (the id must change) and runs
every excluded one on a tiny run (the results must not). ``identity(cfg)`` is the flat record
that is hashed; ``run.json`` stores it, and analysis keys its table cells by it.
"""
from __future__ import annotations

import logging
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

from ham.backends.local import BUNDLED_MODELS, weights_hash
from ham.cache import content_hash, key_of
from ham.conf import plain
from ham.conf.exclude import EXCLUDE, excluded as _excluded  # noqa: F401  (EXCLUDE re-exported)

log = logging.getLogger("ham.run.identity")

# groups whose option ``none`` (``_target_: null``) leaves no key in the record, so a run without
# the group keeps the id it had before the group existed
OPTIONAL_GROUPS = ("pages", "system")
def classes(cfg) -> dict[str, str]:
    """Every leaf key of ``cfg`` (a DictConfig or the plain dict of one) -> its class (module
    docstring)."""
    from ham.conf.check import settings_here

    node = cfg if isinstance(cfg, DictConfig) else OmegaConf.create(cfg)
    out: dict[str, str] = {}

    def walk(node, prefix: str, declared, inherited: str | None) -> None:
        allowed, _ = settings_here(node, declared)
        for key in node:
            if not prefix and key in ("hydra", "choices"):
                continue
            full = f"{prefix}{key}"
            spec = (allowed or {}).get(key)
            kind = inherited or (spec.identity if spec is not None and spec.identity != "hash" else None)
            if kind is None and _excluded(full):
                kind = "exclude"
            value = node._get_node(key)
            if isinstance(value, DictConfig) and not value._is_none() and not value._is_missing() and len(value):
                block = _block_type(spec.type) if spec is not None else None
                walk(value, full + ".", block or declared_block(prefix, key), kind)
            else:
                out[full] = kind or "hash"
    from ham.conf.schema import declared_block
    from ham.conf.root import Root

    walk(node, "", Root, None)
    return out


def _block_type(hint):
    from ham.conf.check import _block

    return _block(hint) if hint is not None else None


def classify(key: str, cfg=None) -> str:
    """The class of ``key``: from ``cfg``'s declarations when given, else by the name patterns
    alone (``hash`` when none matches)."""
    if cfg is not None:
        found = classes(cfg)
        if key in found:
            return found[key]
    return "exclude" if _excluded(key) else "hash"


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
    kinds = classes(cfg)
    data = plain(cfg)
    for group in OPTIONAL_GROUPS:
        if isinstance(data.get(group), dict) and data[group].get("_target_") is None:
            data.pop(group)
    record = {}
    flat = flatten(data)
    for key, value in flat.items():
        kind = kinds.get(key, "exclude" if _excluded(key) else "hash")
        block, _, leaf = key.rpartition(".")
        if value is None and kind == "hash" and leaf in PRECISION_KEYS:
            value = resolved_precision(leaf, flat.get(f"{block}.device") if block else None)
        if value is None and key == "metrics.bertscore.num_layers":   # enters as the layer it resolves to
            from ham.metrics.bertscore import default_layer

            value = default_layer(str(flat.get("metrics.bertscore.model")))
        if kind == "exclude":
            continue
        if kind == "content":
            record[key] = _content(value, memo_root)
        elif kind == "model":
            record[key] = model_identity(value)
        elif kind == "prompt":
            record[key] = prompt_identity(value, memo_root)
        else:
            record[key] = value
    return record


PRECISION_KEYS = ("dtype", "use_fp16")


def resolved_precision(name: str, device: str | None):
    """What ``dtype: null`` / ``use_fp16: null`` resolve to on ``device`` (None: cuda when this
    machine has one), as the components resolve them (``ham.backends.local.torch_dtype``)."""
    from ham.backends.local import torch_device

    cuda = torch_device(device).startswith("cuda")
    if name == "use_fp16":
        return cuda
    return "bfloat16" if cuda else "float32"


def prompt_identity(value, memo_root=None):
    """A ``.txt`` prompt file as ``file:<content hash>``; a shipped prompt's name as written."""
    if isinstance(value, str) and value.endswith(".txt"):
        from ham.paths import resolve_path

        path = resolve_path(value, must_exist=False)
        if path.is_file():
            return f"file:{content_hash(path, memo_root)}"
    return value


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


def why_excluded(key: str, cfg) -> str | None:
    """Why ``key`` is left out of the run id (its declaration's NotResult, or the pattern), or None."""
    from ham.conf.check import settings_here
    from ham.conf.schema import declared_block
    from ham.conf.root import Root

    node = cfg if isinstance(cfg, DictConfig) else OmegaConf.create(cfg)
    parts = key.split(".")
    declared = Root
    for depth, part in enumerate(parts):
        allowed, _ = settings_here(node, declared)
        spec = (allowed or {}).get(part)
        if spec is not None and spec.identity == "exclude":
            return spec.why
        if depth == len(parts) - 1 or not isinstance(node.get(part), DictConfig):
            break
        declared = (_block_type(spec.type) if spec is not None else None) or declared_block(
            ".".join(parts[:depth]), part)
        node = node[part]
    return _excluded(key)
