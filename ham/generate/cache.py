"""Generations cached on disk by (prompt, model, decoding settings), so re-scoring, re-analysis or
a new run over the same prompts never calls a model again.

The key hashes the prompt's digest (its text and the bytes of any attached image), the
generator's ``model_id`` and its ``settings()`` (for remote backbones: the server, decoding
settings and stream aggregation, ``ChatClient.identity``). Entries are JSON files under
``<cache root>/generations/`` (``ham.cache.KeyedStore``: one file per key, written atomically, so
runs of a grid can share the store). Only replies are kept: the cache never returns a failure
(an entry holding one, written by an older version, is ignored), so a later run asks again.
"""
from __future__ import annotations

import asyncio
from pathlib import Path

from ham.cache import KeyedStore, key_of
from ham.generate.base import Generation


class CachedGenerator:
    def __init__(self, inner, cache_root: str | Path) -> None:
        self.inner = inner
        self.store = KeyedStore(cache_root, "generations")
        self.model_id = inner.model_id
        self.pricing = getattr(inner, "pricing", None)
        self.batch_size = getattr(inner, "batch_size", 1)
        self.is_async = getattr(inner, "is_async", False)
        self.settings = getattr(inner, "settings", dict)

    def key(self, prompt) -> str:
        return key_of({"prompt": prompt.digest(), "model": self.model_id, "settings": self.settings()})

    def _lookup(self, key: str) -> Generation | None:
        record = self.store.get(key)
        if record is None or (record.get("generation") or {}).get("error") is not None:
            return None
        return Generation(**{**record["generation"], "cached": True})

    def _keep(self, key: str, generation: Generation) -> None:
        if generation.error is None:
            self.store.put(key, {"model": self.model_id, "settings": self.settings(),
                                 "generation": generation.to_dict()})

    def generate(self, prompt) -> Generation:
        return self.generate_batch([prompt])[0]

    def generate_batch(self, prompts: list) -> list[Generation]:
        keys = [self.key(p) for p in prompts]
        out = [self._lookup(k) for k in keys]
        todo = [i for i, g in enumerate(out) if g is None]
        batch = getattr(self.inner, "generate_batch", None)
        fresh = batch([prompts[i] for i in todo]) if batch else [self.inner.generate(prompts[i]) for i in todo]
        for i, generation in zip(todo, fresh):
            self._keep(keys[i], generation)
            out[i] = generation
        return out

    async def agenerate(self, prompt) -> Generation:
        key = self.key(prompt)
        generation = self._lookup(key)
        if generation is None:
            generation = await self.inner.agenerate(prompt)
            if generation.error is None:   # the file is written off the event loop (~0.3 ms to create)
                await asyncio.to_thread(self._keep, key, generation)
        return generation

    async def aclose(self) -> None:
        if hasattr(self.inner, "aclose"):
            await self.inner.aclose()


def with_generation_cache(generator, cache_root: str | Path):
    """The generator behind the on-disk generation cache (model-free generators are left as they are)."""
    return CachedGenerator(generator, cache_root) if getattr(generator, "cacheable", True) else generator
