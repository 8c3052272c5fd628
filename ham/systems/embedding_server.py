"""ham's encoder behind an OpenAI-compatible ``/v1/embeddings`` endpoint on loopback, so a GraphRAG
system run in its own venv (``ham.systems``) embeds with the run's encoder through its own OpenAI
embedding client, with no edit of its code.

    with EmbeddingServer(encoder) as server:      # encoder: any ham encoder (``encode``, ``dim``)
        server.base_url                           # http://127.0.0.1:<port>/v1
        server.served                             # {"requests": n, "inputs": n, "tokens": n}

    python -m ham.systems.embedding_server --model minilm --port 8001   # standalone (benchmarks/)

Requests follow OpenAI's embeddings API: ``input`` a string or a list of strings (token-id lists
are refused with 400: ham's encoders take text), ``encoding_format`` ``float`` (default) or
``base64`` (little-endian float32, as the OpenAI SDK asks for by default). ``usage.prompt_tokens``
counts whitespace-separated words (the encoder's own tokenizer is not exposed). Vectors are the
encoder's (MiniLM: L2-normalised, 384 dimensions). One request is encoded at a time (encoders are
not thread-safe); ``GET /v1/models`` lists the one model, named ``model_name``.
"""
from __future__ import annotations

import argparse
import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


class EmbeddingServer:
    def __init__(self, encoder, model_name: str = "ham-encoder", host: str = "127.0.0.1", port: int = 0) -> None:
        self.encoder, self.model_name = encoder, model_name
        self.served = {"requests": 0, "inputs": 0, "tokens": 0}
        self._lock = threading.Lock()
        self._httpd = _Server((host, port), self._handler())
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def dim(self) -> int:
        return int(self.encoder.dim)

    def embed(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            vectors = np.asarray(self.encoder.encode(texts), dtype=np.float32)
            self.served["requests"] += 1
            self.served["inputs"] += len(texts)
            self.served["tokens"] += sum(len(t.split()) for t in texts)
        return vectors

    def __enter__(self) -> "EmbeddingServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:   # quiet: the run's log says what matters
                pass

            def _send(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _error(self, status: int, message: str) -> None:
                self._send(status, {"error": {"message": message, "type": "invalid_request_error"}})

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [
                        {"id": server.model_name, "object": "model", "owned_by": "ham"}]})
                else:
                    self._error(404, f"no route {self.path}")

            def do_POST(self) -> None:
                if not self.path.rstrip("/").endswith("/embeddings"):
                    self._error(404, f"no route {self.path}")
                    return
                try:
                    body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                except ValueError as exc:
                    self._error(400, f"the body is not JSON: {exc}")
                    return
                texts = body.get("input")
                if isinstance(texts, str):
                    texts = [texts]
                if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                    self._error(400, "input must be a string or a list of strings (token ids are not taken)")
                    return
                fmt = body.get("encoding_format") or "float"
                if fmt not in ("float", "base64"):
                    self._error(400, f"encoding_format {fmt!r}: float or base64")
                    return
                vectors = server.embed(texts) if texts else np.zeros((0, server.dim), dtype=np.float32)
                data = []
                for i, vec in enumerate(vectors):
                    value = (base64.b64encode(vec.astype("<f4").tobytes()).decode() if fmt == "base64"
                             else [float(x) for x in vec])
                    data.append({"object": "embedding", "index": i, "embedding": value})
                words = sum(len(t.split()) for t in texts)
                self._send(200, {"object": "list", "data": data, "model": body.get("model") or server.model_name,
                                 "usage": {"prompt_tokens": words, "total_tokens": words}})

        return Handler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve a ham encoder as an OpenAI-compatible /v1/embeddings")
    parser.add_argument("--model", default="minilm", help="a sentence-transformers model (minilm: the bundled one)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    args = parser.parse_args(argv)
    from ham.index.encoders import SentenceTransformerEncoder

    server = EmbeddingServer(SentenceTransformerEncoder(model=args.model, show_progress=False),
                             model_name=args.model, host=args.host, port=args.port)
    print(f"serving {args.model} ({server.dim} dimensions) at {server.base_url}", flush=True)
    try:
        server._httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
