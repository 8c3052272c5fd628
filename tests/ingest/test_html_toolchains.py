"""HTML ingest of toolchains met in Debian's HTML manuals (Publican, AsciiDoc/Asciidoctor, MkDocs,
Sphinx, Doxygen-style definition lists): their chrome, definition lists, headings with inline
markup, figures of several images and title pages. Hand-written pages shaped like their output."""

from PIL import Image

from ham.ingest import ingest_corpus
from tests.ingest.helpers import heading_path, leaf_with, node_titled


def html(title: str, body: str, head: str = "") -> str:
    return f"<html><head><title>{title}</title>{head}</head><body>{body}</body></html>"


def one_doc(tmp_path, pages: dict[str, str]):
    for name, text in pages.items():
        (tmp_path / name).write_text(text)
    docs, report = ingest_corpus(tmp_path)
    assert len(docs) == 1, [d.source for d in docs]
    return docs[0], report


def texts(doc) -> list[str]:
    return [n.text for n in doc.leaves() if n.kind == "text"]


def test_inline_markup_in_a_heading_is_read_as_the_page_shows_it(tmp_path):
    doc, _ = one_doc(tmp_path, {"page.html": html("Log", (
        "<h1>Manual</h1><h2>5.4. <code>dpkg</code>'s Log File</h2><p>It logs.</p>"
        "<h2>Sorting Rows (<code class='literal'>ORDER BY</code>)</h2><p>It sorts.</p>"
        "<h2>Fan<b>out</b> and <em> spaced </em>words</h2><p>Third.</p>"))})
    assert heading_path(doc, leaf_with(doc, "text", "It logs."))[-1] == "5.4. dpkg's Log File"
    assert heading_path(doc, leaf_with(doc, "text", "It sorts."))[-1] == "Sorting Rows (ORDER BY)"
    assert heading_path(doc, leaf_with(doc, "text", "Third."))[-1] == "Fanout and spaced words"


def test_a_definition_term_goes_on_the_first_block_of_its_own_definition(tmp_path):
    """A term whose definition opens with code, a table or a list used to be carried to the next
    definition's text, piling terms up ("Start from a tag: Delete a branch: Note on deletion.")."""
    doc, _ = one_doc(tmp_path, {"page.html": html("Examples", (
        "<h1>Examples</h1><dl>"
        "<dt>Start from a tag</dt><dd><pre>$ git checkout v1.0</pre><p>Note on the tag.</p></dd>"
        "<dt>Delete a branch</dt><dd><pre>$ git branch -d topic</pre></dd>"
        "<dt>List the steps</dt><dd><ol><li><p>Fetch.</p><pre>$ git fetch</pre></li><li><p>Merge.</p></li></ol></dd>"
        "<dt>Short list</dt><dd><ol><li>one</li><li>two</li></ol></dd>"
        "<dt>Only a picture</dt><dd><img src='missing.png'></dd>"
        "<dt><code>--debug</code></dt><dt><code>-d</code></dt><dd><p>Debug mode.</p></dd>"
        "</dl>"))})
    leaves = texts(doc)
    assert "Start from a tag:\n$ git checkout v1.0" in leaves
    assert "Note on the tag." in leaves
    assert "Delete a branch:\n$ git branch -d topic" in leaves
    assert "List the steps: 1. Fetch." in leaves
    assert "Short list: 1. one\n2. two" in leaves
    assert "Only a picture" in leaves
    assert "--debug: -d: Debug mode." in leaves
    assert not [t for t in leaves if t.count(":") > 2 and "Debug" not in t]


def test_a_sphinx_field_term_keeps_its_own_colon_and_a_term_names_its_table(tmp_path):
    doc, _ = one_doc(tmp_path, {"page.html": html("API", (
        "<h1>API</h1><dl class='field-list simple'>"
        "<dt class='field-odd'>Parameters<span class='colon'>:</span></dt>"
        "<dd class='field-odd'><p><strong>name</strong> – the template name</p></dd></dl>"
        "<dl class='params'><dt>Parameters</dt><dd><table class='params'>"
        "<tr><td>doc</td><td>the document to read</td></tr></table></dd></dl>"))})
    assert "Parameters: name – the template name" in texts(doc)
    assert not [t for t in texts(doc) if "::" in t or t == "Parameters"]
    table = next(n for n in doc.leaves() if n.kind == "table")
    assert table.caption == "Parameters" and "doc | the document to read" in table.text


