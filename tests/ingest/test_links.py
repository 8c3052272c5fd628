"""Cross-references: a leaf's links to pages of the corpus become ``refs``, the sections they
point to (ham.ingest.html_links, ham.ingest.links). Hand-written HTML pages shaped like DocBook
(ids on the section's div), texinfo (an anchor just before the heading) and Sphinx (an id on the
section element), and Markdown files linking each other by heading ids."""

from ham.ingest import ingest_corpus
from ham.ingest.html_links import local_target
from ham.units import build_units
from tests.ingest.helpers import leaf_with, node_titled


def html(title: str, body: str, head: str = "") -> str:
    return f"<html><head><title>{title}</title>{head}</head><body>{body}</body></html>"


UP = '<link rel="up" href="index.html">'


def manual(tmp_path):
    pages = {
        "index.html": html("Tools", "<h1>Tools</h1><p>All tools.</p><div class='toc'>"
                                    "<a href='select.html'>Select</a> <a href='common.html'>Common</a></div>"),
        "select.html": html("Rectangle Select", (
            "<h2>Rectangle Select</h2><p>Draws a rectangle. The options every selection tool shares are in "
            "<a class='xref' href='common.html#opts'>Common Options</a>; see also "
            "<a href='https://example.org/x.html'>the site</a> and <a href='shot.png'>a picture</a>.</p>"
            "<div class='sect2' id='rect-keys'><h3>Keys</h3><p>Shift squares it. See <a href='#rect-round'>"
            "Rounded corners</a> and <a href='index.html'>the tool list</a> and <a href='select.html'>this page</a>."
            "</p></div>"
            "<div class='sect2' id='rect-round'><h3>Rounded corners</h3><pre>radius = <a href='common.html#opts'>"
            "size</a></pre>"
            "<table><tr><td>Feather</td><td>see <a href='common.html#feather'>Feather</a></td></tr></table>"
            "<dl><dt><a href='common.html#opts'>Mode</a></dt><dd><p>How it combines.</p></dd></dl></div>"), UP),
        "common.html": html("Common", (
            "<h2>Common</h2><p>Intro to the shared options.</p>"
            "<a name='opts'></a><h3>Shared options</h3><p>Antialiasing smooths edges.</p>"
            "<section id='feather'><h3>Feather edges</h3><p>Feathering blurs the border.</p></section>"
            "<p>Link to a page that is not here: <a href='gone.html#x'>gone</a>.</p>"), UP),
    }
    for name, text in pages.items():
        (tmp_path / name).write_text(text)
    docs, report = ingest_corpus(tmp_path)
    assert len(docs) == 1
    return docs[0], report


def refs(doc, leaf) -> list[str]:
    ids = {n.id: n.title for n in doc.root.walk()}
    return [ids[r] for r in leaf.meta.get("refs", [])]


def test_a_link_to_another_page_of_the_manual_names_the_section_it_points_to(tmp_path):
    doc, report = manual(tmp_path)
    intro = leaf_with(doc, "text", "Draws a rectangle.")
    assert refs(doc, intro) == ["Shared options"], \
        "an <a name> before the heading names that section; the remote link and the image file are not references"
    keys = leaf_with(doc, "text", "Shift squares it.")
    assert refs(doc, keys) == ["Rounded corners"], \
        "#id on the same page names the section whose div carries it; the manual's front page and the " \
        "link to its own page (an enclosing section) are left out"
    assert refs(doc, leaf_with(doc, "text", "Link to a page")) == [], "a page outside the corpus is no reference"
    measured = report.measure_totals()
    assert measured["units with references"] == 5, measured
    assert measured["links"] > measured["links resolved to a section"] > 0


def test_links_inside_code_tables_and_terms_are_references_of_the_block_holding_them(tmp_path):
    doc, _ = manual(tmp_path)
    assert refs(doc, leaf_with(doc, "text", "radius = size")) == ["Shared options"]
    assert refs(doc, leaf_with(doc, "table", "Feather")) == ["Feather edges"], "a section element's id"
    assert refs(doc, leaf_with(doc, "text", "How it combines.")) == ["Shared options"], \
        "a link in a definition term goes with the term onto its definition"


