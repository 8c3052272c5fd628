"""Markdown (CommonMark + pipe tables) through markdown-it-py's token stream.

Rules
    * Headings, ATX (``##``) or setext (underlined), take their level from the token's tag
      (``h2`` -> 2); a numbered title ("4.7. Foo") keeps its number in the title.
    * A paragraph is text, except that every image in it is its own image block: the text before
      and after it in the same paragraph stays text, in order. An inline icon (an image inside
      the sentence, ``ham.ingest.evidence.is_inline_icon``) stays in the text as ``[alt]`` instead.
      A "Figure N." paragraph (or line) next to an image is linked to it as its caption.
    * An ordered list is a procedure when ``ham.ingest.evidence.is_procedure`` says so (a lead-in
      such as "To do X:", imperative items): one ``step`` per item (its paragraphs and images
      belong to the step), then ``end_steps``; numbering restarts per list. Any other ordered list,
      and one nested in a step, is text of "N. item" lines.
    * Bullet lists are text: the items of one list become one text block of ``- item`` lines
      (an image or other block inside splits it).
    * Tables become table blocks of ``a | b | c`` rows: icons in cells stay as ``[alt]``, a real
      image in a cell follows the table with its row's text as caption; code blocks and fences are
      text. A leading YAML front-matter block is metadata and skipped.
    * Raw HTML blocks go through the HTML walker (their images and tables count). Inline HTML is
      dropped but for ``<br>`` (a line break; a space in a table cell) and ``id`` / ``name``
      attributes, which are anchors of the block they sit in or before (Marker writes
      ``<span id="page-3-1"></span>`` into headings for its links ``[x](#page-3-1)``); Marker's
      page separators (``{3}`` and a rule of dashes) are left out and counted.
    * Image references keep the text as written (``Block.image``) and are resolved against the
      Markdown file's folder (``Block.image_path``; None when unusable, with a report entry).

The document passes of ``ham.ingest.structure`` run on the blocks (front matter; levels recovered
when every heading has the same level; the title is the only top-level heading, else the file
stem); the id is ``doc_id_for(relative path)``. A file with no content at all is reported and
skipped.
"""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ham.document import Document
from ham.ingest.builder import Block, build_document, doc_id_for
from ham.ingest.evidence import icon_text, is_inline_icon, is_procedure
from ham.ingest.html_content import fragment_blocks
from ham.ingest.html_links import local_target
from ham.ingest.report import IngestReport, read_text, resolve_image
from ham.text import split_sentences

SUFFIXES = {".md", ".markdown"}
SUFFIXES_LINKED = (".md", ".markdown")
_ID_ATTR = re.compile(r"""\b(?:id|name)\s*=\s*["']([^"']+)["']""")
_BREAK = re.compile(r"^<br\s*/?>$", re.I)
_PARSER_MARKS = re.compile(r"\]\(images/[0-9a-f]{64}\.(?:jpe?g|png)\)|\]\(_page_\d+_(?:Picture|Figure)_\d+\."
                           r"|<span id=\"page-\d+-\d+\"></span>|<!-- image -->")
_PAGE_SEPARATOR = re.compile(r"^\{\d+\}-{10,}$")   # Marker's --paginate_output: "{3}" and 48 dashes


def html_ids(html: str) -> list[str]:
    """The ``id`` / ``name`` attributes of raw HTML: anchors a link can point to (Marker writes
    ``<span id="page-3-1"></span>`` into headings and before paragraphs for its internal links)."""
    return _ID_ATTR.findall(html)


def inline_ids(tokens: list[Token]) -> list[str]:
    """The ids of an inline run's raw HTML (``html_ids``)."""
    return [i for t in tokens if t.type == "html_inline" for i in html_ids(t.content)]


def heading_slugs(title: str) -> list[str]:
    """The ids a heading gets from the usual Markdown renderers, so ``other.md#its-id`` finds it:
    GitHub's (lower case, punctuation dropped, each space a hyphen) and Python-Markdown's
    (MkDocs: accents folded to ASCII, runs of spaces and hyphens one hyphen)."""
    github = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    mkdocs = re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", ascii_title).strip().lower())
    return [s for s in dict.fromkeys((github, mkdocs)) if s]


def claim(files: list[Path]) -> list[Path]:
    return [f for f in files if f.suffix.lower() in SUFFIXES]


