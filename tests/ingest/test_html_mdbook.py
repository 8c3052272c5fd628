"""mdBook books (ham.ingest.html_mdbook): one tree from the sidebar, the home page's copy of the
first chapter and the print page not read twice, the menu bar and hidden code lines as chrome.
Pages shaped like mdBook 0.4's output, and like the later output whose chapter list is in a
script (and a frame) beside the pages."""
import pytest

from ham.ingest import ingest_corpus
from ham.ingest.html_mdbook import js_string
from tests.ingest.helpers import heading_path, leaf_with

SIDEBAR = [("intro.html", "1.", "Introduction"), ("usage.html", "2.", "Usage"),
           ("usage/flags.html", "2.1.", "Flags"), ("faq.html", "3.", "FAQ")]


def sidebar(current: str | None, depth: int) -> str:
    up = "../" * depth

    def item(href, number, name):
        active = ' class="active"' if href == current else ""
        return (f'<li class="chapter-item expanded "><a href="{up}{href}"{active}><strong aria-hidden="true">'
                f'{number}</strong> {name}</a></li>')
    top = "".join(item(*e) for e in SIDEBAR[:2])
    sub = f'<li><ol class="section">{item(*SIDEBAR[2])}</ol></li>'
    return (f'<nav id="sidebar" class="sidebar" aria-label="Table of contents"><div class="sidebar-scrollbox">'
            f'<ol class="chapter">{top}{sub}{item(*SIDEBAR[3])}</ol></div></nav>')


def page(current: str | None, title: str, body: str, depth: int = 0) -> str:
    return (f'<!DOCTYPE HTML>\n<html lang="en" class="sidebar-visible no-js light">\n<head>\n'
            f'<!-- Book generated using mdBook -->\n<meta charset="UTF-8">\n<title>{title} - The Tool Book</title>\n'
            f'</head>\n<body>\n{sidebar(current, depth)}\n<div id="page-wrapper" class="page-wrapper"><div class="page">'
            '<div id="menu-bar" class="menu-bar sticky bordered"><div class="left-buttons"><button id="sidebar-toggle">'
            '</button></div><h1 class="menu-title">The Tool Book</h1><div class="right-buttons">'
            '<a href="print.html" title="Print this book"><i class="fa fa-print"></i></a></div></div>'
            f'<div id="content" class="content"><main>{body}</main>'
            '<nav class="nav-wrapper" aria-label="Page navigation"><a rel="next" href="usage.html">Next</a></nav>'
            '</div></div></div>\n</body>\n</html>\n')


INTRO = '<h1 id="introduction"><a class="header" href="#introduction">Introduction</a></h1><p>The tool sorts files.</p>'
PAGES = {
    "index.html": page(None, "Introduction", INTRO),
    "intro.html": page("intro.html", "Introduction", INTRO),
    "usage.html": page("usage.html", "Usage", '<h1 id="usage">Usage</h1><p>Run the tool on a folder.</p>'
                       '<pre><code class="language-rust"><span class="boring">#![allow(unused)]\n</span>'
                       'tool::sort("docs");\n</code></pre>'),
    "usage/flags.html": page("usage/flags.html", "Flags", '<h1 id="flags">Flags</h1><p>--reverse sorts backwards.</p>',
                             depth=1),
    "faq.html": page("faq.html", "FAQ", '<h1 id="faq">FAQ</h1><p>Ask on the forum.</p>'),
    "print.html": page(None, "The Tool Book", INTRO + '<h1 id="usage">Usage</h1><p>Run the tool on a folder.</p>'),
}


