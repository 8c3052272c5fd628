"""Two decisions every reader makes the same way, from the evidence a source gives.

Icons
    An image is an inline icon when it sits inside running text (text before or after it on the
    same line of its paragraph, list item or cell) and is small (at most ``ICON_PX`` pixels on its
    longer side), looks like a toolbar icon (under an ``icons/`` folder, or named ``*_16.png``,
    ``*_24.png``, ...; unless it is over ``4 * ICON_PX`` pixels) or cannot be read to tell; or,
    alone in a table cell, when it is small or looks like an icon (and is not large); or, alone in
    its paragraph, when it is both small and named like an icon. A screenshot placed in a sentence
    stays an image. An icon stays in the text as its alt text in brackets (``[add
    component]``), does not become an image unit, and is counted in the ingest report. The name
    alone is a weak signal: a large image under ``icons/``, alone in its paragraph, is an image.

Procedures
    An ordered list is a procedure (one step node per item) when the evidence says so: the source
    marks it (DocBook ``div.procedure``), the text before it leads in ("follow these steps", "To
    export a file:", "Proceed as follows:", "操作步骤"), or most of its items open with an
    imperative verb ("Click", "Select", "Open", ...) and are not one-word labels. A UI legend, a
    list of rules or of definitions stays one text block of numbered lines, whatever its markup.
"""
from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from ham.images import pixel_size
from ham.ingest.urls import parse_url

ICON_PX = 48
_ICON_NAME = re.compile(r"(?:^|[_-])(?:16|20|22|24|32)(?:x(?:16|20|22|24|32))?$|^icon[_-]|[_-]icon$", re.I)

IMPERATIVES = set("""
accept access activate add adjust align allow apply arrange assign attach back browse build calculate
call cancel change check choose clear click close collapse compile complete configure confirm connect
copy create cut decide define delete deselect detach disable disconnect display double-click download
drag draw drop edit email empty enable enter erase execute exit expand export extend fill find finish
fix follow format generate go grant hide highlight hit hold hover import increase insert install
launch leave let load locate log login look make mark measure merge modify mount move name navigate
note open paste pick place plot plug point position press preview print proceed provide pull push
put quit read reboot record redo refresh release reload remove rename reopen repeat replace reset
resize restart restore retry return right-click rotate route run save scroll search select send set
setup share shift show shut sign snap sort specify split start stop submit swap switch tap tick
toggle turn type uncheck undo uninstall unlock unplug update upgrade upload use verify view visit
wait wire write zoom ensure perform issue take retrieve register keep avoid try consider omit
initialize initialise reindex vacuum analyze dump grant revoke alter drop insert commit rollback
recompile reinstall uncomment comment configure archive mount wrap prepare determine identify
""".split())
_LEAD_IN = re.compile(
    r"(follow(?:ing)? (?:these|the|this) (?:steps|procedure|instructions)|(?:the )?following steps|"
    r"steps? (?:are|is) (?:as follows|required|needed)|as follows\s*:|proceed as follows|do the following|"
    r"perform the following|procedure\s*:|steps?\s*:|^to\s+[a-z].{0,120}:\s*$|"
    r"操作步骤|步骤如下|按以下步骤|如下操作|手順)", re.I)
_LEADING = re.compile(r"^(?:(?:first|then|next|finally|now|optionally|again)[,]?\s+|(?:in|on|from|under)\s+the\s+[^,]{1,60},\s*|"
                      r"if [^,]{1,80},\s*|when [^,]{1,80},\s*)", re.I)


def icon_name(ref: str) -> bool:
    """The reference looks like a toolbar icon: under an ``icons/`` folder or named ``*_24.png``."""
    path = PurePosixPath(parse_url(ref).path)
    return "icons" in (p.lower() for p in path.parts[:-1]) or bool(_ICON_NAME.search(path.stem))


def is_inline_icon(ref: str, file: Path | None, in_text: bool, in_cell: bool = False) -> bool:
    """Rule: module docstring. ``file`` is the resolved image file (None when unusable)."""
    size = pixel_size(file)
    small = size is not None and max(size) <= ICON_PX
    large = size is not None and max(size) > 4 * ICON_PX
    named = icon_name(ref)
    if in_text:
        return small or (named and not large) or size is None
    if in_cell:
        return (small or named) and not large
    return small and named


def icon_text(alt: str, ref: str) -> str:
    """What an inline icon leaves in the text: its alt text (else its file name) in brackets."""
    label = " ".join((alt or "").split())
    if not label:
        label = re.sub(r"[_-]+", " ", _ICON_NAME.sub("", PurePosixPath(parse_url(ref).path).stem)).strip()
    return f"[{label}]" if label else ""


def _first_word(item: str) -> str:
    text = _LEADING.sub("", " ".join(item.split()))
    m = re.match(r"[A-Za-z][A-Za-z-]*", text)
    return m.group(0).lower() if m else ""


def is_procedure(items: list[str], lead_in: str = "", marked: bool = False) -> tuple[bool, str]:
    """(steps or not, why). ``items``: the plain text of each list item; ``lead_in``: the text
    just before the list; ``marked``: the source says it is a procedure."""
    if marked:
        return True, "the source marks it as a procedure"
    if len(items) < 2:
        return False, "a single item"
    lead = " ".join(lead_in.split())[-200:]
    if lead and _LEAD_IN.search(lead):
        return True, f"lead-in {lead[-60:]!r}"
    words = [_first_word(i) for i in items]
    imperative = sum(1 for w in words if w in IMPERATIVES)
    labels = sum(1 for i in items if len(i.split()) <= 1)
    if imperative >= max(2, 0.6 * len(items)) and labels < 0.5 * len(items):
        return True, f"{imperative} of {len(items)} items open with an imperative verb"
    return False, f"no lead-in and {imperative} of {len(items)} items imperative"
