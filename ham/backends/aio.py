"""The one bridge from synchronous code to ham's coroutines.

``run_sync(factory)`` runs ``factory()`` (a coroutine) to completion and returns its result. With no
event loop running in this thread it is ``asyncio.run``; inside a running loop (a notebook, or a
caller that is itself a coroutine) it runs the coroutine on a fresh loop in a worker thread and
waits, so ``asyncio.run`` is never called from inside a running loop. ham's own runner never takes
this path: it awaits every model call on its loop (``ham.run.runner``).
"""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Awaitable, Callable, TypeVar

T = TypeVar("T")


def run_sync(factory: Callable[[], Awaitable[T]]) -> T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(factory())
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ham-sync") as pool:
        return pool.submit(lambda: asyncio.run(factory())).result()
