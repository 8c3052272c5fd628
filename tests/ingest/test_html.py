"""HTML ingest: DocBook (real GnuCash guide pages) and Sphinx manuals, chrome removal, charsets."""

import pytest
from PIL import Image

from ham.ingest import ingest_corpus
from tests.ingest.helpers import FIXTURES, heading_path, node_titled, leaf_with


@pytest.fixture(scope="module")
def docbook():
    docs, report = ingest_corpus(FIXTURES / "docbook")
    assert report.problems == []
    assert len(docs) == 1
    return docs[0]


@pytest.fixture(scope="module")
def sphinx():
    docs, report = ingest_corpus(FIXTURES / "sphinx")
    assert report.problems == []
    assert len(docs) == 1
    return docs[0]


# ----------------------------------------------------------------------------- DocBook

def test_docbook_pages_form_one_document_rooted_at_the_topmost_page(docbook):
    # index.html (the part page's up-link) is absent, so the part page is the root
    assert docbook.id == "part.managing_personal" and docbook.source == "part.managing_personal.html"
    assert docbook.title == "Part II. The Common Usage" and docbook.format == "html"


def test_docbook_sect2_nests_under_page_under_chapter_under_part(docbook):
    opening = node_titled(docbook, "5.5.1. Opening Balances")
    # the part page's heading is the document's title, not a section of its own: chapters are sections
    assert heading_path(docbook, opening) == ["Chapter 5. Checkbook", "5.5. Putting It All Together"]
    assert docbook.root.children[0].kind == "section" and opening.kind == "subsection"
    assert opening.source == "cbook-together1.html"
    chapter = node_titled(docbook, "Chapter 5. Checkbook")
    assert chapter.source == "chapter_cbook.html"
    # children pages follow the chapter's table of contents, after its own paragraphs
    kinds = [(c.kind, c.title) for c in chapter.children]
    assert kinds[:3] == [("text", "")] * 3
    assert [t for k, t in kinds[3:]] == ["5.2. Entering Deposits", "5.5. Putting It All Together"]


def test_docbook_units_keep_their_own_page_as_source(docbook):
    tip = leaf_with(docbook, "text", "Tax-Related box")
    assert tip.source == "cbook-deposits1.html"
    assert leaf_with(docbook, "text", "manage your checkbook").source == "chapter_cbook.html"


def test_docbook_navigation_toc_and_icons_are_not_content(docbook):
    texts = [n.text for n in docbook.leaves() if n.kind != "image"]
    for chrome in ("<<< Prev", "Next >>>", "Table of Contents", "5.3. Entering Withdrawals",
                   "5.1. Setting up Accounts", "Chapter 6. Expense Accounts"):
        assert not any(chrome in t for t in texts), chrome
    assert "Up" not in texts and "Home" not in texts
    images = [n.image for n in docbook.leaves() if n.kind == "image"]
    assert len(images) == 12 and all(i.startswith("figures/cbook_") for i in images)
    # the tip's text is kept, labelled, without its icon
    tip = leaf_with(docbook, "text", "Tax-Related box")
    assert tip.text.startswith("Tip: Be sure to check the Tax-Related box")


def test_docbook_figure_title_is_the_caption_of_its_image(docbook):
    image = leaf_with(docbook, "image", "cbook_checkexamp.png")
    title = "Figure 5.3. The Checking Account Register After Registering Some More Checks"
    caption = next(n for n in docbook.leaves() if n.text == title)
    assert image.caption.startswith(title + " This image shows") and caption.caption_of == image.id
    assert image.alt == "The Checking Account Register After Registering Some More Checks"
    assert image.image_path == "figures/cbook_checkexamp.png"
    other = leaf_with(docbook, "image", "cbook_atm.png")
    assert other.caption.startswith("Figure 5.4.")


