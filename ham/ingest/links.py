"""Cross-references as edges of the corpus: a leaf's ``refs`` are the sections its links point to.

A reader puts ``meta["anchors"]`` (names a link can point to, ``page.html#id``) on the nodes
where they sit and ``meta["links"]`` (the names a leaf's text links to) on leaves
(``ham.ingest.html_links`` for HTML). ``resolve_refs`` replaces both, over all documents of the
corpus at once (a link may cross documents): an anchor names its node's nearest enclosing section
(a step's or a leaf's is the section holding it; the title's is the document); a link to
``page.html#id`` whose anchor is not found falls back to ``page.html`` (the page's first section,
or its document when the page is one), unless the page is the leaf's own: then it is unresolved. A leaf's ``refs`` lists the sections it points to, in link
order, once each, leaving out its own section, those enclosing it and its own document's root
(the tree already relates them; a link to the manual's front page says nothing about the
passage); another document's root stays (a Markdown file pointing to another file). What survives is kept on the leaf (``refs``, into the unit's
``extra``); the raw anchors and links are dropped. The report measures "links" (to pages of the
corpus), "links resolved to a section" and "units with references".
"""
from __future__ import annotations

from ham.document import Document, Node
from ham.ingest.report import IngestReport

SECTION_KINDS = ("document", "section", "subsection")


def resolve_refs(docs: list[Document], report: IngestReport | None = None) -> None:
    target: dict[str, str] = {}
    holders: list[tuple[Document, Node, set[str]]] = []

    def visit(doc: Document, node: Node, chain: list[str]) -> None:
        here = chain + [node.id] if node.kind in SECTION_KINDS else chain
        for anchor in node.meta.pop("anchors", ()):
            if here:
                target.setdefault(anchor, here[-1])
        if not node.is_leaf:   # links on a node that is not a leaf (a step's own block) are not references
            node.meta.pop("links", None)
        elif node.meta.get("links"):
            holders.append((doc, node, set(here)))
        for child in node.children:
            visit(doc, child, here)

    def fallback(link: str, leaf: Node) -> str | None:
        # another page's unknown anchor: that page; an unknown anchor of the leaf's own file says
        # nothing (Marker's "#page-3-0" on a table of contents that was left out is not the file's top)
        page = link.split("#", 1)[0]
        return None if page == leaf.source else target.get(page)

    for doc in docs:
        visit(doc, doc.root, [])
    for doc, leaf, own in holders:
        links = leaf.meta.pop("links")
        resolved = [s for link in links if (s := target.get(link) or fallback(link, leaf))]
        refs = list(dict.fromkeys(s for s in resolved if s not in own))
        if report is not None:
            report.measure(doc.source, "links", len(links))
            report.measure(doc.source, "links resolved to a section", len(resolved))
            report.measure(doc.source, "units with references", int(bool(refs)))
        if refs:
            leaf.meta["refs"] = refs
