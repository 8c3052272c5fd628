"""Generations cached on disk by (prompt, model, decoding settings), so re-scoring, re-analysis or
a new run over the same prompts never calls a model again.

The key hashes the prompt's digest (its text and the bytes of any attached image), the
generator's ``model_id`` and its ``settings()`` (for remote backbones: the server, decoding
settings and stream aggregation, ``ChatClient.identity``). Entries are JSON files under
``<cache root>/generations/`` (``ham.cache.KeyedStore``: one file per key, written atomically, so
runs of a grid can share the store). Only replies are kept: the cache never returns a failure
(an entry holding one, written by an older version, is ignored), so a later run asks again.

``fresh`` asks the model even when a reply is stored, and stores the new one in its place: what a
row redone by ``run.redo_failures`` or answered again by ``rerun=true`` needs, since replaying
the stored reply (an empty one, say) would redo nothing.
"""
from __future__ import annotations

import asyncio
import logging
import queue
import threading
from pathlib import Path

from ham.cache import KeyedStore, key_of
from ham.generate.base import Generation

log = logging.getLogger("ham.generate.cache")


class WriteBehind:
    """Cache entries written in order by one background thread, so the event loop never waits on
    the file system (creating a file took ~0.3 ms here, and a thread hop per entry as long under
    load); ``drain()`` returns once every entry put so far is on disk. An entry that cannot be
    written is logged and skipped: the next run computes it again."""

    def __init__(self) -> None:
        self._queue: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def put(self, store, key: str, record: dict) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="ham-cache-writer", daemon=True)
                self._thread.start()
        self._queue.put((store, key, record))

    def _run(self) -> None:
        while True:
            store, key, record = self._queue.get()
            try:
                store.put(key, record)
            except OSError as exc:
                log.warning("cache entry %s not written (%s); it is computed again next time", key, exc)
            finally:
                self._queue.task_done()

    def drain(self) -> None:
        self._queue.join()


class CachedGenerator:
    def __init__(self, inner, cache_root: str | Path) -> None:
        self.inner = inner
        self.store = KeyedStore(cache_root, "generations")
        self.model_id = inner.model_id
        self.model_name = getattr(inner, "model_name", "") or inner.model_id
        self.pricing = getattr(inner, "pricing", None)
        self.batch_size = getattr(inner, "batch_size", 1)
        self.is_async = getattr(inner, "is_async", False)
        self.settings = getattr(inner, "settings", dict)
        self.count_tokens = getattr(inner, "count_tokens", lambda text: None)
        self.writer = WriteBehind()

    def key(self, prompt) -> str:
        return key_of({"prompt": prompt.digest(), "model": self.model_id, "settings": self.settings()})

    def _lookup(self, key: str) -> Generation | None:
        record = self.store.get(key)
        if record is None or (record.get("generation") or {}).get("error") is not None:
            return None
        return Generation(**{**record["generation"], "cached": True})

    def _record(self, generation: Generation) -> dict:
        return {"model": self.model_id, "settings": self.settings(), "generation": generation.to_dict()}

    def _keep(self, key: str, generation: Generation) -> None:
        if generation.error is None:
            self.store.put(key, self._record(generation))

    def generate(self, prompt, fresh: bool = False) -> Generation:
        return self.generate_batch([prompt], [fresh])[0]

    def generate_batch(self, prompts: list, fresh: list[bool] | None = None) -> list[Generation]:
        """Replies in prompt order; ``fresh[i]``: ask the model for prompt i even if a reply is stored."""
        keys = [self.key(p) for p in prompts]
        fresh = fresh or [False] * len(prompts)
        out = [None if again else self._lookup(k) for k, again in zip(keys, fresh)]
        todo = [i for i, g in enumerate(out) if g is None]
        batch = getattr(self.inner, "generate_batch", None)
        fresh = batch([prompts[i] for i in todo]) if batch else [self.inner.generate(prompts[i]) for i in todo]
        for i, generation in zip(todo, fresh):
            self._keep(keys[i], generation)
            out[i] = generation
        return out

    async def agenerate(self, prompt, fresh: bool = False) -> Generation:
        key = self.key(prompt)
        generation = None if fresh else self._lookup(key)
        if generation is None:
            generation = await self.inner.agenerate(prompt)
            if generation.error is None:   # written off the event loop
                self.writer.put(self.store, key, self._record(generation))
        return generation

    async def aclose(self) -> None:
        if hasattr(self.inner, "aclose"):
            await self.inner.aclose()
        await asyncio.to_thread(self.writer.drain)


def with_generation_cache(generator, cache_root: str | Path):
    """The generator behind the on-disk generation cache (model-free generators are left as they are)."""
    return CachedGenerator(generator, cache_root) if getattr(generator, "cacheable", True) else generator
