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
