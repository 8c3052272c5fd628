"""Reading one HTML page (selectolax lexbor): its links, place among the pages, and what is chrome
(removed before the content is read); its bytes become text in ``ham.ingest.html_decode``.

Chrome (never content)
    ``head``, scripts and styles, DocBook ``div.navheader``/``div.navfooter``, tables of contents
    (``div.toc``, ``dl.toc``, ``div.list-of-*``, Sphinx ``div.toctree-wrapper``, docutils
    ``div.contents.topic``), Sphinx ``div.related``/``div.sphinxsidebar``/``div.footer``, ``nav``,
    ``footer``, ``[role=navigation]``, breadcrumbs, a site ``header`` (one outside
    article/main/section), ``a.headerlink`` (the pilcrow), forms without content (search boxes)
    and buttons standing alone (``html_text.unwrap_forms``: a form holding the page's content is
    unwrapped, a button's label stays in its sentence), AsciiDoc's and Asciidoctor's ``div#footer``
    ("Last updated ..."), Publican's ``ul.docnav`` (and, on pages whose generator is Publican, its
    ``div#banner`` and logo line ``p#title``), Bootstrap themes' (MkDocs) ``div.navbar``,
    ``div.bs-sidebar`` and ``div.modal`` (the search and keyboard dialogs), the Sphinx themes'
    previous/next links, "On this page" and "Edit this page" boxes (pydata and sphinx-book:
    ``div.prev-next-area``, ``div.tocsection``, ``div.bd-toc``; furo: ``div.related-pages``,
    ``div.edit-this-page``, ``div.toc-drawer``),
    on MediaWiki pages (an exported wiki) its "From ... Wiki" and "Retrieved from" lines,
    category links, edit links, the hidden MathML beside a formula's image, and the "[*]" file
    links in thumbnail boxes,
    Sphinx's generated index and
    search pages (the targets of ``<link rel="index|search">``, ``genindex*.html``, and any page
    holding Sphinx's ``table.indextable``: the module index ``py-modindex.html`` too) and its
    highlighted source copies (``_modules/``, from the viewcode extension) and the HTML files among
    its static files (``_static/``: Scrapy's sample page for its selector examples), and so are the
    "[source]" links to them beside API signatures (``span.viewcode-link``); an error page (``404.html``,
    as Sphinx and MkDocs themes ship) is not read, and counted as excluded; icons are skipped by
    ``ham.ingest.html_content``. A redirect page (``<meta http-equiv="refresh">`` with a URL) is
    not read at all, and counted as excluded.

Texinfo pages (makeinfo/texi2any): ``ham.ingest.html_texinfo``; Halibut pages: ``ham.ingest.html_halibut``.

Page content (paragraphs, steps, tables, figures) is read by ``ham.ingest.html_content``; a page's
credits (copyright, contributors, feedback, permission notices) are left out and counted by
``ham.ingest.structure.remove_front_matter``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ham.ingest.builder import Block, same_title
from ham.ingest.html_content import ContentWalker
from ham.ingest.html_decode import decode_page, xhtml_as_html
from ham.ingest.html_doxygen import DOXYGEN_CHROME, is_doxygen, take_title, titled
from ham.ingest.html_groff import is_groff, remove_section_links, take_bar_links
from ham.ingest.html_halibut import is_halibut, take_halibut_chrome
from ham.ingest.html_mdbook import (MDBOOK_CHROME, book_title, is_home_copy, is_mdbook, is_sidebar_frame,
                                   sidebar_parents)
from ham.ingest.html_nav import icon_navigation
from ham.ingest.html_text import (TOC_CHROME, classes, flatten, label_tab_panels, normalise, remove_chrome,
                                  unwrap_forms)
from ham.ingest.html_texinfo import (TEXI2HTML, TEXINFO_ENTRIES, TEXINFO_TOCS, is_texinfo, printed_indexes,
                                     nest_unnumbered_headings, remove_texi2html_chrome, remove_texinfo_chrome,
                                     texinfo_title)
from ham.ingest.report import IngestReport
from ham.ingest.structure import remove_front_matter
from ham.ingest.urls import parse_url


_NAV_CHROME = ("div.navheader, div.navfooter, div.related, div.sphinxsidebar, div.footer, nav, footer, "
               "[role=navigation], ul.wy-breadcrumbs, div.rst-footer-buttons, #searchbox, "
               "div.searchbox, div#footer, ul.docnav, div.navbar, div.bs-sidebar, "
               "div.modal, body > address, span.viewcode-link, div.prev-next-area, div.prev-next-footer, "
               "div.tocsection, div.bd-toc, div.related-pages, div.edit-this-page, div.toc-drawer")
_PUBLICAN_CHROME = "div#banner, p#title"   # the site banner and the two logo links atop every page
# MediaWiki's page chrome, the hidden MathML beside each formula's image (its alt holds the TeX),
# and the "[*]" file links an HTML export leaves in thumbnail boxes
_MEDIAWIKI_CHROME = ("#siteSub, #contentSub, #jump-to-nav, .mw-jump-link, .printfooter, #catlinks, .mw-editsection, "
                     ".mwe-math-mathml-inline, .mwe-math-mathml-display, div.thumbinner a.external, div.magnify")
_TOC_ENTRIES = "div.toctree-wrapper li.toctree-l1 > a, dl.toc > dt a"  # a TOC's first-level links
# Sphinx's general and module indexes (genindex.html, py-modindex.html), whatever links to them
_SPHINX_INDEX = "table.indextable, table.modindextable, table.genindextable"


def link_target(href: str | None, page: Path, root: Path) -> str | None:
    """A local link's target page, relative to the corpus root; None for remote/outside links."""
    if href is None:
        return None
    parsed = parse_url(href.strip())
    if parsed.scheme or parsed.netloc:
        return None
    # "" and "#anchor" name the page itself
    target = (page.parent / PurePosixPath(unquote(parsed.path))).resolve() if parsed.path else page.resolve()
    try:
        return target.relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def remove_site_headers(tree: LexborHTMLParser) -> int:
    """A ``header`` outside article/main/section is the site's banner (or pandoc's title block:
    the title ``<title>`` holds too, the author and date), not content; returns how many."""
    removed = 0
    for node in tree.css("header"):
        parent, inside = node.parent, False
        while parent is not None:
            if parent.tag in ("article", "main", "section"):
                inside = True
                break
            parent = parent.parent
        if not inside:
            node.decompose()
            removed += 1
    return removed


