"""The content of an HTML page or fragment (selectolax lexbor) as a Block stream.

Units
    Paragraphs, list items and ``pre`` blocks are text (inline markup flattened, whitespace
    normalised, zero-width characters removed; ``pre`` and Doxygen's ``div.fragment`` (a
    ``div.line`` per line) keep their lines; a definition list's term prefixes its definition;
    DocBook subtitles are text). An ``ol`` outside another step is a procedure, one ``step`` per item (its images belong to it, numbering restarts per list),
    unless it is AsciiDoc's callout list (``div.colist``: notes on the code above it), when
    ``ham.ingest.evidence.is_procedure`` says so (a DocBook ``div.procedure``, a lead-in
    such as "To do X:", imperative items); any other ``ol`` (a UI legend, a list of rules or
    fields) is one text block of "N. item" lines, or, when its items hold images or tables, text
    per item with its number. Tables that are not layout (no ``role=presentation``, no nested
    table, no heading in a cell, not inside an admonition, not images alone without text) become table blocks with ``a | b`` rows. Figure captions
    (DocBook ``div.figure > p.title``, ``figcaption``, ``p.caption``, MediaWiki's
    ``div.thumbcaption``) are caption blocks that
    TreeBuilder links to their image. ``img src`` as written is ``Block.image``, resolved against
    the page's folder; ``data:`` and remote images are reported, never fetched.

Icons and images in tables
    An image in running text, a small one, or a toolbar icon in a table cell
    (``ham.ingest.evidence.is_inline_icon``) stays in the text as ``[alt]``, so the sentence stays
    whole; the report counts them ("inline icon (kept as text)"). A real image in a table cell
    follows the table with its row's text as its caption, so it keeps its description.

Skipped, and counted as front matter
    Page tables of contents (DocBook ``div.toc``, Asciidoctor ``div#toc``, the nodes the page
    reader names: texinfo menus; where they sat is noted for the page tree; a ``ul.toc`` whose
    every item is only a link to an anchor of the same page, where a list of in-page links
    without that class is content: "The dialog is divided into: Toolbar, Plot panel, ..."),
    "Back to top" links, the author/revision
    line of an Asciidoctor header, DocBook title-page credits (``corpauthor``, ``author``,
    ``copyright``, ``pubdate``, ``legalnotice``, ...); other credits are left out by
    ``ham.ingest.structure.remove_front_matter``. Also skipped: prev/next/up/home icons and
    admonition icons (an ``img`` in a note/tip/warning/caution/important box named after the box
    or alone in its cell). The admonition's label ("Tip") prefixes its first paragraph, and a
    DocBook example's or sidebar's title ("Example 11.1. ...") its first block.
"""
from __future__ import annotations

from pathlib import Path

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ham.ingest.builder import Block
from ham.ingest.evidence import is_procedure
from ham.ingest.html_api import box_title, is_field_list, object_name, signatures
from ham.ingest.html_links import LinkCollector
from ham.ingest.html_media import MediaWalker
from ham.ingest.html_text import (ADMONITIONS, ALWAYS_SKIP, BLOCK_TAGS, CREDIT_CLASSES, HEADINGS, PAGE_TOC_CLASSES,
                                  TOC_CHROME, classes, flatten, is_anchor_list, is_back_to_top, normalise, raw_text,
                                  remove_chrome)
from ham.ingest.report import IngestReport
from ham.text import split_sentences

_REFENTRY_SECTIONS = {"refsynopsisdiv", "refsect1", "refsect2", "refsect3", "refsection"}


def refentry_depth(node: LexborNode) -> int:
    """1 for a heading inside a DocBook reference page's section (``div.refsect1`` and the like
    under ``div.refentry``), else 0. DocBook writes the command's name (``div.refnamediv``) and
    its Synopsis, Description, Parameters... all as ``h2``: without this the sections would be
    siblings of the command, and a parameter's path would not name its command."""
    parent, inside = node.parent, False
    while parent is not None:
        cls = classes(parent)
        if cls & _REFENTRY_SECTIONS:
            inside = True
        if "refentry" in cls:
            return int(inside)
        parent = parent.parent
    return 0