def test_docbook_ordered_list_steps_hold_their_images(docbook):
    section = node_titled(docbook, "5.5.2. Add some transactions")
    steps = [c for c in section.children if c.kind == "step"]
    assert [s.title for s in steps] == ["Step 1", "Step 2", "Step 3"]
    step2_images = [c.image for c in steps[1].children if c.kind == "image"]
    assert step2_images == ["figures/cbook_checkexamp.png"]
    assert steps[1].children[0].text.startswith("Now let’s write some checks on this account.")
    # the text after the steps of 5.5.5 is back in the section, not in the last step
    reports = node_titled(docbook, "5.5.5. Reports")
    assert reports.children[-1].kind == "text" and reports.children[-1].text.startswith("Notice that")


# ----------------------------------------------------------------------------- Sphinx

def test_sphinx_pages_nest_by_up_link_and_breadcrumbs(sphinx):
    # the <title>'s " — Tallyscan 2.1 documentation" is the site's name: the h1 is the manual's title,
    # not a section holding the whole manual under a copy of it
    assert sphinx.id == "index" and sphinx.title == "Tallyscan User Guide"
    install = node_titled(sphinx, "Installation")  # no rel=up: parent from div.related breadcrumbs
    assert heading_path(sphinx, install) == []
    calibration = node_titled(sphinx, "Calibrating the sensor")  # rel=up to usage.html
    assert heading_path(sphinx, calibration) == ["Scanning receipts"]
    assert node_titled(sphinx, "Running the calibration").source == "calibration.html"
    # the index page's later section stays a top-level section after the child pages
    assert [c.title for c in sphinx.root.children if c.kind != "text"] == ["Installation", "Scanning receipts",
                                                                           "Indices and tables"]


def test_sphinx_chrome_is_not_content(sphinx):
    words = [n.text for n in sphinx.leaves()] + [n.title for n in sphinx.root.walk()]
    for chrome in ("¶", "Quick search", "Navigation", "Next topic", "Show Source", "Copyright",
                   "previous", "Contents:"):
        assert not any(chrome in w for w in words), chrome


def test_sphinx_figcaption_links_and_figure_in_step(sphinx):
    image = leaf_with(sphinx, "image", "scan-dialog.png")
    caption = next(n for n in sphinx.leaves() if n.caption_of == image.id)
    assert caption.text == "Fig. 2 The scan dialog." == image.caption
    assert image.alt == "The scan dialog with the Start button"
    step = sphinx.paths()[image.id][-2]
    assert step.kind == "step" and step.title == "Step 2"
    unnumbered = leaf_with(sphinx, "image", "calibration-target.png")
    assert unnumbered.caption == "The calibration target card."


def test_sphinx_table_admonition_and_code(sphinx):
    table = next(n for n in sphinx.leaves() if n.kind == "table")
    assert table.caption == "Table 1 Supported paper sizes"
    # the caption is part of the table's text, so it reaches every representation and prompt
    assert table.text.splitlines() == ["Table 1 Supported paper sizes", "Size | Width (mm) | Feed",
                                       "Till roll | 80 | single", "A6 | 105 | batch"]
    assert leaf_with(sphinx, "text", "Unplug").text == \
        "Note: Unplug the scanner before installing the driver, then plug it in again."
    assert leaf_with(sphinx, "text", "pip").text == "$ pip install tallyscan"


# ----------------------------------------------------------------------------- single pages

def test_declared_charsets_are_honoured(tmp_path):
    (tmp_path / "latin.html").write_bytes(
        b'<html><head><meta charset="iso-8859-1"><title>Caf\xe9</title></head>'
        b'<body><h1>Caf\xe9 menu</h1><p>Cr\xe8me br\xfbl\xe9e</p></body></html>')
    (tmp_path / "equiv.html").write_bytes(
        b'<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
        b'</head><body><p>It\x92s \x93quoted\x94</p></body></html>')
    docs, report = ingest_corpus(tmp_path)
    assert report.problems == []
    by_source = {d.source: d for d in docs}
    assert by_source["latin.html"].title == "Café"
    assert by_source["latin.html"].leaves()[0].text == "Crème brûlée"
    assert by_source["equiv.html"].leaves()[0].text == "It’s “quoted”"


