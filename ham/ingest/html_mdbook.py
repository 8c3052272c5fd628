"""mdBook (the Rust project's books and many others; every page says ``<!-- Book generated using
mdBook -->``).

mdBook writes no ``<link rel>`` and no breadcrumbs: the book's hierarchy is its sidebar
(``nav#sidebar ol.chapter``: each chapter's ``li.chapter-item``, its sections in an ``ol.section``
in the ``li`` that follows it), repeated on every page. Read as ham reads a site menu, each page it
lists gets its parent from it, top-level chapters the book's ``index.html``, and the pages keep the
sidebar's order. Two pages are not content of their own: ``index.html`` is a copy of the first
chapter (no sidebar entry is marked active on it), so it is the book's root with the book's title
(``h1.menu-title``) and no text; ``print.html`` is the whole book on one page again, and is not
read. The menu bar (``div#menu-bar``: the title and the theme, search and print buttons) is chrome,
and so are the lines of code examples the book hides (``span.boring``: rustdoc's ``# `` lines, not
shown to a reader).
"""
from __future__ import annotations

from pathlib import PurePosixPath
from typing import Callable

from selectolax.lexbor import LexborHTMLParser

from ham.ingest.html_text import classes, normalise

MDBOOK_CHROME = "div#menu-bar, span.boring"
_MARK = "<!-- Book generated using mdBook"


def is_mdbook(text: str) -> bool:
    return _MARK in text[:4096]


def book_title(tree: LexborHTMLParser) -> str:
    title = tree.css_first("h1.menu-title")
    return normalise(title.text()) if title is not None else ""


def is_home_copy(tree: LexborHTMLParser) -> bool:
    """``index.html``: the first chapter again, with no sidebar entry active."""
    return tree.css_first("nav#sidebar ol.chapter") is not None and tree.css_first("nav#sidebar a.active") is None


def sidebar_parents(tree: LexborHTMLParser, target: Callable[[str | None], str | None]
                    ) -> tuple[dict[str, str], list[str], str | None]:
    """(page -> parent, pages in sidebar order, the book's home page) from the sidebar; ``target``
    resolves an href to a page of the corpus."""
    top = tree.css_first("nav#sidebar ol.chapter")
    if top is None:
        return {}, [], None
    parents: dict[str, str] = {}
    order: list[str] = []

    def walk(ol, parent: str | None) -> None:
        last = parent
        for li in (c for c in ol.iter() if c.tag == "li"):
            nested = next((c for c in li.iter() if c.tag == "ol"), None)
            if nested is not None and "chapter-item" not in classes(li):
                walk(nested, last)           # the sections of the chapter listed before
                continue
            link = li.css_first("a[href]")
            page = target(link.attributes.get("href")) if link is not None else None
            if page is None:
                continue                     # a part title or a draft chapter (no page)
            order.append(page)
            if parent is not None:
                parents.setdefault(page, parent)
            last = page
            if nested is not None:
                walk(nested, page)

    walk(top, None)
    home = str(PurePosixPath(order[0]).parent / "index.html") if order else None
    home = home.removeprefix("./") if home else None
    for page in order:
        if page not in parents and page != home and home is not None:
            parents[page] = home
    return parents, order, home
