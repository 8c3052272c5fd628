"""How ``ham.backends.chat.ChatClient`` sends one request: a POST of a JSON body that returns the
reply's bytes, or one of three errors (``HTTPStatusError``, ``ConnectionFailed``, ``ReadTimeout``)
that the client turns into failure reasons.

    aiohttp  (default) one ``aiohttp.ClientSession`` per event loop, keep-alive connections up to
             the client's concurrency, the proxy from the environment (``HTTP(S)_PROXY``,
             ``NO_PROXY``) read once: aiohttp's own ``trust_env`` looks it and ``.netrc`` up in a
             thread on every request, two thread hops that cost more than the request. No SDK in
             the request path: the openai SDK's ``post`` builds and validates request options,
             copies them and wraps the reply in typed objects, which cost about 0.25 ms of CPU per
             request, as much as the HTTP exchange itself (at 64 in flight on two cores: 0.87
             of ideal throughput through the SDK's aiohttp transport, 0.95 without;
             benchmarks/bench_openai_throughput.py)
    httpx    the openai SDK's ``AsyncOpenAI.post`` over its default httpx transport, for whatever
             the SDK handles that a plain POST does not
"""
from __future__ import annotations

import json


class HTTPStatusError(Exception):
    def __init__(self, status: int, message: str, retry_after: str | None = None) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status, self.message, self.retry_after = status, message, retry_after


class ConnectionFailed(Exception):
    """Refused, reset or dropped connections; ``cause`` is the OS or library error."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"{cause.__class__.__name__}: {cause}")
        self.cause = cause


class ReadTimeout(Exception):
    """The transport's own timeout (connecting, or a gap between bytes)."""


def error_message(raw: bytes) -> str:
    """The message of an error body: OpenAI's ``{"error": {"message": ...}}``, FastAPI's
    ``{"detail": ...}``, or the text itself."""
    try:
        data = json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", errors="replace").strip()[:300]
    if isinstance(data, dict):
        error = data.get("error", data.get("detail", data))
        if isinstance(error, dict):
            error = error.get("message", error)
        return str(error)[:300]
    return str(data)[:300]


def _os_cause(exc: BaseException | None) -> BaseException | None:
    """The OS-level connection error behind an SDK error, if any (the SDK's aiohttp transport
    reports a refused connection as a connect *timeout*)."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, OSError) and not isinstance(exc, TimeoutError):
            return exc
        if exc.__class__.__name__ in ("ClientConnectorError", "ClientOSError", "ServerDisconnectedError",
                                      "ConnectError"):
            return exc
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


class AiohttpTransport:
    def __init__(self, base_url: str, api_key: str, timeout: float, limit: int) -> None:
        import aiohttp

        from urllib.parse import urlsplit
        from urllib.request import getproxies, proxy_bypass

        self.url = base_url.rstrip("/")
        parts = urlsplit(self.url)
        self.proxy = None if proxy_bypass(parts.hostname or "") else getproxies().get(parts.scheme)
        self.session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=limit, limit_per_host=limit),
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=timeout, sock_read=timeout),
            headers={"Authorization": f"Bearer {api_key}", "Content-Type": "application/json",
                     "Accept": "application/json"})

    async def post(self, path: str, body: dict) -> bytes:
        import aiohttp

        try:
            async with self.session.post(self.url + path, data=json.dumps(body).encode(), proxy=self.proxy) as response:
                raw = await response.read()
                if response.status >= 400:
                    raise HTTPStatusError(response.status, error_message(raw), response.headers.get("retry-after"))
                return raw
        except aiohttp.ServerTimeoutError as exc:   # before ClientConnectionError: it is both
            raise ReadTimeout(str(exc) or exc.__class__.__name__) from exc
        except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError) as exc:
            raise ConnectionFailed(exc) from exc

    async def aclose(self) -> None:
        await self.session.close()


class SDKTransport:
    def __init__(self, base_url: str | None, api_key: str, timeout: float) -> None:
        from openai import AsyncOpenAI

        self.client = AsyncOpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)

    async def post(self, path: str, body: dict) -> bytes:
        import openai

        try:
            return await self.client.post(path, body=body, cast_to=bytes)
        except openai.APIStatusError as exc:
            raise HTTPStatusError(exc.status_code, str(exc.message)[:300],
                                  exc.response.headers.get("retry-after")) from exc
        except openai.APITimeoutError as exc:
            cause = _os_cause(exc)
            if cause is not None:
                raise ConnectionFailed(cause) from exc
            raise ReadTimeout("the connection timed out") from exc
        except openai.APIConnectionError as exc:
            raise ConnectionFailed(_os_cause(exc) or exc) from exc

    async def aclose(self) -> None:
        await self.client.close()


def make_transport(backend: str, base_url: str, api_key: str, timeout: float, limit: int):
    if backend == "aiohttp":
        return AiohttpTransport(base_url, api_key, timeout, limit)
    if backend == "httpx":
        return SDKTransport(base_url, api_key, timeout)
    raise ValueError(f"http_backend={backend!r}: known are aiohttp and httpx")