def test_undecodable_page_is_reported_and_the_rest_still_parses(tmp_path):
    (tmp_path / "bad.html").write_bytes(b"<html><body><p>caf\xe9 \xff\xfe</p></body></html>")
    (tmp_path / "good.html").write_text("<html><body><p>fine</p></body></html>")
    docs, report = ingest_corpus(tmp_path)
    assert [d.source for d in docs] == ["good.html"]
    assert any(p.file == "bad.html" and "not valid utf-8" in p.problem for p in report.problems)


def test_remote_and_inline_images_are_reported_not_fetched(tmp_path):
    Image.new("RGB", (4, 4)).save(tmp_path / "local.png")
    (tmp_path / "page.html").write_text(
        '<html><body><h1>T</h1><p><img src="https://example.org/a.png" alt="remote"></p>'
        '<img src="data:image/png;base64,iVBORw0KGgo=" alt="inline"><img src="local.png"></body></html>')
    docs, report = ingest_corpus(tmp_path)
    images = [n for n in docs[0].leaves() if n.kind == "image"]
    assert [(i.image, i.image_path) for i in images] == [
        ("https://example.org/a.png", None), ("data:image/png;base64,…", None), ("local.png", "local.png")]
    messages = [str(p) for p in report.problems]
    assert any("page.html" in m and "https://example.org/a.png" in m and "not fetched" in m for m in messages)
    assert any("page.html" in m and "inline data" in m for m in messages)


def test_page_without_content_is_reported(tmp_path):
    (tmp_path / "empty.html").write_text(
        "<html><head><title>Nothing</title></head><body>"
        "<div class='navheader'><a href='x.html'>Next</a></div></body></html>")
    docs, report = ingest_corpus(tmp_path)
    assert docs == []
    assert "empty.html: no content found (no text and no image) (document skipped)" in \
        [str(p) for p in report.problems]


def test_sphinx_generated_index_page_is_not_content(tmp_path):
    head = '<head><link rel="index" title="Index" href="genindex.html" /></head>'
    (tmp_path / "genindex.html").write_text(f"<html>{head}<body><h1>Index</h1><p>A | B</p></body></html>")
    (tmp_path / "page.html").write_text(f"<html>{head}<body><h1>Page</h1><p>text</p></body></html>")
    docs, report = ingest_corpus(tmp_path)
    assert [d.source for d in docs] == ["page.html"]
    assert "genindex.html: generated index or search page (navigation, not content) (document skipped)" in \
        [str(p) for p in report.problems]


def test_a_search_page_is_its_own_rel_search_but_a_link_into_a_page_is_no_index_page(tmp_path):
    # Sphinx's search.html declares itself with href="#"; a one-page manual's rel="index" names an anchor
    (tmp_path / "search.html").write_text('<html><head><link rel="search" title="Search" href="#" /></head>'
                                          '<body><h1>Search</h1><p>Searching for multiple words.</p></body></html>')
    (tmp_path / "manual.html").write_text('<html><head><link rel="index" href="#Index" /></head><body>'
                                          '<h1>Manual</h1><p>text</p><h2 id="Index">Index</h2><p>A, B</p></body></html>')
    docs, report = ingest_corpus(tmp_path)
    assert [d.source for d in docs] == ["manual.html"]
    assert [str(p) for p in report.problems] == \
        ["search.html: generated index or search page (navigation, not content) (document skipped)"]


