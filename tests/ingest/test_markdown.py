"""Markdown ingest: heading levels from the token stream, images, captions, steps, lists, tables."""

from PIL import Image

from ham.ingest import ingest_corpus
from tests.ingest.helpers import FIXTURES, heading_path, node_titled, leaf_with


def router_guide():
    docs, report = ingest_corpus(FIXTURES / "markdown")
    assert report.problems == []
    assert len(docs) == 1
    return docs[0]


def test_title_id_and_setext_headings():
    doc = router_guide()
    assert doc.id == "router_setup" and doc.format == "markdown" and doc.source == "router_setup.md"
    assert doc.title == "Home Router Setup Guide"  # the only setext "===" heading: the title
    assert doc.root.rule == "title: the only level-1 heading"
    top = doc.root.children[0]  # the title is not a section of its own
    assert (top.kind, top.text) == ("text", "This guide walks you through unpacking, connecting and configuring the router.")
    before = node_titled(doc, "Before you begin")  # setext "---" is level 2
    assert heading_path(doc, before) == []
    assert before.kind == "section"


def test_numbered_headings_keep_their_title_and_nest_by_markup_level():
    doc = router_guide()
    power_on = node_titled(doc, "1.1. Power on")
    assert heading_path(doc, power_on) == ["1. Connecting the hardware"]
    configuring = node_titled(doc, "2. Configuring the network")
    assert heading_path(doc, configuring) == []


def test_images_keep_reference_alt_and_resolved_path():
    doc = router_guide()
    front = leaf_with(doc, "image", "router-front")
    assert front.image == "img/router-front.png"
    assert front.image_path == "img/router-front.png"
    assert front.alt == "Front panel with the power and WAN lights"
    assert heading_path(doc, front) == ["1. Connecting the hardware"]


def test_figure_caption_paragraphs_link_to_their_image():
    doc = router_guide()
    front = leaf_with(doc, "image", "router-front")
    caption = leaf_with(doc, "text", "Figure 1. Front panel")
    assert caption.caption_of == front.id and front.caption == "Figure 1. Front panel of the router"
    # caption on the line right after the image, inside the same paragraph
    back = leaf_with(doc, "image", "router-back")
    caption2 = leaf_with(doc, "text", "Figure 2.")
    assert caption2.caption_of == back.id
    assert back.caption == "Figure 2. Back panel with the WAN port on the left"
    plain = leaf_with(doc, "text", "The back panel has four LAN ports")
    assert plain.caption_of is None


def test_image_inside_a_paragraph_splits_it_in_order():
    doc = router_guide()
    section = node_titled(doc, "2. Configuring the network")
    kinds = [(c.kind, c.text[:20] if c.kind == "text" else c.image) for c in section.children[:3]]
    assert kinds == [("text", "Open a browser on a "), ("image", "img/web-login.png"),
                     ("text", "then choose Quick se")]
    assert section.children[0].text.endswith("password printed under the router:")


def test_ordered_list_items_are_steps():
    doc = router_guide()
    power_on = node_titled(doc, "1.1. Power on")
    steps = [c for c in power_on.children if c.kind == "step"]
    assert [s.title for s in steps] == ["Step 1", "Step 2", "Step 3"]
    assert steps[1].children[0].text == "Connect the WAN port to your modem with the network cable."


def test_bullet_list_is_one_text_block_and_table_and_code_are_kept():
    doc = router_guide()
    bullets = leaf_with(doc, "text", "- the router")
    assert bullets.text == "- the router\n- a power adapter\n- one network cable"
    table = next(n for n in doc.leaves() if n.kind == "table")
    assert table.text.splitlines() == ["Setting | Default | Recommended",
                                       "Wi-Fi name | ROUTER-1234 | your own name",
                                       "Wi-Fi security | WPA2 | WPA3"]
    code = leaf_with(doc, "text", "admin> show wan")
    assert code.text == "admin> show wan\nWAN: connected"


def test_reference_kept_as_written_and_resolved_from_the_files_folder(tmp_path):
    (tmp_path / "docs" / "pics").mkdir(parents=True)
    (tmp_path / "docs" / "guide").mkdir()
    Image.new("RGB", (4, 4), "blue").save(tmp_path / "docs" / "pics" / "my pic.png")
    (tmp_path / "docs" / "guide" / "page.md").write_text(
        "# Page\n\n![a picture](../pics/my%20pic.png)\n\n1. Open first\n   1. nested one\n2. Close second\n\nafter\n")
    docs, report = ingest_corpus(tmp_path)
    assert report.problems == []
    doc = docs[0]
    assert doc.id == "docs/guide/page"
    image = next(n for n in doc.leaves() if n.kind == "image")
    assert image.image == "../pics/my%20pic.png"
    assert image.image_path == "docs/pics/my pic.png"
    steps = [c for c in doc.root.children if c.kind == "step"]  # "# Page" is the title
    assert len(steps) == 2  # the nested list stays text of step 1
    assert [c.text for c in steps[0].children] == ["Open first", "1. nested one"]
    assert doc.root.children[-1].text == "after"  # steps were closed