def test_an_mdbook_book_is_one_tree_in_sidebar_order(tmp_path):
    (tmp_path / "usage").mkdir()
    for name, html in PAGES.items():
        (tmp_path / name).write_text(html, encoding="utf-8")
    docs, report = ingest_corpus(tmp_path)
    assert report.problems == [] and len(docs) == 1
    doc = docs[0]
    assert doc.title == "The Tool Book" and doc.source == "index.html"
    assert [c.title for c in doc.root.children if c.kind == "section"] == ["Introduction", "Usage", "FAQ"]
    assert heading_path(doc, leaf_with(doc, "text", "--reverse")) == ["Usage", "Flags"]
    texts = [n.text for n in doc.leaves()]
    # the first chapter once (index.html is its copy), nothing of print.html, no menu bar
    assert texts.count("The tool sorts files.") == 1 and texts.count("Run the tool on a folder.") == 1
    assert not any("The Tool Book" in (n.title or "") for n in doc.root.walk() if n is not doc.root)
    # the code lines the book hides from its reader are not read either
    assert 'tool::sort("docs");' in texts and not any("allow(unused)" in t for t in texts)
    excluded = report.excluded_totals()
    assert excluded["copy of the first chapter (mdBook's index.html)"] == 1
    assert excluded["the whole book on one page (mdBook's print.html)"] == 1


# mdBook 0.4.41 on: no chapter list in the pages; a script beside them (toc.js, or toc-<hash>.js)
# fills the sidebar at run time, and toc.html holds it for readers without JavaScript. Newer releases
# (the Rust 1.95 toolchain's books) prefix the ids (nav#mdbook-sidebar, div#mdbook-menu-bar) and
# nest a chapter's sections in its own li.
NEW_SIDEBAR = [("intro/index.html", "1.", "Introduction"), ("usage.html", "2.", "Usage"),
               ("usage/flags.html", "2.1.", "Flags"), ("caf\u00e9.html", "3.", "Tool's FAQ")]


def chapters(nested_in_item: bool, draft: bool = False) -> str:
    def item(href, number, name, sections=""):
        link = f'<a href="{href}"><strong aria-hidden="true">{number}</strong> {name}</a>'
        if nested_in_item:      # as the Rust books have it, the li of a chapter with sections left open
            return f'<li class="chapter-item expanded "><span class="chapter-link-wrapper">{link}</span>{sections}' + \
                ("" if sections else "</li>")
        return f'<li class="chapter-item expanded ">{link}</li>' + (f"<li>{sections}</li>" if sections else "")
    flags = f'<ol class="section">{item(*NEW_SIDEBAR[2])}</ol>'
    plugins = ""
    if draft:   # a draft chapter (no page of its own) with two sections that have pages
        plugins = ('<li class="chapter-item expanded "><span class="chapter-link-wrapper"><span>Plugins</span></span>'
                   f'<ol class="section">{item("plugins/api.html", "4.1.", "API")}'
                   f'{item("plugins/hooks.html", "4.2.", "Hooks")}</ol></li>')
    return (f'<ol class="chapter">{item(*NEW_SIDEBAR[0])}{item(*NEW_SIDEBAR[1], sections=flags)}'
            f'{item(*NEW_SIDEBAR[3])}{plugins}</ol>')


def toc_js(html: str) -> str:
    """toc.js as mdBook writes it, the list in a single-quoted literal; escaped here as JS allows
    (\\' and \\uXXXX), which the reader has to undo."""
    literal = html.replace("\\", "\\\\").replace("'", "\\'").encode("ascii", "backslashreplace").decode()
    return ("// Populate the sidebar\nclass MDBookSidebarScrollbox extends HTMLElement {\n"
            "    constructor() {\n        super();\n    }\n    connectedCallback() {\n"
            f"        this.innerHTML = '{literal}';\n"
            "        const links = Array.prototype.slice.call(this.querySelectorAll('a'));\n    }\n}\n"
            'window.customElements.define("mdbook-sidebar-scrollbox", MDBookSidebarScrollbox);\n'
            "function debug(data) {\n    data.innerHTML = `<table><tr><td>scrollTop</td></tr></table>`;\n}\n")


def toc_frame(html: str) -> str:
    return ('<!DOCTYPE HTML>\n<html lang="en" class="light" dir="ltr">\n<head>\n'
            '<!-- sidebar iframe generated using mdBook\n\nThe frame is only used as a fallback when JS is turned off.\n'
            '-->\n<meta charset="UTF-8">\n</head>\n<body class="sidebar-iframe-inner">'
            f'{html.replace("<a href=", "<a target=_parent href=")}</body>\n</html>\n')