def breadcrumb_parent(tree: LexborHTMLParser, page: Path, root: Path, rel: str) -> str | None:
    """Sphinx/RTD breadcrumbs: the last crumb that links to another page is the parent."""
    crumbs = tree.css("div.related li.nav-item a, ul.wy-breadcrumbs li:not(.wy-breadcrumbs-aside) a, "
                      "nav[aria-label=breadcrumb] a, ol.breadcrumb a")
    targets = [link_target(a.attributes.get("href"), page, root) for a in crumbs]
    targets = [t for t in targets if t and t != rel]
    return targets[-1] if targets else None


def generator(tree: LexborHTMLParser) -> str:
    """The page's ``<meta name="generator">``, lower-cased ("" when none)."""
    for meta in tree.css("meta[name]"):
        if (meta.attributes.get("name") or "").lower() == "generator":
            return (meta.attributes.get("content") or "").strip().lower()
    return ""


@dataclass
class Page:
    path: Path
    rel: str
    title: str
    up: str | None
    prev: str | None
    next: str | None
    links: list[str] = field(default_factory=list)
    toc_children: list[str] = field(default_factory=list)  # first-level entries of its TOCs
    blocks: list[Block] = field(default_factory=list)
    toc_at: int | None = None  # index in blocks where the page's table of contents sat
    menu_parents: dict[str, str] = field(default_factory=dict)   # the site menu's page -> parent
    toc_places: dict[str, int] = field(default_factory=dict)   # page -> where the TOC listing it sat


def surviving(before: list[Block], after: list[Block]) -> list[int]:
    """For each position in ``before`` (and its end), where it lies in ``after``, a copy with
    blocks removed (credits, permission notices): at the first block from there on that was kept."""
    kept = {id(b): i for i, b in enumerate(after)}
    positions = [len(after)] * (len(before) + 1)
    for i in range(len(before) - 1, -1, -1):
        positions[i] = kept.get(id(before[i]), positions[i + 1])
    return positions


