"""HTML ingest of texinfo (makeinfo/texi2any) manuals: navigation panels, menus and tables of
contents, pilcrow links and footnotes; hand-written pages shaped like texinfo 6.8 and 7 output."""

from ham.ingest import ingest_corpus
from tests.ingest.helpers import heading_path, leaf_with, node_titled


def page(title: str, body: str, links: str = "", generator: str = "makeinfo") -> str:
    """A page as makeinfo writes it (``generator=""``: any other HTML)."""
    made_by = f'<!-- Created by GNU Texinfo -->\n<meta name="Generator" content="{generator}">' if generator else ""
    return (f'<!DOCTYPE html>\n<html>\n<head>\n<meta http-equiv="Content-Type" content="text/html; '
            f'charset=utf-8">\n<title>{title}</title>\n{made_by}\n{links}\n</head>\n'
            f'<body lang="en">\n{body}\n</body>\n</html>\n')


REL = {"n": "next", "p": "prev", "u": "up"}


def nav(next_=None, prev=None, up=None, rel=True) -> str:
    """Texinfo 6.8's navigation panel (the copy at the foot has no rel/accesskey attributes)."""
    parts = []
    for label, target, key in (("Next", next_, "n"), ("Previous", prev, "p"), ("Up", up, "u")):
        if target:
            attrs = f' accesskey="{key}" rel="{REL[key]}"' if rel else ""
            parts.append(f'{label}: <a href="{target}.html"{attrs}>{target}</a>')
    return ('<div class="header">\n<p>\n' + ", ".join(parts) + ' &nbsp; [<a href="index.html#SEC_Contents" '
            'title="Table of contents" rel="contents">Contents</a>]</p>\n</div>\n<hr>\n')


def head_links(**targets) -> str:
    return "\n".join(f'<link href="{t}.html" rel="{rel}" title="{t}">' for rel, t in targets.items())


TEXINFO6 = {
    "index.html": page("Top (Widget Manual)", f"""
<h1 class="settitle" align="center">Widget Manual</h1>
<p>Copyright &copy; 2024 The Widget Developers
</p>
<p>Permission is granted to make and distribute verbatim copies of this manual provided the
copyright notice and this permission notice are preserved on all copies.
</p>
<div class="top" id="Top">
{nav(next_="Using")}
<span id="SEC_Top"></span>
<p>This manual documents the widget tool. New users should read <a href="Installing.html">Installing</a>
before anything else.
</p>
<table class="menu" border="0" cellspacing="0">
<tr><td align="left" valign="top">&bull; <a href="Using.html" accesskey="1">Using</a>:</td><td>&nbsp;&nbsp;</td>
<td align="left" valign="top">How to use widgets.</td></tr>
<tr><td align="left" valign="top">&bull; <a href="Installing.html" accesskey="2">Installing</a>:</td>
<td>&nbsp;&nbsp;</td><td align="left" valign="top">Getting widgets onto a machine.</td></tr>
</table>
<div class="Contents_element" id="SEC_Contents">
<h2 class="contents-heading">Table of Contents</h2>
<div class="contents">
<ul class="no-bullet">
  <li><a id="toc-Using-1" href="Using.html">1 Using Widgets</a>
  <ul class="no-bullet">
    <li><a id="toc-Options-1" href="Options.html">1.1 Options</a></li>
  </ul></li>
  <li><a id="toc-Installing-1" href="Installing.html">2 Installing Widgets</a></li>
</ul>
</div>
</div>
</div>
<hr>
{nav(next_="Using", rel=False)}""", head_links(start="index", next="Using")),
    "Using.html": page("Using (Widget Manual)", f"""
<div class="chapter" id="Using">
{nav(next_="Installing", prev="index", up="index")}
<span id="Using-1"></span><h2 class="chapter">1 Using Widgets</h2>
<p>Widgets are run from the command line.
</p>
<dl compact="compact">
<dt id='index-verbose'><span><code>--verbose</code><a href='#index-verbose' class='copiable-anchor'> &para;</a></span></dt>
<dd><p>Print what is done.
</p></dd>
</dl>
<dl class="def">
<dt id="index-widget"><span class="category">: </span><span><em><var>w</var> =</em> <strong>widget</strong> <code>(<var>n</var>)</code><a href='#index-widget' class='copiable-anchor'> &para;</a></span></dt>
<dd><p>Make <var>n</var> widgets.
</p></dd></dl>
<ul class="section-toc">
<li><a href="Options.html" accesskey="1">Options</a></li>
</ul>
</div>
<hr>
{nav(next_="Installing", prev="index", up="index", rel=False)}""",
                       head_links(up="index", prev="index", next="Options")),
    "Options.html": page("Options (Widget Manual)", f"""
<div class="section" id="Options">
{nav(up="Using")}
<span id="Options-1"></span><h3 class="section">1.1 Options</h3>
<p>Options change how widgets are made <a id="DOCF1" href="#FOOT1"><sup>1</sup></a>.
</p>
<div class="footnote">
<hr>
<h4 class="footnotes-heading">Footnotes</h4>

<h5><a id="FOOT1" href="#DOCF1">(1)</a></h5>
<p>Some options need a licence.</p>
</div>
</div>
<hr>
{nav(up="Using", rel=False)}""", head_links(up="Using", prev="Using", next="Installing")),
    "Installing.html": page("Installing (Widget Manual)", f"""
<div class="chapter" id="Installing">
{nav(prev="Using", up="index")}
<span id="Installing-1"></span><h2 class="chapter">2 Installing Widgets</h2>
<p>Widgets install with the package manager.
</p>
</div>
<hr>
{nav(prev="Using", up="index", rel=False)}""", head_links(up="index", prev="Options")),
}


