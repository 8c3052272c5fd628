"""Ingest a corpus once per content hash: the documents and the ingest report are stored as
JSONL/JSON under the cache and reused by every run over the same files. Evidence units are built
from the documents at each load under the run's unit granularity (``ham.granularity``: cheap,
about a second for ten thousand leaves), so changing ``units`` never ingests again."""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from ham.cache import FolderCache, content_hash, key_of
from ham.document import Document
from ham.ingest import ingest_corpus
from ham.units import EvidenceUnit, read_jsonl, write_jsonl

log = logging.getLogger("ham.ingest.corpus")
INGEST_VERSION = "44"   # 44: a PDF glyph of an icon font (Font Awesome, Material Icons) is no word of a line: its box, twice the text size, had merged two lines of an asciidoctor-pdf admonition into one, interleaving their words; an admonition icon reads as its label ("Note: ", "Warning: ") in front of the note's first line, any other icon is left out (both counted); 43: TeX's \copyright in a PDF, cmsy's large circle with a "c" set inside it, reads "©" (was "(cid:13) c"); 42: the same document in two formats (bash.html beside bash.pdf) is read twice, the later format under its file name with the suffix (it was skipped as a problem); 41: a PDF admonition label on a line of its own ("Note", "See also", "Warning") takes the note's text on the lines below it, at or right of the label and within two lines (doxygen sets it further apart than a paragraph's lines: 158 labels were leaves of their own); 40: a PDF heading aligned to a bookmark drops the hyphen and space where its title wrapped when the outline spells the word whole ("reintro- ducing" -> "reintroducing", "stable- backports" -> "stable-backports"); 39: a PDF line opening with an unmapped glyph of a text font, text after it, reads the glyph as a list bullet (dvips' Type 3 bullets: "(cid:136) All evaluation" -> "• All evaluation", a list item of its own; counted); 38: a PDF line opening with a bullet ("• ") is a list item of its own, not part of the paragraph above; a glyph whose box reaches more than half its size below its baseline (cmsy's bullet: a declared descent of 0.96) is boxed as text, so texinfo's bullets stay on their item's line instead of making a line of their own or joining the next (math extension fonts' big operators keep their depth); 37: symbols a PDF without a Unicode map misreads as ASCII are read back: in running text by font (Computer Modern's OT1 text faces hold no "|", "{", "\\", '"', "<", ">": they are its em and en dash, quotes, ¡ ¿; cmsy's "1" is ∞), in a heading aligned to a bookmark from the outline ("glp intopt | solve" -> "glp_intopt — solve", an underscore drawn as a rule; letters, numbering and typographic quotes stay as printed); 36: a PDF definition list's first entry, set right below the sentence introducing it ("... as follows:"), is an entry of its own when a hanging indent follows it; 35: a PDF footnote below a paragraph that runs on to the next page no longer ends that paragraph (the footnote follows it); 34: PDF paragraphs by what the page shows: a definition's term opens its entry and the text beside it joins it, an entry outdented from a hanging indent opens the next (texinfo and LaTeX description lists had each term read as the last line of the entry above), the cells of an unruled table's row are one text, a paragraph opens after a closed sentence with more space than the page's line pitch or at a first-line indent after a short line, a code display stays with the sentence introducing it; 33: a word a PDF hyphenated at a line break is one word again ("environ- ment" -> "environment"; by the document's own words, then an English word list; suspended hyphens and code kept), a paragraph runs on over a page or column break (no full stop before, lower case after, same size, no code), lines whose boxes overlap by up to a quarter of their size (tight leading, tall inline code) stay one paragraph; 32: the caption below an image wins over the one above only when set as a caption ("Figure 2:" or "Figure 2. "), not a sentence about it ("Figure 4 shows") nor the same label again; 31: without an outline, a PDF line opening with the dotted decimal number right after the last numbered heading's, short and set apart from the body (bold, italic, or larger in another font) is a heading at any size; 30: a PDF admonition's label set at the body size on a line of its own ("Note", "Warning") is no heading, it joins the note's text; 29: ruled tables a PDF figure's drawing touches (graphviz's record nodes) are part of the figure, a page with tables left is searched for figures again with them drawn in, a short line ending a sentence is no figure label; 28: URW's Times bold ("NimbusRomNo9L-Medi", what pdfTeX embeds for Times-Bold) is bold, a lone letter numbering a heading right after the letter before it is a letter, not a Roman numeral ("C" after "B"), an image that took the caption above it takes the unowned caption right below it instead, the authors and date LaTeX's \\maketitle sets below a PDF's title are text (and an outline without a title entry takes that title); 27: a PDF figure drawn in vector graphics (lines and curves, no embedded image) is an image unit whose text is its labels, and its labels leave the running text; 26: a lower-case word ("copyright" in a printed index) is no credits label that drops the text after it; 25: LaTeX2HTML's navigation panel wrapped in div.navigation (2019 and later) is chrome too; 24: an HTML page named by its <title> alone drops the manual's title before it ("Manual -- Ray" -> "Ray"), the author and date headings of LaTeX's \maketitle (Hyperlatex) are credits; 23: HTML pages placed by navigation icons (LaTeX2HTML, Hyperlatex: next/up/previous images) join one tree, their icon panels and a body-level <address> footer are chrome; 22: a PDF's ruled box of one column (a code listing, a "Note:" box) is text with its line breaks, not a table, and none of its lines a heading; 21: Markdown with a parser's marks (MinerU's hashed image names, Marker's page anchors, Docling's image placeholders) has its levels recovered like a parser's output, a joined chapter label keeps its case; 20: heading levels a source gives are re-derived when its numbering contradicts them (Marker's "# 1.1" beside "## 1.2"), a table of contents as a table is left out, Markdown's raw HTML ids are anchors and <br> a line break, Marker's page separators are left out, a same-file link to an unknown anchor is no reference, a number heading before a numbered heading is no chapter opener; 19: MinerU middle.json titles matched to the content list despite ligatures and split spans, its line heights one size where the file's own paragraph lines vary as much, an unnumbered heading between "7" and "7.2" is inside "7", a table of contents whose entries a parser made headings (no leaders) is left out, credits after a cover's title are front matter, "Preliminaries and Notations" / "Problem Formulation" are paper section names; 18: ACM's "CCS Concepts" / "ACM Reference Format" are top-level section names, a PDF line of glyphs without a Unicode mapping is never a typographic heading, headings placed without evidence (parser outputs whose headings are all one level, with no numbering, sizes or known names) stay siblings instead of nesting under the first one, a bare capital letter opening a heading ("A Glimpse...", "R Schlicht") is no numbering unless other letters or decimal numbering say it is; 17: a PDF bookmark listed twice (same level, title and destination) is one heading, a bold face known by its font descriptor (ForceBold, FontWeight) or TeX's bold codes (cmbx, sfbx) counts as bold, a bold body-size line opening in lower case is a heading only when set off by space (not a listing's keywords), headings typography adds below the outline nest by style; 16: a PDF bookmark finds its heading line under appendix numbering ("A.2.1 Tcl/Tk"), a logo at the same place in the header or footer of most PDF pages is furniture, small text (a diagram's labels) and furniture no longer make a page two-column, the body size is the prose's, TeX glyph codes pdfminer leaves unmapped ("(cid:12)" for "fi") are read back, a line in a math font is never a typographic heading; 15: HTML links to pages of the corpus become the leaves' references (extra["refs"]: the sections they point to); 14: a "Step N" heading keeps its level (its subheadings nest in it; every format), an icon opening a heading no longer drops the heading, images in headings and definition terms are kept, a table with a heading in a cell is layout, MediaWiki exports (chrome, hidden MathML, thumbnail captions), an SVG reported as SVG, ul.toc anchor lists and back-to-top lines skipped, a logo above the page title, MkDocs pages joined by the site menu, Sphinx _modules/ and genindex-* pages skipped, a <title> that is the first heading plus the site name is that heading, SVG <object> figures reported, each table of contents of a page holds the pages it lists (its place counted after credits are left out); 13: a Sphinx API object (class, method, attribute) is a section of its own, its field-list items one text; 12: a DocBook example's or sidebar's title leads its first block; 11: HTML headings keep inline markup as the page shows it ("dpkg's", "(ORDER BY)"), a definition term goes on its own definition's first block (code, table, list), Publican/AsciiDoc/MkDocs chrome, Sphinx module index and 404 pages skipped, every image of a figure gets its caption, a title-page line above the book title, AsciiDoc callout lists are numbered text; 10: HTML redirect pages (meta refresh) are not read, texinfo printed-index pages are generated index pages; 9: texinfo HTML (navigation panels, menus and tables of contents as chrome, the menu orders child pages) and GNU permission notices as front matter; 8: ViDoRe corpora (BEIR parquet) are read; 7: PDF heading levels from the font where sizes tie, no space inserted at a font change; 6: DocBook image descriptions (mediaobject captions) belong to their image, not the text; 5: PDF outlines as the hierarchy, furniture by position and recurrence, word spacing by font size (4: DocBook reference pages nest their sections under the command; 3: levels, titles, furniture, tables, icons, node meta)