def test_without_up_links_or_breadcrumbs_the_listing_toctree_is_the_parent(tmp_path):
    """Themes such as alabaster write neither rel="up" nor breadcrumbs."""
    (tmp_path / "guide").mkdir()
    (tmp_path / "index.html").write_text(
        '<html><head><title>Manual</title><link rel="next" href="guide/usage.html"></head><body>'
        '<section><h1>Manual</h1><div class="toctree-wrapper compound"><ul>'
        '<li class="toctree-l1"><a class="reference internal" href="guide/usage.html">Usage</a><ul>'
        '<li class="toctree-l2"><a href="guide/deep.html">Deep</a></li></ul></li></ul></div>'
        "<p>Intro.</p></section></body></html>")
    (tmp_path / "guide" / "usage.html").write_text(
        '<html><body><section><h1>Usage</h1><p>How to use it.</p><div class="toctree-wrapper"><ul>'
        '<li class="toctree-l1"><a href="deep.html">Deep</a></li></ul></div></section></body></html>')
    (tmp_path / "guide" / "deep.html").write_text(
        "<html><body><section><h1>Deep</h1><p>Details.</p></section></body></html>")
    docs, report = ingest_corpus(tmp_path)
    assert report.problems == [] and len(docs) == 1
    deep = node_titled(docs[0], "Deep")
    assert heading_path(docs[0], deep) == ["Usage"]  # "Manual" is the document title
    assert deep.source == "guide/deep.html"


def test_a_docbook_reference_page_nests_its_sections_under_the_command(tmp_path):
    (tmp_path / "sql-commands.html").write_text(
        '<html><head><title>SQL Commands</title></head><body><div class="reference"><h1>SQL Commands</h1>'
        '<p>This part contains reference information for the SQL commands.</p>'
        '<div class="toc"><dl class="toc"><dt><a href="sql-createindex.html">CREATE INDEX</a></dt></dl></div>'
        '</div></body></html>')
    (tmp_path / "sql-createindex.html").write_text(
        '<html><head><title>CREATE INDEX</title><link rel="up" href="sql-commands.html"></head><body><div class="refentry">'
        '<div class="refnamediv"><h2><span class="refentrytitle">CREATE INDEX</span></h2>'
        '<p>CREATE INDEX — define a new index</p></div>'
        '<div class="refsynopsisdiv"><h2>Synopsis</h2><pre>CREATE INDEX name ON table</pre></div>'
        '<div class="refsect1"><h2>Parameters</h2><div class="refsect2"><h3>Index Storage Parameters</h3>'
        '<p>fillfactor controls how full the index pages are packed.</p></div></div></div></body></html>')
    docs, _ = ingest_corpus(tmp_path)
    leaf = leaf_with(docs[0], "text", "fillfactor controls")
    assert heading_path(docs[0], leaf)[-3:] == ["CREATE INDEX", "Parameters", "Index Storage Parameters"]


def test_a_docbook_image_description_belongs_to_its_image_not_to_the_text(tmp_path):
    """DocBook's ``div.mediaobject > div.caption`` describes the image: it joins the image's caption
    after the figure title and is no text leaf (it took 3 of 15 text slots in a demo question)."""
    Image.new("RGB", (8, 8)).save(tmp_path / "reg.png")
    (tmp_path / "page.html").write_text(
        '<html><head><title>Registers</title></head><body><div class="sect1"><h2>Registers</h2>'
        '<p>Open the register.</p><div class="figure"><p class="title"><b>Figure 2.1. The Register</b></p>'
        '<div class="figure-contents"><div class="mediaobject"><img src="reg.png" alt="The Register">'
        '<div class="caption"><p>This image shows the register with two splits.</p></div></div></div></div>'
        '<p>Then close it.</p></div></body></html>')
    docs, report = ingest_corpus(tmp_path)
    assert report.problems == []
    image = leaf_with(docs[0], "image", "reg.png")
    assert image.caption == "Figure 2.1. The Register This image shows the register with two splits."
    assert image.label == "Figure 2.1"
    assert not [n for n in docs[0].leaves() if n.kind == "text" and "This image shows" in n.text]