def test_publican_asciidoc_and_mkdocs_chrome_is_not_content(tmp_path):
    publican = '<meta name="generator" content="publican v4.3.2" />'
    docnav = ('<ul class="docnav"><li class="previous"><a href="a.html"><strong>Prev</strong>Chapter 1</a></li>'
              '<li class="next"><a href="c.html"><strong>Next</strong>6.3. The next page</a></li></ul>')
    Image.new("RGB", (300, 200)).save(tmp_path / "logo.png")
    (tmp_path / "publican.html").write_text(html("6.2. Commands", (
        '<div id="banner"><a href="get/"><span class="text">Download the ebook</span></a></div>'
        '<p id="title"><a class="left" href="site/"><img alt="Product Site" src="logo.png" /></a></p>'
        f'<ul class="docnav top">{docnav}</ul><div class="section"><h2>6.2. Commands</h2>'
        f'<p>Install packages with apt.</p></div>{docnav}'), publican))
    (tmp_path / "asciidoc.html").write_text(html("git-commit(1)", (
        '<div id="content"><h1>git-commit(1)</h1><p>Record changes.</p></div>'
        '<div id="footer"><div id="footer-text">Last updated 2024-05-31 00:35:55 UTC</div></div>')))
    (tmp_path / "mkdocs.html").write_text(html("Getting Started", (
        '<div class="navbar fixed-top"><div class="container"><a href="index.html">Home</a>'
        '<ul><li><a href="user-guide.html">User Guide</a></li></ul></div></div>'
        '<div class="row"><div class="col-md-3"><div class="navbar-light bs-sidebar"><ul><li>'
        '<a href="#install">Installation</a></li></ul></div></div>'
        '<div class="col-md-9" role="main"><h1>Getting Started</h1><p>Install MkDocs first.</p></div></div>'
        '<div class="modal" id="mkdocs_search_modal" role="dialog"><div class="modal-header">'
        '<h4 class="modal-title">Search</h4></div><div class="modal-body"><p>From here you can search.</p>'
        '</div></div>')))
    docs, report = ingest_corpus(tmp_path)
    leaves = [t for d in docs for t in texts(d)]
    assert sorted(leaves) == ["Install MkDocs first.", "Install packages with apt.", "Record changes."]
    assert not [n for d in docs for n in d.leaves() if n.kind == "image"]
    assert not [n for d in docs for n in d.root.walk() if n.title == "Search"]   # the search dialog's h4
    publican_doc = next(d for d in docs if d.source == "publican.html")
    assert heading_path(publican_doc, leaf_with(publican_doc, "text", "Install packages")) == []


def test_a_logo_line_is_chrome_only_on_publican_pages(tmp_path):
    (tmp_path / "page.html").write_text(html("Intro", '<p id="title">Welcome to the widget guide.</p><h1>Intro</h1>'))
    doc, _ = one_doc(tmp_path, {})
    assert "Welcome to the widget guide." in texts(doc)


def test_sphinx_module_index_and_404_pages_are_not_content(tmp_path):
    doc, report = one_doc(tmp_path, {
        "index.html": html("Jinja", "<h1>Jinja</h1><p>A template engine.</p>"),
        "py-modindex.html": html("Python Module Index", (
            '<h1>Python Module Index</h1><table class="indextable modindextable">'
            '<tr><td>j</td><td><a href="api.html#module-jinja2">jinja2</a></td></tr></table>'),
            '<link rel="up" href="index.html">'),
        "404.html": html("Page Not Found", "<h1>Page Not Found</h1><p>Sorry, this page does not exist.</p>",
                         '<link rel="up" href="index.html">')})
    assert doc.source == "index.html" and texts(doc) == ["A template engine."]
    problems = [str(p) for p in report.problems]
    assert "py-modindex.html: generated index or search page (navigation, not content) (document skipped)" in problems
    assert report.excluded["404.html"]["error page (404.html)"] == 1


def test_every_image_of_a_figure_gets_its_caption_wherever_the_caption_sits(tmp_path):
    for name in ("lang.png", "lang-txt.png", "kbd.png", "kbd-txt.png", "alone.png"):
        Image.new("RGB", (300, 200)).save(tmp_path / name)
    doc, _ = one_doc(tmp_path, {"page.html": html("Install", (
        '<h1>Install</h1><div class="figure"><div class="figure-contents">'
        '<div class="mediaobject"><img src="lang.png" alt="Language"></div>'
        '<div class="mediaobject"><img src="lang-txt.png" alt="Language"></div></div>'
        '<p class="title"><strong>Figure 4.2. Selecting the language</strong></p></div>'
        '<div class="figure"><p class="title"><strong>Figure 4.3. Keyboard</strong></p>'
        '<div class="figure-contents"><div class="mediaobject"><img src="kbd.png" alt="Keyboard"></div>'
        '<div class="mediaobject"><img src="kbd-txt.png" alt="Keyboard"></div></div></div>'
        '<p>Then reboot.</p><p><img src="alone.png" alt="Done"></p>'))})
    images = {n.image: n for n in doc.leaves() if n.kind == "image"}
    assert images["lang.png"].caption == images["lang-txt.png"].caption == "Figure 4.2. Selecting the language"
    assert images["kbd.png"].caption == images["kbd-txt.png"].caption == "Figure 4.3. Keyboard"
    assert images["lang.png"].label == "Figure 4.2" and images["kbd-txt.png"].label == "Figure 4.3"
    assert images["alone.png"].caption == ""
    captions = {n.text: n.caption_of for n in doc.leaves() if n.kind == "text" and n.caption_of}
    assert captions == {"Figure 4.2. Selecting the language": images["lang-txt.png"].id,
                        "Figure 4.3. Keyboard": images["kbd.png"].id}