def write(tmp_path, pages):
    for name, html in pages.items():
        (tmp_path / name).write_text(html, encoding="utf-8")
    docs, report = ingest_corpus(tmp_path)
    assert report.problems == []
    assert len(docs) == 1
    return docs[0], report


def texts(doc):
    return [n.text for n in doc.leaves() if n.kind != "image"]


def test_texinfo_pages_nest_at_their_heading_depth_under_the_manual_title(tmp_path):
    doc, _ = write(tmp_path, TEXINFO6)
    # the top page's "Top (Widget Manual)" names the manual; its settitle heading is the title
    assert doc.title == "Widget Manual" and doc.source == "index.html"
    sections = [c for c in doc.root.children if c.kind == "section"]
    # chapters in the order of the menu, although the intro's cross-reference names Installing first
    assert [s.title for s in sections] == ["1 Using Widgets", "2 Installing Widgets"]
    assert [s.source for s in sections] == ["Using.html", "Installing.html"]
    # no heading made from a page's <title>: the page's own heading opens it
    assert not any("(Widget Manual)" in (n.title or "") for n in doc.root.walk())
    using = sections[0]
    # the child page goes under, and after the text of, its parent page's section
    assert [c.kind for c in using.children] == ["text", "text", "text", "subsection"]
    options = using.children[-1]
    assert options.title == "1.1 Options" and options.source == "Options.html"
    leaf = leaf_with(doc, "text", "Options change")
    assert heading_path(doc, leaf) == ["1 Using Widgets", "1.1 Options"]
    assert heading_path(doc, leaf_with(doc, "text", "package manager")) == ["2 Installing Widgets"]
    # the Top node's own text sits under the document, before the chapters
    assert doc.root.children[0].kind == "text"
    assert doc.root.children[0].text.startswith("This manual documents the widget tool.")


def test_texinfo_navigation_menus_and_contents_are_not_content(tmp_path):
    doc, report = write(tmp_path, TEXINFO6)
    leaves = texts(doc)
    for chrome in ("Next:", "Previous:", "Up:", "[Contents]", "Table of Contents", "How to use widgets",
                   "Getting widgets onto", "1 Using Widgets", "1.1 Options", "¶"):
        assert not any(chrome in t for t in leaves), chrome
    assert "Using:" not in leaves and "Options" not in leaves
    # where the menus and the table of contents sat is noted for the page tree
    assert report.excluded["index.html"]["table of contents"] == 2
    assert report.excluded["Using.html"]["table of contents"] == 1


