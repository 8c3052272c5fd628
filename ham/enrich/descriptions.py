"""Context-aware image descriptions for ``si`` and the HAM prompt (paper, section 3.2): a
description conditioned on the image and on its surrounding evidence (document, heading path,
caption, text before and after).

Backends (``conf/describer/``):
  ``file``    offline default: descriptions shipped with the corpus, JSONL lines
              ``{"image": "<path relative to the corpus root>", "description": "..."}``
  ``openai``  a vision-language model behind any OpenAI-compatible endpoint; the image goes inline
              as a base64 data URL, with its context in the same user turn
  ``hf``      a local transformers VLM through ``AutoProcessor`` (e.g. Qwen2.5-VL), batched
  ``none``    no descriptions
Model calls are cached by (model id, prompt version, image sha256, context). An image without a
description (none in the file, a failed call, a corrupt file) is represented by ``si`` without
one; the run logs a warning and records the count (``si_fallback_images``).
"""
from __future__ import annotations

import base64
import hashlib
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Sequence

from ham.cache import KeyedStore
from ham.images import UnreadableImage, encoded_image, on_white
from ham.enrich.calls import CallResult, CallStats, ChatBackend, LocalBackend, Request, chat_many, local_calls, run_cached
from ham.backends.chat import ChatClient
from ham.paths import resolve_path
from ham.protocols import Generator
from ham.settings import Content, Doc, Range
from ham.text import words
from ham.units import EvidenceUnit

log = logging.getLogger("ham.enrich.descriptions")
PROMPT_VERSION = "image-description-v1"
PROMPT = ("This image appears in a structured document.\n{context}\n\n"
          "Describe what the image shows and how it relates to this context, in at most {max_words} "
          "words. Name the visible interface elements, labels and values. Answer with the description only.")
CONTEXT_WORDS = 60


class DescriptionFile:
    """Image descriptions read from a JSONL file keyed by corpus-relative image path."""

    def __init__(self, path: Annotated[str | None, Content(), Doc("JSONL of {image, description} keyed by "
                                                                 "corpus-relative image path")] = None) -> None:
        self.path = resolve_path(path) if path else None   # a missing file is an error naming it
        self.descriptions: dict[str, str] = {}
        self.digest = "none"
        if self.path is None:
            return
        raw = self.path.read_bytes()
        self.digest = hashlib.sha256(raw).hexdigest()[:16]
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            at = raw.count(b"\n", 0, exc.start) + 1
            raise ValueError(f"{self.path}:{at}: not valid UTF-8 (byte {exc.start}: {exc.reason}); "
                             "save the descriptions file as UTF-8") from None
        for lineno, line in enumerate(text.split("\n"), 1):   # not splitlines: U+2028 may sit in a JSON string
            if not line.strip():
                continue
            try:
                image, description = _description_line(json.loads(line))
            except ValueError as exc:   # JSONDecodeError too
                log.warning("%s:%d: bad description line (%s); skipped", self.path, lineno, exc)
                continue
            self.descriptions[image] = description

    def get(self, image_path: str | None) -> str | None:
        return self.descriptions.get(image_path) if image_path else None

    @property
    def model_id(self) -> str:
        return f"file:{self.path.name}@{self.digest}" if self.path else "none"


def _description_line(row) -> tuple[str, str]:
    """(image, description) of one parsed line; a JSON null, a number or an empty string is not a
    description (``str()`` would have made null the text "None")."""
    if not isinstance(row, dict):
        raise ValueError("not a JSON object")
    for key in ("image", "description"):
        if key not in row:
            raise ValueError(f"no {key!r}")
        if not isinstance(row[key], str) or not row[key].strip():
            raise ValueError(f"{key!r} is {json.dumps(row[key])[:40]}, not a non-empty string")
    return row["image"], row["description"].strip()


def image_context(unit: EvidenceUnit) -> str:
    """The evidence a description is conditioned on, as shown to the model."""
    fields = [("Document", unit.doc_title), ("Section", " > ".join(unit.full_path[1:])),
              ("Caption", unit.caption or unit.alt),
              ("Text before", words(unit.local.get("prev_text", ""), CONTEXT_WORDS, from_end=True)),
              ("Text after", words(unit.local.get("next_text", ""), CONTEXT_WORDS))]
    return "\n".join(f"{name}: {value}" for name, value in fields if value)




@dataclass
class ImageInput:
    unit_id: str
    file: Path
    prompt: str


class ChatDescriber(ChatBackend):
    """A VLM behind any OpenAI-compatible endpoint (base URL and key from the environment)."""

    def __init__(self, client: Annotated[ChatClient, Doc("the server and vision model that describe the images")],
                 max_words: Annotated[int, Range(1), Doc("asked for at most this many words")] = 80,
                 batch_size: Annotated[int, Range(1), Doc("images handed to the client at once")] = 32,
                 max_side: Annotated[int, Range(16), Doc("an image is downscaled to at most this many pixels "
                                                         "a side")] = 1536) -> None:
        self.client = client
        self.model_id = f"openai:{client.model}"
        self.prompt_version = f"{PROMPT_VERSION}:{max_side}px"
        self.max_words, self.batch_size, self.max_side = max_words, batch_size, max_side

    def run(self, payloads: Sequence[ImageInput]) -> list[CallResult]:
        results: list[CallResult | None] = [None] * len(payloads)
        conversations, slots = [], []
        for i, p in enumerate(payloads):
            try:
                _, data, mime = encoded_image(p.file, self.max_side)
            except UnreadableImage as exc:
                results[i] = CallResult(None, f"corrupt_image: {exc}")
                continue
            url = f"data:{mime};base64,{base64.b64encode(data).decode()}"
            conversations.append([{"role": "user", "content": [
                {"type": "image_url", "image_url": {"url": url}}, {"type": "text", "text": p.prompt}]}])
            slots.append(i)
        for i, result in zip(slots, chat_many(self.client, conversations)):
            results[i] = result
        return results


