"""mdBook (the Rust project's books and many others; every page says ``<!-- Book generated using
mdBook -->``).

mdBook writes no ``<link rel>`` and no breadcrumbs: the book's hierarchy is its sidebar
(``ol.chapter``: each chapter's ``li.chapter-item``, its sections in an ``ol.section`` in the ``li``
that follows it, or in newer releases inside the chapter's own ``li``). Read as ham reads a site
menu, each page it lists gets its parent from it, top-level chapters the book's ``index.html``, and
the pages keep the sidebar's order. Up to mdBook 0.4.40 the list sits in every page
(``nav#sidebar``). From 0.4.41 on it is in a script beside the book's pages (``toc.js``, hashed
``toc-<hash>.js``), which fills the page's empty ``mdbook-sidebar-scrollbox`` at run time (its
hrefs relative to the book's folder), and in ``toc.html``, the frame shown without JavaScript; the
page names both. The script's string literal is read, never run. Newer releases (the Rust 1.95
toolchain's books) also prefix the ids: ``nav#mdbook-sidebar``, ``div#mdbook-menu-bar``.

Three pages are not content of their own: ``index.html`` is a copy of the first chapter (not itself
a sidebar entry, and no entry is marked active on it), so it is the book's root with the book's
title (``h1.menu-title``) and no text; ``print.html`` is the whole book on one page again, and
``toc.html`` the sidebar again: neither is read. The menu bar (the title and the theme, search and
print buttons), the keyboard help popup and the lines of code examples the book hides
(``span.boring``: rustdoc's ``# `` lines, not shown to a reader) are chrome.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Callable
from urllib.parse import unquote

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ham.ingest.html_text import classes, normalise
from ham.ingest.urls import parse_url

MDBOOK_CHROME = "div#menu-bar, div#mdbook-menu-bar, div#mdbook-help-container, span.boring"
_SIDEBAR = ("nav#sidebar", "nav#mdbook-sidebar")
_MARK = "<!-- Book generated using mdBook"
_FRAME_MARK = "<!-- sidebar iframe generated using mdBook"
# `this.innerHTML = '<ol class="chapter">…'`: a JS string literal, quoted either way, escapes kept
_INNER_HTML = re.compile(r"""\.innerHTML\s*=\s*(?:'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)")""", re.S)
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|.)", re.S)
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0",
            "\n": "", "\r": "", "\r\n": "", "\u2028": "", "\u2029": ""}   # a backslash at a line's end continues it

Target = Callable[[str | None, Path, Path], str | None]   # (href, the file it is in, corpus root)


def is_mdbook(text: str) -> bool:
    return _MARK in text[:4096]


def is_sidebar_frame(text: str) -> bool:
    """``toc.html``: the sidebar alone, for readers without JavaScript (mdBook 0.4.41 on)."""
    return _FRAME_MARK in text[:4096]


def book_title(tree: LexborHTMLParser) -> str:
    title = tree.css_first("h1.menu-title")
    return normalise(title.text()) if title is not None else ""


def is_home_copy(tree: LexborHTMLParser, rel: str, home: str | None, order: list[str]) -> bool:
    """``index.html``: the first chapter again, not a sidebar entry itself, none active on it."""
    return rel == home and home not in order and tree.css_first(
        ", ".join(f"{nav} a.active" for nav in _SIDEBAR)) is None


def js_string(body: str) -> str:
    """The value of a JS string literal's body (quotes taken off)."""
    def one(m: re.Match) -> str:
        escape = m.group(1)
        if len(escape) > 1 and escape[0] in "ux":
            code = int(escape.strip("ux{}"), 16)
            return chr(code) if code <= 0x10FFFF else "\ufffd"
        return _ESCAPED.get(escape, escape)
    # a pair of \uXXXX surrogates is one character
    return _ESCAPE.sub(one, body).encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _script_chapters(text: str) -> LexborNode | None:
    for m in _INNER_HTML.finditer(text):
        body = m.group(1) if m.group(1) is not None else m.group(2)
        top = LexborHTMLParser(js_string(body)).css_first("ol.chapter")
        if top is not None:
            return top
    return None