def test_texinfo_copying_permission_notice_is_front_matter(tmp_path):
    doc, report = write(tmp_path, TEXINFO6)
    assert not any(t.startswith(("Copyright", "Permission is granted")) for t in texts(doc))
    assert report.excluded["index.html"]["front matter (copyright, credits)"] == 2


def test_texinfo_definitions_lose_the_pilcrow_and_the_empty_category(tmp_path):
    doc, _ = write(tmp_path, TEXINFO6)
    assert "--verbose: Print what is done." in texts(doc)
    assert "w = widget (n): Make n widgets." in texts(doc)


def test_texinfo_footnote_is_text_of_its_page_not_a_section(tmp_path):
    doc, _ = write(tmp_path, TEXINFO6)
    note = leaf_with(doc, "text", "need a licence")
    assert note.text == "(1) Some options need a licence."
    assert leaf_with(doc, "text", "Options change").text == "Options change how widgets are made (1)."
    assert heading_path(doc, note) == ["1 Using Widgets", "1.1 Options"]
    assert not any(n.title in ("Footnotes", "(1)") for n in doc.root.walk())


TEXINFO7 = {
    "index.html": page("Top (Gadget Manual)", """
<div class="top-level-extent" id="Top">
<div class="nav-panel">
<p>
Next: <a href="Using.html" accesskey="n" rel="next">Using</a> &nbsp; </p>
</div>
<h1 class="top" id="Gadget-Manual"><span>Gadget Manual<a class="copiable-link" href="#Gadget-Manual"> &para;</a></span></h1>
<p>Gadgets are small.</p>
<ul class="mini-toc">
<li><a href="Using.html" accesskey="1">Using</a></li>
</ul>
<div class="element-contents" id="SEC_Contents">
<h2 class="contents-heading">Table of Contents</h2>
<div class="contents">
<ul class="toc-numbered-mark">
  <li><a id="toc-Using-1" href="Using.html">1 Using Gadgets</a></li>
</ul>
</div>
</div>
</div>""", head_links(next="Using"), generator="texi2any"),
    "Using.html": page("Using (Gadget Manual)", """
<div class="chapter-level-extent" id="Using">
<div class="nav-panel">
<p>
Previous: <a href="index.html" accesskey="p" rel="prev">Top</a>, Up: <a href="index.html" accesskey="u" rel="up">Top</a> &nbsp; </p>
</div>
<hr>
<h2 class="chapter" id="Using-Gadgets"><span>1 Using Gadgets<a class="copiable-link" href="#Using-Gadgets"> &para;</a></span></h2>
<dl class="first-deffn">
<dt class="deffn" id="index-gadget"><span class="category-def">Command: </span><span><strong class="def-name">gadget</strong><a class="copiable-link" href="#index-gadget"> &para;</a></span></dt>
<dd><p>Runs a gadget<a class="footnote" id="DOCF1" href="#FOOT1"><sup>1</sup></a>.
</p></dd></dl>
</div>
<div class="footnotes-segment">
<hr>
<h4 class="footnotes-heading">Footnotes</h4>

<h5 class="footnote-body-heading"><a id="FOOT1" href="#DOCF1">(1)</a></h5>
<p>Only one at a time.</p>
</div>""", head_links(up="index", prev="index"), generator="texi2any"),
}


def test_texinfo7_nav_panel_mini_toc_copiable_links_and_footnotes(tmp_path):
    doc, report = write(tmp_path, TEXINFO7)
    assert doc.title == "Gadget Manual"
    assert [c.title for c in doc.root.children if c.kind == "section"] == ["1 Using Gadgets"]
    leaves = texts(doc)
    assert leaves == ["Gadgets are small.", "Command: gadget: Runs a gadget (1).", "(1) Only one at a time."]
    assert report.excluded["index.html"]["table of contents"] == 2
    assert node_titled(doc, "1 Using Gadgets").source == "Using.html"