def test_a_title_page_line_above_the_book_title_does_not_push_the_book_down_a_level(tmp_path):
    publican = '<meta name="generator" content="publican v4.3.2" />'
    doc, _ = one_doc(tmp_path, {
        "index.html": html("The Handbook", (
            '<div class="book"><div class="titlepage"><div class="producttitle"><span>Debian</span> '
            '<span>11</span></div><h1 class="title">The Handbook</h1></div>'
            '<div class="toc"><dl class="toc"><dt><a href="apt.html">Chapter 6. APT</a></dt></dl></div></div>'), publican),
        "apt.html": html("Chapter 6. APT", '<div class="chapter"><h2>Chapter 6. APT</h2><p>Use apt.</p></div>',
                         publican + '<link rel="up" href="index.html">')})
    assert doc.title == "The Handbook"
    assert heading_path(doc, leaf_with(doc, "text", "Use apt.")) == ["Chapter 6. APT"]
    assert "Debian 11" in texts(doc)
    assert not [n for n in doc.root.walk() if n is not doc.root and n.title == "The Handbook"]
    assert node_titled(doc, "Chapter 6. APT") in doc.root.children


def test_an_asciidoc_callout_list_is_numbered_text_not_procedure_steps(tmp_path):
    doc, _ = one_doc(tmp_path, {"page.html": html("git-checkout(1)", (
        "<h1>git-checkout(1)</h1><div class='listingblock'><div class='content'><pre><code>"
        "$ git checkout -b foo   <b>&lt;1&gt;</b>\n$ git tag foo   <b>&lt;2&gt;</b></code></pre></div></div>"
        "<div class='colist arabic'><ol><li><p>Create a new branch foo and switch to it.</p></li>"
        "<li><p>Create a tag foo, leaving HEAD detached.</p></li></ol></div>"))})
    assert not [n for n in doc.root.walk() if n.kind == "step"]
    assert "1. Create a new branch foo and switch to it.\n2. Create a tag foo, leaving HEAD detached." in texts(doc)


def test_a_docbook_example_or_sidebar_title_leads_its_first_block(tmp_path):
    doc, _ = one_doc(tmp_path, {"page.html": html("Indexes", (
        "<h1>Indexes</h1><div class='example'><p class='title'><strong>Example 11.1. A Partial "
        "<code>Index</code></strong></p><div class='example-contents'><pre class='programlisting'>"
        "CREATE INDEX ON t (a) WHERE b;</pre><p>Queries on b use it.</p></div></div>"
        "<div class='sidebar'><div class='titlepage'><div><div><p class='title'><strong><em>TIP</em> "
        "Incremental updates</strong></p></div></div></div><div class='para'>Only the changes are fetched.</div></div>"
        "<p>After the boxes.</p>"))})
    leaves = texts(doc)
    assert "Example 11.1. A Partial Index:\nCREATE INDEX ON t (a) WHERE b;" in leaves
    assert "TIP Incremental updates: Only the changes are fetched." in leaves
    assert "Queries on b use it." in leaves and "After the boxes." in leaves
    assert not [t for t in leaves if t.startswith(("Example 11.1", "TIP")) and ":" not in t]


SPHINX_API = (
    "<section id='api'><h1>API</h1><p>The high-level API.</p>"
    "<dl class='py class'><dt class='sig sig-object py' id='pkg.Environment'><em class='property'>"
    "<span class='pre'>class</span> </em><span class='sig-prename descclassname'><span class='pre'>pkg.</span></span>"
    "<span class='sig-name descname'><span class='pre'>Environment</span></span><span class='sig-paren'>(</span>"
    "<em class='sig-param'>options</em><span class='sig-paren'>)</span></dt>"
    "<dd><p>The core component.</p>"
    "<dl class='field-list simple'><dt class='field-odd'>Parameters<span class='colon'>:</span></dt>"
    "<dd class='field-odd'><ul class='simple'><li><p><strong>loader</strong> (<em>BaseLoader</em>) – where "
    "templates come from</p></li><li><p><strong>cache_size</strong> (<em>int</em>) – how many are kept</p></li>"
    "</ul></dd></dl>"
    "<dl class='py attribute'><dt class='sig sig-object py' id='pkg.Environment.globals'>"
    "<span class='sig-name descname'><span class='pre'>globals</span></span></dt>"
    "<dd><p>Variables every template sees.</p></dd></dl>"
    "<dl class='py method'><dt class='sig sig-object py' id='pkg.Environment.get_template'>"
    "<span class='sig-name descname'><span class='pre'>get_template</span></span><span class='sig-paren'>(</span>"
    "<em class='sig-param'>name</em><span class='sig-paren'>)</span>"
    "<a class='reference internal' href='_modules/pkg.html#Environment.get_template'><span class='viewcode-link'>"
    "<span class='pre'>[source]</span></span></a></dt>"
    "<dd><p>Load a template by name.</p></dd></dl></dd></dl>"
    "<p>Text after the class.</p>"
    "<section id='loaders'><h2>Loaders</h2><p>Loaders find templates.</p></section></section>")


