"""The canonical interleaved answer: ordered text segments and image references.

Generated answers cite the images they were given by slot number (``img1`` ... ``imgK``, as the
prompt labels them). The parser accepts the styles models produce: ``<img3>``, ``<img 3>``,
``![any alt](img3)``, ``[IMG 3]``, ``[img3]``, ``<IMG_3>``, and ``image3`` for ``img3`` in each
(``![summary](image3)`` is MMDocRAG's style). A Markdown image citing a given image by the
reference the prompt printed beside its tag (``![figure](figures/pay.png)``, or its file name)
is that image. Reference answers write images as Markdown ``![alt](REF)`` with REF as the source
document writes it.

A generation fails (and scores zero, kept in the denominator) when it is empty (``empty``), holds
images but no text (``no_text``), or cites an image that was not given: a slot that does not
exist, or a Markdown image whose reference is none of the given images' (``cites_unknown_image``;
the paper counts such invalid generations as failures, and shown as an image it would otherwise
count as no image at all). The failure reason is recorded.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

# one alternation so segments come out in source order
SLOT_PATTERN = re.compile(
    r"!\[[^\]]*\]\(\s*<?(?:image|img)[ _-]?(\d+)>?\s*\)"      # ![alt](img3), ![alt](image3)
    r"|<\s*(?:image|img)[ _-]?(\d+)\s*/?>"                      # <img3>, <img 3>, <IMG_3/>, <image3>
    r"|\[\s*(?:image|img)[ _-]?(\d+)\s*\]"                      # [IMG 3], [img3], [Image 3]
    r"|!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)",    # ![alt](figures/pay.png): by reference
    re.IGNORECASE)
_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


@dataclass
class Segment:
    type: str              # "text" or "image"
    text: str = ""
    image: str | None = None      # the image reference as the source writes it
    unit_id: str | None = None    # the retrieved image unit, for generated answers

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v not in (None, "") or k == "type"}


@dataclass
class InterleavedAnswer:
    segments: list[Segment] = field(default_factory=list)

    @property
    def images(self) -> list[str]:
        """Image references in order of first appearance, without repeats."""
        return list(dict.fromkeys(s.image for s in self.segments if s.type == "image" and s.image))

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.segments if s.type == "text").strip()

    def to_dict(self) -> list[dict]:
        return [s.to_dict() for s in self.segments]

    @classmethod
    def from_dict(cls, rows: list[dict]) -> "InterleavedAnswer":
        return cls([Segment(**r) for r in rows])




class AnswerFailure(Exception):
    """A generation that cannot be turned into an interleaved answer; ``reason`` is recorded."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


def _append_text(segments: list[Segment], text: str) -> None:
    text = text.strip()
    if text:
        segments.append(Segment("text", text=text))


def slot_of_reference(ref: str, slots: dict[int, tuple[str, str]]) -> int | None:
    """The slot whose image reference is ``ref`` (as written, else by file name), or None."""
    for number, (_, image) in slots.items():
        if image and ref == image:
            return number
    name = ref.rstrip("/").rsplit("/", 1)[-1]
    found = [n for n, (_, image) in slots.items() if image and str(image).rsplit("/", 1)[-1] == name]
    return found[0] if len(found) == 1 else None


def parse_generated(raw: str | None, slots: dict[int, tuple[str, str]]) -> InterleavedAnswer:
    """Parse model output. ``slots`` maps slot number -> (unit_id, image reference)."""
    if raw is None or not raw.strip():
        raise AnswerFailure("empty", "the model returned no text")
    segments: list[Segment] = []
    pos = 0
    for m in SLOT_PATTERN.finditer(raw):
        _append_text(segments, raw[pos:m.start()])
        if m.group(4) is not None:
            number = slot_of_reference(m.group(4), slots)
            if number is None:
                raise AnswerFailure("cites_unknown_image", f"{m.group(4)} was shown as an image but is none of the "
                                                           f"given images ({sorted(slots) or 'no images'})")
        else:
            number = int(next(g for g in m.groups()[:3] if g is not None))
        if number not in slots:
            raise AnswerFailure("cites_unknown_image",
                                f"img{number} was cited but only {sorted(slots) or 'no images'} were given")
        unit_id, image = slots[number]
        segments.append(Segment("image", image=image, unit_id=unit_id))
        pos = m.end()
    _append_text(segments, raw[pos:])
    if not any(s.type == "text" for s in segments):
        raise AnswerFailure("no_text", "the answer holds images but no text")
    return InterleavedAnswer(segments)


def parse_reference(markdown: str) -> InterleavedAnswer:
    """A reference answer in Markdown, each image written ``![alt](REF)``."""
    segments: list[Segment] = []
    pos = 0
    for m in _MD_IMAGE.finditer(markdown or ""):
        _append_text(segments, markdown[pos:m.start()])
        segments.append(Segment("image", image=m.group(2), text=m.group(1)))
        pos = m.end()
    _append_text(segments, (markdown or "")[pos:])
    return InterleavedAnswer(segments)


def context_around(answer: InterleavedAnswer, image: str, window: int) -> str:
    """The ``window`` words before and ``window`` words after the first occurrence of ``image``,
    taken from the answer's text with image markers removed (the Img-CBS context window)."""
    before: list[str] = []
    after: list[str] = []
    found = False
    for seg in answer.segments:
        if seg.type == "image":
            if seg.image == image and not found:
                found = True
            continue
        (after if found else before).extend(seg.text.split())
    if not found:
        return ""
    return " ".join(before[-window:] + after[:window])