def test_texinfo_classes_in_other_html_are_left_alone(tmp_path):
    # no makeinfo Generator: a div.header or div.contents is the page's own content
    (tmp_path / "page.html").write_text(page("A page", """
<h1>A page</h1>
<div class="header"><p>Next: the welcome banner text.</p></div>
<div class="contents"><p>Contents of the box.</p></div>
<p>See the notes<a class="copiable-anchor" href="#x"> &para;</a></p>""", generator=""), encoding="utf-8")
    docs, _ = ingest_corpus(tmp_path)
    leaves = [n.text for n in docs[0].leaves()]
    assert leaves == ["Next: the welcome banner text.", "Contents of the box.", "See the notes ¶"]


def redirect_stub(anchor: str, target: str) -> str:
    """The page makeinfo writes for every cross-reference anchor (2,356 of them in the Octave manual)."""
    return page(anchor, f'<p>The node you are looking for is at <a href="{target}#{anchor}">{anchor}</a>.</p>',
                f'<meta http-equiv="Refresh" content="0; url={target}#{anchor}">')


def printed_index(title: str, texinfo7: bool) -> str:
    """A page holding an @printindex: texinfo 6.8's ``table.index-fn``, texinfo 7's ``div.printindex``."""
    entry = '<tr><td></td><td valign="top"><a href="Options.html#index-verbose"><code>--verbose</code></a>:</td>' \
            '<td>&nbsp;</td><td valign="top"><a href="Options.html#Options">Options</a></td></tr>'
    table = (f'<div class="printindex fn-printindex"><table class="fn-entries-printindex">{entry}</table></div>'
             if texinfo7 else f'<table class="index-fn" border="0">{entry}</table>')
    return page(f"{title} (Widget Manual)", f'{nav(prev="Installing", up="index")}<h2 class="appendix">{title}</h2>'
                f'<p>Jump to: <a class="summary-letter" href="#Index_fn_letter-V"><b>V</b></a></p>{table}',
                head_links(up="index"))


def test_texinfo_redirect_stubs_and_printed_indexes_are_not_read(tmp_path):
    pages = dict(TEXINFO6)
    pages.update({"XREFverbose.html": redirect_stub("XREFverbose", "Using.html"),
                  "XREFoptions.html": redirect_stub("XREFoptions", "Options.html"),
                  "Function-Index.html": printed_index("Function Index", texinfo7=False),
                  "Operator-Index.html": printed_index("Operator Index", texinfo7=True)})
    for name, html in pages.items():
        (tmp_path / name).write_text(html, encoding="utf-8")
    docs, report = ingest_corpus(tmp_path)
    # one manual: no stub becomes a document of its own, no index's entries become its text
    assert len(docs) == 1
    assert not any("node you are looking for" in t or "--verbose:" == t or "Jump to" in t for t in texts(docs[0]))
    assert {p.file for p in report.problems} == {"Function-Index.html", "Operator-Index.html"}
    assert all(p.problem == "generated index or search page (navigation, not content)" for p in report.problems)
    assert report.excluded_totals()["redirect page"] == 2 and report.excluded["XREFverbose.html"]["redirect page"] == 1
    # the same manual without them reads the same
    clean = tmp_path / "clean"
    clean.mkdir()
    doc, _ = write(clean, TEXINFO6)
    assert texts(docs[0]) == texts(doc)


def test_a_page_that_only_reloads_itself_is_read(tmp_path):
    # a refresh without a URL reloads the page: its content is what the reader sees
    (tmp_path / "status.html").write_text(page("Status", "<h1>Status</h1><p>All systems normal.</p>",
                                               '<meta http-equiv="refresh" content="30">', generator=""),
                                          encoding="utf-8")
    docs, report = ingest_corpus(tmp_path)
    assert [n.text for n in docs[0].leaves()] == ["All systems normal."] and not report.excluded_totals()


