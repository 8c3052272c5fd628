"""Doxygen's HTML (``<meta name="generator" content="Doxygen …">``): the pages a project writes as
a manual with ``\\page`` (FLTK's Programming Manual) and its API pages.

Chrome: the title area (``div#titlearea``: the project's name and logo on every page), the side
tree and the path bar (``div#side-nav``, ``div#nav-path``, ``div.navpath``), the search box and its
windows, the footer (``address.footer``, ``hr.footer``), and the tooltips hidden after each code
listing (``div.ttc``: a symbol's declaration and "Definition: file:line", shown on hover; they
had read as text after every listing). A page's title is ``div.headertitle > div.title``, not a
heading: it is taken as the page's title and heads its content one level above the page's own
``h1`` sections. Code listings (``div.fragment``, a ``div.line`` per line) are one text block,
read by ``ham.ingest.html_content``. Pages are not joined by the navigation tree Doxygen writes
in JavaScript (``navtreedata.js``): a manual's pages stay documents of their own unless up-links
or a table of contents join them.
"""
from __future__ import annotations

from dataclasses import replace

from selectolax.lexbor import LexborHTMLParser

from ham.ingest.blocks import Block
from ham.ingest.html_text import normalise

DOXYGEN_CHROME = ("div#titlearea, div#side-nav, div#nav-path, div.navpath, div#MSearchBox, "
                  "div#MSearchSelectWindow, div#MSearchResultsWindow, address.footer, hr.footer, div.ttc")


def is_doxygen(made_by: str) -> bool:
    return made_by.startswith("doxygen")


def take_title(tree: LexborHTMLParser) -> str:
    """The page's title (``div.headertitle div.title``), removed from the page ("" when none)."""
    title = tree.css_first("div.headertitle div.title")
    if title is None:
        return ""
    text = normalise(title.text(separator=" "))
    header = tree.css_first("div.header")
    (header if header is not None and header.css_first("div.headertitle") is not None else title).decompose()
    return text


def titled(blocks: list[Block], title: str, rel: str) -> list[Block]:
    """``blocks`` under a heading ``title`` one level above their own headings."""
    if not title:
        return blocks
    moved = [replace(b, level=b.level + 1) if b.kind in ("heading", "end_section") and b.level else b
             for b in blocks]
    return [Block(kind="heading", text=title, level=1, source=rel), *moved]
