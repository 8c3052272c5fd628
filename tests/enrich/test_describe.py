"""Context-aware image descriptions: the shipped-file backend, an OpenAI-compatible VLM against a
real loopback chat server (image inline as base64), a tiny local transformers VLM, the per-call
cache, corrupt images and failed calls recorded per unit."""
import base64
import hashlib
import io
import json
import re

import pytest

from ham.backends.chat import ChatClient
from PIL import Image

from ham.cache import KeyedStore
from ham.enrich.descriptions import (PROMPT, ChatDescriber, DescriptionFile, HFDescriber, ImageInput, describe_images,
                                     image_context)
from ham.enrich.calls import Request, request_key
from ham.images import UnreadableImage, encoded_image, on_white, open_image
from ham.ingest.builder import Block, TreeBuilder
from ham.units import build_units
from tests.support.tiny_models import tiny_llava
from tests.support.chat_server import ChatServer


@pytest.fixture
def corpus(tmp_path):
    """A corpus root with two real images and one corrupt file, and the units of a document."""
    root = tmp_path / "corpus"
    (root / "img").mkdir(parents=True)
    Image.new("RGB", (40, 30), (200, 0, 0)).save(root / "img" / "red.png")
    Image.new("RGB", (30, 50), (0, 0, 200)).save(root / "img" / "blue.jpg")
    (root / "img" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n this is not an image")
    b = TreeBuilder("guide", "Router Guide", "guide.md", "markdown")
    b.add(Block("heading", "1. Setup", level=1))
    b.add(Block("text", "Connect the red cable to the WAN port."))
    b.add(Block("image", image="img/red.png", image_path="img/red.png", alt="red cable"))
    b.add(Block("text", "Press the blue button for three seconds."))
    b.add(Block("image", image="img/blue.jpg", image_path="img/blue.jpg", alt="blue button"))
    b.add(Block("image", image="img/broken.png", image_path="img/broken.png", alt="status light"))
    return root, build_units(b.finish())


def _text_part(body: dict) -> str:
    return next(p["text"] for p in body["messages"][0]["content"] if p["type"] == "text")


def _image_url(body: dict) -> str:
    return next(p["image_url"]["url"] for p in body["messages"][0]["content"] if p["type"] == "image_url")


def test_images_go_inline_with_their_context_and_answers_are_cached(corpus, tmp_path):
    root, units = corpus
    store = KeyedStore(tmp_path / "cache", "descriptions")
    with ChatServer(responder=lambda body: "Seen: " + _text_part(body).split("Caption: ")[1].split("\n")[0]) as server:
        backend = ChatDescriber(ChatClient("vlm", base_url=server.base_url, max_retries=0))
        out = describe_images(units, root, backend, store)
        first_requests = list(server.requests)
        again = describe_images(units, root, backend, store)
    red = next(u for u in units if u.image == "img/red.png")
    assert out.of(red) == "Seen: red cable" and out.get("img/blue.jpg") == "Seen: blue button"
    assert len(first_requests) == 2, "the corrupt image is never sent"
    red_body = next(b for b in first_requests if "Caption: red cable" in _text_part(b))
    url = _image_url(red_body)
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == (root / "img" / "red.png").read_bytes()
    assert _image_url(next(b for b in first_requests if "Caption: blue button" in _text_part(b))).startswith("data:image/jpeg;base64,")
    assert "Text before: Connect the red cable to the WAN port." in _text_part(red_body)
    assert "Section: 1. Setup" in _text_part(red_body)
    assert out.stats.failed == 1 and "broken.png" in out.stats.failures[0]["error"]
    assert out.stats.failures[0]["error"].startswith("corrupt_image")
    assert len(server.requests) == 2 and again.stats.cached == 2 and again.by_unit == out.by_unit


def test_failed_calls_are_recorded_per_unit_and_the_rest_goes_on(corpus, tmp_path):
    root, units = corpus
    with ChatServer(responder=lambda body: "fine") as server:
        server.script(500)
        backend = ChatDescriber(ChatClient("vlm", base_url=server.base_url, max_retries=0, concurrency=1))
        out = describe_images(units, root, backend, KeyedStore(tmp_path, "descriptions"))
    assert len(out.by_unit) == 1 and out.stats.failed == 2
    reasons = sorted(f["error"].split(":")[0] for f in out.stats.failures)
    assert reasons == ["api_error", "corrupt_image"]


def test_same_image_in_a_new_context_is_a_new_call(corpus, tmp_path):
    root, units = corpus
    store = KeyedStore(tmp_path, "descriptions")
    with ChatServer(responder=lambda body: "x") as server:
        backend = ChatDescriber(ChatClient("vlm", base_url=server.base_url))
        describe_images(units, root, backend, store)
        red = next(u for u in units if u.image == "img/red.png")
        red.local["prev_text"] = "A different paragraph."
        describe_images(units, root, backend, store)
    assert len(server.requests) == 3


def test_read_image_downscales_and_rejects_corrupt_files(corpus):
    root, _ = corpus
    image, data, mime = encoded_image(root / "img" / "red.png", max_side=20)
    assert image.size == (20, 15) and mime == "image/png" and data[:4] == b"\x89PNG"
    with pytest.raises(UnreadableImage, match="broken.png"):
        encoded_image(root / "img" / "broken.png", 100)


def _transparent_images(folder):
    """Black text on a transparent background as RGBA, LA and a palette with a transparent entry;
    the transparent pixels store black, which convert("RGB") alone shows."""
    rgba = Image.new("RGBA", (40, 20), (0, 0, 0, 0))
    rgba.paste((0, 0, 0, 255), (5, 5, 15, 15))
    paths = {"rgba": folder / "rgba.png", "la": folder / "la.png", "p": folder / "p.png"}
    rgba.save(paths["rgba"])
    rgba.convert("LA").save(paths["la"])
    palette = Image.new("P", (40, 20), 0)
    palette.putpalette([0, 0, 0] * 256)
    palette.paste(1, (5, 5, 15, 15))
    palette.save(paths["p"], transparency=0)
    return paths


def test_transparent_images_are_composited_onto_white(tmp_path):
    for kind, path in _transparent_images(tmp_path).items():
        small, data, _ = encoded_image(path, 20)   # downscaled: the PNG re-encoded for a VLM
        for image, (x, y) in [(open_image(path), (1, 1)), (encoded_image(path, 100)[0], (1, 1)), (small, (0, 0)),
                              (Image.open(io.BytesIO(data)).convert("RGB"), (0, 0))]:
            assert image.getpixel((x, y)) == (255, 255, 255), f"{kind}: transparent is white"
            assert image.getpixel((x + 4, y + 4)) == (0, 0, 0), f"{kind}: the text stays black"
        assert on_white(path)
    opaque = tmp_path / "opaque.png"
    Image.new("RGB", (10, 10), (0, 0, 0)).save(opaque)
    assert open_image(opaque).getpixel((5, 5)) == (0, 0, 0) and not on_white(opaque)


def test_descriptions_of_a_transparent_image_made_from_its_black_form_are_not_reused(corpus, tmp_path):
    root, units = corpus
    _transparent_images(root / "img")
    (root / "img" / "red.png").write_bytes((root / "img" / "rgba.png").read_bytes())
    store = KeyedStore(tmp_path / "cache", "descriptions")
    with ChatServer(responder=lambda body: "fresh") as server:
        backend = ChatDescriber(ChatClient("vlm", base_url=server.base_url, max_retries=0))
        for u in units:   # entries keyed as before: by the image's sha256 and the prompt alone
            if u.image in ("img/red.png", "img/blue.jpg"):
                prompt = PROMPT.format(context=image_context(u), max_words=backend.max_words)
                digest = hashlib.sha256((root / u.image_path).read_bytes()).hexdigest()
                store.put(request_key(backend, Request(u.unit_id, {"image_sha256": digest, "prompt": prompt}, None)),
                          {"text": "stale"})
        out = describe_images(units, root, backend, store)
    assert out.get("img/red.png") == "fresh", "made from the transparent image turned black"
    assert out.get("img/blue.jpg") == "stale", "an opaque image keeps its key"


def test_description_file_backend(corpus, tmp_path):
    root, units = corpus
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"image": "img/red.png", "description": "A red cable."}) + "\nnot json\n")
    out = describe_images(units, root, DescriptionFile(path), KeyedStore(tmp_path, "d"))
    assert out.by_unit == {next(u.unit_id for u in units if u.image == "img/red.png"): "A red cable."}
    assert out.model_id.startswith("file:d.jsonl@")


