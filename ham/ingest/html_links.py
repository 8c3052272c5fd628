"""Where an HTML page's anchors sit and where its links point, for ``ContentWalker``.

A manual says "the options common to all selection tools are described in Selection Tools" with a
link; the page it points to is context the passage needs although it does not look like the
question. The walker notes every element's ``id`` (and an ``<a name>``) as an anchor
``page.html#id`` on the next block it emits (one after the last words of a paragraph or of loose
text, ``Alpha text. <a name="beta"></a><h2>Beta</h2>`` as HTML 3.2-era manuals write them, on the
block after that text: the heading it stands before), and every link to a page of the corpus (a
relative ``href`` to an ``.html``/``.htm``/``.xhtml`` file, or ``#id`` on the same page) as
``page.html#id`` (or ``page.html``) on the next text, table, step or caption block.
``ham.ingest.links`` then turns them into the leaves' ``refs``: the sections the links point to.
Links to other sites, to files that are not pages (images, archives) and to pages outside the
corpus never become references.
"""
from __future__ import annotations

import posixpath
from urllib.parse import unquote

from selectolax.lexbor import LexborNode

from ham.ingest.builder import Block
from ham.ingest.urls import parse_url

PAGE_SUFFIXES = (".html", ".htm", ".xhtml")
LINKED_KINDS = ("text", "table", "step", "caption")   # blocks that take the pending links


def local_target(href: str | None, rel: str, suffixes: tuple[str, ...] = PAGE_SUFFIXES) -> str | None:
    """``page.html#id`` (or ``page.html``) relative to the corpus root for a link on page ``rel``;
    None for a remote link, a file that is not a page (``suffixes``), or one outside the corpus."""
    if not href:
        return None
    parsed = parse_url(href.strip())
    if parsed.scheme or parsed.netloc:
        return None
    path = unquote(parsed.path)
    if path:
        if not path.lower().endswith(suffixes):
            return None
        target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), path))
        if target.startswith("../") or target == "..":
            return None
    elif parsed.fragment:
        target = rel
    else:
        return None
    return f"{target}#{unquote(parsed.fragment)}" if parsed.fragment else target


class LinkCollector:
    """The anchor and link half of ``ContentWalker``: it uses the walker's ``rel``, ``anchors``
    and ``links`` (pending for the next block)."""

    rel: str
    anchors: list[str]
    links: list[str]
    inline: list[str]
    anchor_at: list[int]   # per pending anchor, how many pieces of ``inline`` came before it
    held: tuple[Block, list[str]] | None   # anchors kept back from a text block, until a block takes them

    def note_node(self, node: LexborNode) -> None:
        """The node's own anchor and, for a link, its target."""
        attrs = node.attributes
        ident = attrs.get("id") or (attrs.get("name") if node.tag == "a" else None)
        if ident and ident.strip():
            self.anchors.append(f"{self.rel}#{ident.strip()}")
            self.anchor_at.append(len(self.inline))
        if node.tag == "a":
            target = local_target(attrs.get("href"), self.rel)
            if target is not None:
                self.links.append(target)

    def absorb(self, node: LexborNode) -> None:
        """Anchors and links inside a node the walker reads as a whole (a table, a ``pre``, a
        definition term, a heading's line) rather than visiting its children."""
        for inner in node.traverse():
            if inner is not node and inner.tag != "-text":
                self.note_node(inner)

    def hold_trailing(self) -> list[str]:
        """Before the pending text is emitted: the anchors after its last words leave the pending
        ones (they name the block after it) and are returned."""
        covered = [bool("".join(self.inline[at:]).strip()) for at in self.anchor_at]
        trailing = [a for a, c in zip(self.anchors, covered) if not c]
        self.anchors = [a for a, c in zip(self.anchors, covered) if c]
        return trailing

    def pend(self, anchors: list[str], source: Block | None = None) -> None:
        """``anchors`` pending for the next block, ahead of any text (``inline`` is empty);
        ``source``: the block they were kept back from, which gets them if no block follows."""
        self.anchors = [*self.anchors, *anchors]
        self.anchor_at = [0] * len(self.anchors)
        if source is not None and anchors:
            self.held = (source, anchors)

    def return_held(self) -> None:
        """At the end of the page: anchors kept back from a text block that no block took are that
        block's after all (nothing else is there for them to name)."""
        if self.held is not None:
            block, held = self.held
            back = [a for a in self.anchors if a in held]
            if back:
                block.meta["anchors"] = list(dict.fromkeys([*block.meta.get("anchors", ()), *back]))
            self.held = None

    def take_links(self, kind: str) -> dict:
        """The meta of a block of ``kind`` being emitted: the pending anchors (for any block but
        the structural markers) and links (for text-like blocks; a heading drops them: they were
        in content that made no block, and must not cross into the next section)."""
        meta: dict = {}
        if self.anchors and kind not in ("end_steps", "end_section"):
            meta["anchors"] = list(dict.fromkeys(self.anchors))
            self.anchors, self.anchor_at, self.held = [], [], None
        if kind in LINKED_KINDS and self.links:
            meta["links"] = list(dict.fromkeys(self.links))
        if kind in LINKED_KINDS or kind == "heading":
            self.links = []
        return meta
