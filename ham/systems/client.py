"""ham's end of the system protocol (``ham/systems/wrappers/protocol.py``): a wrapper script run
under its system's venv python as a subprocess, one JSON request per line on its stdin, one reply
per line on its stdout.

A request that gets no reply in ``timeout`` seconds fails with reason ``timeout``, and a wrapper
that dies (a segfault, an out-of-memory kill, an exit) fails the request in flight with reason
``wrapper_crashed`` (its last stderr lines as the detail); either way the process is ended and the
next request starts a fresh one, so one document or question that breaks the system costs only
itself. The wrapper's stderr (the system's logs) goes to ``log_path``.
"""
from __future__ import annotations

import json
import logging
import os
import queue
import subprocess
import threading
from collections import deque
from pathlib import Path

log = logging.getLogger("ham.systems.client")
WRAPPERS = Path(__file__).parent / "wrappers"


class WrapperProcess:
    def __init__(self, python: Path, script: str, config: dict, api_key: str | None, log_path: Path,
                 timeout: float = 1800.0) -> None:
        self.python, self.script, self.config = Path(python), WRAPPERS / script, config
        self.api_key, self.log_path, self.timeout = api_key, Path(log_path), timeout
        self._proc: subprocess.Popen | None = None
        self._stderr_reader: threading.Thread | None = None
        self._replies: queue.Queue = queue.Queue()
        self._tail: deque = deque(maxlen=20)
        self._next_id = 0
        self.starts = 0

    def _start(self) -> None:
        if not self.python.exists():
            raise FileNotFoundError(f"{self.python} does not exist: build the system's venv first "
                                    f"(make systems-venv SYSTEM=...)")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env.update(HAM_SYSTEM_CONFIG=json.dumps(self.config), PYTHONUNBUFFERED="1",
                   OMP_NUM_THREADS=env.get("OMP_NUM_THREADS", "1"), TOKENIZERS_PARALLELISM="false",
                   # no telemetry, no hub downloads from inside a system
                   HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False")
        if self.api_key:
            env["HAM_SYSTEM_API_KEY"] = self.api_key
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = self.log_path.open("a", encoding="utf-8")
        self._proc = subprocess.Popen([str(self.python), str(self.script)], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
                                      encoding="utf-8", bufsize=1, cwd=str(self.script.parent))
        self._replies = queue.Queue()
        self.starts += 1
        threading.Thread(target=self._read_stdout, args=(self._proc, self._replies), daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, args=(self._proc,), daemon=True)
        self._stderr_reader.start()

    def _read_stdout(self, proc, replies) -> None:
        for line in proc.stdout:
            if line.strip():
                try:
                    replies.put(json.loads(line))
                except ValueError:
                    self._tail.append(f"(not a reply on stdout) {line.strip()[:300]}")
        replies.put(None)   # the process ended

    def _read_stderr(self, proc) -> None:
        for line in proc.stderr:
            self._log.write(line)
            self._log.flush()
            self._tail.append(line.rstrip())

    def request(self, op: str, **fields) -> dict:
        """The wrapper's reply to one request, or a failure reply (``ok`` false, ``reason``)."""
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        self._next_id += 1
        rid = self._next_id
        try:
            self._proc.stdin.write(json.dumps({"id": rid, "op": op, **fields}, ensure_ascii=False) + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            return self._crashed(f"could not send the request: {exc}")
        while True:
            try:
                reply = self._replies.get(timeout=self.timeout)
            except queue.Empty:
                self.close(wait=0)   # hung: no graceful exit to wait for
                return {"ok": False, "reason": "timeout", "detail": f"no reply to {op} in {self.timeout:g} s"}
            if reply is None:
                return self._crashed("the wrapper exited")
            if reply.get("id") == rid:
                return reply

    def _crashed(self, why: str) -> dict:
        code = self._proc.wait(timeout=30) if self._proc is not None else None
        # stdout's end can be seen before the last stderr lines are read: let the reader finish
        # (stderr closes with the process), so the detail holds the wrapper's last words
        if self._stderr_reader is not None:
            self._stderr_reader.join(timeout=5)
        tail = " | ".join(list(self._tail)[-5:])
        self._proc = None
        return {"ok": False, "reason": "wrapper_crashed", "detail": f"{why} (exit code {code}): {tail}"[:2000]}

    def close(self, wait: float = 20) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            try:
                proc.stdin.close()
                proc.wait(timeout=wait)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
        self._log.close()