XHTML_TABLE = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Tutorials</title>
<meta name="generator" content="DocBook XSL Stylesheets Vsnapshot"/></head><body>
<div class="chapter"><h1 class="title"><a id="tutorials"/>Chapter 1. Tutorials</h1>
<p>Some packages help.</p>
<div class="table"><a id="listofpackages"/><p class="title"><strong>Table 1.1. List of packages</strong></p>
<div class="table-contents"><table><tr><th>package</th><th>size</th></tr><tr><td>mc</td><td>1482</td></tr></table></div>
</div><br class="table-break"/>
<p>After the table.</p></div></body></html>"""


def test_an_xhtml_page_closes_its_empty_anchors_so_a_table_keeps_its_caption(tmp_path):
    # DocBook XSL's XHTML saved as .html: an HTML parser reads <a id="x"/> as an open anchor
    (tmp_path / "ch01.html").write_text(XHTML_TABLE, encoding="utf-8")
    docs, report = ingest_corpus(tmp_path)
    table = next(n for n in docs[0].leaves() if n.kind == "table")
    assert table.caption == "Table 1.1. List of packages"
    assert [n.text for n in docs[0].leaves() if n.kind == "text"] == ["Some packages help.", "After the table."]
    # an HTML page is left to the HTML parser; void elements stay as they are
    from ham.ingest.html_decode import xhtml_as_html
    assert xhtml_as_html('<p><a id="x"/>text</p>') == '<p><a id="x"/>text</p>'
    assert xhtml_as_html('<?xml version="1.0"?><p><a id="x"/><br/>t</p>') == '<?xml version="1.0"?><p><a id="x"></a><br/>t</p>'


def test_pages_listed_after_a_hidden_toctree_go_to_that_section(tmp_path):
    # Scrapy's index: each section's toctree is :hidden: (an empty wrapper) and a dl lists its pages
    def section(name, pages):
        items = "".join(f'<dt><a class="reference internal" href="{p}.html">{p}</a></dt><dd><p>About {p}.</p></dd>'
                        for p in pages)
        return (f'<section id="{name}"><h2>{name}</h2><div class="toctree-wrapper compound">\n</div>\n'
                f'<dl class="simple">{items}</dl></section>')
    (tmp_path / "index.html").write_text(f'<html><head><title>Tool</title></head><body><section><h1>Tool</h1>'
                                         f'{section("Basics", ["spiders"])}{section("Extending", ["signals"])}'
                                         '</section></body></html>')
    for name in ("spiders", "signals"):
        (tmp_path / f"{name}.html").write_text(f'<html><head><link rel="up" href="index.html"/></head><body>'
                                               f'<h1>{name}</h1><p>{name} text.</p></body></html>')
    docs, _ = ingest_corpus(tmp_path)
    assert len(docs) == 1
    assert heading_path(docs[0], leaf_with(docs[0], "text", "spiders text")) == ["Basics", "spiders"]
    assert heading_path(docs[0], leaf_with(docs[0], "text", "signals text")) == ["Extending", "signals"]


def test_a_tab_panel_says_which_tab_it_is(tmp_path):
    # sphinx-tabs: the labels are buttons (chrome); each panel is linked to its button by aria-labelledby
    tabs = ('<div class="sphinx-tabs docutils container"><div role="tablist">'
            '<button class="sphinx-tabs-tab" id="tab-0-QmFzaA==" role="tab">Bash</button>'
            '<button class="sphinx-tabs-tab" id="tab-0-Q01E" role="tab">CMD</button></div>'
            '<div aria-labelledby="tab-0-QmFzaA==" class="sphinx-tabs-panel" role="tabpanel">'
            '<div class="highlight"><pre><span></span>$ export PORT=8000\n</pre></div></div>'
            '<div aria-labelledby="tab-0-Q01E" class="sphinx-tabs-panel" role="tabpanel" hidden="true">'
            '<p>Set it first.</p><div class="highlight"><pre>&gt; set PORT=8000\n</pre></div></div></div>')
    (tmp_path / "cli.html").write_text(f"<html><body><h1>CLI</h1><p>Choose the port.</p>{tabs}</body></html>")
    docs, report = ingest_corpus(tmp_path)
    assert [n.text for n in docs[0].leaves()] == ["Choose the port.", "Bash:\n$ export PORT=8000",
                                                  "CMD: Set it first.", "> set PORT=8000"]
    assert report.excluded["cli.html"]["tab labels (put in front of their panels)"] == 2


def test_a_page_inside_a_form_is_read_and_a_buttons_label_stays_in_its_sentence(tmp_path):
    # ASP.NET writes the whole body in <form id="form1">; a manual names the buttons it shows
    (tmp_path / "help.html").write_text(
        '<html><head><title>Widget Help</title></head><body><form id="form1" method="post" action="help.aspx">'
        '<input type="hidden" name="__VIEWSTATE" value="x"><h1>Widget Help</h1><h2>Configure</h2>'
        '<p>Press <button>OK</button> to confirm, or choose <select><option>Fast</option>'
        '<option selected>Slow</option></select> mode.</p>'
        '<table><tr><td><button type="button">Apply</button></td><td>Saves the settings.</td></tr></table>'
        '</form></body></html>')
    (tmp_path / "keys.html").write_text(
        '<html><head><title>Keys</title></head><body><div class="search"><form action="search.aspx">'
        '<input name="q"><button>Search</button></form></div><div class="theme"><button>Dark mode</button></div>'
        '<ul id="mdbook-theme-list" role="menu"><li role="none"><button role="menuitem">Coal</button></li>'
        '<li role="none"><button role="menuitem">Navy</button></li></ul>'
        '<h1>Keys</h1><form action="licence"><p>Enter the licence key you received by email.</p>'
        '<input name="key"></form></body></html>')
    docs, report = ingest_corpus(tmp_path)
    texts = {n.text for doc in docs for n in doc.leaves()}
    assert {"Press OK to confirm, or choose Slow mode.", "Apply | Saves the settings.",
            "Enter the licence key you received by email."} <= texts, texts
    assert not any(word in t for t in texts for word in ("Search", "Dark mode", "Coal")), \
        "a search box, a lone button and a theme menu (mdBook's) are chrome"
    assert report.excluded["keys.html"] == {"form without content (search box)": 1,
                                            "button or select outside text": 3}
    assert "help.html" not in report.excluded, report.excluded


def test_a_hevea_title_is_the_documents_title_and_its_authors_are_credits(tmp_path):
    (tmp_path / "user.html").write_text(
        '<html><head><meta name="generator" content="hevea 2.36"><title>user</title></head><body>'
        '<table class="title"><tr><td style="padding:1ex"><h1 class="titlemain">Free Pascal<br>User\'s Guide</h1>'
        '<h3 class="titlerest">Michael Van Canneyt</h3><h3 class="titlerest">March 2023</h3></td></tr></table>'
        '<h1 id="sec1" class="chapter">Chapter 1 Introduction</h1><p>This is the guide.</p></body></html>')
    docs, report = ingest_corpus(tmp_path)
    doc = docs[0]
    assert doc.title == "Free Pascal User's Guide"
    assert [c.title for c in doc.root.children if c.kind == "section"] == ["Chapter 1 Introduction"]
    assert not any(n.title in ("Michael Van Canneyt", "March 2023") for n in doc.root.walk())
    assert report.excluded["user.html"]["front matter (copyright, credits)"] == 2


def test_html_among_sphinx_static_files_is_no_page_of_the_manual(tmp_path):
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "sample.html").write_text("<html><body><h1>Example website</h1><p>x</p></body></html>")
    (tmp_path / "index.html").write_text("<html><body><h1>Manual</h1><p>text</p></body></html>")
    docs, report = ingest_corpus(tmp_path)
    assert [d.source for d in docs] == ["index.html"]
    assert report.excluded["_static/sample.html"]["Sphinx static file (_static/)"] == 1


def test_sphinx_theme_boxes_around_the_content_are_chrome(tmp_path):
    # pydata-sphinx-theme (Groonga): "On this page", "Edit this page", the previous/next links
    (tmp_path / "community.html").write_text(
        '<html><body><div class="bd-content"><h1>Community</h1><p>Join the mailing list.</p>'
        "<div class='prev-next-area'><a class='left-prev' href='others.html'><div class='prev-next-info'>"
        '<p class="prev-next-subtitle">previous</p><p class="prev-next-title">Others</p></div></a></div></div>'
        '<div class="bd-toc"><div class="tocsection onthispage">On this page</div></div>'
        '<div class="tocsection editthispage"><a href="https://example.org/edit">Edit this page</a></div>'
        '<div class="related-pages"><a class="next-page" href="x.html">Next Tutorial</a></div>'
        '<div class="edit-this-page"><a href="https://example.org/e">Edit this page</a></div></body></html>')
    docs, _ = ingest_corpus(tmp_path)
    assert [n.text for n in docs[0].leaves()] == ["Join the mailing list."]


def test_a_contents_section_holding_the_toctree_is_where_the_pages_go(tmp_path):
    # Jansson (alabaster): "Introduction", then a "Contents" section whose toctree lists the pages
    (tmp_path / "index.html").write_text(
        '<html><head><title>Jansson</title></head><body><section><h1>Jansson</h1>'
        '<section id="introduction"><h2>Introduction</h2><p>Jansson is a C library.</p></section>'
        '<section id="contents"><h2>Contents</h2><div class="toctree-wrapper compound"><ul>'
        '<li class="toctree-l1"><a class="reference internal" href="tutorial.html">Tutorial</a></li></ul></div>'
        '</section></section></body></html>')
    (tmp_path / "tutorial.html").write_text('<html><head><link rel="up" href="index.html"/></head><body>'
                                            '<h1>Tutorial</h1><p>Decode a string.</p></body></html>')
    docs, _ = ingest_corpus(tmp_path)
    assert len(docs) == 1
    assert heading_path(docs[0], leaf_with(docs[0], "text", "Decode a string")) == ["Contents", "Tutorial"]


def test_a_figures_image_framed_in_a_table_keeps_the_figures_caption(tmp_path):
    # DocBook XSL (Wireshark's guide) frames a scaled image in a one-cell "manufactured viewport" table
    Image.new("RGB", (40, 30), "white").save(tmp_path / "ws-main.png")
    (tmp_path / "index.html").write_text(
        '<html><body><h1>Features</h1><div class="figure"><p class="title"><b>Figure 1.1. Wireshark captures '
        'packets.</b></p><div class="figure-contents"><div class="mediaobject"><table border="0" summary="manufactured '
        'viewport for HTML img"><tr><td><img src="ws-main.png" width="100%" alt="ws main"></td></tr></table></div>'
        '</div></div><p>Next paragraph.</p></body></html>')
    docs, _ = ingest_corpus(tmp_path)
    leaves = docs[0].leaves()
    assert not any(n.kind == "table" for n in leaves)
    image = next(n for n in leaves if n.kind == "image")
    assert image.caption == "Figure 1.1. Wireshark captures packets."


def test_pod2html_contents_list_and_one_cell_banner(tmp_path):
    # pod2html: an in-page contents list ul#index (nested for subsections) and a one-cell title box
    (tmp_path / "Shift.html").write_text(
        '<html><head><title>Shift</title></head><body><table border="0" width="100%" cellspacing="0" cellpadding="3">'
        '<tr><td class="_podblock_"><big><strong><span class="_podblock_">&nbsp;ExifTool Shift Module</span>'
        '</strong></big></td></tr></table><ul id="index"><li><a href="#NAME">NAME</a></li><li><a href="#METHODS">'
        'METHODS</a><ul><li><a href="#ShiftTime">ShiftTime</a></li></ul></li></ul>'
        '<h1 id="NAME">NAME</h1><p>Image::ExifTool::Shift.pl - time shifting routines</p>'
        '<h1 id="METHODS">METHODS</h1><h2 id="ShiftTime">ShiftTime</h2><p>Shift date/time value</p></body></html>')
    docs, report = ingest_corpus(tmp_path)
    leaves = docs[0].leaves()
    assert not any(n.kind == "table" for n in leaves)
    assert [n.text for n in leaves] == ["ExifTool Shift Module", "Image::ExifTool::Shift.pl - time shifting routines",
                                        "Shift date/time value"]
    assert report.excluded["Shift.html"]["table of contents"] == 1


GROFF_HEAD = ('<html><head><meta name="generator" content="groff -Thtml, see www.gnu.org">'
              '<title>{title}</title></head><body>')


def test_groff_pages_join_by_their_bars_and_a_man_pages_section_links_are_its_contents(tmp_path):
    bar = '<hr>\n[ <a href="pic-1.html">prev</a> | <a href="pic.html">top</a> ]\n<hr>\n'
    (tmp_path / "pic.html").write_text(GROFF_HEAD.format(title="Making Pictures With GNU PIC")
                                       + '<h1 align="center">Making Pictures With GNU PIC</h1><p>The pic language.</p>'
                                       + "</body></html>")
    (tmp_path / "pic-1.html").write_text(GROFF_HEAD.format(title="pic-1.html") + bar.replace(
        '<a href="pic-1.html">prev</a> | ', "") + '<h2>1. Introduction to PIC</h2><p>Pic draws.</p>' + bar
        + "</body></html>")
    (tmp_path / "pic-2.html").write_text(GROFF_HEAD.format(title="pic-2.html") + bar
                                         + '<h2>2. Invoking PIC</h2><p>Run pic.</p>' + bar + "</body></html>")
    (tmp_path / "autopoint.1.html").write_text(
        GROFF_HEAD.format(title="AUTOPOINT") + '<h1 align="center">AUTOPOINT</h1><a href="#NAME">NAME</a><br>'
        '<a href="#SYNOPSIS">SYNOPSIS</a><br><hr><h2>NAME<a name="NAME"></a></h2><p>autopoint - copies files</p>'
        '<h2>SYNOPSIS<a name="SYNOPSIS"></a></h2><p>autopoint [OPTION]...</p></body></html>')
    docs, report = ingest_corpus(tmp_path)
    by_source = {d.source: d for d in docs}
    assert sorted(by_source) == ["autopoint.1.html", "pic.html"]
    pic = by_source["pic.html"]
    assert [c.title for c in pic.root.children if c.kind == "section"] == ["1. Introduction to PIC", "2. Invoking PIC"]
    assert not any("prev" in n.text or "top" == n.text.strip("[] |") for n in pic.leaves())
    man = by_source["autopoint.1.html"]
    assert [n.text for n in man.leaves()] == ["autopoint - copies files", "autopoint [OPTION]..."]
    assert report.excluded["autopoint.1.html"]["table of contents"] == 1


def test_a_pandoc_title_block_is_left_out_and_counted(tmp_path):
    (tmp_path / "bup-bloom.1.html").write_text(
        '<html><head><title>bup-bloom(1) Bup 0.33.7</title></head><body><header id="title-block-header">'
        '<h1 class="title">bup-bloom(1) Bup 0.33.7</h1><p class="author">Brandon Low</p><p class="date">2025-02-02</p>'
        '</header><h1 id="name">NAME</h1><p>bup-bloom - generates, regenerates, updates bloom filters</p></body></html>')
    docs, report = ingest_corpus(tmp_path)
    assert docs[0].title == "bup-bloom(1) Bup 0.33.7"
    assert [n.text for n in docs[0].leaves()] == ["bup-bloom - generates, regenerates, updates bloom filters"]
    assert report.excluded["bup-bloom.1.html"]["page header (site banner, title block)"] == 1