def one_page_manual(index_in_chapter: bool = False) -> str:
    """A manual made with ``makeinfo --no-split`` (R's manuals): every node on one page, the
    ``<link rel="index">`` pointing into it, the Top node's heading repeating the title, and an
    index appendix (or, ``index_in_chapter``, an index printed at the end of a chapter with text)."""
    entry = '<tr><td></td><td valign="top"><a href="#index-plot"><code>plot</code></a>:</td>' \
            '<td>&nbsp;</td><td valign="top"><a href="#Plotting">Plotting</a></td></tr>'
    jump = ('<table summary=""><tr><th valign="top">Jump to: &nbsp; </th><td><a class="summary-letter" '
            'href="#Index_fn_letter-P"><b>P</b></a></td></tr></table>')
    index = f'{jump}<table class="index-fn" border="0">{entry}</table>{jump}'
    appendix = ("" if index_in_chapter else '<div class="appendix" id="Function-index">\n'
                f'{nav(prev="Plotting", up="Top")}<span id="Function-index-1"></span>'
                f'<h2 class="appendix">Appendix A Function index</h2>\n{index}\n</div>')
    return page("An Introduction to Gadgets", f"""
<h1 class="settitle" align="center">An Introduction to Gadgets</h1>
<div class="top" id="Top">
{nav(next_="Plotting")}
<span id="An-Introduction-to-Gadgets"></span><h1 class="top">An Introduction to Gadgets</h1>
<p>This manual introduces gadgets.</p>
</div>
<div class="chapter" id="Plotting">
{nav(next_="Function-index", prev="Top", up="Top")}
<span id="Plotting-1"></span><h2 class="chapter">1 Plotting</h2>
<p>Call plot to draw a gadget.</p>
{index if index_in_chapter else ""}
</div>
{appendix}""", '<link href="#Top" rel="start" title="Top">\n<link href="#Function-index" rel="index" title="Function index">')


def test_a_one_page_manual_is_read_without_its_printed_index(tmp_path):
    (tmp_path / "gadgets.html").write_text(one_page_manual(), encoding="utf-8")
    docs, report = ingest_corpus(tmp_path)
    # the page is not taken for its own index (its rel="index" points into it), and is read
    assert report.problems == [] and len(docs) == 1
    doc = docs[0]
    assert doc.title == "An Introduction to Gadgets"
    # the Top node's repeated title is no section: its text is the document's, chapters are sections
    assert [c.title for c in doc.root.children if c.kind == "section"] == ["1 Plotting"]
    assert doc.root.children[0].text == "This manual introduces gadgets."
    assert texts(doc) == ["This manual introduces gadgets.", "Call plot to draw a gadget."]
    assert not any("index" in (n.title or "").lower() for n in doc.root.walk())
    assert report.excluded["gadgets.html"]["printed index (@printindex)"] == 1


def test_an_index_printed_in_a_chapter_with_text_leaves_the_chapter(tmp_path):
    (tmp_path / "gadgets.html").write_text(one_page_manual(index_in_chapter=True), encoding="utf-8")
    docs, report = ingest_corpus(tmp_path)
    assert report.problems == [] and len(docs) == 1
    assert texts(docs[0]) == ["This manual introduces gadgets.", "Call plot to draw a gadget."]
    assert [c.title for c in docs[0].root.children if c.kind == "section"] == ["1 Plotting"]
    assert report.excluded["gadgets.html"]["printed index (@printindex)"] == 1


def texi2html_page(title: str, body: str) -> str:
    nav = ('<table cellpadding="1" cellspacing="1" border="0"><tr><td valign="middle" align="left">'
           '[<a href="gettext_2.html#SEC7" title="Next chapter"> &gt;&gt; </a>]</td><td> &nbsp; </td>'
           '<td>[<a href="gettext_toc.html#SEC_Top" title="Cover (top) of document">Top</a>]</td>'
           '<td>[<a href="gettext_abt.html#SEC_About" title="About (help)"> ? </a>]</td></tr></table>')
    footer = ('<p><font size="-1">This document was generated by <em>Bruno Haible</em> on <em>December, 31 2024</em>'
              ' using <a href="https://www.nongnu.org/texi2html/"><em>texi2html 1.78a</em></a>.</font></p>')
    return page(f"GNU gettext utilities: {title}", nav + body + nav + footer, generator="texi2html 1.78a")