def new_page(title: str, body: str, depth: int, prefix: str, script: str) -> str:
    up, p = "../" * depth, prefix
    return (f'<!DOCTYPE HTML>\n<html lang="en" class="light sidebar-visible" dir="ltr">\n<head>\n'
            f'<!-- Book generated using mdBook -->\n<meta charset="UTF-8">\n<title>{title} - The Tool Book</title>\n'
            f'<script>const path_to_root = "{up}";</script>\n<script src="{up}{script}"></script>\n</head>\n<body>\n'
            '<div id="mdbook-help-container"><div id="mdbook-help-popup"><h2 class="mdbook-help-title">Keyboard '
            'shortcuts</h2><div><p>Press <kbd>?</kbd> to show this help</p></div></div></div>\n'
            f'<div id="{p}body-container"><nav id="{p}sidebar" class="sidebar" aria-label="Table of contents">'
            '<mdbook-sidebar-scrollbox class="sidebar-scrollbox"></mdbook-sidebar-scrollbox>'
            f'<noscript><iframe class="sidebar-iframe-outer" src="{up}toc.html"></iframe></noscript></nav>\n'
            f'<div id="{p}page-wrapper" class="page-wrapper"><div class="page"><div id="{p}menu-bar" class="menu-bar">'
            f'<div class="left-buttons"><label id="{p}sidebar-toggle" class="icon-button"></label></div>'
            '<h1 class="menu-title">The Tool Book</h1><div class="right-buttons">'
            f'<a href="{up}print.html" title="Print this book"></a></div></div>'
            f'<div id="{p}content" class="content"><main>{body}</main>'
            f'<nav class="nav-wrapper"><a rel="next prefetch" href="{up}usage.html">Next</a></nav></div></div></div>'
            '</div>\n</body>\n</html>\n')


def write_new_book(root, prefix: str, script: str, nested_in_item: bool, draft: bool = False) -> None:
    listing = chapters(nested_in_item, draft)
    pages = {"index.html": ("Introduction", INTRO, 0), "intro/index.html": ("Introduction", INTRO, 1),
             "usage.html": ("Usage", PAGES["usage.html"].split("<main>")[1].split("</main>")[0], 0),
             "usage/flags.html": ("Flags", '<h1 id="flags">Flags</h1><p>--reverse sorts backwards.</p>', 1),
             "caf\u00e9.html": ("FAQ", '<h1 id="faq">FAQ</h1><p>Ask on the forum.</p>', 0),
             "print.html": ("The Tool Book", INTRO + '<h1 id="usage">Usage</h1><p>Run the tool on a folder.</p>', 0)}
    if draft:
        pages["plugins/api.html"] = ("API", '<h1 id="api">API</h1><p>Plugins call tool::register.</p>', 1)
        pages["plugins/hooks.html"] = ("Hooks", '<h1 id="hooks">Hooks</h1><p>A hook runs after sorting.</p>', 1)
    for name, (title, body, depth) in pages.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(new_page(title, body, depth, prefix, script), encoding="utf-8")
    (root / script).write_text(toc_js(listing), encoding="utf-8")
    (root / "toc.html").write_text(toc_frame(listing), encoding="utf-8")


def assert_tool_book(docs, report, frame_read: bool = True):
    assert report.problems == [] and len(docs) == 1, [d.source for d in docs]
    doc = docs[0]
    assert doc.title == "The Tool Book" and doc.source == "index.html"
    assert [c.title for c in doc.root.children if c.kind == "section"][:3] == ["Introduction", "Usage", "FAQ"]
    assert heading_path(doc, leaf_with(doc, "text", "--reverse")) == ["Usage", "Flags"]
    texts = [n.text for n in doc.leaves()]
    assert texts.count("The tool sorts files.") == 1 and texts.count("Run the tool on a folder.") == 1
    titles = [n.title for n in doc.root.walk() if n is not doc.root]
    # neither the menu bar's title nor the keyboard help popup is a section or text of any page
    assert "The Tool Book" not in titles and "Keyboard shortcuts" not in titles
    assert not any("Press" in t or "Keyboard" in t for t in texts)
    assert 'tool::sort("docs");' in texts and not any("allow(unused)" in t for t in texts)
    excluded = report.excluded_totals()
    assert excluded["copy of the first chapter (mdBook's index.html)"] == 1
    assert excluded["the whole book on one page (mdBook's print.html)"] == 1
    assert excluded.get("the book's sidebar on a page of its own (mdBook's toc.html)", 0) == int(frame_read)
    return doc


