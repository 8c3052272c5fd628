"""Halibut's HTML (Simon Tatham's documentation tool: the PuTTY manual). It writes no generator
meta; a page is known by its navigation bar, the body's first paragraph "Previous | Contents |
Index | Next" (the current page's own word unlinked: on the index page "Index" is plain text).

The bar is chrome (the page's prev/next/up links are its ``<link rel>``s). The list of links to
sections at the body's level (the contents on the top page, a chapter's own sections above its
``h1``) is a table of contents: read as content it had put 160 contents lines on the PuTTY
manual's top page, and on each chapter page, opening with that list instead of a heading, a
section titled from ``<title>`` ("Introduction to PuTTY") above the chapter's own ``h1``
("Chapter 1: Introduction to PuTTY"), one level too deep for every section below.
"""
from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ham.ingest.html_text import normalise

_BAR_WORDS = {"previous", "contents", "index", "next", "up"}


def _bar_words(node: LexborNode) -> list[str] | None:
    words = [normalise(w).casefold() for w in (node.text() or "").split("|")]
    return words if len(words) >= 3 and set(words) <= _BAR_WORDS and {"previous", "next"} <= set(words) else None


def _body_children(tree: LexborHTMLParser) -> list[LexborNode]:
    body = tree.body
    return [n for n in body.iter()] if body is not None else []


def is_halibut(tree: LexborHTMLParser) -> bool:
    first = next(iter(_body_children(tree)), None)
    return first is not None and first.tag == "p" and _bar_words(first) is not None


def take_halibut_chrome(tree: LexborHTMLParser) -> tuple[bool, int, list[LexborNode]]:
    """Removes the navigation bars and finds the body-level lists of links, the tables of contents
    (the content walker skips them and notes where they sat); returns (whether this
    is the index page, bars removed, the contents lists)."""
    index_page, bars, tocs = False, 0, []
    for node in _body_children(tree):
        words = _bar_words(node) if node.tag == "p" else None
        if words is not None:
            linked = {normalise(a.text()).casefold() for a in node.css("a[href]")}
            index_page = index_page or ("index" in words and "index" not in linked)
            node.decompose()
            bars += 1
        elif node.tag == "ul" and _only_links(node):
            tocs.append(node)
    return index_page, bars, tocs


def _only_links(ul: LexborNode) -> bool:
    """Every item opens with a link and the list has no text outside its links."""
    items = ul.css("li")
    if not items or any(item.css_first("a[href]") is None for item in items):
        return False
    linked = "".join(normalise(a.text()) for a in ul.css("a[href]"))
    return normalise(ul.text()).replace(" ", "") == linked.replace(" ", "")
