"""Texinfo HTML (makeinfo/texi2any, known by ``<meta name="Generator">``; only on such pages).

Its navigation panel, on top and at the foot of every page (``div.header``, texinfo 7
``div.nav-panel``: "Next: ..., Previous: ..., Up: ... [Contents][Index]"), the headings of its
tables of contents, the "Footnotes" label (``.footnotes-heading``), the pilcrow links of
definitions and headings (``a.copiable-anchor``, texinfo 7 ``a.copiable-link``) and the empty
category label ": " of a ``@deftypefn {}`` line are chrome. The tables of contents
(``div.contents``, ``div.shortcontents``) and the menus listing a node's child pages
(``table.menu``, ``ul.section-toc``, texinfo 7 ``ul.mini-toc``) are the page's table of
contents: skipped where they sit (child pages go there), their first-level entries order the
child pages before any cross-reference does. A footnote's "(n)" heading leads its text, and its
citation reads "(n)" too (not a superscript glued to the word before it). The
top page's ``<title>`` "Top (Manual)" names the manual, so its title heading is the document's
(on one page, ``--no-split``, the Top node's heading repeats the title: it is left out, so the Top
node's text is the document's and the chapters are its sections, as in a split manual).
A page holding a printed index (``@printindex``: the concept, function, operator indexes) and
nothing else is a generated index page, skipped like Sphinx's. A manual on one page
(``makeinfo --no-split``: R's manuals) holds its indexes as appendices beside its content: those
index nodes (their heading, the "Jump to:" letter tables and the index) are left out and counted,
and the rest of the page is read. ``div.header`` or ``div.contents`` in other HTML is left alone.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ham.ingest.builder import same_title
from ham.ingest.html_text import normalise, remove_chrome

_TEXINFO_CHROME = ("div.header, div.nav-panel, p.nav-panel, h2.contents-heading, h2.shortcontents-heading, "
                   ".footnotes-heading, a.copiable-anchor, a.copiable-link")
TEXINFO_TOCS = "div.contents, div.shortcontents, table.menu, ul.section-toc, ul.mini-toc"
TEXINFO_ENTRIES = ("div.contents > ul > li > a, table.menu td:first-child a, ul.section-toc > li > a, "
                   "ul.mini-toc > li > a")
# a printed index (@printindex): texinfo 6 ``table.index-cp``/``index-fn``/..., texinfo 7 ``div.printindex``
_INDEX = "div.printindex, table[class*='printindex'], table[class^='index-']"
_HEADINGS = "h1, h2, h3, h4, h5, h6"
_NOT_TEXT = "div.header, div.nav-panel, p.nav-panel, " + _HEADINGS
# a node's element: texinfo 6 ``div.appendix``/``div.unnumbered``/..., texinfo 7 ``div.*-level-extent``
_NODE_CLASSES = {"chapter", "section", "subsection", "subsubsection", "appendix", "appendixsec",
                 "appendixsubsec", "appendixsubsubsec", "unnumbered", "unnumberedsec", "unnumberedsubsec",
                 "unnumberedsubsubsec", "top"}


TEXINFO_GENERATORS = ("makeinfo", "texi2any")   # ``<meta name="Generator" content="makeinfo">``


def texinfo_title(title: str) -> str:
    """The top page's "Top (Manual)" names the manual; other pages keep "Node (Manual)"."""
    return title[5:-1].strip() if title.startswith("Top (") and title.endswith(")") else title


def remove_texinfo_chrome(tree: LexborHTMLParser) -> None:
    """Texinfo's chrome (module docstring); footnotes read "(n)" at the citation and before the note."""
    remove_chrome(tree, _TEXINFO_CHROME)
    settitle = tree.css_first("h1.settitle")
    if settitle is not None:    # a one-page manual's Top node repeats the title: its text is the document's
        for top in tree.css("h1.top"):
            if same_title(normalise(top.text()), normalise(settitle.text())):
                top.decompose()
    for label in tree.css("span.category, span.category-def"):
        if not normalise(label.text()).strip(":"):
            label.decompose()
    for ref in tree.css('a[id^="DOCF"]'):  # the citation "<sup>1</sup>" reads "(1)", as its note does
        if normalise(ref.text()):
            ref.insert_before(f" ({normalise(ref.text())})")
        ref.decompose()
    for mark in tree.css("div.footnote > h5, div.footnotes-segment > h5"):
        number, body = normalise(mark.text()), mark.next
        while body is not None and body.tag == "-text" and not (body.text_content or "").strip():
            body = body.next
        if number and body is not None and body.tag == "p" and body.child is not None:
            body.child.insert_before(number + " ")
        elif number:
            mark.insert_before(number + " ")
        mark.decompose()

@dataclass
class PrintedIndexes:
    """What a page's printed indexes are: the whole page, or ``nodes`` to remove (the index nodes of
    a one-page manual, or the bare index tables where their node holds text of its own)."""
    whole_page: bool
    count: int = 0
    nodes: list[LexborNode] = field(default_factory=list)


def _node_of(element: LexborNode) -> LexborNode | None:
    node = element.parent
    while node is not None:
        if node.tag == "div" and node.attributes.get("id"):
            names = set((node.attributes.get("class") or "").split())
            if names & _NODE_CLASSES or any(n.endswith("-level-extent") for n in names):
                return node
        node = node.parent
    return None


def _words(nodes) -> int:
    return sum(len(n.text(separator=" ").split()) for n in nodes)


def printed_indexes(tree: LexborHTMLParser) -> PrintedIndexes | None:
    """The page's printed indexes (None: it holds none). A page is an index page when an index sits
    in no node element, or when no heading but an index node's is left outside the index nodes."""
    indexes = tree.css(_INDEX)
    if not indexes:
        return None
    nodes: dict[int, tuple[LexborNode, list[LexborNode]]] = {}
    for index in indexes:
        node = _node_of(index)
        if node is None:
            return PrintedIndexes(whole_page=True, count=len(indexes))
        nodes.setdefault(node.mem_id, (node, []))[1].append(index)
    removed: list[LexborNode] = []
    whole_nodes: list[LexborNode] = []
    for node, inside in nodes.values():
        letters = [t for t in node.css("table") if t.css_first("a.summary-letter") is not None]
        own = _words([node]) - _words(inside) - _words(letters) - _words(node.css(_NOT_TEXT))
        if own <= 0:
            whole_nodes.append(node)
            removed.append(node)
        else:       # an index printed at the end of a node with text of its own: the index alone goes
            removed += inside + letters
    inside_nodes = {h.mem_id for n in whole_nodes for h in n.css(_HEADINGS)}
    body = tree.body or tree.root
    headings = [h for h in body.css(_HEADINGS) if h.mem_id not in inside_nodes
                and not {"contents-heading", "shortcontents-heading"} & set((h.attributes.get("class") or "").split())]
    if not headings:
        return PrintedIndexes(whole_page=True, count=len(indexes))
    return PrintedIndexes(whole_page=False, count=len(indexes), nodes=removed)
