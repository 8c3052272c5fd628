"""Navigation panels drawn with icons (LaTeX2HTML, Hyperlatex, hand-made manuals): the up, previous
and next links of a page that has no ``<link rel>`` for them, and the panels themselves as chrome.

An icon link is a link whose only content is an image named for its role (``next.png``,
``up.gif``, ``previous_motif.gif``; LaTeX2HTML's greyed ``next_g.png`` has no link): the first
``up``, ``prev`` and ``next`` such links give the page's place in the manual, so its pages join into
one tree as ``<link rel="up">`` would make them. The panel is removed: a table whose every link is
an icon link (Hyperlatex's bar, with the page's title in its last cell), and whatever LaTeX2HTML
writes between its ``<!--Navigation Panel-->`` and ``<!--End of Navigation Panel-->`` comments (the
icons and the "Next: Up: Previous:" line); each counted as "navigation panel".
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ham.ingest.urls import parse_url

_ICON = re.compile(r"^(next|up|prev|previous|contents|index|home|top)(_motif|_g|_gr)?$")
_PANEL_START = re.compile(r"^\s*navigation panel\s*$", re.I)
_PANEL_END = re.compile(r"^\s*end of navigation panel\s*$", re.I)


def icon_role(img: LexborNode) -> str | None:
    """``up``, ``prev``, ``next``, ``contents``, ... for a navigation icon, by its file name."""
    stem = PurePosixPath(parse_url((img.attributes.get("src") or "").strip()).path).stem.lower()
    found = _ICON.match(stem)
    if not found:
        return None
    return "prev" if found.group(1) == "previous" else found.group(1)


def _icon_link(a: LexborNode) -> str | None:
    imgs = a.css("img")
    if len(imgs) != 1 or a.text(strip=True):
        return None
    return icon_role(imgs[0])


def icon_navigation(tree: LexborHTMLParser, target_of) -> tuple[dict[str, str], int]:
    """(rel -> target page of the icon links, panels removed); ``target_of(href)`` is the page a
    link names (None outside the corpus)."""
    links: dict[str, str] = {}
    for a in tree.css("a[href]"):
        role = _icon_link(a)
        target = target_of(a.attributes.get("href")) if role in ("up", "prev", "next") else None
        if target:
            links.setdefault(role, target)
    if not links:
        return {}, 0
    removed = 0
    for table in tree.css("table"):
        anchors = table.css("a[href]")
        if anchors and all(_icon_link(a) for a in anchors) and len(table.css("table")) == 1:   # itself, no inner one
            table.decompose()
            removed += 1
    for start in [n for n in tree.root.traverse(include_text=False) if _is_comment(n, _PANEL_START)]:
        doomed = _panel(start)
        for n in doomed:
            n.decompose()
        removed += bool(doomed)
    return links, removed


def _panel(start: LexborNode) -> list[LexborNode]:
    """The nodes from a ``Navigation Panel`` comment to its end marker: its following siblings up
    to the marker, or its whole parent when the marker follows the parent (LaTeX2HTML 2019 and
    later wrap the panel in ``div.navigation`` and close the div before the marker); nothing when
    there is no marker."""
    doomed, node = [], start.next
    while node is not None and not _is_comment(node, _PANEL_END):
        doomed.append(node)
        node = node.next
    if node is not None:
        return doomed
    parent = start.parent
    after = parent.next if parent is not None and parent.tag not in ("body", "html") else None
    while after is not None and after.tag == "-text" and not (after.text_content or "").strip():
        after = after.next
    return [parent] if after is not None and _is_comment(after, _PANEL_END) else []


def _is_comment(node: LexborNode, pattern: re.Pattern) -> bool:
    return node.tag == "-comment" and bool(pattern.match((node.html or "").removeprefix("<!--").removesuffix("-->")))

