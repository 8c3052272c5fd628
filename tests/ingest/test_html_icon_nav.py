"""Manuals whose pages say where they sit only by navigation icons (LaTeX2HTML, Hyperlatex): the
icons' up/prev/next links join the pages into one tree, and the panels are not content. Pages
shaped like the Dr. Geo manual (Hyperlatex 2.6, Debian's drgeo-doc) and LaTeX2HTML's output."""
from ham.ingest import ingest_corpus
from tests.ingest.helpers import heading_path, leaf_with
from tests.ingest.test_html_toolchains import html


def hyperlatex_bar(title: str, up: str = "", prev: str = "", nxt: str = "") -> str:
    cells = "".join(f'<td><a href="{href}"><img border="0" alt="{alt}" src="figures/{icon}.png"></a></td>'
                    if href else '<td><img alt="" src="figures/blank.png"></td>'
                    for href, icon, alt in ((nxt, "next", "Next"), (up, "up", "Up"), (prev, "previous", "Prev")))
    return f'<table width="100%"><tr>{cells}<td align="center"><b>{title}</b></td></tr></table>'


def test_hyperlatex_pages_join_by_their_icon_bar_which_is_not_content(tmp_path):
    """Also: a page named only by its <title> ("Geo Manual -- Ray") is named "Ray"."""
    footer = "<hr /><address>Any comments? Contact the author.</address>"
    pages = {
        "manual.html": html("Geo Manual", hyperlatex_bar("Geo Manual", nxt="tools.html")
                            + '<h1 class="maketitle">Geo Manual</h1><h2 class="maketitle">A. Author</h2>'
                            '<h3 class="maketitle">August 29, 2004</h3><p>Geo draws figures you can move.</p>' + footer),
        "tools.html": html("Geo Manual -- Line Tools", hyperlatex_bar("Line Tools", "manual.html", "manual.html", "ray.html")
                           + "<h2>Line Tools</h2><p>These tools draw straight objects.</p>" + footer),
        "ray.html": html("Geo Manual -- Ray", hyperlatex_bar("Ray", "tools.html", "tools.html")
                         + "<p>Create a ray defined by two points.</p>" + footer),   # named by its <title> alone
    }
    for name, text in pages.items():
        (tmp_path / name).write_text(text)
    docs, report = ingest_corpus(tmp_path)
    assert len(docs) == 1                           # three documents before: nothing said where a page sits
    doc = docs[0]
    ray = leaf_with(doc, "text", "Create a ray")
    assert doc.title == "Geo Manual" and heading_path(doc, ray) == ["Line Tools", "Ray"]
    leaves = [n.text or "" for n in doc.leaves()]
    assert not any("Contact the author" in t or "Next" in t or "blank" in t for t in leaves)
    assert not any(n.kind == "table" for n in doc.leaves())
    # \maketitle's author and date lines are credits, not sections holding the manual
    assert not any(n.title in ("A. Author", "August 29, 2004") for n in doc.root.walk())
    assert report.excluded["ray.html"]["navigation panel"] == 1


def test_latex2html_navigation_panel_gives_the_tree_and_is_left_out(tmp_path):
    def panel(up: str, prev: str = "", nxt: str = "", up_title: str = "", wrapped: bool = False) -> str:
        icons = "".join(f'<a href="{href}"><img width="37" height="24" alt="{icon}" src="{icon}.png"></a> '
                        if href else f'<img width="37" height="24" alt="{icon}" src="{icon}_g.png"> '
                        for href, icon in ((nxt, "next"), (up, "up"), (prev, "prev")))
        inner = f"<!--Navigation Panel-->{icons}<br><b> Up:</b> <a href=\"{up}\">{up_title}</a><br><br>"
        # LaTeX2HTML 2019 and later (Debian's latex2html manual) close a div.navigation before the end marker
        return (f'<div class="navigation">{inner}</div>\n' if wrapped else inner) + "<!--End of Navigation Panel-->"

    pages = {
        "index.html": html("Pump Guide", "<h1>Pump Guide</h1><p>Service notes for the P-300 pump.</p>"
                           "<ul><li><a href=\"node1.html\">Installation</a></li></ul>"),
        "node1.html": html("Installation", panel("index.html", nxt="node2.html", up_title="Pump Guide")
                           + "<h1>1 Installation</h1><p>Place the pump on a level base.</p>"),
        "node2.html": html("Wiring", panel("node1.html", prev="node1.html", up_title="Installation", wrapped=True)
                           + "<h2>1.1 Wiring</h2><p>Connect the motor through the isolator.</p>"),
    }
    for name, text in pages.items():
        (tmp_path / name).write_text(text)
    docs, report = ingest_corpus(tmp_path)
    assert len(docs) == 1
    doc = docs[0]
    wiring = leaf_with(doc, "text", "Connect the motor")
    assert doc.title == "Pump Guide" and heading_path(doc, wiring) == ["1 Installation", "1.1 Wiring"]
    assert not any("Up:" in (n.text or "") for n in doc.leaves())
    assert report.excluded["node2.html"]["navigation panel"] == 1


def test_a_lower_case_label_word_is_no_credits_line_that_drops_the_rest(tmp_path):
    """LaTeX2HTML's printed index has the entry "copyright" on its own line; it had started a
    credits block that dropped all 865 entries after it. A label is set as one ("License")."""
    entries = ("<dd><strong>colour</strong> : <a href='node2.html'>2</a>"
               "<dd><strong>copyright</strong><dl><dd><strong>Leeds</strong> : <a href='node3.html'>12</a></dl>"
               "<dd><strong>counter</strong> : <a href='node4.html'>4</a>"
               "<dd><strong>cross-references</strong> : <a href='node5.html'>5</a>")
    (tmp_path / "index.html").write_text(html("Index", f"<h2>Index</h2><dl>{entries}</dl>"))
    (tmp_path / "about.html").write_text(html("About", "<h2>About</h2><p>Pump tools for the P-300.</p>"
                                              "<p>License</p><p>BSD-2-Clause, see COPYING.</p>"))
    docs, report = ingest_corpus(tmp_path)
    kept = [n.text for d in docs for n in d.leaves() if n.kind == "text"]
    assert "Leeds : 12" in kept and "counter : 4" in kept and "cross-references : 5" in kept
    assert "BSD-2-Clause, see COPYING." not in kept                # a label set as one still starts credits
    assert report.excluded["about.html"]["front matter (copyright, credits)"] == 2