def test_description_file_skips_a_description_that_is_not_text(corpus, tmp_path, caplog):
    root, units = corpus
    path = tmp_path / "d.jsonl"
    lines = [{"image": "img/red.png", "description": None}, {"image": "img/blue.jpg", "description": 5},
             {"image": "img/broken.png", "description": "  "}]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    with caplog.at_level("WARNING", logger="ham.enrich.descriptions"):
        out = describe_images(units, root, DescriptionFile(path), KeyedStore(tmp_path, "d"))
    assert out.by_unit == {} and out.get("img/red.png") is None, "a null is no description, not the text 'None'"
    warned = [r.getMessage() for r in caplog.records]
    assert [m.split(": bad description line")[0] for m in warned] == [f"{path}:{n}" for n in (1, 2, 3)]


def test_description_file_names_a_non_utf8_file_and_the_line(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"image": "img/red.png", "description": "ok"}\n{"image": "img/blue.jpg", "description": "caf\xe9"}\n')
    with pytest.raises(ValueError, match=re.escape(f"{path}:2: not valid UTF-8")):
        DescriptionFile(path)


def test_description_file_reports_entries_that_match_no_image(corpus, tmp_path, caplog):
    root, units = corpus
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps({"image": image, "description": "x"}) + "\n"
                            for image in ("img/red.png", "red.png", "img/redd.png")))
    with caplog.at_level("WARNING", logger="ham.enrich.descriptions"):
        out = describe_images(units, root, DescriptionFile(path), KeyedStore(tmp_path, "d"))
    assert len(out.by_unit) == 1
    [warning] = [r.getMessage() for r in caplog.records]
    assert "2 of 3 descriptions match no image" in warning and "img/redd.png, red.png" in warning


