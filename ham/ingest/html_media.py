"""Tables, figures and images of an HTML page, for ``ham.ingest.html_content.ContentWalker``
(its module docstring says what becomes of them): whether a table is data or layout, a data
table's rows and the real images in its cells, icons kept as text or skipped, a figure's caption
given to each of its images, and where an image file lies."""
from __future__ import annotations

from pathlib import PurePosixPath

from selectolax.lexbor import LexborNode

from ham.ingest.evidence import icon_text, is_inline_icon
from ham.ingest.html_text import BLOCK_TAGS, ICON_NAMES, IMAGE_MARK, classes, flatten, normalise
from ham.ingest.report import resolve_image
from ham.ingest.urls import parse_url


class MediaWalker:
    """The image and table half of ``ContentWalker``: it uses the walker's ``page``, ``root``,
    ``report``, ``inline``, ``admonition_depth``, ``table_caption``, ``figure_caption`` and
    ``figure_linked``, and its ``emit``, ``flush``, ``walk``, ``take_prefix``, ``absorb`` and
    ``is_caption``."""

    def figure(self, node: LexborNode) -> None:
        """A figure of several images (a graphical and a text-mode screenshot) with one caption:
        the builder links the caption to the image beside it (the last before it, or the first
        after it); the others get its text here, so no image of the figure is left uncaptioned."""
        caption = next((n for n in node.traverse() if n is not node and n.tag != "-text"
                        and self.is_caption(n, n.tag, classes(n))), None)
        images = node.css("img")
        if caption is None or len(images) < 2:
            self.walk(node)
            return
        order = {n: i for i, n in enumerate(node.traverse())}
        ahead = order.get(caption, 0) < order.get(images[0], 0)
        linked = images[0] if ahead else images[-1]
        self.figure_caption, self.figure_linked = flatten(caption), linked
        try:
            self.walk(node)
        finally:
            self.figure_caption, self.figure_linked = "", None

    def images_within(self, images: list[LexborNode]) -> None:
        """Images set in a heading's or a definition term's line: an icon (a numbered callout, a
        button) is decoration, left out and counted; a real image (a dialog's screenshot) is
        content, after the heading or before the definition."""
        for img in images:
            src = (img.attributes.get("src") or "").strip()
            if not src or src.startswith("data:") or self.is_icon(img, src):
                continue
            resolved = self.resolved(src)
            if is_inline_icon(src, self.root / resolved if resolved else None, in_text=True):
                self.report.exclude(self.page, "icon in a heading or term")
                continue
            self.image(img, force=True)

    def is_layout_table(self, node: LexborNode) -> bool:
        role = (node.attributes.get("role") or "").lower()
        return role in ("presentation", "none") or self.admonition_depth > 0 or \
            node.css_first("table table, tr table, h1, h2, h3, h4, h5, h6") is not None or \
            (node.css_first("img") is not None and not normalise(node.text())) or \
            (len(node.css("tr")) <= 1 and sum(1 for cell in node.css("td, th")
                                              if normalise(cell.text()) or cell.css_first("img")) <= 1)
        # (a page laid out in cells; a frame around images alone, as DocBook XSL's "manufactured
        # viewport for HTML img" around a figure's image, whose caption is the figure's; a box, one row
        # with one cell of content: pod2html's title banner, texi2html's examples indented by an empty cell)

    def table(self, node: LexborNode) -> None:
        if self.is_layout_table(node):
            self.walk(node)
            return
        self.absorb(node)
        caption_node = node.css_first("caption")
        caption = flatten(caption_node) if caption_node is not None else self.table_caption
        self.table_caption = ""
        rows: list[str] = []
        real: list[tuple[LexborNode, str]] = []
        for tr in node.css("tr"):
            found: list[LexborNode] = []

            def image_text(img: LexborNode) -> str:
                src = (img.attributes.get("src") or "").strip()
                if src and self.is_icon(img, src):
                    return ""
                if self.cell_icon(img, src):
                    return self.icon_text_of(img)
                found.append(img)
                alt = normalise(img.attributes.get("alt") or "")
                return f"[image: {alt}]" if alt else "[image]"

            cells = [c for c in tr.iter() if c.tag in ("td", "th")]
            texts = [flatten(c, image_text) for c in cells]
            if any(texts):
                rows.append(" | ".join(texts))
            plain = " | ".join(t for t in (" ".join(IMAGE_MARK.sub("", x).split()) for x in texts) if t)
            real.extend((img, plain) for img in found)
        text = "\n".join(rows)
        if text:
            term = self.take_prefix().rstrip().rstrip(":")   # a definition's term names its table
            caption = f"{term}: {caption}" if term and caption else term or caption
            self.emit("table", text=text, caption=caption)
        for img, row in real:
            self.image(img, caption=row, force=True)

    def cell_icon(self, img: LexborNode, src: str) -> bool:
        if not src or src.startswith("data:"):
            return False
        resolved = self.resolved(src)
        file = self.root / resolved if resolved else None
        if is_inline_icon(src, file, in_text=self.has_text_around(img), in_cell=True):
            self.report.exclude(self.page, "inline icon (kept as text)")
            return True
        return False

    def icon_text_of(self, img: LexborNode) -> str:
        return icon_text(img.attributes.get("alt") or "", img.attributes.get("src") or "")

    def is_icon(self, node: LexborNode, src: str) -> bool:
        """Navigation and admonition icons: skipped altogether."""
        stem = PurePosixPath(parse_url(src).path).stem.lower()
        parent = node.parent
        if stem in ICON_NAMES and (self.admonition_depth or (parent is not None and parent.tag == "a")):
            return True
        return bool(self.admonition_depth and parent is not None and parent.tag == "td"
                    and not flatten(parent))

    def resolved(self, src: str) -> str | None:
        if src not in self._resolved:
            self._resolved[src] = resolve_image(src, self.page.parent, self.root, self.report, self.page)
        return self._resolved[src]

    @staticmethod
    def has_text_around(node: LexborNode) -> bool:
        """The image sits in running text: the block holding it (paragraph, item, cell) has text
        of its own, outside nested blocks (a figure's caption is not running text)."""
        block = node.parent
        while block is not None and block.tag not in BLOCK_TAGS:
            block = block.parent
        if block is None:
            return False
        child = block.child
        while child is not None:
            if child.tag == "-text" and (child.text_content or "").strip():
                return True
            if child.tag not in BLOCK_TAGS and not child.tag.startswith("-") and child.tag != "img" \
                    and flatten(child):
                return True
            child = child.next
        return False

    def image(self, node: LexborNode, caption: str = "", force: bool = False) -> None:
        src = (node.attributes.get("src") or "").strip()
        alt = node.attributes.get("alt") or ""
        if src and self.is_icon(node, src):
            return
        if not src:
            self.flush()
            self.report.add(self.page, f"<img> without src (alt {alt!r})", "image")
            if alt.strip():
                self.emit("text", text=alt)
            return
        if src.startswith("data:"):
            self.flush()
            short = src.split(",", 1)[0] + ",…"
            self.report.add(self.page, f"image {short!r} is inline data and is not decoded", "image")
            self.emit("image", image=short, image_path=None, alt=alt)
            return
        resolved = self.resolved(src)
        if not force:
            file = self.root / resolved if resolved else None
            if "mwe-math-fallback-image-inline" in classes(node) or \
                    is_inline_icon(src, file, in_text=self.has_text_around(node)):   # a formula in the line
                self.inline.append(" " + icon_text(alt, src) + " ")
                self.report.exclude(self.page, "inline icon (kept as text)")
                return
        self.flush()
        if not caption and self.figure_caption and node != self.figure_linked:
            caption = self.figure_caption
        self.emit("image", image=src, image_path=resolved, alt=alt, caption=caption)


