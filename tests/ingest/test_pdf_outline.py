"""PDFs as their authors made them (issue 20): the outline is the hierarchy, running heads that
vary with the section are furniture, chapter openers are one heading, table-of-contents pages and
bare numbers are never headings, captions stay captions, words keep their spaces. The test PDF is
drawn with reportlab, bookmarks included."""
import pytest

from ham.cli.tree import tree_main
from ham.ingest import ingest_corpus
from ham.ingest.pdf_glued import count_glued
from tests.ingest.helpers import heading_path, node_titled

W, H = 595.27, 841.89
UNALIGNED = "bookmarks not found on their page (placed at their destination)"
BODY = ("The widget is a small device that sorts screws by length and stores them in trays. "
        "Read this handbook before you switch it on for the first time.")

# per page: (font, size, text) lines top to bottom; ("bookmark", level, title, at_top) entries
PAGES = [
    [("Helvetica-Bold", 28, "Widget Handbook"), ("Helvetica", 11, "Second edition")],
    [("Helvetica-Bold", 18, "Contents"), ("Helvetica", 11, "1 Getting Started . . . . . . . . . . 3"),
     ("Helvetica", 11, "1.1 Unpacking . . . . . . . . . . 3"), ("Helvetica", 11, "1.2 Power . . . . . . . . . . 4"),
     ("Helvetica", 11, "2 Daily Use . . . . . . . . . . 5"), ("Helvetica", 11, "2.1 Cleaning . . . . . . . . . . 5"),
     ("Helvetica", 11, "A Specifications . . . . . . . . . . 6")],
    [("Helvetica-Bold", 14, "CHAPTER"), ("Helvetica-Bold", 14, "ONE"),
     ("bookmark", 0, "Getting started", True), ("Helvetica-Bold", 24, "Getting Started"),
     ("Helvetica", 11, BODY), ("bookmark", 1, "Unpacking", True), ("Helvetica-Bold", 15, "1.1 Unpacking"),
     ("Helvetica", 11, BODY), ("Helvetica", 11, "Figure 1: The widget in its box."),
     ("Courier", 18, "widget --self-test"), ("Helvetica", 11, BODY)],
    [("bookmark", 1, "Power", False), ("Helvetica", 11, BODY), ("Helvetica-Bold", 15, "1.2 Power"),
     ("Helvetica", 11, BODY), ("Helvetica-Bold", 15, "42"), ("Helvetica", 11, BODY)],
    [("Helvetica-Bold", 20, "Chapter 2"), ("bookmark", 0, "Daily Use", True), ("Helvetica-Bold", 24, "Daily Use"),
     ("Helvetica", 11, BODY), ("bookmark", 1, "Cleaning", True), ("Helvetica-Bold", 15, "2.1 Cleaning"),
     ("Helvetica", 11, BODY), ("Helvetica-Bold", 12, "Dusting"), ("Helvetica", 11, BODY)],
    [("bookmark", 0, "Appendix A: Specifications", True), ("Helvetica-Bold", 24, "Appendix A Specifications"),
     ("Helvetica", 11, BODY), ("bookmark", 1, "Safety notes", True), ("Helvetica", 11, BODY),
     ("bookmark", 1, "Size", True), ("Helvetica-Bold", 15, "A.1 Size"), ("Helvetica", 11, BODY)],
]
RUNNING = {2: "Getting Started", 3: "1.1 Unpacking", 4: "Daily Use", 5: "Appendix A Specifications"}