@dataclass
class _LoadedImage:
    image: object            # a PIL image, already downscaled

    def load(self):
        return self.image


@dataclass
class _VisionPrompt:
    """An image and its question as ``ham.generate.hf_vision`` reads a prompt."""

    image: _LoadedImage
    text: str
    images: tuple = ()

    def parts(self) -> list[tuple[str, object]]:
        return [("image", self.image), ("text", self.text)]


class HFDescriber(LocalBackend):
    """A local transformers VLM (``generator``: an ``HFVisionGenerator`` from
    ``ham.generate.hf_vision``, built by the config as ``describer.generator``): greedy, batched,
    the image downscaled to ``max_side``."""

    def __init__(self, generator: Annotated[Generator, Doc("the local VLM (describer.generator.*: "
                                                          "generator=hf_vlm's settings)")],
                 max_words: Annotated[int, Range(1), Doc("asked for at most this many words")] = 80,
                 max_side: Annotated[int, Range(16), Doc("an image is downscaled to at most this many pixels "
                                                         "a side")] = 896) -> None:
        self.generator = generator
        self.model_id = generator.model_id   # the weights' content hash
        self.prompt_version = f"{PROMPT_VERSION}:{max_side}px"
        self.max_words, self.batch_size, self.max_side = max_words, generator.batch_size, max_side

    def run(self, payloads: Sequence[ImageInput]) -> list[CallResult]:
        results: list[CallResult | None] = [None] * len(payloads)
        prompts, slots = [], []
        for i, p in enumerate(payloads):
            try:
                image = encoded_image(p.file, self.max_side)[0]
            except UnreadableImage as exc:
                results[i] = CallResult(None, f"corrupt_image: {exc}")
                continue
            prompts.append(_VisionPrompt(_LoadedImage(image), p.prompt))
            slots.append(i)
        for i, result in zip(slots, local_calls(self.generator, prompts)):
            results[i] = result
        return results


@dataclass
class Descriptions:
    """Context-aware descriptions per image unit (``of``: what the index embeds and the HAM prompt
    shows); ``get(image_path)`` is the first description of that file, for callers that only
    know a path."""

    by_unit: dict[str, str]
    model_id: str
    stats: CallStats | None = None
    by_path: dict[str, str] = field(default_factory=dict)

    def of(self, unit: EvidenceUnit) -> str | None:
        return self.by_unit.get(unit.unit_id)

    def get(self, image_path: str | None) -> str | None:
        return self.by_path.get(image_path) if image_path else None


def describe_images(units: Sequence[EvidenceUnit], corpus_root: Path, describer, store: KeyedStore,
                    progress: bool = False) -> Descriptions:
    """A description for every image unit the describer can give one to."""
    images = [u for u in units if u.modality == "image" and u.image_path]
    if describer is None:
        return Descriptions({}, "none")
    if isinstance(describer, DescriptionFile):
        found = {u.unit_id: describer.get(u.image_path) for u in images}
        unmatched = sorted(set(describer.descriptions) - {u.image_path for u in images})
        if unmatched:
            log.warning("%s: %d of %d descriptions match no image of the corpus (e.g. %s); their image paths are "
                        "relative to the corpus root", describer.path, len(unmatched), len(describer.descriptions),
                        ", ".join(unmatched[:3]))
        by_unit = {k: v for k, v in found.items() if v}
        return Descriptions(by_unit, describer.model_id, by_path=dict(describer.descriptions))
    requests, unreadable = [], []
    for u in images:
        file = corpus_root / u.image_path
        try:
            digest = hashlib.sha256(file.read_bytes()).hexdigest()
        except OSError as exc:
            log.warning("%s: cannot read image for description (%s); skipped", file, exc)
            unreadable.append({"id": u.unit_id, "error": f"unreadable_image: {file}: {exc}"})
            continue
        prompt = PROMPT.format(context=image_context(u), max_words=describer.max_words)
        key = {"image_sha256": digest, "prompt": prompt}
        if on_white(file):   # entries made before transparency was composited onto white (not black) are not reused
            key["background"] = "white"
        requests.append(Request(u.unit_id, key, ImageInput(u.unit_id, file, prompt)))
    by_unit, stats = run_cached(requests, describer, store, "image descriptions", progress)
    stats.requested = len(images)
    stats.failures = unreadable + stats.failures
    stats.failed = len(stats.failures)
    by_path: dict[str, str] = {}
    for u in images:
        if u.unit_id in by_unit:
            by_path.setdefault(u.image_path, by_unit[u.unit_id])
    return Descriptions(by_unit, describer.model_id, stats, by_path)