def test_title_falls_back_to_file_stem(tmp_path):
    (tmp_path / "notes.md").write_text("## Only a level two heading\n\nSome text.\n")
    docs, _ = ingest_corpus(tmp_path)
    assert docs[0].title == "notes"


def test_front_matter_skipped_icons_in_cells_inline_and_real_images_keep_their_row(tmp_path):
    Image.new("RGB", (4, 4), "blue").save(tmp_path / "icon.png")
    Image.new("RGB", (400, 300), "grey").save(tmp_path / "shot.png")
    (tmp_path / "page.md").write_text(
        "---\ntitle: Meta\nlayout: post\n---\n\n# Real title\n\n| Icon | Meaning |\n|---|---|\n"
        "| ![wifi](icon.png) | Wi-Fi on |\n| ![login screen](shot.png) | The login screen |\n")
    docs, report = ingest_corpus(tmp_path)
    doc = docs[0]
    assert doc.title == "Real title"
    assert [n.title for n in doc.root.walk() if n.kind in ("section", "subsection")] == []
    table, image = doc.leaves()
    # the icon stays in its cell as text; the screenshot follows the table with its row's text
    assert table.kind == "table" and table.text == "Icon | Meaning\n[wifi] | Wi-Fi on\n[image: login screen] | The login screen"
    assert (image.kind, image.image_path, image.caption) == ("image", "shot.png", "The login screen")
    assert report.excluded_totals()["inline icon (kept as text)"] == 1


MARKER = """# Procedure Call Standard for the Widget

Date of Issue: 5th September 2024

# <span id="page-1-0"></span>1 Preamble

# <span id="page-1-1"></span>1.1 Abstract

This document describes the procedure call standard of the widget.

## <span id="page-1-2"></span>1.2 Keywords

Procedure call, calling conventions, data layout

# Contents

<span id="page-3-1"></span><span id="page-3-0"></span>

| 1 Preamble     |                       | 2  |
|----------------|-----------------------|----|
|                | 1.1 Abstract          | 2  |
|                | 1.2 Keywords          | 2  |
| 2 Data types   |                       | 3  |
|                | 2.1 Fundamental types | 3  |

{5}------------------------------------------------

# <span id="page-6-0"></span>2 Data types

# <span id="page-6-1"></span>2.1 Fundamental types

As the [Preamble](#page-1-0) says, see the [Licence](#page-3-0) too, and [pointers](#page-7-1).

| Issue  | Date                  | Change       |
|--------|-----------------------|--------------|
| 00Bet3 | 25th November<br>2011 | Beta release |

## <span id="page-7-0"></span>2.2 Pointers

<span id="page-7-1"></span>A pointer is 64 bits wide; see [fundamental types](#page-6-1).
"""


def test_marker_markdown_levels_anchors_and_contents_table(tmp_path):
    # Marker's Markdown of a PDF manual: span anchors in headings, levels from font sizes that the
    # numbering contradicts ("1.1" with "#", "1.2" with "##"), the contents as a table
    (tmp_path / "pcs.md").write_text(MARKER)
    docs, report = ingest_corpus(tmp_path)
    doc = docs[0]
    assert doc.title == "Procedure Call Standard for the Widget"
    assert heading_path(doc, node_titled(doc, "1.1 Abstract")) == ["1 Preamble"]
    assert heading_path(doc, node_titled(doc, "2.2 Pointers")) == ["2 Data types"]
    assert not any(n.kind == "table" and "Keywords" in n.text for n in doc.leaves())   # the contents table
    assert report.excluded["pcs.md"]["table of contents"] == 2
    assert report.excluded["pcs.md"]["page separator (Marker)"] == 1
    assert not any("{5}" in n.text for n in doc.leaves())
    assert "00Bet3 | 25th November 2011 | Beta release" in leaf_with(doc, "table", "00Bet3").text
    # links to span anchors find their sections; one to an anchor of the left-out contents finds
    # nothing (not the file's first section)
    refs = leaf_with(doc, "text", "As the Preamble says").meta["refs"]
    assert [node.title for node in doc.root.walk() if node.id in refs] == ["1 Preamble", "2.2 Pointers"]
    pointer = leaf_with(doc, "text", "A pointer is 64 bits")
    assert [node.title for node in doc.root.walk() if node.id in pointer.meta["refs"]] == ["2.1 Fundamental types"]


def test_an_unknown_anchor_of_the_same_file_is_no_reference(tmp_path):
    (tmp_path / "b.md").write_text("# 1 Intro\n\nText.\n\n# 2 Use\n\nSee [there](#nowhere).\n")
    (tmp_path / "c.md").write_text("# 1 Other\n\nSee [b's part](b.md#nowhere).\n")
    docs, _ = ingest_corpus(tmp_path)
    by_source = {d.source: d for d in docs}
    assert "refs" not in leaf_with(by_source["b.md"], "text", "See there").meta
    # another file's unknown anchor still names that file
    assert leaf_with(by_source["c.md"], "text", "See b's part").meta["refs"]


