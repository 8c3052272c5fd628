"""Model calls made while indexing (section summaries, image descriptions), cached and counted.

Every call is keyed by what determines its answer: the backend's model id, its prompt version,
for a chat backend its client's identity (server, decoding settings: ``ChatClient.identity``, so
a server serving other weights under the same name is never mistaken for the first), for a local
one its generation settings and its weights' content hash (``model_id``), and the request's own
inputs (section text, or image sha256 plus context). Chat backends send each
batch's requests concurrently through their ``ChatClient`` (``concurrency`` in flight, its
retries and deadline); a failed call's error starts with its reason (``api_error``, ``timeout``,
...), which ``run.json`` keeps, so a resumed run knows to ask it again. Answers are stored in a
``KeyedStore`` under the cache root, so a re-run or another grid cell never pays twice. A call that
fails (after the backend's own retries) is not cached: it is recorded per item with its error, the
caller falls back, and the next run tries again.
"""
from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from typing import Protocol, Sequence

from tqdm import tqdm

from ham.cache import KeyedStore, key_of

log = logging.getLogger("ham.enrich.calls")


@dataclass
class CallResult:
    text: str | None
    error: str | None = None


@dataclass
class Request:
    item_id: str              # the section node or image unit the answer belongs to
    key_fields: dict          # the inputs that determine the answer (hashed into the cache key)
    payload: object           # what the backend needs to make the call


class Backend(Protocol):
    model_id: str
    prompt_version: str
    batch_size: int

    def run(self, payloads: Sequence[object]) -> list[CallResult]: ...   # one result per payload


@dataclass
class CallStats:
    backend: str
    requested: int = 0
    cached: int = 0
    computed: int = 0
    failed: int = 0
    failures: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def chat_many(client, conversations: Sequence[list[dict]]) -> list[CallResult]:
    """One chat call per conversation through a ``ham.backends.chat.ChatClient`` (it bounds
    concurrency); errors become results."""
    return [CallResult(r.text, r.error) for r in client.chat_many(list(conversations))]


def local_calls(generator, prompts: Sequence[object]) -> list[CallResult]:
    """One local generation per prompt (``ham.generate.hf``), batched by the generator; running
    out of device memory fails the batch's items (they fall back), any other error is raised."""
    from ham.backends.local import is_out_of_memory

    try:
        generations = generator.generate_batch(list(prompts))
    except RuntimeError as exc:
        if not is_out_of_memory(exc):
            raise
        return [CallResult(None, f"generation_error: out of memory: {exc}") for _ in prompts]
    return [CallResult(g.text, g.error) for g in generations]


def backend_identity(backend: Backend) -> dict:
    """What besides the model and the prompt decides an answer: a chat backend's client identity
    (server, decoding settings), a local one's generation settings (new tokens, dtype...)."""
    client = getattr(backend, "client", None)
    if hasattr(client, "identity"):
        return {"client": client.identity()}
    generator = getattr(backend, "generator", None)
    return {"settings": generator.settings()} if hasattr(generator, "settings") else {}


def request_key(backend: Backend, request: Request) -> str:
    return key_of({"model": backend.model_id, "prompt": backend.prompt_version, **backend_identity(backend),
                   **request.key_fields})


def run_cached(requests: Sequence[Request], backend: Backend, store: KeyedStore,
               what: str = "calls", progress: bool = False) -> tuple[dict[str, str], CallStats]:
    """Answers for every request (item id -> text), from the store where present, else from the
    backend in batches of ``backend.batch_size``. Failed items are absent from the answers."""
    stats = CallStats(backend.model_id, requested=len(requests))
    use_store = getattr(backend, "cached", True)  # model-free backends are cheaper than a lookup
    answers: dict[str, str] = {}
    todo: list[tuple[Request, str]] = []
    for request in requests:
        key = request_key(backend, request) if use_store else ""
        hit = store.get(key) if use_store else None
        if hit is not None and hit.get("text"):
            answers[request.item_id] = hit["text"]
            stats.cached += 1
        else:
            todo.append((request, key))
    size = max(1, int(backend.batch_size))
    with tqdm(total=len(todo), desc=f"{what} ({backend.model_id})", unit="call",
              disable=not progress or not todo) as bar:
        for start in range(0, len(todo), size):
            batch = todo[start:start + size]
            results = backend.run([r.payload for r, _ in batch])
            for (request, key), result in zip(batch, results):
                text = (result.text or "").strip()
                if result.error or not text:
                    stats.failed += 1
                    stats.failures.append({"id": request.item_id, "error": result.error or "empty answer"})
                    continue
                if use_store:
                    store.put(key, {"text": text, "model": backend.model_id, "prompt": backend.prompt_version,
                                    "inputs": request.key_fields})
                answers[request.item_id] = text
                stats.computed += 1
            bar.update(len(batch))
    if stats.failed:
        log.warning("%s: %d of %d calls to %s failed; those items use the fallback (first: %s: %s)",
                    what, stats.failed, stats.requested, backend.model_id,
                    stats.failures[0]["id"], stats.failures[0]["error"])
    return answers, stats