def _beside(page: Path, src: str | None) -> Path | None:
    parsed = parse_url((src or "").strip())
    if parsed.scheme or parsed.netloc or not parsed.path:
        return None
    return page.parent / unquote(parsed.path)


def _toc_files(tree: LexborHTMLParser, page: Path) -> list[Path]:
    """The script that fills the page's sidebar (``toc-<hash>.js``), then the sidebar's frame."""
    scripts = [_beside(page, s.attributes.get("src")) for s in tree.css("script[src]")]
    frames = [_beside(page, f.attributes.get("src")) for f in tree.css(", ".join(f"{n} iframe" for n in _SIDEBAR))]
    return [p for p in scripts if p is not None and p.name.startswith("toc") and p.suffix == ".js"] \
        + [p for p in frames if p is not None]


def _own_link(li: LexborNode) -> LexborNode | None:
    """The entry's link, not one of its sections' (newer releases nest them in the same ``li``)."""
    for child in li.iter():
        if child.tag == "ol":
            continue
        if child.tag == "a" and "href" in child.attributes:
            return child
        link = child.css_first("a[href]")
        if link is not None:
            return link
    return None


def sidebar_parents(tree: LexborHTMLParser, page: Path, root: Path, target: Target
                    ) -> tuple[dict[str, str], list[str], str | None]:
    """(page -> parent, pages in sidebar order, the book's home page) from the sidebar; ``target``
    resolves an href, relative to the file it is read from, to a page of the corpus."""
    for nav in _SIDEBAR:
        top = tree.css_first(f"{nav} ol.chapter")
        if top is not None:
            return _listed(top, page, root, target, beside=False)
    for source in _toc_files(tree, page):
        try:
            text = source.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found = _toc_listed(source, text, root, target)
        if found is not None:
            parents, order, home = found
            return dict(parents), list(order), home
    return {}, [], None


@lru_cache(maxsize=4)
def _toc_listed(source: Path, text: str, root: Path, target: Target
                ) -> tuple[dict[str, str], list[str], str | None] | None:
    """The list every page of the book names, read once (by its text, so never a stale copy): each
    page resolving its 800 entries again had made the Unstable Book's ingest 30 times slower."""
    top = _script_chapters(text) if source.suffix == ".js" else LexborHTMLParser(text).css_first("ol.chapter")
    return _listed(top, source, root, target, beside=True) if top is not None else None


def _listed(top: LexborNode, base: Path, root: Path, target: Target, beside: bool
            ) -> tuple[dict[str, str], list[str], str | None]:
    parents: dict[str, str] = {}
    order: list[str] = []

    def walk(ol, parent: str | None) -> None:
        last = parent
        for li in (c for c in ol.iter() if c.tag == "li"):
            nested = next((c for c in li.iter() if c.tag == "ol"), None)
            if nested is not None and "chapter-item" not in classes(li):
                walk(nested, last)           # the sections of the chapter listed before
                continue
            link = _own_link(li)
            entry = target(link.attributes.get("href"), base, root) if link is not None else None
            if entry is None:                # a part title or a draft chapter (no page)
                if nested is not None:
                    walk(nested, parent)
                continue
            order.append(entry)
            if parent is not None:
                parents.setdefault(entry, parent)
            last = entry
            if nested is not None:
                walk(nested, entry)

    walk(top, None)
    if beside:      # the list beside the pages sits in the book's folder
        home = target("index.html", base, root)
    else:
        home = str(PurePosixPath(order[0]).parent / "index.html").removeprefix("./") if order else None
    for entry in order:
        if entry not in parents and entry != home and home is not None:
            parents[entry] = home
    return parents, order, home