@pytest.fixture(scope="module")
def llava_folder(tmp_path_factory):
    return tiny_llava(tmp_path_factory.mktemp("llava"), emits_text=True)


def test_local_vlm_describes_a_batch_and_skips_the_corrupt_image(corpus, llava_folder, tmp_path):
    root, units = corpus
    from hydra.utils import instantiate

    from ham.conf import compose

    cfg = compose(["describer=hf", f"describer.generator.model={llava_folder}", "describer.generator.max_new_tokens=5",
                   "describer.generator.device=cpu"], return_hydra_config=False)
    backend = instantiate(cfg.describer, _convert_="all")   # describer=hf as a config builds it
    assert isinstance(backend, HFDescriber) and backend.batch_size == 4
    out = describe_images(units, root, backend, KeyedStore(tmp_path, "descriptions"))
    assert len(out.by_unit) == 2 and all(out.by_unit.values())
    assert out.stats.failed == 1 and out.stats.failures[0]["error"].startswith("corrupt_image")
    again = describe_images(units, root, backend, KeyedStore(tmp_path, "descriptions"))
    assert again.stats.cached == 2 and again.by_unit == out.by_unit
    blue = next(u for u in units if u.image == "img/blue.jpg")
    prompt = PROMPT.format(context=image_context(blue), max_words=backend.max_words)
    assert backend.run([ImageInput(blue.unit_id, root / "img" / "blue.jpg", prompt)])[0].text == out.of(blue), \
        "a batch of one (no padding) gives the batched answer"