def test_a_sphinx_api_object_is_a_section_and_its_nested_objects_sections_below_it(tmp_path):
    doc, _ = one_doc(tmp_path, {"api.html": html("API", SPHINX_API)})
    leaves = texts(doc)
    assert heading_path(doc, leaf_with(doc, "text", "The core component.")) == ["class pkg.Environment()"]
    assert "class pkg.Environment(options)" in leaves   # the signature with its parameters
    assert heading_path(doc, leaf_with(doc, "text", "Load a template")) == ["class pkg.Environment()", "get_template()"]
    assert heading_path(doc, leaf_with(doc, "text", "Variables every")) == ["class pkg.Environment()", "globals"]
    assert "globals" not in leaves   # an attribute's signature is only its name: the heading says it
    assert not any("[source]" in t for t in leaves)   # viewcode's link to the highlighted source
    params = leaf_with(doc, "text", "loader (BaseLoader)")
    assert params.text == "Parameters: loader (BaseLoader) – where templates come from\ncache_size (int) – how many are kept"
    assert heading_path(doc, params) == ["class pkg.Environment()"]
    # the class's section ends with its dl: what follows is the page's again, and h2 nests under it
    assert heading_path(doc, leaf_with(doc, "text", "Text after the class.")) == []
    assert heading_path(doc, leaf_with(doc, "text", "Loaders find")) == ["Loaders"]


def test_an_api_object_with_no_description_is_a_signature_line_not_an_empty_section(tmp_path):
    # Scrapy declares the alias scrapy.spiders.Spider (nothing in its dd) right before scrapy.Spider
    def obj(ident, prename, body):
        return (f"<dl class='py class'><dt class='sig sig-object py' id='{ident}'><em class='property'>"
                f"<span class='pre'>class</span> </em><span class='sig-prename descclassname'><span class='pre'>"
                f"{prename}</span></span><span class='sig-name descname'><span class='pre'>Spider</span></span></dt>"
                f"<dd>{body}</dd></dl>")
    body = ("<section id='s'><h1>Spiders</h1>" + obj("scrapy.spiders.Spider", "scrapy.spiders.", "")
            + obj("scrapy.Spider", "scrapy.", "<p>The simplest spider.</p>") + "</section>")
    doc, _ = one_doc(tmp_path, {"spiders.html": html("Spiders", body)})
    assert [n.title for n in doc.root.walk() if n.kind != "document" and n.title] == ["class scrapy.Spider"]
    assert "class scrapy.spiders.Spider" in texts(doc)
    assert heading_path(doc, leaf_with(doc, "text", "The simplest spider.")) == ["class scrapy.Spider"]


def test_a_command_line_option_is_named_as_written(tmp_path):
    # Sphinx's .. option:: puts the argument in a sig-prename after the name, and several names in turn
    opt = ("<dl class='std option'><dt class='sig sig-object std' id='cmdoption-a'><span class='sig-name descname'>"
           "<span class='pre'>-a</span></span><span class='sig-prename descclassname'><span class='pre'>,</span> </span>"
           "<span class='sig-name descname'><span class='pre'>--address</span></span><span class='sig-prename "
           "descclassname'> <span class='pre'>&lt;ip/hostname&gt;</span></span></dt><dd><p>Listen there.</p></dd></dl>")
    doc, _ = one_doc(tmp_path, {"groonga.html": html("groonga", f"<section id='o'><h1>Options</h1>{opt}</section>")})
    assert heading_path(doc, leaf_with(doc, "text", "Listen there.")) == ["Options", "-a, --address <ip/hostname>"]
    assert texts(doc) == ["Listen there."]


