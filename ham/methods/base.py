"""What every method hands to a generator, and what methods share.

A method turns (question, retrieved evidence) into a ``Prompt``: the prompt text from a versioned
template file (``ham/methods/prompts/<method>_v<N>.txt``; the name and a hash of the file are recorded
with every prediction), the image slots a reply may cite (``<imgN>`` -> retrieved image unit) and,
for multimodal methods, the image files themselves. An attached image sits in the text as the
marker ``[[image:N]]``; ``messages()`` turns the prompt into OpenAI-style chat messages with each
marker replaced by the image (base64 data URL), ``parts()`` into the same sequence for a local
vision-language model.
"""
from __future__ import annotations

import base64
import hashlib
import json
import mimetypes
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Annotated

from ham.images import on_white, open_image
from ham.retrieve.retriever import Hit, Retrieved
from ham.settings import Doc, PromptRef, Runtime
from ham.text import words

Template = Annotated[str, PromptRef(), Doc("the versioned prompt template (ham/methods/prompts/<name>.txt, or a path)")]

IMAGE_MARK = re.compile(r"\[\[image:(\d+)\]\]")
CONTEXT_WORDS = 30




@dataclass
class PromptImage:
    slot: int
    unit_id: str
    path: Path        # the file on disk: corpus root / unit.image_path

    def digest(self) -> str:
        try:
            digest = hashlib.sha256(self.path.read_bytes()).hexdigest()[:16]
        except OSError:
            return f"unreadable:{self.path}"
        # a local VLM is shown it composited onto white; generations cached from the black form are not reused
        return digest + "+on-white" if on_white(self.path) else digest

    def load(self):
        return open_image(self.path)

    def data_url(self) -> str:
        mime = mimetypes.guess_type(self.path.name)[0] or "image/png"
        return f"data:{mime};base64,{base64.b64encode(self.path.read_bytes()).decode()}"


@dataclass
class Prompt:
    question: str
    text: str                              # the full prompt; attached images marked [[image:N]]
    slots: dict[int, tuple[str, str]]      # image slot -> (unit id, image reference)
    retrieved: Retrieved                   # the evidence the generator sees (after any image filter)
    template: str                          # template file name, which carries its version
    method: str = ""
    template_sha: str = ""
    images: list[PromptImage] = field(default_factory=list)   # attached image files (multimodal)
    extra: dict = field(default_factory=dict)                  # method-specific record (image filter)

    def to_dict(self) -> dict:
        out = {"text": self.text, "method": self.method, "template": self.template,
               "template_sha": self.template_sha,
               "slots": {str(k): list(v) for k, v in self.slots.items()}}
        if self.images:
            out["images"] = [{"slot": i.slot, "unit_id": i.unit_id, "path": str(i.path)} for i in self.images]
        return {**out, **self.extra}

    def parts(self) -> list[tuple[str, object]]:
        """("text", str) and ("image", PromptImage) in prompt order."""
        by_slot = {i.slot: i for i in self.images}
        out: list[tuple[str, object]] = []
        pos = 0
        for m in IMAGE_MARK.finditer(self.text):
            out.append(("text", self.text[pos:m.start()]))
            out.append(("image", by_slot[int(m.group(1))]))
            pos = m.end()
        out.append(("text", self.text[pos:]))
        return [(kind, value) for kind, value in out if kind == "image" or value]

    def messages(self) -> list[dict]:
        """OpenAI chat messages: a plain string, or content parts with images as data URLs."""
        if not self.images:
            return [{"role": "user", "content": self.text}]
        content = [{"type": "text", "text": v} if kind == "text"
                   else {"type": "image_url", "image_url": {"url": v.data_url()}} for kind, v in self.parts()]
        return [{"role": "user", "content": content}]

    def digest(self) -> str:
        """Identifies what the model is sent: the text and the bytes of every attached image."""
        blob = json.dumps([self.text, [(i.slot, i.digest()) for i in self.images]])
        return hashlib.sha256(blob.encode()).hexdigest()


