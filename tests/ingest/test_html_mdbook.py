"""mdBook books (ham.ingest.html_mdbook): one tree from the sidebar, the home page's copy of the
first chapter and the print page not read twice, the menu bar and hidden code lines as chrome.
Pages shaped like mdBook 0.4's output."""
from ham.ingest import ingest_corpus
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