@pytest.mark.parametrize("prefix, script, nested_in_item", [
    ("mdbook-", "toc-5ef7b3c1.js", True),   # the Rust 1.95 toolchain's books
    ("", "toc.js", False),                  # mdBook 0.4.41's template: ids as before, the list in toc.js
], ids=["prefixed-ids", "toc.js"])
def test_an_mdbook_book_whose_sidebar_is_filled_by_a_script_is_one_tree(tmp_path, prefix, script, nested_in_item):
    write_new_book(tmp_path, prefix, script, nested_in_item)
    assert_tool_book(*ingest_corpus(tmp_path))


def test_an_mdbook_sidebar_frame_gives_the_tree_where_the_script_is_missing(tmp_path):
    # a copy of the book's HTML files only: toc.html, the sidebar for readers without JavaScript, is read
    write_new_book(tmp_path, "mdbook-", "toc-5ef7b3c1.js", True)
    (tmp_path / "toc-5ef7b3c1.js").unlink()
    assert_tool_book(*ingest_corpus(tmp_path))


def test_the_sections_of_an_mdbook_draft_chapter_are_siblings(tmp_path):
    # a draft chapter has no page: its sections go where it would have gone, neither inside the other
    write_new_book(tmp_path, "mdbook-", "toc-5ef7b3c1.js", True, draft=True)
    doc = assert_tool_book(*ingest_corpus(tmp_path))
    assert [c.title for c in doc.root.children if c.kind == "section"] == ["Introduction", "Usage", "FAQ", "API",
                                                                           "Hooks"]


@pytest.mark.parametrize("literal, value", [
    (r"it\'s", "it's"), (r"a \"b\"", 'a "b"'), (r"back\\slash", "back\\slash"), (r"caf\u00e9", "café"),
    (r"\x41\u{1F600}", "A\U0001F600"), (r"\ud83d\ude00", "\U0001F600"), ("one\\\ntwo", "onetwo"),
    (r"tab\there\n", "tab\there\n"), (r"\q", "q"),
])
def test_a_js_string_literal_reads_as_javascript_reads_it(literal, value):
    assert js_string(literal) == value


def test_an_mdbook_first_chapter_written_to_index_html_keeps_its_text(tmp_path):
    # README.md becomes index.html, a chapter of its own (the Rust Style Guide's "Introduction"): no
    # page marks it active before the script runs, and it is no copy to leave out
    listing = ('<ol class="chapter"><li class="chapter-item expanded "><span class="chapter-link-wrapper">'
               '<a href="index.html">Introduction</a></span></li><li class="chapter-item expanded ">'
               '<span class="chapter-link-wrapper"><a href="usage.html"><strong aria-hidden="true">1.</strong> '
               'Usage</a></span></li></ol>')
    (tmp_path / "toc-86a258df.js").write_text(toc_js(listing), encoding="utf-8")
    (tmp_path / "index.html").write_text(new_page("Introduction", INTRO, 0, "mdbook-", "toc-86a258df.js"))
    (tmp_path / "usage.html").write_text(new_page("Usage", '<h1 id="usage">Usage</h1><p>Run the tool on a folder.</p>',
                                                  0, "mdbook-", "toc-86a258df.js"))
    docs, report = ingest_corpus(tmp_path)
    assert report.problems == [] and len(docs) == 1 and docs[0].source == "index.html"
    texts = [n.text for n in docs[0].leaves()]
    assert texts.count("The tool sorts files.") == 1 and texts.count("Run the tool on a folder.") == 1
    assert "copy of the first chapter (mdBook's index.html)" not in report.excluded_totals()