_TITLE_SEPARATORS = (" — ", " – ", " -- ", " - ", " | ", " :: ", " » ")


def without_site_prefix(title: str, site: str) -> str:
    """A page's ``<title>`` that is the manual's title, a separator and the page's name
    ("Dr. Geo User's Manual -- Translation", as Hyperlatex writes them) is that name: a page
    without a heading of its own is named by it."""
    for sep in _TITLE_SEPARATORS if site else ():
        rest = title.removeprefix(site + sep)
        if rest != title and rest.strip():
            return rest.strip()
    return title


def without_site_suffix(title: str, heading: str) -> str:
    """A ``<title>`` that is the page's first heading plus the site's name ("Debian Policy Manual
    — Debian Policy Manual v4.6.2.0", "Stereographic Projection - PanoTools.org Wiki") is that
    heading, so the heading is recognised as the title and not made a section under a copy of it;
    Sphinx's placeholder for a page without one ("<no title> — ...") is no title."""
    if title.startswith("<no title>"):
        return ""
    if heading and title != heading and any(title.startswith(heading + sep) for sep in _TITLE_SEPARATORS):
        return heading
    return title


def menu_parents(tree: LexborHTMLParser, path: Path, root: Path) -> tuple[dict[str, str], list[str]]:
    """The hierarchy a Bootstrap site menu (MkDocs' ``div.navbar ul.navbar-nav``) shows: each
    page it lists -> its parent, and the pages in menu order. A top-level item's parent is the
    home page (``a.navbar-brand``, else the first item); a drop-down's items belong to its first
    item when that one is named like the drop-down ("User Guide" -> ``user-guide/index.html``),
    else to the home page."""
    nav = tree.css_first("div.navbar ul.navbar-nav")
    if nav is None:
        return {}, []

    def target(a) -> str | None:
        return link_target(a.attributes.get("href"), path, root) if a is not None else None

    items = [li for li in nav.iter() if li.tag == "li"]
    home = target(tree.css_first("div.navbar a.navbar-brand")) or \
        next((target(li.css_first("a[href]")) for li in items if "dropdown" not in classes(li)), None)
    parents: dict[str, str] = {}
    order: list[str] = []
    for li in items:
        if "dropdown" in classes(li):
            title = flatten(li.css_first("a.dropdown-toggle") or li)
            links = li.css("ul.dropdown-menu a[href]")
            targets = [target(a) for a in links]
            section = targets[0] if links and same_title(flatten(links[0]), title) else None
            for t in targets:
                if t and t != home:
                    parents.setdefault(t, (section if t != section else None) or home)
            order += [t for t in targets if t]
        else:
            t = target(li.css_first("a[href]"))
            if t:
                order.append(t)
                if home and t != home:
                    parents.setdefault(t, home)
    return {k: v for k, v in parents.items() if v and v != k}, order


def hevea_title(tree: LexborHTMLParser, title: str, path: Path) -> str:
    """HEVEA sets LaTeX's ``\\maketitle`` as ``h1.titlemain`` (the authors and date below it as
    ``h3.titlerest``, credits): the document's title, no section. Its ``<title>`` is the file's
    name unless the source set one ("user" for user.html)."""
    main = tree.css_first("h1.titlemain")
    if main is None:
        return title
    text = flatten(main)
    main.decompose()
    return text if not title or title == path.stem else title


def hidden_toctree_list(toc: LexborNode) -> list[LexborNode]:
    """The links of the list right after an empty Sphinx toctree: a ``:hidden:`` toctree writes no
    entries, and a page that lists its children itself (Scrapy's index: a ``dl`` of pages under each
    section) places them where that list sits, not all under its first table of contents."""
    if "toctree-wrapper" not in classes(toc):
        return []
    after = toc.next
    while after is not None and after.tag == "-text" and not (after.text_content or "").strip():
        after = after.next
    return after.css("a[href]") if after is not None and after.tag in ("dl", "ul", "ol") else []


def redirects(tree: LexborHTMLParser) -> bool:
    """A page that sends the reader elsewhere at once (``<meta http-equiv="refresh" content="0;
    url=...">``: texinfo writes one such stub per anchor, 2,356 in the Octave manual: 2,324
    cross-reference anchors, 32 figures); its target is read where it is."""
    for meta in tree.css("meta[http-equiv]"):
        if (meta.attributes.get("http-equiv") or "").strip().lower() == "refresh" \
                and "url=" in (meta.attributes.get("content") or "").lower().replace(" ", ""):
            return True
    return False