def test_an_api_object_in_a_child_page_closes_at_the_child_pages_depth(tmp_path):
    doc, _ = one_doc(tmp_path, {
        "index.html": html("Pkg", "<section><h1>Pkg</h1><p>Docs.</p><div class='toctree-wrapper'><ul>"
                                  "<li class='toctree-l1'><a href='api.html'>API</a></li></ul></div></section>"),
        "api.html": html("API", SPHINX_API, "<link rel='up' href='index.html'>")})
    assert heading_path(doc, leaf_with(doc, "text", "Load a template")) == ["API", "class pkg.Environment()",
                                                                             "get_template()"]
    assert heading_path(doc, leaf_with(doc, "text", "Text after the class.")) == ["API"]
    assert heading_path(doc, leaf_with(doc, "text", "Loaders find")) == ["API", "Loaders"]


def test_a_step_heading_keeps_its_level_so_its_subheadings_nest_in_it(tmp_path):
    doc, _ = one_doc(tmp_path, {"page.html": html("Import", (
        "<h1>Import</h1><p>Intro.</p><h3>Step 1: Open the dialog</h3><p>Select File/Import.</p>"
        "<h3>Step 2: Adjust each account</h3><p>For each account, choose.</p>"
        "<h4>Target account</h4><p>Pick the account.</p><h4>Import options</h4><p>Depending on the format.</p>"
        "<h3>Step 3: Confirmation</h3><p>At last, the synthesis.</p><h3>Afterwards</h3><p>Check it.</p>"))})
    step2 = node_titled(doc, "Step 2: Adjust each account")
    assert [c.title for c in step2.children if c.kind != "text"] == ["Target account", "Import options"]
    assert heading_path(doc, leaf_with(doc, "text", "At last")) == ["Step 3: Confirmation"]
    assert heading_path(doc, leaf_with(doc, "text", "Check it.")) == ["Afterwards"]
    assert [c.kind for c in doc.root.children if c.kind != "text"] == ["step", "step", "step", "section"]


def test_an_icon_opening_a_heading_keeps_the_heading_and_a_screenshot_in_it_follows_as_content(tmp_path):
    Image.new("RGB", (15, 15)).save(tmp_path / "1.png")
    Image.new("RGB", (400, 300)).save(tmp_path / "dialog.png")
    doc, report = one_doc(tmp_path, {"page.html": html("Dialog", (
        "<h1>Dialog</h1><h2>Using it</h2><p>Open it.</p>"
        "<h3><img src='1.png' width='15' height='15'> Type of transaction</h3><p>The type.</p>"
        "<h3><a name='x'><span class='mw-headline'><img src='dialog.png'> Identify</span></a></h3><p>Names.</p>"))})
    assert heading_path(doc, leaf_with(doc, "text", "The type.")) == ["Using it", "Type of transaction"]
    identify = node_titled(doc, "Identify")
    assert [c.image for c in identify.children if c.kind == "image"] == ["dialog.png"]
    assert not [n for n in doc.leaves() if n.kind == "image" and n.image == "1.png"]
    assert report.excluded["page.html"]["icon in a heading or term"] == 1


def test_an_image_in_a_definition_term_is_kept(tmp_path):
    Image.new("RGB", (14, 14)).save(tmp_path / "button.png")
    Image.new("RGB", (300, 60)).save(tmp_path / "panel.png")
    doc, _ = one_doc(tmp_path, {"page.html": html("Attributes", (
        "<h1>Attributes</h1><dl><dt><img src='button.png' alt=''> <a name='z'>(ZOOM SCALE)</a> "
        "<img src='panel.png' align='right' alt='zoom panel'><dd>Set the zoom scale.</dl>"))})
    assert [n.image for n in doc.leaves() if n.kind == "image"] == ["panel.png"]
    assert "(ZOOM SCALE): Set the zoom scale." in texts(doc)


def test_a_page_laid_out_in_a_table_is_read_as_a_page_not_as_one_table(tmp_path):
    Image.new("RGB", (400, 60)).save(tmp_path / "tb_file.png")
    doc, _ = one_doc(tmp_path, {"page.html": html("Toolbars", (
        "<table><tr><td valign='top'><ul><li><a href='first.html'>The First Steps</a></li></ul></td>"
        "<td valign='top'><h1>Toolbars</h1><p>There are a few toolbars.</p>"
        "<h2>File Management</h2><p><img src='tb_file.png'></p><p>The file toolbar creates and opens files.</p>"
        "</td></tr></table>"))})
    assert not [n for n in doc.leaves() if n.kind == "table"]
    image = leaf_with(doc, "image", "tb_file.png")
    assert heading_path(doc, image)[-1] == "File Management" and image.caption == ""