class ContentWalker(MediaWalker, LinkCollector):
    """Turns one page's body into Blocks in reading order (see the module docstring); where the
    page's anchors sit and where its links point go on the blocks (``ham.ingest.html_links``)."""

    def __init__(self, page: Path, root: Path, report: IngestReport, rel: str, tocs=()) -> None:
        self.page, self.root, self.report, self.rel = page, root, report, rel
        self.tocs = tocs  # nodes that are tables of contents whatever their tag (texinfo menus)
        self.blocks: list[Block] = []
        self.inline: list[str] = []
        self.prefix = ""
        self.step_depth = 0
        self.admonition_depth = 0
        self.table_caption = ""
        self.figure_caption, self.figure_linked = "", None   # inside a figure of several images
        self.level = 0   # the level of the last heading emitted (API objects go one below it)
        self.tocs_at: list[tuple[int, LexborNode]] = []   # where each table of contents sat, and it
        self._resolved: dict[str, str | None] = {}
        self.anchors, self.links = [], []   # pending for the next block (LinkCollector)
        self.anchor_at, self.held = [], None

    def run(self, body: LexborNode | None) -> list[Block]:
        if body is not None:
            self.walk(body)
            self.flush()
            self.return_held()
        return self.blocks

    def emit(self, kind: str, **fields) -> None:
        self.blocks.append(Block(kind=kind, source=self.rel, meta=self.take_links(kind), **fields))

    def flush(self) -> None:
        text = normalise("".join(self.inline))
        trailing = self.hold_trailing() if text else []
        self.inline = []
        if text:
            self.emit("text", text=self.take_prefix() + text)
        self.pend(trailing, self.blocks[-1] if trailing else None)

    def take_prefix(self) -> str:
        """The pending prefix (a definition's term, an admonition's label, a list item's number),
        for the block being emitted: it goes on the first block after it, of whatever kind."""
        prefix, self.prefix = self.prefix, ""
        return prefix

    def walk(self, node: LexborNode) -> None:
        child = node.child
        while child is not None:
            self.visit(child)
            child = child.next

    def visit(self, node: LexborNode) -> None:
        tag = node.tag
        if tag == "-text":
            self.inline.append(node.text_content or "")
        elif tag == "object" and (node.attributes.get("data") or "").lower().endswith((".svg", ".svgz")):
            data = node.attributes.get("data")
            self.report.add(self.page, f"SVG figure {data!r} (<object>) is a vector format ham does not read "
                                       f"(convert it to PNG, e.g. rsvg-convert)", "image")
        elif tag.startswith("-") or tag in ALWAYS_SKIP:
            return
        elif tag == "img":
            self.image(node)
        elif tag == "br":
            self.inline.append(" ")
        elif tag not in BLOCK_TAGS:
            self.note_node(node)
            self.walk(node)
        else:
            self.flush()
            self.note_node(node)
            self.block(node, tag)
            self.flush()

    def block(self, node: LexborNode, tag: str) -> None:
        cls = classes(node)
        if node in self.tocs or (tag in ("div", "dl", "nav") and (cls & PAGE_TOC_CLASSES
                                                                   or node.attributes.get("id") == "toc")) \
                or (tag in ("ul", "ol") and ("toc" in cls or node.attributes.get("id") in ("index", "toc", "TOC"))
                    and is_anchor_list(node)):   # pod2html's ul#index
            self.tocs_at.append((len(self.blocks), node))
            self.report.exclude(self.page, "table of contents", 1)
        elif tag in ("p", "div") and is_back_to_top(node):
            self.report.exclude(self.page, "back-to-top link", 1)
        elif (tag == "div" and "details" in cls and node.parent is not None
              and node.parent.attributes.get("id") == "header") or cls & CREDIT_CLASSES \
                or (tag in HEADINGS and tag != "h1" and cls & {"maketitle", "titlerest"}):
            # Asciidoctor's author/revision line; DocBook title-page credits, copyright, legal notice;
            # the author and date lines LaTeX's \maketitle sets below the title (Hyperlatex; HEVEA's
            # h3.titlerest)
            self.report.exclude(self.page, "front matter (copyright, credits)", 1)
        elif tag in HEADINGS and not (self.step_depth or self.admonition_depth or "subtitle" in cls):
            self.heading(node, int(tag[1]) + refentry_depth(node))
        elif tag == "dt":   # terms in a row (an option's long and short names) share one definition
            self.absorb(node)
            self.images_within(node.css("img"))
            self.add_label(flatten(node).rstrip())
        elif tag == "ul" and is_field_list(node):   # "Parameters: a (str) – ...": one text, a line each
            self.absorb(node)
            self.emit("text", text=self.take_prefix() + "\n".join(flatten(li) for li in node.iter() if li.tag == "li"))
        elif tag == "dl" and not (self.step_depth or self.admonition_depth) and signatures(node):
            self.api_object(node)
        elif tag in ("dl", "dd"):
            self.walk(node)
            self.flush()
            self.term_alone()   # a term whose definition held no text is text of its own
        elif (tag == "figure" or (tag == "div" and cls & {"figure", "informalfigure"})) and not self.figure_caption:
            self.figure(node)
        elif tag == "pre" or (tag == "div" and "fragment" in cls):
            self.absorb(node)   # Doxygen's code listing is a div.fragment of div.line rows, one per line
            lines = node.css("div.line") if tag == "div" else None
            code = "\n".join(ln.text(deep=True) for ln in lines) if lines else node.text(deep=True)
            code = code.strip("\n")
            prefix = self.take_prefix().rstrip()
            self.emit("text", text=f"{prefix}\n{code}" if prefix else code)
        elif tag == "ol":
            self.ordered_list(node)
        elif tag == "table":
            self.table(node)
        elif tag == "div" and cls & set(ADMONITIONS) and not self.admonition_depth:
            self.admonition(node)
        elif tag == "div" and cls & {"example", "sidebar"} and (title := box_title(node)) is not None:
            self.titled_box(node, title)
        elif self.is_description(node, tag, cls):
            self.blocks[-1].footnote = " ".join(x for x in (self.blocks[-1].footnote, flatten(node)) if x)
        elif self.is_caption(node, tag, cls):
            self.absorb(node)
            self.emit("caption", text=flatten(node))
        elif tag == "p" and "title" in cls and node.parent is not None and \
                classes(node.parent) & {"table", "informaltable"}:
            self.table_caption = flatten(node)
        else:
            self.walk(node)

    def heading(self, node: LexborNode, level: int) -> None:
        """The heading's inline text is the title; blocks or images inside it (an unclosed ``<h1>``
        swallows the page in broken HTML) are content after it."""
        child, title, images, first = node.child, [], [], node.child
        while child is not None and (child.tag == "-text" or child.tag not in BLOCK_TAGS):
            if child.tag != "-text":
                self.note_node(child)
                self.absorb(child)
            title.append(raw_text(child))
            images += [child] if child.tag == "img" else list(child.css("img"))
            child = child.next
        if normalise("".join(title)):
            self.emit("heading", text=normalise("".join(title)), level=level)
            self.level = level
            self.images_within(images)
        else:   # no title: whatever the heading holds is content
            child = first
        while child is not None:
            self.visit(child)
            child = child.next

    def is_description(self, node: LexborNode, tag: str, cls: set[str]) -> bool:
        """DocBook's ``div.mediaobject > div.caption``: the image's long description, right after
        its ``img``; it belongs to the image (appended to its caption), not to the running text."""
        parent = node.parent
        return (tag == "div" and "caption" in cls and parent is not None and "mediaobject" in classes(parent)
                and bool(self.blocks) and self.blocks[-1].kind == "image")

    @staticmethod
    def is_caption(node: LexborNode, tag: str, cls: set[str]) -> bool:
        if tag == "figcaption" or (tag == "p" and "caption" in cls) or \
                (tag == "div" and cls & {"thumbcaption", "gallerytext"}):   # MediaWiki's thumbnails
            return True
        parent = node.parent
        return tag == "p" and "title" in cls and parent is not None and \
            bool(classes(parent) & {"figure", "informalfigure"})

    def api_object(self, node: LexborNode) -> None:
        """A Sphinx API object as a section of its own (``ham.ingest.html_api``)."""
        outer = self.level
        dts = signatures(node)
        name = object_name(dts[0])
        self.flush()
        for dt in dts:
            self.note_node(dt)
            self.absorb(dt)
        signature = "\n".join(flatten(dt) for dt in dts)
        bodies = [c for c in node.iter() if c.tag == "dd"]
        if not any(normalise(dd.text()) or dd.css_first("img, table") is not None for dd in bodies):
            # an object with no description (an alias declared before the documented name) is a
            # signature line, not a section of nothing
            self.emit("text", text=self.take_prefix() + signature)
            return
        self.emit("heading", text=name, level=outer + 1)
        self.level = outer + 1
        if signature != name.removesuffix("()"):   # an attribute's is only its name
            self.emit("text", text=self.take_prefix() + signature)
        for dd in bodies:
            self.walk(dd)
            self.flush()
            self.term_alone()
        self.emit("end_section", level=outer + 1)
        self.level = outer

    def term_alone(self) -> None:
        if self.prefix:
            self.emit("text", text=self.take_prefix().rstrip().rstrip(":"))

    def lead_in(self) -> str:
        last = self.blocks[-1] if self.blocks else None
        if last is None or last.kind not in ("text", "caption"):
            return ""
        sentences = split_sentences(last.text)
        return sentences[-1] if sentences else ""

    def ordered_list(self, node: LexborNode) -> None:
        """A procedure gets one step per ``li``; any other ordered list is text (module docstring).
        A list inside a step stays text of that step."""
        if self.step_depth:
            self.walk(node)
            return
        items = [c for c in node.iter() if c.tag == "li"]
        if node.parent is not None and "colist" in classes(node.parent):
            self.numbered_text(node, items)   # AsciiDoc's callouts: notes on the code above, not steps
            return
        marked = any("procedure" in classes(n) for n in (node, node.parent) if n is not None)
        steps, why = is_procedure([flatten(li) for li in items], self.lead_in(), marked)
        if not steps:
            self.numbered_text(node, items)
            return
        self.step_depth += 1
        child, number = node.child, 0
        start = node.attributes.get("start")
        number = int(start) - 1 if start and start.strip().isdigit() else 0
        while child is not None:
            if child.tag == "li":
                self.flush()
                number += 1
                self.emit("step", number=number, rule=f"ordered list item: {why}")
                self.walk(child)
                self.flush()
            else:
                self.visit(child)
            child = child.next
        self.flush()
        self.step_depth -= 1
        self.emit("end_steps")

    def numbered_text(self, node: LexborNode, items: list[LexborNode]) -> None:
        start = node.attributes.get("start")
        first = int(start) if start and start.strip().isdigit() else 1
        if not any(li.css_first("img, table, pre, ol, ul, dl") for li in items):
            self.absorb(node)
            lines = [f"{first + k}. {self.inline_text(li)}" for k, li in enumerate(items)]
            self.flush()
            self.emit("text", text=self.take_prefix() + "\n".join(line for line in lines if line.strip()))
            return
        term = self.take_prefix()   # a definition's term goes on its first item
        for k, li in enumerate(items):
            self.flush()
            self.prefix = (term if k == 0 else "") + f"{first + k}. "
            self.walk(li)
            self.flush()
            self.prefix = ""

    def inline_text(self, node: LexborNode) -> str:
        return flatten(node, lambda img: self.icon_text_of(img))

    def admonition(self, node: LexborNode) -> None:
        """Keep the box's text, prefixed with its label; drop its icon."""
        label = node.css_first("p.admonition-title, .title, th, h1, h2, h3, h4, h5, h6")
        if label is not None:
            self.prefix = flatten(label).rstrip(":") + ": "
            label.decompose()
        self.admonition_depth += 1
        self.walk(node)
        self.flush()
        self.admonition_depth -= 1
        self.prefix = ""

    def titled_box(self, node: LexborNode, title: LexborNode) -> None:
        """DocBook's example and sidebar: the title ("Example 11.1. Setting up a Partial Index",
        "TIP Incremental updates") leads the box's first block, as an admonition's label does,
        rather than standing alone as a one-line unit."""
        self.flush()
        self.add_label(flatten(title))
        title.decompose()
        self.walk(node)
        self.flush()
        self.term_alone()

    def add_label(self, label: str) -> None:
        """A definition's term or a box's title, pending for the next block as "label: " (its own
        colon kept, not doubled); terms in a row add up."""
        if label:
            self.prefix += (label if label.endswith(":") else label + ":") + " "

def fragment_blocks(fragment: str, path: Path, root: Path, report: IngestReport) -> list[Block]:
    """Blocks of an HTML fragment embedded in another format (e.g. raw HTML in Markdown)."""
    tree = LexborHTMLParser(fragment)
    remove_chrome(tree, TOC_CHROME)
    try:
        return ContentWalker(path, root, report, report.rel(path)).run(tree.body)
    except RecursionError:
        report.add(path, "embedded HTML nested too deeply to parse", "text")
        return []