def prompt_length(prompt: Prompt, count_tokens=None) -> dict:
    """How long a prompt is: characters (and, where the generator's tokenizer is known, tokens) of
    the retrieved text it shows (each text or table unit's content, once) and of the whole prompt
    text. Tokens are None when unknown, never 0."""
    retrieved = "\n".join(h.unit.content for h in prompt.retrieved.text)
    count = count_tokens or (lambda text: None)
    return {"retrieved_chars": len(retrieved), "retrieved_tokens": count(retrieved) if retrieved else 0,
            "prompt_chars": len(prompt.text), "prompt_tokens": count(prompt.text),
            "text_units": len(prompt.retrieved.text)}


def length_summary(rows: list[dict]) -> dict:
    """Per-question means of the rows' ``prompt_length`` (metrics.json); a token mean only when
    every row has one."""
    lengths = [r["prompt_length"] for r in rows if r.get("prompt_length")]
    out: dict = {"questions": len(lengths)}
    for key in ("retrieved_chars", "retrieved_tokens", "prompt_chars", "prompt_tokens", "text_units"):
        values = [x.get(key) for x in lengths]
        out[key] = round(sum(values) / len(values), 1) if values and all(v is not None for v in values) else None
    return out


def load_template(name: str) -> str:
    path = resources.files("ham.methods.prompts").joinpath(f"{name}.txt")
    if not path.is_file():
        known = sorted(p.name[:-4] for p in resources.files("ham.methods.prompts").iterdir() if p.name.endswith(".txt"))
        raise FileNotFoundError(f"prompt template ham/methods/prompts/{name}.txt does not exist; known: {known}")
    return path.read_text(encoding="utf-8")


class Method:
    """Base of the prompt-assembly methods (config group ``method``). ``__call__`` builds the
    prompt; ``finish`` turns the model's reply into the text the answer parser reads (identity
    here; rule_based inserts images into it). ``encoder`` and ``corpus_root`` come from the run."""

    name = ""

    def __init__(self, template: Template, descriptions=None, encoder=None,
                 corpus_root: Annotated[str | Path | None, Runtime()] = None) -> None:
        self.template_name = template
        self.template = load_template(template)
        self.template_sha = hashlib.sha256(self.template.encode()).hexdigest()[:12]
        self.descriptions = descriptions
        self.encoder = encoder
        self.corpus_root = Path(corpus_root) if corpus_root else None

    def render(self, question: str, retrieved: Retrieved, slots: dict[int, tuple[str, str]], **blocks) -> Prompt:
        text = self.template.format(question=question, **{k: v or "(none)" for k, v in blocks.items()})
        return Prompt(question, text, slots, retrieved, self.template_name, self.name, self.template_sha)

    def finish(self, prompt: Prompt, reply: str) -> str:
        return reply


def slots_of(images: list[Hit]) -> dict[int, tuple[str, str]]:
    return {i: (h.unit.unit_id, h.unit.image) for i, h in enumerate(images, 1)}


def flat_text_blocks(hits: list[Hit]) -> str:
    """Text evidence as the flat baselines see it: ranked contents, no structure."""
    return "\n\n".join(f"[T{i}] {h.unit.content}" for i, h in enumerate(hits, 1))


def image_proxy(hit: Hit, window: int = CONTEXT_WORDS) -> dict[str, str]:
    """An image's textual proxy: its caption or alt text and the text around it in the source."""
    u = hit.unit
    return {"caption": u.caption or u.alt,
            "before": words(u.local.get("prev_text", ""), window, from_end=True),
            "after": words(u.local.get("next_text", ""), window)}


def proxy_lines(hit: Hit) -> list[str]:
    proxy = image_proxy(hit)
    labels = {"caption": "Caption", "before": "Text before", "after": "Text after"}
    return [f"{labels[k]}: {v}" for k, v in proxy.items() if v]