def book_pdf(path, outline: bool = True, max_bookmarks: int = 99, repeat: tuple[str, ...] = ()):
    """``repeat``: bookmark titles listed once more at the end of the outline, at the same
    destination (as htmldoc lists a chapter once per link to it)."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H))
    n = 0
    for page_no, lines in enumerate(PAGES):
        if page_no in RUNNING:       # running head: fixed left part, the current section on the right
            c.setFont("Helvetica", 9)
            c.drawString(72, H - 40, "Widget Handbook")
            c.drawRightString(W - 72, H - 40, RUNNING[page_no])
            c.drawCentredString(W / 2, 30, str(page_no + 1))
        y = H - 100
        for entry in lines:
            if entry[0] == "bookmark":
                _, level, title, at_top = entry
                key = f"b{n}"
                n += 1
                if at_top:
                    c.bookmarkPage(key, fit="XYZ", left=72, top=y + 20)
                else:
                    c.bookmarkPage(key)      # "Fit": no position, the page top
                if outline and n <= max_bookmarks:
                    c.addOutlineEntry(title, key, level=level)
                continue
            text = c.beginText(72, y)
            text.setFont(entry[0], entry[1])
            text.textLine(entry[2])
            c.drawText(text)
            y -= entry[1] * 2.2
        c.showPage()
    keys = {e[2]: f"b{i}" for i, e in enumerate(e for page in PAGES for e in page if e[0] == "bookmark")}
    for title in repeat:
        c.addOutlineEntry(title, keys[title], level=0)
    c.save()
    return path


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    root = tmp_path_factory.mktemp("book")
    book_pdf(root / "widget.pdf")
    with_outline = ingest_corpus(root)
    typography = ingest_corpus(root, pdf_outline=False)
    return root, with_outline, typography


def _sections(doc):
    return [n.title for n in doc.root.children if n.kind == "section"]


def test_the_outline_is_the_hierarchy(book):
    _, (docs, report), _ = book
    doc = docs[0]
    assert _sections(doc) == ["Getting Started", "Daily Use", "Appendix A Specifications"]
    unpacking, power = node_titled(doc, "1.1 Unpacking"), node_titled(doc, "1.2 Power")
    assert heading_path(doc, unpacking) == ["Getting Started"] and heading_path(doc, power) == ["Getting Started"]
    assert unpacking.rule == "outline: bookmark level 2" and power.page == 3  # a "Fit" destination: page top
    # typography adds a heading below the bookmarked ones, never above them
    dusting = node_titled(doc, "Dusting")
    assert heading_path(doc, dusting) == ["Daily Use", "2.1 Cleaning"] and dusting.rule.startswith("typography")
    # a bookmark whose title is not printed still becomes a heading at its level, counted
    safety = node_titled(doc, "Safety notes")
    assert heading_path(doc, safety) == ["Appendix A Specifications"] and "not found" in safety.rule
    # an appendix's letter numbering ("A.1") is set aside like "1.1": the bookmark finds its line
    size = node_titled(doc, "A.1 Size")
    assert heading_path(doc, size) == ["Appendix A Specifications"]
    assert size.rule == "outline: bookmark level 2"
    measures = report.measures["widget.pdf"]
    assert measures["outline bookmarks"] == 8 and measures[UNALIGNED] == 1


def test_running_heads_that_vary_are_furniture_never_headings_or_content(book):
    _, (docs, report), (docs_t, report_t) = book
    for doc, rep in ((docs[0], report), (docs_t[0], report_t)):
        excluded = rep.excluded["widget.pdf"]
        assert excluded["page number"] == 4 and excluded["running head/footer (fixed text)"] == 4
        assert excluded["running head (section title)"] == 4
        heads = [n for n in doc.root.walk() if n.kind in ("section", "subsection")]
        assert [n.title for n in heads].count("1.1 Unpacking") == 1    # not re-opened on page 4
        assert all(n.page != 3 for n in heads if n.title == "1.1 Unpacking")
        texts = [n.text for n in doc.leaves() if n.text]
        assert not any(t.strip() in RUNNING.values() or t.strip() == "Widget Handbook" for t in texts[1:])


def test_chapter_openers_captions_toc_and_numbers(book):
    _, (docs, _), (docs_t, report_t) = book
    for doc in (docs[0], docs_t[0]):
        titles = [n.title for n in doc.root.walk() if n.kind in ("section", "subsection")]
        assert not {"CHAPTER", "ONE", "Chapter 2", "42", "Contents", "widget --self-test"} & set(titles)
        assert not any("Figure 1" in t or ". . ." in t for t in titles)
        texts = [n.text for n in doc.leaves() if n.text]
        assert "CHAPTER" not in texts and "ONE" not in texts
        assert any(t.startswith("Figure 1: The widget in its box.") for t in texts)   # caption kept
    # typography alone: the opener's label joins its title; the appendix is not under 2.1
    doc = docs_t[0]
    assert _sections(doc)[:2] == ["Chapter 1 Getting Started", "Chapter 2 Daily Use"]
    assert heading_path(doc, node_titled(doc, "1.1 Unpacking")) == ["Chapter 1 Getting Started"]
    assert heading_path(doc, node_titled(doc, "Appendix A Specifications")) == []
    assert report_t.excluded["widget.pdf"]["table of contents"] >= 6


def test_ignoring_the_outline_changes_the_rules(book):
    _, (docs, _), (docs_t, report_t) = book
    assert node_titled(docs[0], "2.1 Cleaning").rule.startswith("outline")
    assert node_titled(docs_t[0], "2.1 Cleaning").rule.startswith("numbering")
    assert "outline bookmarks" not in report_t.measures["widget.pdf"]


@pytest.mark.parametrize("kwargs", [{"outline": False}, {"max_bookmarks": 1}])
def test_a_pdf_without_outline_or_with_one_bookmark_uses_typography(tmp_path, kwargs):
    book_pdf(tmp_path / "plain.pdf", **kwargs)
    docs, report = ingest_corpus(tmp_path)
    assert node_titled(docs[0], "1.2 Power").rule.startswith("numbering")
    assert "outline bookmarks" not in report.measures["plain.pdf"]


def test_a_bookmark_listed_twice_is_one_section(tmp_path):
    book_pdf(tmp_path / "twice.pdf", repeat=("Daily Use", "Getting started"))
    docs, report = ingest_corpus(tmp_path)
    assert _sections(docs[0]) == ["Getting Started", "Daily Use", "Appendix A Specifications"]
    assert report.measures["twice.pdf"].get(UNALIGNED, 0) == 1      # "Safety notes" only, as without repeats


def test_headings_below_the_outline_nest_by_their_style(tmp_path):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "history.pdf"), pagesize=(W, H))
    y = H - 100
    bold, plain = "Helvetica-Bold", "Helvetica"
    for kind, font, size, text in [("bookmark", bold, 20, "Introduction"), ("text", plain, 11, BODY),
                                   ("bookmark", bold, 20, "Revision history"),
                                   ("text", bold, 14, "Release 2.0"), ("text", bold, 11, "Bug fixes"),
                                   ("text", plain, 11, "The tray sensor no longer miscounts long screws."),
                                   ("text", bold, 14, "Release 1.0"), ("text", bold, 11, "New features"),
                                   ("text", plain, 11, "Screws are sorted by length into four trays.")]:
        if kind == "bookmark":
            c.bookmarkPage(text, fit="XYZ", left=72, top=y + 20)
            c.addOutlineEntry(text, text, level=0)
        c.setFont(font, size)
        c.drawString(72, y, text)
        y -= size * 2.2
    c.save()
    docs, _ = ingest_corpus(tmp_path)
    doc = docs[0]
    fixes = next(n for n in doc.leaves() if n.text and n.text.startswith("The tray sensor"))
    features = next(n for n in doc.leaves() if n.text and n.text.startswith("Screws are sorted"))
    assert heading_path(doc, fixes) == ["Revision history", "Release 2.0", "Bug fixes"]
    assert heading_path(doc, features) == ["Revision history", "Release 1.0", "New features"]


def test_ham_tree_why_names_the_outline_rule(book, capsys):
    root, _, _ = book
    assert tree_main([str(root / "widget.pdf"), "--why"]) == 0
    out = capsys.readouterr().out
    assert "subsection: 1.1 Unpacking  [outline: bookmark level 2]" in out
    assert tree_main([str(root / "widget.pdf"), "--why", "--ignore-outline"]) == 0
    assert "[outline" not in capsys.readouterr().out


def test_words_keep_their_spaces_and_glued_tokens_are_counted(book):
    _, (docs, report), _ = book
    measures = report.measures["widget.pdf"]
    assert measures["text tokens"] > 150 and measures["glued tokens"] == 0
    assert any(BODY in n.text for n in docs[0].leaves())
    spaced = ["the widget sorts the screws by length and the trays hold the screws"] * 3
    assert count_glued(spaced).glued == 0
    glued = count_glued(spaced + ["thewidgetsortsthescrews"])
    assert glued.glued == 1 and glued.examples == ["thewidgetsortsthescrews"]


def test_a_heading_takes_the_outline_symbols_its_font_misread(tmp_path):
    # LaTeX's OT1 fonts without a Unicode map: the page reads "glp intopt | solve" (underscores
    # drawn as rules, the em dash at "|"), the outline keeps what the author wrote
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "api.pdf"), pagesize=(W, H))
    y = H - 100
    for printed, title, text in [("2.1 glp intopt | solve MIP problem", "glp_intopt — solve MIP problem",
                                  "The routine solves the MIP problem."),
                                 ("2.2 glp warm up | \\warm up\" LP basis", "glp_warm_up — ``warm up'' LP basis",
                                  "The routine warms up the LP basis."),
                                 ("2.3 The ‘...’ argument", "The ... argument", "Extra arguments pass on."),
                                 ("2.4 Setting limits", "Setting the limits", "Limits are set per run.")]:
        c.bookmarkPage(title, fit="XYZ", left=72, top=y + 20)
        c.addOutlineEntry(title, title, level=0)
        c.setFont("Helvetica-Bold", 14)
        c.drawString(72, y, printed)
        c.setFont("Helvetica", 11)
        c.drawString(72, y - 24, text)
        y -= 80
    c.save()
    docs, _ = ingest_corpus(tmp_path)
    assert _sections(docs[0]) == [
        "2.1 glp_intopt — solve MIP problem",          # the page's numbering, the outline's symbols
        "2.2 glp_warm_up — ``warm up'' LP basis",
        "2.3 The ‘...’ argument",                      # the page's typographic quotes stay
        "2.4 Setting limits"]                          # another word: the printed heading


@pytest.mark.parametrize("printed, title, expected", [
    ("2.7.6 glp cpx basis | construct Bixby’s basis", "glp_cpx_basis — construct Bixby's basis",
     "2.7.6 glp_cpx_basis — construct Bixby’s basis"),      # misread symbols only, per gap
    ("7.2 Verifying a package’s installation", "7.2 Verifying a package's installation",
     "7.2 Verifying a package’s installation"),
    ("3 Installation", "Chapter 3: Installation", "3 Installation"),
    ("1.2 INSTALLING", "1.2 Installing", "1.2 INSTALLING"),
    ("glpintopt", "glp_intopt", "glp_intopt"),               # a rule drawn with no space beside it
    ("5.9 Removing and reintro- ducing packages", "Removing and reintroducing packages",
     "5.9 Removing and reintroducing packages"),                # a wrapped title's break
    ("5.15.5 Uploads to stable- backports", "Uploads to stable-backports", "5.15.5 Uploads to stable-backports"),
    ("8.3 One- and two-sample tests", "One- and two-sample tests", "8.3 One- and two-sample tests"),
])
def test_authored_spelling_changes_misread_symbols_only(printed, title, expected):
    from ham.ingest.pdf_outline import authored_spelling

    assert authored_spelling(printed, title) == expected


@pytest.mark.parametrize("bookmark, printed, same", [
    ("2.3.2Tokens", "2.3.2 Tokens", True),          # OpenOffice's bookmarks glue the number to the title
    ("1.Overview", "1. Overview", True),
    ("2.4.5LL(1) Conflicts", "2.4.5 LL(1) Conflicts", True),
    ("Appendix A: Specifications", "A Specifications", True),
    ("3D Graphics", "Graphics", False),             # no dot: a name, not numbering
    ("Version 2.0Beta", "Beta", False),             # numbering opens a title only
])
def test_a_bookmark_matches_its_heading_with_its_numbering_set_aside(bookmark, printed, same):
    from ham.ingest.pdf_outline import title_key

    assert (title_key(bookmark) == title_key(printed)) is same