def markdown_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable("table")
    # keep link targets as written (markdown-it would percent-encode them)
    md.normalizeLink = lambda url: url  # type: ignore[method-assign]
    return md


def inline_text(tokens: list[Token]) -> str:
    """Plain text of inline tokens (emphasis, links and code flattened; images by alt text; a soft
    line break is a space, a hard break a newline)."""
    parts: list[str] = []
    for tok in tokens:
        if tok.type in ("text", "code_inline"):
            parts.append(tok.content)
        elif tok.type == "softbreak":
            parts.append(" ")
        elif tok.type == "hardbreak":
            parts.append("\n")
        elif tok.type == "image":
            parts.append(inline_text(tok.children or []))
        elif tok.type == "html_inline" and _BREAK.match(tok.content.strip()):
            parts.append("\n")   # "25th November<br>2011" (a table cell's line break)
    return "".join(parts)


class _BlockStream:
    """Walks the block-level token stream and produces Blocks (see the module docstring)."""

    def __init__(self, path: Path, root: Path, report: IngestReport) -> None:
        self.path, self.root, self.report = path, root, report
        self.rel = report.rel(path)
        self.blocks: list[Block] = []
        self.lists: list[str] = []  # "steps", "ol" (a numbered list inside another list) or "ul"
        self.numbers: list[int] = []  # item counter of each open list
        self.pending: list[str] = []  # list lines waiting to become one text block
        self.ids: list[str] = []  # raw HTML ids waiting for the next block (anchors where it sits)
        self.item_start = False
        self.list_rule = ""
        self._resolved: dict[str, str | None] = {}
        self.links: list[str] = []   # pending for the next text block

    # -- output
    def emit(self, block: Block) -> None:
        self.flush_list_text()
        block.source = self.rel
        if block.kind in ("text", "table") and self.links:
            block.meta["links"] = self.take_links()
        self.take_ids(block)
        self.blocks.append(block)

    def take_ids(self, block: Block) -> None:
        if self.ids:
            block.meta["anchors"] = [*block.meta.get("anchors", ()), *(f"{self.rel}#{i}" for i in self.ids)]
            self.ids = []

    def flush_list_text(self) -> None:
        if self.pending:
            text = "\n".join(self.pending)
            self.pending = []
            links = self.take_links()
            block = Block(kind="text", text=text, source=self.rel, meta={"links": links} if links else {})
            self.take_ids(block)
            self.blocks.append(block)

    def take_links(self) -> list[str]:
        """The pending links, once each, for the text block being emitted."""
        links, self.links = list(dict.fromkeys(self.links)), []
        return links

    def note_links(self, children: list[Token]) -> None:
        """Links to other Markdown files of the corpus (or ``#anchors``) in an inline run, pending
        for the text block it becomes (``ham.ingest.links``)."""
        for tok in children:
            if tok.type == "link_open":
                target = local_target(str(tok.attrs.get("href") or ""), self.rel, SUFFIXES_LINKED)
                if target is not None:
                    self.links.append(target)

    def text(self, text: str) -> None:
        text = text.strip()
        if not text:
            return
        if _PAGE_SEPARATOR.match(text):
            self.report.exclude(self.path, "page separator (Marker)")
            return
        in_bullets = bool(self.lists) and self.lists[-1] in ("ul", "ol")
        if self.item_start and in_bullets:
            text = ("- " if self.lists[-1] == "ul" else f"{self.numbers[-1]}. ") + text
        self.item_start = False
        if in_bullets:
            self.pending.append(text)
        else:
            self.emit(Block(kind="text", text=text))

    # -- the walk
    def run(self, tokens: list[Token]) -> list[Block]:
        i = 0
        while i < len(tokens):
            i = self.visit(tokens, i)
        self.flush_list_text()
        return self.blocks

    def visit(self, tokens: list[Token], i: int) -> int:
        """Handle the token at ``i``; return the index of the next one to visit."""
        tok = tokens[i]
        kind = tok.type
        if kind == "heading_open":
            children = tokens[i + 1].children or []
            title = inline_text([t for t in children if t.type != "image"])
            self.links = []
            self.ids += inline_ids(children)
            self.emit(Block(kind="heading", text=title, level=int(tok.tag[1]),
                            meta={"anchors": [f"{self.rel}#{slug}" for slug in heading_slugs(title)]}))
            self.inline_images(children, text=False)  # an image in a heading follows it
            return i + 3
        if kind == "paragraph_open":
            self.ids += inline_ids(tokens[i + 1].children or [])
            self.note_links(tokens[i + 1].children or [])
            self.inline_images(tokens[i + 1].children or [], text=True)
            return i + 3
        if kind == "ordered_list_open" and not self.lists:
            self.open_list("ordered_list_open" if self.procedure(tokens, i) else "numbered_list_open")
        elif kind in ("bullet_list_open", "ordered_list_open"):
            self.open_list(kind)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            self.close_list()
        elif kind == "list_item_open":
            self.open_item()
        elif kind in ("fence", "code_block"):
            self.emit(Block(kind="text", text=tok.content.rstrip("\n")))
        elif kind == "html_block":
            self.ids += html_ids(tok.content)
            for block in fragment_blocks(tok.content, self.path, self.root, self.report):
                self.emit(block)
        elif kind == "table_open":
            return self.table(tokens, i)
        return i + 1

    def procedure(self, tokens: list[Token], i: int) -> bool:
        """Decide whether the ordered list opening at ``i`` is a procedure (module docstring)."""
        depth, items, current = 0, [], None
        for tok in tokens[i:]:
            depth += tok.nesting if tok.type.endswith(("_list_open", "_list_close")) else 0
            if tok.type == "list_item_open" and depth == 1:
                current = []
                items.append(current)
            elif tok.type == "inline" and current is not None:
                current.append(inline_text(tok.children or []))
            if depth == 0:
                break
        last = next((b for b in reversed(self.blocks) if b.kind in ("text", "heading", "table", "image")), None)
        lead = split_sentences(last.text)[-1] if last is not None and last.kind == "text" and last.text else ""
        steps, self.list_rule = is_procedure([" ".join(parts) for parts in items], lead)
        return steps

    def open_list(self, kind: str) -> None:
        self.numbers.append(0)
        if kind == "bullet_list_open":
            self.lists.append("ul")
        elif kind == "numbered_list_open" or "steps" in self.lists or "ol" in self.lists or "ul" in self.lists:
            self.lists.append("ol")
        else:
            self.lists.append("steps")

    def close_list(self) -> None:
        closed = self.lists.pop()
        self.numbers.pop()
        if not self.lists or closed == "steps":
            self.flush_list_text()
        if closed == "steps":
            self.emit(Block(kind="end_steps"))

    def open_item(self) -> None:
        self.numbers[-1] += 1
        if self.lists and self.lists[-1] == "steps":
            self.emit(Block(kind="step", number=self.numbers[-1], rule=f"ordered list item: {self.list_rule}"))
        else:
            self.item_start = True

    def is_icon(self, tok: Token, children: list[Token], in_cell: bool = False) -> bool:
        ref = str(tok.attrs.get("src", "")).strip()
        if not ref:
            return False
        lines: list[list[Token]] = [[]]
        for c in children:
            if c.type in ("softbreak", "hardbreak"):
                lines.append([])
            else:
                lines[-1].append(c)
        line = next(ln for ln in lines if any(c is tok for c in ln))
        around = "".join(inline_text([c]) for c in line if c is not tok and c.type != "image").strip()
        resolved = self.resolve(ref)
        if is_inline_icon(ref, self.root / resolved if resolved else None, in_text=bool(around), in_cell=in_cell):
            self.report.exclude(self.path, "inline icon (kept as text)")
            return True
        return False

    def inline_images(self, children: list[Token], text: bool) -> None:
        """Emit the paragraph's text runs (when ``text``) and each image as its own block (an
        inline icon stays in the text as ``[alt]``)."""
        run: list[Token] = []
        for tok in children:
            if tok.type == "image" and self.is_icon(tok, children):
                run.append(Token("text", "", 0, content=" " + icon_text(inline_text(tok.children or []),
                                                                          str(tok.attrs.get("src", ""))) + " "))
            elif tok.type == "image":
                if text:
                    self.text(inline_text(run))
                run = []
                self.image(tok)
            elif tok.type == "html_inline" and tok.content.lstrip().lower().startswith("<img"):
                if text:
                    self.text(inline_text(run))
                run = []
                for block in fragment_blocks(tok.content, self.path, self.root, self.report):
                    self.emit(block)
            else:
                run.append(tok)
        if text:
            self.text(inline_text(run))

    def image(self, tok: Token, caption: str = "") -> None:
        ref = str(tok.attrs.get("src", "")).strip()
        alt = inline_text(tok.children or [])
        if not ref:
            self.report.add(self.path, f"image with an empty reference (alt {alt!r})", "image")
            self.text(alt)
            return
        self.emit(Block(kind="image", image=ref, image_path=self.resolve(ref), alt=alt, caption=caption))

    def resolve(self, ref: str) -> str | None:
        if ref not in self._resolved:
            self._resolved[ref] = resolve_image(ref, self.path.parent, self.root, self.report, self.path)
        return self._resolved[ref]

    def table(self, tokens: list[Token], i: int) -> int:
        """A table block of ``a | b`` rows (icons in cells as ``[alt]``); a real image in a cell
        follows the table with its row's text as caption."""
        rows: list[list[str]] = []
        images: list[tuple[Token, int]] = []
        while i < len(tokens) and tokens[i].type != "table_close":
            tok = tokens[i]
            if tok.type == "tr_open":
                rows.append([])
            elif tok.type == "inline" and rows:
                parts: list[Token] = []
                for c in tok.children or []:
                    if c.type == "image" and self.is_icon(c, tok.children or [], in_cell=True):
                        alt = inline_text(c.children or [])
                        parts.append(Token("text", "", 0, content=" " + icon_text(alt, str(c.attrs.get("src", ""))) + " "))
                    elif c.type == "image":
                        images.append((c, len(rows) - 1))
                        alt = " ".join(inline_text(c.children or []).split())
                        parts.append(Token("text", "", 0, content=f" [image: {alt}] " if alt else " [image] "))
                    else:
                        parts.append(c)
                rows[-1].append(" ".join(inline_text(parts).split()))
            i += 1
        text = "\n".join(" | ".join(cells) for cells in rows if any(cells))
        if text:
            self.emit(Block(kind="table", text=text))
        for image, row in images:
            plain = [" ".join(re.sub(r"\[image(?:: [^\]]*)?\]", "", c).split()) for c in rows[row]]
            self.image(image, caption=" | ".join(c for c in plain if c))
        return i + 1