def test_a_texi2html_manual_is_one_tree_without_its_navigation_bars(tmp_path):
    pages = {
        "gettext_toc.html": texi2html_page("GNU gettext utilities",
            '<h1 class="settitle">GNU <code>gettext</code> utilities</h1><a name="SEC_Contents"></a>'
            '<h1>Table of Contents</h1><div class="contents"><ul class="toc"><li><a name="TOC1" '
            'href="gettext_1.html#SEC1">1. Introduction</a></li></ul></div><a name="SEC_Top"></a>'
            '<p>This manual documents the GNU gettext tools.</p>'),
        "gettext_1.html": texi2html_page("1. Introduction",
            '<a name="SEC1"></a><h1 class="chapter"> <a href="gettext_toc.html#TOC1">1. Introduction</a> </h1>'
            '<p>Programs are written in English.</p><table><tr><td>&nbsp;</td><td><pre class="example">'
            '$ msginit\n$ msgfmt</pre></td></tr></table>'),
        "gettext_abt.html": texi2html_page("About This Document",
            '<h1>About This Document</h1><table><tr><th>Button</th><th>Name</th></tr>'
            '<tr><td>[ &lt; ]</td><td>Back</td></tr></table>'),
    }
    for name, html in pages.items():
        (tmp_path / name).write_text(html, encoding="utf-8")
    docs, report = ingest_corpus(tmp_path)
    assert len(docs) == 1
    doc = docs[0]
    assert doc.title == "GNU gettext utilities"
    assert [c.title for c in doc.root.children if c.kind == "section"] == ["1. Introduction"]
    leaves = [n.text for n in doc.leaves()]
    assert "$ msginit\n$ msgfmt" in leaves, "an example indented by an empty cell is text with its lines"
    assert not any(n.kind == "table" for n in doc.leaves())
    assert not any("generated by" in t or "[" in t for t in leaves)
    assert report.excluded["gettext_abt.html"]["navigation help page (texi2html's About This Document)"] == 1
    assert report.excluded["gettext_1.html"]["navigation panel"] == 3


def test_texinfo7_top_heading_and_unnumbered_headings_nest_as_the_manual_does(tmp_path):
    # MIT/GNU Scheme 12.1 (texinfo 7): the Top node's h1 lacks the version its <title> has, and a
    # section's page subdivides it with @heading, set as h3 like the section itself
    top = page("Top (Scheme 12.1)", '<div class="top-level-extent" id="Top"><h1 class="top" id="Scheme">Scheme</h1>'
               '<p>This manual documents Scheme.</p><ul class="mini-toc"><li><a href="Unix.html" accesskey="1">Unix'
               '</a></li></ul></div>', generator="texi2any")
    unix = page("Unix (Scheme 12.1)", '<div class="section-level-extent" id="Unix"><h3 class="section" id="Unix-1">'
                '1.1 Unix Installation</h3><p>Scheme runs on Unix.</p><h3 class="heading" id="Requirements">'
                'Requirements</h3><p>You need a C compiler.</p></div>',
                '<link href="index.html" rel="up" title="Top">', generator="texi2any")
    (tmp_path / "index.html").write_text(top, encoding="utf-8")
    (tmp_path / "Unix.html").write_text(unix, encoding="utf-8")
    docs, _ = ingest_corpus(tmp_path)
    assert len(docs) == 1 and docs[0].title == "Scheme 12.1"
    doc = docs[0]
    assert [c.title for c in doc.root.children if c.kind == "section"] == ["1.1 Unix Installation"]
    assert heading_path(doc, leaf_with(doc, "text", "C compiler")) == ["1.1 Unix Installation", "Requirements"]
