"""HTML pages and multi-page manuals (DocBook, Sphinx, texinfo): joining pages into documents.

Pages and documents
    Every ``.html``/``.htm``/``.xhtml`` file is a page. A page whose up-link (``<link rel="up">``,
    else an up icon's link, ``ham.ingest.html_nav``; else the last breadcrumb: Sphinx
    ``div.related li.nav-item``, ``ul.wy-breadcrumbs``,
    ``nav[aria-label=breadcrumb]``; else the page whose table of contents lists it first-level)
    names another page present in the corpus is that page's child;
    the root of a manual is the top-most page present (follow up-links until the target is absent).
    A root and its descendants form ONE document (id from the root page's path); children follow
    the order in which the parent links to them (its table of contents; a texinfo menu before any
    other link), then the prev/next chain.

Levels
    A page's top heading sits at the page's depth in that page tree (root page = 1); the other
    headings keep their distance to it from the heading tags (``h2`` page title, ``h3`` sect2 =
    one level deeper). A page whose content does not open with a heading gets a heading from its
    ``<title>``, unless a title page sets a few short lines or a logo above a heading equal to its
    ``<title>`` (Publican's "Debian 11" above the book's ``h1``): that heading goes first. Child
    pages go one level below, and at the end of, the section of the parent page that holds the
    table of contents listing them (a page may have several), else its first table of contents,
    else its first section. Inside admonitions and procedure steps headings are plain text.

How a single page becomes Blocks is in ``html_page`` (what is chrome) and ``html_content`` (what is a unit).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path, PurePosixPath

from ham.document import Document
from ham.ingest.builder import Block, TreeBuilder, doc_id_for, same_title
from ham.ingest.html_page import Page, read_page, without_site_prefix
from ham.ingest.report import IngestReport

SUFFIXES = {".html", ".htm", ".xhtml"}


def claim(files: list[Path]) -> list[Path]:
    return [f for f in files if f.suffix.lower() in SUFFIXES]



def page_parents(pages: dict[str, Page]) -> dict[str, str | None]:
    """Parent of each page: its up-link (or breadcrumb) target when present, else the page whose
    table of contents lists it first-level (Sphinx themes without breadcrumbs), else its parent in
    the site menu (MkDocs, ``html_page.menu_parents``); cycles are cut."""
    listed_by: dict[str, str] = {}
    in_menu: dict[str, str] = {}
    for rel in sorted(pages):
        for child in pages[rel].toc_children:
            listed_by.setdefault(child, rel)
        for child, parent in pages[rel].menu_parents.items():
            if parent in pages:
                in_menu.setdefault(child, parent)
    parents = {rel: (p.up if p.up in pages else listed_by.get(rel) or in_menu.get(rel)) for rel, p in pages.items()}
    for start in sorted(pages):
        trail, cur = [], start
        while cur is not None and cur not in trail:
            trail.append(cur)
            cur = parents[cur]
        if cur is not None:
            parents[min(trail[trail.index(cur):])] = None
    return parents


def reading_sequence(pages: dict[str, Page]) -> dict[str, int]:
    """Position of each page along the prev/next chains."""
    seq: dict[str, int] = {}
    starts = [r for r, p in sorted(pages.items()) if p.prev not in pages]
    for start in starts + sorted(pages):
        cur = start
        while cur in pages and cur not in seq:
            seq[cur] = len(seq)
            cur = pages[cur].next
    return seq


def ordered_children(pages: dict[str, Page]) -> tuple[list[str], dict[str, list[str]]]:
    parents = page_parents(pages)
    seq = reading_sequence(pages)
    children: dict[str, list[str]] = {rel: [] for rel in pages}
    for rel, parent in parents.items():
        if parent is not None:
            children[parent].append(rel)
    for parent, kids in children.items():
        position = {t: i for i, t in enumerate(pages[parent].links)}
        kids.sort(key=lambda k: (position.get(k, len(position)), seq.get(k, 0), k))
    roots = sorted((r for r, p in parents.items() if p is None), key=lambda r: (seq.get(r, 0), r))
    return roots, children


TITLE_PAGE_LINES = 3     # short lines a title page may set above the page's title heading
TITLE_PAGE_CHARS = 80


def title_page_first(page: Page) -> list[Block]:
    """A title page that sets a line or two (or a logo) above its title heading (Publican's
    product and version, "Debian 11", above the book's ``h1``; Xfig's logo above each page's):
    the title heading goes first, so the page's top heading is its title, not a section under a
    copy of it made from ``<title>``."""
    blocks = page.blocks
    at = next((i for i, b in enumerate(blocks[:TITLE_PAGE_LINES + 1]) if b.kind == "heading"), None)
    if not at or not same_title(blocks[at].text, page.title) \
            or blocks[at].level != min(b.level for b in blocks if b.kind == "heading") \
            or any(not (b.kind == "image" or (b.kind == "text" and len(b.text) <= TITLE_PAGE_CHARS))
                   for b in blocks[:at]):
        return blocks
    return [blocks[at], *blocks[:at], *blocks[at + 1:]]


def placed_blocks(page: Page, depth: int, kids: list[str] = (),
                  site: str = "") -> tuple[list[Block], list[tuple[int, int, list[str]]]]:
    """The page's blocks with heading levels moved so its top heading sits at ``depth``; also
    where its child pages ``kids`` go and at which depth, as (index, depth, pages) in block order:
    a child at the end of the section holding the table of contents that lists it (a Sphinx
    index page's "User Guide", "API" and "Community" toctrees each hold their own), else the
    page's first table of contents, else its first section; one level below that section.
    ``site``: the manual's title, left out of a ``<title>`` that names a page after it."""
    levels = [b.level for b in page.blocks if b.kind == "heading"]
    shift = depth - min(levels) if levels else depth
    blocks: list[Block] = []
    page_blocks = title_page_first(page)
    moved = page.blocks.index(page_blocks[0]) if page_blocks is not page.blocks else None
    synthetic = not page_blocks or page_blocks[0].kind != "heading"

    def at(position: int | None) -> int | None:   # a position in the page's blocks -> in ``blocks``
        if position is None:
            return None
        if moved is not None and position <= moved:
            position += 1     # the lines above the title moved one place down
        return position + 1 if synthetic else position

    if synthetic:
        title = without_site_prefix(page.title, site) or PurePosixPath(page.rel).stem
        blocks.append(Block(kind="heading", text=title, level=depth, source=page.rel))
        shift += 1
    blocks += [replace(b, level=b.level + shift) if b.kind in ("heading", "end_section") else b for b in page_blocks]
    heads = [i for i, b in enumerate(blocks) if b.kind == "heading"]

    def place(toc_at: int | None) -> tuple[int, int]:
        owner = max((i for i in heads if i < toc_at), default=heads[0]) if toc_at is not None else heads[0]
        level = blocks[owner].level
        return next((i for i in heads if i > owner and blocks[i].level <= level), len(blocks)), level + 1

    groups: dict[tuple[int, int], list[str]] = {}
    for kid in kids:
        groups.setdefault(place(at(page.toc_places.get(kid, page.toc_at))), []).append(kid)
    return blocks, [(index, level, names) for (index, level), names in sorted(groups.items())]


def site_document(root_rel: str, pages: dict[str, Page], children: dict[str, list[str]]) -> Document:
    root_page = pages[root_rel]
    first_heading = next((b.text for b in root_page.blocks if b.kind == "heading"), "")
    title = root_page.title or first_heading or PurePosixPath(root_rel).stem
    builder = TreeBuilder(doc_id_for(root_rel), title, root_rel, "html")

    def add_page(rel: str, depth: int) -> None:
        blocks, groups = placed_blocks(pages[rel], depth, children[rel], "" if rel == root_rel else title)
        if blocks:   # a link to the page itself lands on its first block (ham.ingest.html_links)
            first = blocks[0]
            blocks[0] = replace(first, meta={**first.meta, "anchors": [rel, *first.meta.get("anchors", ())]})
        start = 0
        for index, child_depth, kids in groups:
            for block in blocks[start:index]:
                builder.add(block)
            for kid in kids:
                add_page(kid, child_depth)
            start = index
        for block in blocks[start:]:
            builder.add(block)

    add_page(root_rel, 1)
    return builder.finish()


def parse(files: list[Path], root: Path, report: IngestReport) -> list[Document]:
    pages: dict[str, Page] = {}
    for path in files:
        try:
            page = read_page(path, root, report)
        except ValueError as exc:   # odd input a library refuses (a URL, a charset): this page only
            report.add(path, f"cannot be read ({exc.__class__.__name__}: {str(exc)[:200]})", "document")
            continue
        if page is not None:
            pages[page.rel] = page
    roots, children = ordered_children(pages)
    return [site_document(r, pages, children) for r in roots]