def test_references_reach_the_units_and_raw_anchors_do_not_stay_on_the_tree(tmp_path):
    doc, _ = manual(tmp_path)
    units = {u.content: u for u in build_units(doc)}
    intro = next(u for c, u in units.items() if c.startswith("Draws a rectangle."))
    assert intro.extra["refs"] == [node_titled(doc, "Shared options").id]
    assert not any("anchors" in n.meta or "links" in n.meta for n in doc.root.walk())


def test_local_targets():
    assert local_target("../b/c.html#x", "a/d/p.html") == "a/b/c.html#x"
    assert local_target("#top", "a/p.html") == "a/p.html#top"
    assert local_target("c.htm", "p.html") == "c.htm"
    assert local_target("../../out.html", "a/p.html") is None, "outside the corpus"
    assert local_target("mailto:x@y.org", "p.html") is None
    assert local_target("img/shot.png", "p.html") is None
    assert local_target("", "p.html") is None


def test_markdown_files_link_each_other_by_file_and_heading_id(tmp_path):
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "select.md").write_text(
        "# Rectangle select\n\nDraws a rectangle; see [the shared options](../common.md#feather-edges-tips) "
        "and [the common page](../common.md), or [a site](https://example.org/a.md).\n\n"
        "- Shift squares it, as in [Ellipse](#ellipse-mode)\n\n## Ellipse mode\n\nRound.\n")
    (tmp_path / "common.md").write_text(
        "# Common options\n\nEvery selection tool shares these.\n\n## Feather edges: tips\n\nFeathering blurs.\n")
    docs, _ = ingest_corpus(tmp_path)
    by_source = {d.source: d for d in docs}
    select, common = by_source["tools/select.md"], by_source["common.md"]
    draws = leaf_with(select, "text", "Draws a rectangle")
    assert draws.meta["refs"] == [node_titled(common, "Feather edges: tips").id, common.root.id], \
        "a heading id (GitHub's and MkDocs' slugs) names its section; the bare file names its document"
    assert leaf_with(select, "text", "Shift squares it").meta["refs"] == [node_titled(select, "Ellipse mode").id]
    assert "refs" not in leaf_with(select, "text", "Round.").meta


def test_an_anchor_after_a_paragraphs_last_words_names_the_heading_after_it_not_that_paragraph(tmp_path):
    """HTML 3.2-era manuals (texinfo, old docs) set ``<a name>`` between the end of a paragraph (or
    of loose text) and the heading it names, with no ``</p>``; the text block flushed at the heading
    must not take it, or a link to the section lands on the one before."""
    (tmp_path / "index.html").write_text(html("Manual", (
        "<h1>Manual</h1>"
        "<h2>Alpha</h2>Alpha intro.<p>Alpha text, old-style paragraphs.\n<a name='beta'></a>\n"
        "<h2>Beta</h2>Beta loose text. <span id='gamma'></span><br>\n"
        "<h2>Gamma</h2><p><a name='delta'></a>Delta's first words name Gamma.</p>"
        "<h2>Epsilon</h2><p>Middle <a name='epsilon'>of a</a> sentence names Epsilon.</p>"
        "<h2>Links</h2>" + "".join(f"<p>See <a href='#{a}'>{a}</a>.</p>" for a in ("beta", "gamma", "delta", "epsilon", "end"))
        + "<h2>Last</h2><p>Closing words. <a name='end'></a></p>")))
    docs, _ = ingest_corpus(tmp_path)
    doc = docs[0]
    named = {a: refs(doc, leaf_with(doc, "text", f"See {a}.")) for a in ("beta", "gamma", "delta", "epsilon", "end")}
    assert named == {"beta": ["Beta"], "gamma": ["Gamma"], "delta": ["Gamma"], "epsilon": ["Epsilon"],
                     "end": ["Last"]}, \
        "beta and gamma name the headings they stand before; delta and epsilon, at the start and in the " \
        "middle of a paragraph, name its section; an anchor after the page's last words stays with them"
