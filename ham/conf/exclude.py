"""The cross-cutting setting names that never change a run's results, by pattern (audiocraft/dora
style): batch sizes, devices, concurrency, retries, timeouts, endpoints and key variables,
caches, progress bars. Any other exclusion is declared at the setting itself (``NotResult``).
Read by the run identity (``ham.run.identity``) and the settings reference
(``ham.conf.reference``); ``tests/config/test_identity_verified.py`` runs each pattern on a tiny
run to check the results do not change."""
from __future__ import annotations

import fnmatch

# pattern (matched against the full key, e.g. generator.client.timeout) -> why
EXCLUDE = {
    "logger.*": "a mirror of the run folder in experiment tracking",
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
    "*threads": "how many CPU threads one query encode uses",
    "engine.*": "where a sharded index build computes its shards (in process, Ray, Slurm), not what they "
                "hold: each shard is content-addressed in the cache",
    "topo.*": "ham-topo's settings: a run never reads them (the build records its own in its report)",
}
def excluded(key: str) -> str | None:
    return next((why for pattern, why in EXCLUDE.items() if fnmatch.fnmatchcase(key, pattern)), None)