def test_mediawiki_exports_lose_their_chrome_and_thumbnails_keep_their_captions(tmp_path):
    Image.new("RGB", (300, 300)).save(tmp_path / "shot.jpg")
    Image.new("RGB", (80, 12)).save(tmp_path / "math.png")
    doc, _ = one_doc(tmp_path, {"page.html": html("Stereographic Projection - PanoTools.org Wiki", (
        "<div id='content'><h1 class='firstHeading'>Stereographic Projection</h1><div id='bodyContent'>"
        "<div id='siteSub'>From PanoTools.org Wiki</div><div class='thumb tright'><div class='thumbinner'>"
        "<img alt='' src='shot.jpg' width='300' height='300' class='thumbimage'>"
        "<a class='external' href='https://wiki.example/File:Shot.jpg'>[*]</a>"
        "<div class='thumbcaption'>Circular stereographic projection</div></div></div>"
        "<p>Use it for little planets, R = <span class='mwe-math-element'><span class='mwe-math-mathml-inline' "
        "style='display: none;'><math><semantics><mrow><mn>2</mn><mi>f</mi></mrow><annotation>{\\displaystyle 2f}"
        "</annotation></semantics></math></span><img src='math.png' class='mwe-math-fallback-image-inline' "
        "alt='{\\displaystyle 2f}'></span>.</p>"
        "<div class='printfooter'>Retrieved from \"https://wiki.example/index.php?oldid=1\"</div></div></div>"),
        '<meta name="generator" content="MediaWiki 1.31.1"/>')})
    leaves = texts(doc)
    assert leaf_with(doc, "image", "shot.jpg").caption == "Circular stereographic projection"
    assert not [t for t in leaves if "From PanoTools" in t or "Retrieved from" in t or "[*]" in t]
    formula = leaf_with(doc, "text", "little planets")
    assert formula.text.count("displaystyle") == 1


