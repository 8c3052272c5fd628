"""The wrapper process's failure paths (``ham.systems.client``), with a real subprocess speaking the
protocol (``ham/systems/wrappers/protocol.py``): a request that kills the wrapper fails with
``wrapper_crashed`` and its stderr tail, one that hangs with ``timeout``, an op that raises with its
reason; each time the next request is answered by a fresh process, so one bad document or question
costs only itself."""
import sys
import textwrap

from ham.systems.client import WRAPPERS, WrapperProcess

SCRIPT = textwrap.dedent(f"""
    import os, sys, time
    sys.path.insert(0, {str(WRAPPERS)!r})
    from protocol import Meter, serve

    def query(request):
        q = request["question"]
        if q == "crash":
            print("dying on purpose", file=sys.stderr, flush=True)
            os._exit(3)
        if q == "hang":
            time.sleep(60)
        if q == "raise":
            raise ValueError("no such entity")
        return {{"answer": q.upper(), "context": {{}}}}

    serve({{"query": query, "info": lambda r: {{"versions": {{"pid": os.getpid()}}}}}}, Meter())
""")


def test_a_crash_a_hang_and_an_error_each_fail_alone(tmp_path):
    script = tmp_path / "fake_wrapper.py"
    script.write_text(SCRIPT)
    proc = WrapperProcess(sys.executable, str(script), {}, None, tmp_path / "log", timeout=3)
    try:
        assert proc.request("query", question="ok")["answer"] == "OK"
        first = proc.request("info")["versions"]["pid"]
        crashed = proc.request("query", question="crash")
        assert crashed["ok"] is False and crashed["reason"] == "wrapper_crashed"
        assert "exit code 3" in crashed["detail"] and "dying on purpose" in crashed["detail"]
        assert proc.request("query", question="after")["answer"] == "AFTER"
        assert proc.request("info")["versions"]["pid"] != first and proc.starts == 2
        hung = proc.request("query", question="hang")
        assert hung["reason"] == "timeout" and "no reply to query in 3 s" in hung["detail"]
        assert proc.request("query", question="again")["answer"] == "AGAIN" and proc.starts == 3
        raised = proc.request("query", question="raise")
        assert raised["reason"] == "system_error" and "ValueError: no such entity" in raised["detail"]
        assert raised["usage"]["llm_calls"] == 0 and proc.starts == 3   # an error in an op keeps the process
    finally:
        proc.close()
    assert "dying on purpose" in (tmp_path / "log").read_text()