def without_front_matter(text: str) -> str:
    """Drop a leading YAML front-matter block (``---`` ... ``---``): metadata, not content (and
    CommonMark would read its closing ``---`` as a setext underline)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        return text
    for end in range(1, len(lines)):
        if lines[end].rstrip() in ("---", "..."):
            return "".join(lines[end + 1:])
    return text


def markdown_blocks(text: str, path: Path, root: Path, report: IngestReport) -> list[Block]:
    return _BlockStream(path, root, report).run(markdown_parser().parse(without_front_matter(text)))


def parse_file(path: Path, root: Path, report: IngestReport) -> Document | None:
    text = read_text(path, report)
    if text is None:
        return None
    blocks = markdown_blocks(text, path, root, report)
    if not any(b.kind in ("heading", "text", "image", "table") for b in blocks):
        report.add(path, "no content (empty document)", "document")
        return None
    rel = report.rel(path)
    blocks[0].meta["anchors"] = [rel, *blocks[0].meta.get("anchors", ())]   # a link to the file itself
    return build_document(doc_id_for(rel), "", rel, "markdown", blocks, report=report, path=path,
                          fallback_title=path.stem, authored=not parser_made(text))


def parser_made(text: str) -> bool:
    """Whether a PDF parser wrote this Markdown, by the marks each leaves: MinerU's images named by
    their SHA-256 (``images/<64 hex>.jpg``), Marker's ``_page_3_Figure_0.jpeg`` images and
    ``<span id="page-3-1">`` anchors, Docling's ``<!-- image -->`` placeholders. Its heading levels
    are then a parser's, not an author's: MinerU's pipeline writes every heading as ``#``, so they
    are recovered (``ham.ingest.levels``) and the title is its first heading."""
    return bool(_PARSER_MARKS.search(text))


def parse(files: list[Path], root: Path, report: IngestReport) -> list[Document]:
    docs = []
    for path in files:
        doc = parse_file(path, root, report)
        if doc is not None:
            docs.append(doc)
    return docs