def test_levels_that_follow_the_numbering_are_kept(tmp_path):
    from ham.ingest.levels import numbering_contradicts

    titles = ["1 Intro", "1.1 Scope", "1.2 Terms", "2 Use", "2.1 Start", "Notes"]
    assert not numbering_contradicts([1, 2, 2, 1, 2, 3], titles)
    assert numbering_contradicts([1, 1, 2, 1, 1, 3], titles)       # depth 2 at levels 1 and 2
    # one heading of a depth says too little (Docling's JATS paper: a lone "2 Methods" at level 2)
    assert not numbering_contradicts([2, 2, 2, 3, 3], ["2 Methods", "2.1 Data", "2.2 Model", "2.2.1 A", "2.2.2 B"])


def test_a_changelogs_version_numbers_do_not_overrule_its_heading_levels(tmp_path):
    # versions as "##", newest first: the numbers go down, so they number releases, not depths
    (tmp_path / "CHANGES.md").write_text(
        "# Changelog\n\n## 2.1 (2024-03-01)\n\n### Added\n\n- Export to CSV.\n\n"
        "## 2.0.1 (2024-01-10)\n\n### Fixed\n\n- Crash on empty input.\n\n"
        "## 2.0 (2023-12-01)\n\n### Changed\n\n- New config format.\n\n"
        "## 1.9.2 (2023-10-01)\n\n### Fixed\n\n- Memory leak in parser.\n")
    (tmp_path / "flat.md").write_text("# Releases\n\n## 3.0 Final\n\nA.\n\n## 2.4.1 Patch\n\nB.\n\n"
                                      "## 2.4 Minor\n\nC.\n\n## 2.3.7 Patch\n\nD.\n")
    docs, _ = ingest_corpus(tmp_path)
    by_source = {d.source: d for d in docs}
    doc = by_source["CHANGES.md"]
    for version in ("2.1 (2024-03-01)", "2.0.1 (2024-01-10)", "2.0 (2023-12-01)", "1.9.2 (2023-10-01)"):
        assert heading_path(doc, node_titled(doc, version)) == []
    assert heading_path(doc, leaf_with(doc, "text", "Crash on empty input")) == ["2.0.1 (2024-01-10)", "Fixed"]
    flat = by_source["flat.md"]
    assert all(heading_path(flat, node_titled(flat, t)) == [] for t in ("3.0 Final", "2.4.1 Patch", "2.3.7 Patch"))


def test_section_numbering_goes_up_with_a_restart_here_and_there():
    from ham.ingest.levels import numbering_contradicts, section_numbering

    assert section_numbering(["1 Intro", "1.1 Scope", "2 Use", "2.1 Start", "1 Part two", "1.1 Again"])
    assert not section_numbering(["2.1 (2024)", "Added", "2.0.1 (2024)", "2.0 (2023)", "1.9.2 (2023)"])
    # a changelog's "##" versions and "###" patches: its levels stand
    titles = ["2.1 A", "2.0.1 B", "2.0 C", "1.9.2 D", "1.9 E", "1.8.3 F"]
    assert not numbering_contradicts([2, 2, 2, 2, 2, 2], titles)


def test_a_parsers_flat_markdown_has_its_levels_recovered_an_authors_keeps_them(tmp_path):
    # MinerU's pipeline Markdown of a paper: every heading "#", images named by their SHA-256
    body = ("# Hypergraph Networks for Medication\n\nZ. Zhang\n\n# Abstract\n\nWe propose.\n\n"
            "# Related Work\n\nPrior work.\n\n# Medication Recommendation\n\nModels.\n\n"
            f"![](images/{'ab' * 32}.jpg)\n\n# Conclusion\n\nDone.\n")
    (tmp_path / "parsed").mkdir()
    (tmp_path / "parsed" / "paper.md").write_text(body)
    doc = ingest_corpus(tmp_path / "parsed")[0][0]
    assert doc.title == "Hypergraph Networks for Medication"
    assert heading_path(doc, node_titled(doc, "Medication Recommendation")) == ["Related Work"]
    assert heading_path(doc, node_titled(doc, "Conclusion")) == []
    # the same text written by a person (no parser's marks): its "#" headings are kept as they are
    (tmp_path / "authored").mkdir()
    (tmp_path / "authored" / "paper.md").write_text(body.replace(f"images/{'ab' * 32}.jpg", "chart.jpg"))
    doc = ingest_corpus(tmp_path / "authored")[0][0]
    assert doc.title == "paper"
    assert heading_path(doc, node_titled(doc, "Medication Recommendation")) == []