@dataclass
class Corpus:
    root: Path
    content_hash: str
    documents: list[Document]
    units: list[EvidenceUnit]
    report: dict
    granularity: dict | None = None    # how the units were cut (``units`` config: name, captions, sizes)

    @property
    def by_id(self) -> dict[str, EvidenceUnit]:
        return {u.unit_id: u for u in self.units}

    def of_modality(self, modality: str) -> list[EvidenceUnit]:
        return [u for u in self.units if u.modality == modality]


def load_corpus(root: str | Path, cache: FolderCache, units=None) -> Corpus:
    """The corpus under ``root``, its units cut by ``units`` (a ``ham.granularity`` option;
    default ``Blocks()``: one unit per leaf, captions on their images)."""
    from ham.granularity import Blocks

    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"corpus folder {root} does not exist")
    corpus_hash = content_hash(root, cache.root)

    def build(folder: Path) -> None:
        docs, report = ingest_corpus(root)
        # debug only: the run prints the (cached) summary on every run, built or reused (ham.run.job)
        log.debug("%s", report.summary())
        write_jsonl(folder / "documents.jsonl", (d.to_dict() for d in docs))
        (folder / "ingest_report.json").write_text(json.dumps(report.to_dict(), indent=2))
        (folder / "ingest_summary.txt").write_text(report.summary() + "\n")

    folder, cached = cache.get_or_build("corpus", key_of([corpus_hash, INGEST_VERSION]), build)
    if cached:
        log.info("corpus %s: ingest reused from %s", root, folder)
    docs = [Document.from_dict(d) for d in read_jsonl(folder / "documents.jsonl")]
    report = json.loads((folder / "ingest_report.json").read_text())
    report["summary"] = (folder / "ingest_summary.txt").read_text()
    granularity = units or Blocks()
    return Corpus(root, corpus_hash, docs, granularity.build(docs), report, granularity.key())