def test_an_svg_image_is_reported_as_svg_not_as_corrupt(tmp_path):
    (tmp_path / "diagram.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"/>')
    doc, report = one_doc(tmp_path, {"page.html": html("UI", (
        "<h1>UI</h1><p>The main window:</p><figure><img src='diagram.svg' alt='Timeline'><figcaption>Figure 1: the timeline</figcaption></figure>"))})
    problems = [str(p) for p in report.problems]
    assert any("diagram.svg" in p and "SVG is a vector format ham does not read" in p for p in problems), problems


def test_an_in_page_link_list_is_a_table_of_contents_and_back_to_top_lines_are_chrome(tmp_path):
    doc, report = one_doc(tmp_path, {"page.html": html("Preferences", (
        "<h1>Preferences</h1><ul class='toc'><li><a href='#general'>General</a></li>"
        "<li><a href='#interface'>Interface</a></li></ul>"
        "<h2 id='general'>General</h2><p>Language and units.</p><p class='top'><a href='#top'>↑ Back to Top</a></p>"
        "<h2 id='interface'>Interface</h2><ul class='toc'><li>Step 1: open the dialog</li><li>Step 2: choose</li></ul>"
        "<ul><li><a href='#general'>General</a> settings come first</li><li><a href='other.html#x'>Other</a></li></ul>"
        "<p>The dialog has two parts:</p><ul><li><a href='#general'>Tabs</a></li><li><a href='#interface'>Buttons</a></li></ul>"
        "<p><a href='#top'>Top</a></p>"))})
    leaves = texts(doc)
    assert "General" not in leaves and "Interface" not in leaves
    assert not [t for t in leaves if "Back to Top" in t or t == "Top"]
    assert "Step 1: open the dialog" in leaves and "General settings come first" in leaves and "Other" in leaves
    assert "Tabs" in leaves and "Buttons" in leaves   # in-page links without the toc class are content
    assert report.excluded["page.html"]["back-to-top link"] == 2
    assert report.excluded["page.html"]["table of contents"] == 1


def test_a_logo_above_the_page_title_does_not_make_the_title_a_section_under_a_copy_of_itself(tmp_path):
    Image.new("RGB", (300, 80)).save(tmp_path / "logo.png")
    doc, _ = one_doc(tmp_path, {"page.html": html("Drawing Objects", (
        "<a href='contents.html'><img src='logo.png' alt='XFIG Users Manual'></a><hr>"
        "<h1>Drawing Objects</h1><p>Buttons create new objects.</p><h2>Circles</h2><p>Give the center.</p>"))})
    assert heading_path(doc, leaf_with(doc, "text", "Give the center.")) == ["Circles"]
    assert not [n for n in doc.root.walk() if n is not doc.root and n.title == "Drawing Objects"]


def mkdocs_page(title: str, body: str, depth: int = 0) -> str:
    up = "../" * depth
    menu = (f"<div class='navbar fixed-top'><div class='container'><a class='navbar-brand' href='{up}index.html'>Tool</a>"
            f"<ul class='nav navbar-nav'><li class='navitem'><a href='{up}index.html' class='nav-link'>Home</a></li>"
            f"<li class='navitem'><a href='{up}getting-started.html' class='nav-link'>Getting Started</a></li>"
            "<li class='dropdown'><a href='#' class='nav-link dropdown-toggle'>User Guide <b class='caret'></b></a>"
            f"<ul class='dropdown-menu'><li><a href='{up}user-guide/index.html' class='dropdown-item'>User Guide</a></li>"
            f"<li><a href='{up}user-guide/install.html' class='dropdown-item'>Installation</a></li></ul></li>"
            "<li class='dropdown'><a href='#' class='nav-link dropdown-toggle'>About <b class='caret'></b></a>"
            f"<ul class='dropdown-menu'><li><a href='{up}about/license.html' class='dropdown-item'>License</a></li>"
            "</ul></li></ul></div></div>")
    return html(title, menu + f"<div class='col-md-9' role='main'>{body}</div>")


def test_mkdocs_pages_join_into_one_manual_by_the_site_menu(tmp_path):
    (tmp_path / "user-guide").mkdir()
    (tmp_path / "about").mkdir()
    doc, _ = one_doc(tmp_path, {
        "index.html": mkdocs_page("Tool", "<h1>Tool</h1><p>Tool builds sites.</p>"),
        "getting-started.html": mkdocs_page("Getting Started", "<h1>Getting Started</h1><p>Install it first.</p>"),
        "user-guide/index.html": mkdocs_page("User Guide", "<h1>User Guide</h1><p>How to use Tool.</p>", 1),
        "user-guide/install.html": mkdocs_page("Installation", "<h1>Installation</h1><p>pip install tool</p>", 1),
        "about/license.html": mkdocs_page("License", "<h1>License</h1><p>BSD-2-Clause.</p>", 1)})
    assert doc.source == "index.html"
    assert heading_path(doc, leaf_with(doc, "text", "pip install")) == ["User Guide", "Installation"]
    assert heading_path(doc, leaf_with(doc, "text", "Install it first.")) == ["Getting Started"]
    assert heading_path(doc, leaf_with(doc, "text", "BSD-2-Clause.")) == ["License"]   # no page for "About"
    assert [c.title for c in doc.root.children if c.kind != "text"] == ["Getting Started", "User Guide", "License"]


def test_sphinx_source_pages_split_indexes_and_site_suffixes(tmp_path):
    (tmp_path / "_modules" / "requests").mkdir(parents=True)
    head = "<link rel='up' href='index.html'>"
    doc, report = one_doc(tmp_path, {
        "index.html": html("Requests — Requests 2.28.1 documentation",
                           "<section><h1>Requests</h1><p>HTTP for Humans.</p></section>"),
        "api.html": html("Developer Interface — Requests 2.28.1 documentation",
                         "<section><h1>Developer Interface</h1><p>All of Requests' functionality.</p></section>", head),
        "_modules/requests/api.html": html("requests.api — Requests 2.28.1 documentation",
                                           "<h1>Source code for requests.api</h1><div class='highlight'><pre>def get(url):"
                                           "\n    return request('get', url)</pre></div>"),
        "genindex-all.html": html("Index — Requests 2.28.1 documentation", "<h1>Index</h1>", head),
        "footer.html": html("&lt;no title&gt; — Requests 2.28.1 documentation", "<p>Copyleft notice.</p>", head),
        "diagram.html": html("Diagram — Requests 2.28.1 documentation", (
            "<section><h1>Diagram</h1><div class='figure'><object type='image/svg+xml' data='flow.svg'></object>"
            "<p class='title'><b>Figure 1.1. Request flow</b></p></div></section>"), head)})
    assert doc.title == "Requests"
    assert not [n for n in doc.root.walk() if n is not doc.root and n.title in ("Requests", "Index")]
    assert not [n for n in doc.root.walk() if "no title" in (n.title or "")]
    assert not [t for t in texts(doc) if "def get" in t]
    problems = [str(p) for p in report.problems]
    assert any(p.startswith("_modules/requests/api.html: generated source-code page") for p in problems), problems
    assert any(p.startswith("genindex-all.html: generated index") for p in problems)
    assert any("flow.svg" in p and "vector format" in p for p in problems)


def test_each_table_of_contents_of_a_page_holds_the_pages_it_lists(tmp_path):
    """A Sphinx index page with a toctree per section: each page goes at the end of the section
    whose toctree lists it (all of them had gone under the first)."""
    def toctree(*pages):
        return "<div class='toctree-wrapper compound'><ul>" + "".join(
            f"<li class='toctree-l1'><a class='reference internal' href='{p}.html'>{p}</a></li>" for p in pages) + "</ul></div>"
    head = "<link rel='up' href='index.html'>"
    doc, _ = one_doc(tmp_path, {
        "index.html": html("Requests — Requests 2.28 documentation", (
            "<section><h1>Requests</h1><p>HTTP for Humans.</p>"
            f"<section><h2>The User Guide</h2><p>Start here.</p>{toctree('install', 'quickstart')}</section>"
            f"<section><h2>The API Guide</h2>{toctree('api')}</section>"
            "<section><h2>Beloved Features</h2><p>Keep-alive.</p></section></section>")),
        "install.html": html("Install — Requests", "<section><h1>Install</h1><p>pip install requests</p></section>", head),
        "quickstart.html": html("Quickstart — Requests", "<section><h1>Quickstart</h1><p>r = get(url)</p></section>", head),
        "api.html": html("API — Requests", "<section><h1>API</h1><p>requests.get(url)</p></section>", head)})
    assert heading_path(doc, leaf_with(doc, "text", "pip install")) == ["The User Guide", "Install"]
    assert heading_path(doc, leaf_with(doc, "text", "r = get")) == ["The User Guide", "Quickstart"]
    assert heading_path(doc, leaf_with(doc, "text", "requests.get(url)")) == ["The API Guide", "API"]
    assert heading_path(doc, leaf_with(doc, "text", "Keep-alive.")) == ["Beloved Features"]


def test_credits_left_out_above_a_table_of_contents_do_not_move_where_its_pages_go(tmp_path):
    doc, report = one_doc(tmp_path, {
        "index.html": html("Widget Guide", (
            "<h1>Widget Guide</h1><p>Copyright © 2024 The Widget Developers</p>"
            "<p>Permission is granted to copy, distribute and/or modify this document.</p>"
            "<div class='toc'><dl class='toc'><dt><a href='setup.html'>1. Setup</a></dt></dl></div>"
            "<h2>Appendix</h2><p>Glossary.</p>")),
        "setup.html": html("1. Setup", "<h2>1. Setup</h2><p>Plug it in.</p>", "<link rel='up' href='index.html'>")})
    assert report.excluded["index.html"]["front matter (copyright, credits)"] >= 1
    assert heading_path(doc, leaf_with(doc, "text", "Plug it in.")) == ["1. Setup"]   # not under "Appendix"


def _halibut(title: str, bar: str, body: str) -> str:
    return html(title, f"<p>{bar}</p>{body}<hr><address>[release 0.78]</address>",
                "<link rel='up' href='index.html'><link rel='index' href='IndexPage.html'>")


def test_halibut_bar_and_contents_lists_are_chrome_and_the_contents_order_the_chapters(tmp_path):
    """Halibut (PuTTY's manual): the "Previous | Contents | Index | Next" bar and the lists of
    links to sections had been content; a chapter page, opening with its list, got a section from
    its <title> above its own h1, and the top page's pages followed its first link (a licence
    link in the intro paragraph) instead of its contents."""
    top = html("Manual", "<p>Previous | Contents | <a href='IndexPage.html'>Index</a> | "
               "<a href='c1.html'>Next</a></p><h1>Manual</h1><p>See <a href='c2.html#lic'>the licence</a>.</p>"
               "<ul><li><a href='c1.html#intro'>Chapter 1: Intro</a><ul><li><a href='c1.html#s1'>1.1 Setup</a>"
               "</li></ul></li><li><a href='c2.html#lic'>Appendix A: Licence</a></li></ul>")
    bar = ("<a href='index.html'>Previous</a> | <a href='index.html'>Contents</a> | "
           "<a href='IndexPage.html'>Index</a> | <a href='c2.html'>Next</a>")
    c1 = _halibut("Intro", bar, "<ul><li><a href='#intro'>Chapter 1: Intro</a><ul><li><a href='#s1'>1.1 Setup</a>"
                  "</li></ul></li></ul><h1><a name='intro'></a>Chapter 1: Intro</h1><p>Opening.</p>"
                  "<h2><a name='s1'></a>1.1 Setup</h2><p>Install it.</p>")
    c2 = _halibut("Licence", bar, "<h1>Appendix A: Licence</h1><p>MIT.</p>")
    index = _halibut("", "<a href='c2.html'>Previous</a> | <a href='index.html'>Contents</a> | Index | Next",
                     "<h1>Index</h1><p>setup: 1.1</p>")
    doc, report = one_doc(tmp_path, {"index.html": top, "c1.html": c1, "c2.html": c2, "IndexPage.html": index})
    assert heading_path(doc, leaf_with(doc, "text", "Install it.")) == ["Chapter 1: Intro", "1.1 Setup"]
    assert [n.title for n in doc.root.children if n.kind != "text"] == ["Chapter 1: Intro", "Appendix A: Licence"]
    assert not any("Previous" in t or t.startswith("Chapter 1") or "1.1 Setup" in t for t in texts(doc))
    assert "setup: 1.1" not in texts(doc)
