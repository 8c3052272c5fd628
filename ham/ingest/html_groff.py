"""groff's HTML (``groff -Thtml``; ``<meta name="generator" content="groff -Thtml, ...">``): man
pages and ``-ms`` documents split into pages (the pic manual).

A split document's pages say where they sit only by a text bar between rules, "[ prev | next |
top ]": its links are the page's previous, next and up pages, and the bar is chrome. A man page
opens with a list of links to its own sections ("NAME", "SYNOPSIS", ... separated by ``<br>``):
a table of contents, not a paragraph of section names. A ``<title>`` that is only the file's name
("pic-3.html") names nothing (``ham.ingest.html_page``).
"""
from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from ham.ingest.html_text import normalise

_BAR_WORDS = {"prev": "prev", "previous": "prev", "next": "next", "top": "up", "up": "up"}


def is_groff(made_by: str) -> bool:
    return made_by.startswith("groff")


def take_bar_links(tree: LexborHTMLParser) -> tuple[dict[str, str | None], int]:
    """({"prev"|"next"|"up": href}, links removed) for the "[ prev | next | top ]" bars: links of
    the body's own (not inside a paragraph) named prev, next or top, with the brackets and bars
    around them."""
    body = tree.body
    if body is None:
        return {}, 0
    anchors = [a for a in body.iter() if a.tag == "a" and normalise(a.text()).lower() in _BAR_WORDS]
    links: dict[str, str | None] = {}
    for a in anchors:
        links.setdefault(_BAR_WORDS[normalise(a.text()).lower()], a.attributes.get("href"))
        a.decompose()
    if anchors:
        for node in list(body.iter(include_text=True)):
            if node.tag == "-text" and set((node.text_content or "").strip()) <= set("[]| "):
                node.decompose()
    return links, len(anchors)


def remove_section_links(tree: LexborHTMLParser) -> int:
    """A man page's opening list of links to its own sections (direct children of the body); the
    count of links removed."""
    body = tree.body
    if body is None:
        return 0
    links = [a for a in body.iter() if a.tag == "a" and (a.attributes.get("href") or "").startswith("#")]
    for a in links:
        a.decompose()
    for br in [n for n in body.iter() if n.tag == "br"]:
        br.decompose()
    return len(links)
