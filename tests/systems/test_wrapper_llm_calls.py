"""What the wrappers' shared LLM plumbing (``ham/systems/wrappers``) does with what a system hands
it: a failed call is counted by its reason (so "40 of 199 index calls failed" says why), and an
image RAG-Anything passes as ``image_data`` becomes an OpenAI image part, or is left out of a
text-only call, instead of an argument the SDK rejects (which failed every image call before)."""
import base64
import io
import sys
import time

import pytest
from PIL import Image

from ham.systems.client import WRAPPERS

sys.path.insert(0, str(WRAPPERS))
from lightrag_common import image_mime, with_image  # noqa: E402
from protocol import Meter  # noqa: E402


def _b64(fmt: str) -> str:
    out = io.BytesIO()
    Image.new("RGB", (4, 4), "red").save(out, format=fmt)
    return base64.b64encode(out.getvalue()).decode()


@pytest.mark.parametrize("fmt, mime", [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"),
                                       ("WEBP", "image/webp")])
def test_the_image_part_names_the_image_type_by_its_bytes(fmt, mime):
    assert image_mime(_b64(fmt)) == mime
    messages = with_image("Describe it.", _b64(fmt), "You see images.", [{"role": "user", "content": "hi"}])
    assert [m["role"] for m in messages] == ["system", "user", "user"]
    text, image = messages[-1]["content"]
    assert text == {"type": "text", "text": "Describe it."}
    assert image["image_url"]["url"].startswith(f"data:{mime};base64,")
    assert with_image("p", _b64("PNG"), None, [])[0]["role"] == "user"


def test_failed_calls_are_counted_by_reason_per_request():
    meter = Meter()
    before, started = meter.snapshot(), time.perf_counter()
    meter.failed(TypeError("create() got an unexpected keyword argument 'image_data'"))
    meter.failed(TypeError("create() got an unexpected keyword argument 'image_data'"))
    meter.add(llm_calls=3)
    first = meter.since(before, started)
    assert first["llm_failed_calls"] == 2 and first["llm_calls"] == 3
    assert first["llm_failure_reasons"] == {
        "TypeError: create() got an unexpected keyword argument 'image_data'": 2}
    before = meter.snapshot()
    meter.failed(TimeoutError())
    second = meter.since(before, time.perf_counter())
    assert second["llm_failure_reasons"] == {"TimeoutError": 1}, "only this request's failures"
    assert "llm_failure_reasons" not in meter.since(meter.snapshot(), time.perf_counter())


def test_a_failed_index_build_still_counts_what_it_cost():
    from ham.run.system_pipeline import index_totals

    records = {
        "a": {"ok": True, "cached": True, "graph": {"nodes": 5, "edges": 2},
              "usage": {"llm_calls": 10, "seconds": 3.0}},
        "b": {"ok": False, "cached": False, "reason": "system_error",
              "usage": {"llm_calls": 4, "llm_failed_calls": 1, "seconds": 2.0,
                        "llm_failure_reasons": {"TimeoutError": 1}}}}
    totals = index_totals(records)
    assert totals["indexed"] == 1 and totals["failed"] == 1 and totals["failure_reasons"] == {"system_error": 1}
    assert totals["llm_calls"] == 14 and totals["llm_failed_calls"] == 1 and totals["seconds"] == 5.0
    assert totals["llm_failure_reasons"] == {"TimeoutError": 1} and totals["nodes"] == 5