def head_links(tree: LexborHTMLParser, page: Path, root: Path) -> dict[str, str]:
    """The pages the ``<link rel>`` elements name. One to a named place on this page
    (``href="#Concept-index"``: a one-page manual's ``rel="index"``) names a part of the page, not
    a page; ``href="#"`` names the page itself (Sphinx's search page is its own ``rel="search"``)."""
    links: dict[str, str] = {}
    for link in tree.css("link[rel]"):
        href = link.attributes.get("href")
        if href is None or (href.strip().startswith("#") and len(href.strip()) > 1):
            continue
        target = link_target(href, page, root)
        for rel in (link.attributes.get("rel") or "").lower().split():
            rel = "prev" if rel == "previous" else rel
            if target and rel not in links:
                links[rel] = target
    return links


def read_page(path: Path, root: Path, report: IngestReport) -> Page | None:
    text = decode_page(path, report)
    if text is None:
        return None
    rel = report.rel(path)
    tree = LexborHTMLParser(xhtml_as_html(text))
    if redirects(tree):
        report.exclude(path, "redirect page")
        return None
    title_node = tree.css_first("title")
    title = normalise(title_node.text()) if title_node is not None else ""
    links = head_links(tree, path, root)
    panel, panels = icon_navigation(tree, lambda href: link_target(href, path, root))
    links = {**panel, **links}          # a <link rel> the page declares comes first
    if panels:
        report.exclude(path, "navigation panel", panels)
    made_by = generator(tree)
    if title == path.name:     # groff's <title> when the source set none ("pic-11.html")
        title = ""
    if is_groff(made_by):
        bar, removed = take_bar_links(tree)
        links = {**{k: link_target(v, path, root) for k, v in bar.items() if v}, **links}
        if removed:
            report.exclude(path, "navigation panel", removed)
        sections = remove_section_links(tree)
        if sections:
            report.exclude(path, "table of contents", 1)
    contents: list[str | None] = []     # Halibut's contents list orders the child pages
    tocs: list[LexborNode] = []
    if is_halibut(tree):
        index_page, bars, tocs = take_halibut_chrome(tree)
        report.exclude(path, "navigation panel", bars)
        if index_page:
            report.add(path, "generated index or search page (navigation, not content)", "document")
            return None
        contents = [link_target(a.attributes.get("href"), path, root) for toc in tocs for a in toc.css("a[href]")]
    texinfo = is_texinfo(made_by)
    indexes = printed_indexes(tree) if texinfo else None
    if rel in (links.get("index"), links.get("search")) or tree.css_first(_SPHINX_INDEX) is not None \
            or path.stem.startswith("genindex") or (indexes is not None and indexes.whole_page):
        report.add(path, "generated index or search page (navigation, not content)", "document")
        return None
    if indexes is not None and indexes.nodes:     # a one-page manual's index appendices
        for node in indexes.nodes:
            node.decompose()
        report.exclude(path, "printed index (@printindex)", indexes.count)
    if "_static" in PurePosixPath(rel).parts[:-1]:    # Sphinx's theme and download files (Scrapy's sample page)
        report.exclude(path, "Sphinx static file (_static/)")
        return None
    if "_modules" in PurePosixPath(rel).parts[:-1]:   # Sphinx viewcode's highlighted copies of the sources
        report.add(path, "generated source-code page (Sphinx viewcode, _modules/)", "document")
        return None
    if path.stem == "404":
        report.exclude(path, "error page (404.html)")
        return None
    up = links.get("up") or breadcrumb_parent(tree, path, root, rel)
    doxygen_title = ""
    if is_doxygen(made_by):
        doxygen_title = take_title(tree)
        title = doxygen_title or title
        remove_chrome(tree, DOXYGEN_CHROME)
    title = hevea_title(tree, title, path) if made_by.startswith("hevea") else title
    if texinfo:
        top_page = texinfo_title(title) != title
        title = texinfo_title(title)
        remove_texinfo_chrome(tree, top_page)
        nest_unnumbered_headings(tree)
        if made_by.startswith(TEXI2HTML):
            if title.endswith(": About This Document"):   # the legend of its navigation buttons
                report.exclude(path, "navigation help page (texi2html's About This Document)")
                return None
            report.exclude(path, "navigation panel", remove_texi2html_chrome(tree))
            manual, _, node = title.partition(": ")
            title = manual if node == manual else title     # the top page: "Manual: Manual"
    mdbook = is_mdbook(text)
    if mdbook and path.name == "print.html":
        report.exclude(path, "the whole book on one page (mdBook's print.html)")
        return None
    if is_sidebar_frame(text):
        report.exclude(path, "the book's sidebar on a page of its own (mdBook's toc.html)")
        return None
    # read before the menus are removed as chrome
    if mdbook:
        menu, menu_order, home = sidebar_parents(tree, path, root, link_target)
        if is_home_copy(tree, rel, home, menu_order):    # the first chapter again: the book's root, no text
            report.exclude(path, "copy of the first chapter (mdBook's index.html)")
            return Page(path, rel, book_title(tree) or title, None, None, None, menu_order, [], [], None, menu)
        remove_chrome(tree, MDBOOK_CHROME)
    else:
        menu, menu_order = menu_parents(tree, path, root)
    if made_by.startswith("publican"):
        remove_chrome(tree, _PUBLICAN_CHROME)
    elif made_by.startswith("mediawiki"):
        remove_chrome(tree, _MEDIAWIKI_CHROME)
    tabs = label_tab_panels(tree)     # before the tab buttons go as chrome
    if tabs:
        report.exclude(path, "tab labels (put in front of their panels)", tabs)
    remove_chrome(tree, _NAV_CHROME)
    for what, n in unwrap_forms(tree).items():
        report.exclude(path, what, n)
    headers = remove_site_headers(tree)
    if headers:
        report.exclude(path, "page header (site banner, title block)", headers)
    order = [link_target(a.attributes.get("href"), path, root) for a in tree.css("a[href]")]
    entries = _TOC_ENTRIES + (", " + TEXINFO_ENTRIES if texinfo else "")
    toc_entries = [link_target(a.attributes.get("href"), path, root) for a in tree.css(entries)]
    if texinfo:  # its menu orders the child pages, not a cross-reference in the text above it
        order = toc_entries + order
    order = menu_order + contents + order
    remove_chrome(tree, TOC_CHROME)
    walker = ContentWalker(path, root, report, rel, set(tree.css(TEXINFO_TOCS)) if texinfo else set(tocs))
    try:
        blocks = walker.run(tree.body)
    except RecursionError:
        report.add(path, "HTML nested too deeply to parse", "document")
        return None
    toc_places: dict[str, int] = {}   # a page of several tables of contents: each lists its own children
    for at, toc in walker.tocs_at:
        for a in toc.css("a[href]") or hidden_toctree_list(toc):
            target = link_target(a.attributes.get("href"), path, root)
            if target and target != rel:
                toc_places.setdefault(target, at)
    # a "Contents" heading right above a table of contents listing pages heads where they go
    listing = frozenset(at - 1 for at, toc in walker.tocs_at if at and blocks[at - 1].kind == "heading"
                        and any(place == at for place in toc_places.values())) if not texinfo else frozenset()
    kept = remove_front_matter(blocks, report, path, title, keep=listing)
    moved = surviving(blocks, kept)
    toc_at = moved[walker.tocs_at[0][0]] if walker.tocs_at else None
    toc_places = {page: moved[at] for page, at in toc_places.items()}
    blocks = kept
    if doxygen_title:      # the page's title heads its h1 sections
        blocks = titled(blocks, doxygen_title, rel)
        toc_at = toc_at + 1 if toc_at is not None else None
        toc_places = {page: at + 1 for page, at in toc_places.items()}
    title = without_site_suffix(title, next((b.text for b in blocks if b.kind == "heading"), ""))
    if not any(b.kind == "image" or b.text.strip() for b in blocks):
        report.add(path, "no content found (no text and no image)", "document")
        return None
    return Page(path, rel, title, up if up != rel else None, links.get("prev"), links.get("next"),
                list(dict.fromkeys(t for t in order if t)),
                list(dict.fromkeys(t for t in toc_entries if t and t != rel)), blocks, toc_at, menu,
                toc_places)
