from ham.document import Document, render_tree
from ham.ingest.builder import Block, TreeBuilder, numbering_depth
from ham.units import build_units


def test_numbering_depth():
    assert numbering_depth("4. Common Tasks") == 1
    assert numbering_depth("4.7. Change the Mode") == 2
    assert numbering_depth("4.7.1 Details") == 3
    assert numbering_depth("Chapter 5. Checkbook") == 1
    assert numbering_depth("Section 3: Deftemplate Construct") == 1     # CLIPS's Word manuals
    assert numbering_depth("3: foo") is None
    assert numbering_depth("Introduction") is None


def test_tree_shape_and_paths(manual_doc):
    root = manual_doc.root
    assert [c.title for c in root.children] == ["1. Installation", "2. Maintenance"]
    install = root.children[0]
    wiring = install.children[-1]
    assert wiring.kind == "subsection" and wiring.title == "1.1. Wiring"
    steps = [c for c in wiring.children if c.kind == "step"]
    assert [s.title for s in steps] == ["Step 1", "Step 2"]
    assert [c.kind for c in steps[0].children] == ["text", "image"]


def test_numbering_infers_level_when_markup_has_none():
    b = TreeBuilder("d", "", "d.html", "html")
    b.add(Block("heading", "4. Common Tasks"))
    b.add(Block("heading", "4.7. Change the Mode"))
    b.add(Block("text", "Body."))
    b.add(Block("heading", "4.8. Another"))
    doc = b.finish()
    chapter = doc.root.children[0]
    assert [c.title for c in chapter.children] == ["4.7. Change the Mode", "4.8. Another"]
    assert doc.title == "4. Common Tasks"


def test_caption_links_both_directions():
    b = TreeBuilder("d", "T", "d.md", "markdown")
    b.add(Block("text", "Figure 2. Above the image."))
    b.add(Block("image", image="a.png", image_path="a.png"))
    b.add(Block("image", image="b.png", image_path="b.png"))
    b.add(Block("text", "Figure 3: Below the image."))
    doc = b.finish()
    texts = [n for n in doc.root.walk() if n.kind == "text"]
    images = [n for n in doc.root.walk() if n.kind == "image"]
    assert images[0].caption == "Figure 2. Above the image." and texts[0].caption_of == images[0].id
    assert images[1].caption == "Figure 3: Below the image." and texts[1].caption_of == images[1].id



def _captioned(blocks):
    b = TreeBuilder("d", "T", "d.pdf", "pdf")
    for block in blocks:
        b.add(block)
    doc = b.finish()
    return [n for n in doc.root.walk() if n.kind == "text"], [n for n in doc.root.walk() if n.kind == "image"]


def test_a_caption_below_an_image_wins_over_the_one_above_it_took():
    # graphviz's dot guide: a listing captioned "Figure 1", then the drawing captioned below it
    texts, images = _captioned([Block("text", "digraph G { main -> parse; }"),
                                Block("text", "Figure 1: Small graph"),
                                Block("image", image="g.png", image_path="g.png"),
                                Block("text", "Figure 2: Drawing of small graph"),
                                Block("text", "The command line option -Tps selects PostScript.")])
    assert images[0].caption == "Figure 2: Drawing of small graph" and images[0].label == "Figure 2"
    assert texts[1].caption_of is None and texts[2].caption_of == images[0].id
    # where every figure is captioned above, the caption below an image is the next image's
    texts, images = _captioned([Block("text", "Figure 1: The dialog"), Block("image", image="a.png", image_path="a.png"),
                                Block("text", "Figure 2: The menu"), Block("image", image="b.png", image_path="b.png"),
                                Block("text", "Body.")])
    assert [i.caption for i in images] == ["Figure 1: The dialog", "Figure 2: The menu"]
    assert [t.caption_of for t in texts] == [images[0].id, images[1].id, None]
    # a sentence about the figure below it is no caption, nor is its own label repeated
    for below in ("Figure 1 shows the dialog's three tabs.", "Figure 1: continued"):
        texts, images = _captioned([Block("text", "Figure 1: The dialog"),
                                    Block("image", image="a.png", image_path="a.png"), Block("text", below)])
        assert images[0].caption == "Figure 1: The dialog" and texts[1].caption_of is None

def test_roundtrip_json(manual_doc):
    again = Document.from_dict(manual_doc.to_dict())
    assert again.to_dict() == manual_doc.to_dict()


def test_render_tree_puts_images_under_headings(manual_doc):
    out = render_tree(manual_doc).splitlines()
    wiring = next(i for i, line in enumerate(out) if "1.1. Wiring" in line)
    mains = next(i for i, line in enumerate(out) if "img/mains.png" in line)
    assert mains > wiring and out[mains].startswith("      ")  # nested below the step


def test_evidence_units_fields(manual_doc):
    units = {u.image or u.content: u for u in build_units(manual_doc)}
    base = units["img/base.png"]
    assert base.modality == "image"
    assert base.heading_path == ["1. Installation"]
    assert base.relation["type"] == "figure_caption"
    assert base.caption == "Figure 1. The concrete base with anchor bolts."
    assert units["Install the pump on a level concrete base."].unit_id == base.relation["target"]
    mains = units["img/mains.png"]
    assert mains.relation["type"] == "illustrates_step"
    assert mains.heading_path == ["1. Installation", "1.1. Wiring", "Step 1"]
    oil = units["img/oil.png"]
    assert oil.relation["type"] == "supports_preceding"
    assert oil.local["prev_text"] == "Check the oil level every month."
    caption = units["Figure 1. The concrete base with anchor bolts."]
    assert caption.relation == {"type": "caption_of", "target": base.unit_id}
    wiring_text = units["Connect the motor leads to the terminal block."]
    assert wiring_text.ancestors["headings"] == ["1. Installation", "1.1. Wiring"]
    assert wiring_text.ancestors["doc_title"] == "Pump Manual"
    assert all(u.source == "manual.md" for u in units.values())


def test_an_images_nearby_text_is_the_running_text_beside_it_not_its_caption():
    b = TreeBuilder("d", "T", "d.md", "markdown")
    b.add(Block("text", "Open the network settings."))
    b.add(Block("image", image="net.png", image_path="net.png"))
    b.add(Block("text", "Figure 4: The network dialog."))
    b.add(Block("text", "The port field accepts 1 to 65535."))
    units = {u.image or u.content: u for u in build_units(b.finish())}
    image = units["net.png"]
    assert image.caption == "Figure 4: The network dialog."
    assert image.local["prev_text"] == "Open the network settings."
    assert image.local["next_text"] == "The port field accepts 1 to 65535.", "not its caption said twice"
    # a text unit's neighbours are as before: the caption is the text before the paragraph
    assert units["The port field accepts 1 to 65535."].local["prev_text"] == "Figure 4: The network dialog."


def test_unusable_images_are_not_units():
    b = TreeBuilder("d", "T", "d.md", "markdown")
    b.add(Block("text", "Intro."))
    b.add(Block("image", image="missing.png", image_path=None))
    units = build_units(b.finish())
    assert [u.modality for u in units] == ["text"]


def _depths(titles, sizes=None):
    from ham.ingest.levels import LevelResolver

    r = LevelResolver(list(zip(titles, sizes or [None] * len(titles))))
    return [r.next(t)[0] for t in titles]


def test_numbering_styles_nest_in_the_order_they_open():
    assert _depths(["I. INTRODUCTION", "II. RELATED WORK", "A. Graph RAG", "B. Multimodal", "1) Detail",
                    "III. METHOD"]) == [1, 1, 2, 2, 3, 1]
    assert _depths(["第一章 概述", "第一节 产品简介", "一、特点", "二、应用", "第二节 规格", "第二章 安装"]) == [1, 2, 3, 3, 2, 1]
    assert _depths(["Chapter 3 Wiring", "3.1 Mains", "3.1.1 Fuses", "Chapter 4 Use", "4.1 Start"]) == [1, 2, 3, 1, 2]
    # letters after decimal sections are appendices, as deep as the numbers
    assert _depths(["1 Intro", "1.1 Scope", "References", "A Proofs", "A.1 Lemma"]) == [1, 2, 1, 1, 2]



def test_a_letter_that_follows_the_one_before_it_is_no_roman_numeral():
    # graphviz's dot guide: appendices A to J after decimal sections; "C" and "I" are letters
    appendices = [f"{letter} {title}" for letter, title in zip("ABCDEFGHIJ", [
        "Node Attributes", "Edge Attributes", "Graph Attributes", "Grammar", "Plain Output", "Attributed DOT",
        "Layers", "Node Shapes", "Arrowhead Types", "Color Names"])]
    assert _depths(["1 Basics", "1.1 Shapes", "References", *appendices]) == [1, 2, 1] + [1] * 10
    # a Roman-numbered paper's lettered subsections: "C" after "B" is the third letter, not 100
    assert _depths(["I. INTRODUCTION", "II. RELATED WORK", "A. Graph RAG", "B. Multimodal", "C. Tables",
                    "III. METHOD"]) == [1, 1, 2, 2, 2, 1]

def test_font_sizes_place_unnumbered_headings():
    assert _depths(["Concepts", "Setup", "Simple setup", "Use"], [20.7, 20.7, 17.3, 20.7]) == [1, 1, 2, 1]
    # an unnumbered heading takes the depth of numbered headings set in its size
    assert _depths(["1 Intro", "Related Work", "Graph RAG"], [12, 12, 10.9]) == [1, 1, 2]


def test_an_unnumbered_heading_between_a_number_and_its_child_is_inside_the_number():
    # MinerU's datasheet: a warning label set as large as the chapters, then "7.2"
    depths = _depths(["6 Disclaimer", "7 Warning and risks", "Warning", "7.2 Types of Risks", "8 Drawing"],
                     [20, 20, 20, 16, 20])
    assert depths == [1, 1, 2, 2, 1]
    # the same label before the next chapter stays where its size puts it
    assert _depths(["7 Warning and risks", "7.1 Statement", "Warning", "8 Drawing"], [20, 16, 20, 20]) == [1, 2, 1, 1]


def test_headings_without_evidence_stay_siblings():
    # Docling and MinerU's pipeline give every heading level 1; nothing says one holds the next
    # (Docling's own output of its multi_page.pdf test document)
    titles = ["Pre-Digital Era (19th - Early 20th Century)", "The Birth of Word Processing (1960s - 1970s)",
              "The Rise of Personal Computers (1980s)", "A Glimpse Into the Future"]
    assert _depths(titles) == [1, 1, 1, 1]
    # a numbered or known section is an anchor: unnumbered headings after it sit below it
    assert _depths(["Overview", "Introduction", "Scope", "Purpose"]) == [1, 1, 2, 2]


def test_a_bare_a_is_an_article_unless_other_letters_or_decimals_number():
    assert _depths(["A Brief History", "The Early Years", "Later Years"]) == [1, 1, 1]
    assert _depths(["A Overview", "B Details", "Notes"]) == [1, 1, 2]
    # an author's initial on a title page is no number either
    assert _depths(["R Schlicht", "Contents", "Preface"]) == [1, 1, 1]
    # after decimal sections, only a run of letters from A are appendices ("R Internals" is a name)
    assert _depths(["1 Intro", "1.1 Scope", "R Internals", "Notes", "A Proofs", "A.1 Lemma"]) == [1, 2, 3, 3, 1, 2]


def test_acm_front_matter_labels_are_top_level():
    # a parser's all-level-1 ACM paper: the front-matter labels are siblings of the abstract
    assert _depths(["ABSTRACT", "CCS CONCEPTS", "KEYWORDS", "ACM Reference Format:", "1 INTRODUCTION",
                    "Baselines"]) == [1, 1, 1, 1, 1, 2]
    # an AAAI paper's "Preliminaries and Notations" is a section of its own, not Related Work's
    assert _depths(["Introduction", "Related Work", "Graph RAG", "Preliminaries and Notations", "Method"]) == \
        [1, 1, 2, 1, 1]


def test_years_and_values_are_not_numbering():
    from ham.ingest.levels import numbering_of

    assert numbering_of("2023 annual report") is None and numbering_of("5000 mAh") is None
    assert numbering_of("Step 4 Tighten") is None  # a step, not a section number


def test_step_numbering_restarts_with_every_list():
    b = TreeBuilder("d", "Doc", "d.md", "markdown")
    b.add(Block("heading", "Tasks", level=1))
    for text in ("one", "two", "end", "three", "four"):
        b.add(Block("end_steps") if text == "end" else Block("step", text))
    steps = [c.title for c in b.finish().root.children[0].children if c.kind == "step"]
    assert steps == ["Step 1", "Step 2", "Step 1", "Step 2"]


def test_a_top_heading_equal_to_the_title_is_not_a_section():
    b = TreeBuilder("d", "Schematic Editor", "d.html", "html")
    b.add(Block("heading", "Schematic Editor", level=1))
    b.add(Block("heading", "1. Introduction", level=2))
    b.add(Block("heading", "1.1. Description", level=3))
    doc = b.finish()
    intro = doc.root.children[0]
    assert (intro.kind, intro.title) == ("section", "1. Introduction")
    assert intro.children[0].kind == "subsection"


def test_a_table_continued_on_the_next_page_is_joined_into_one_unit():
    from ham.ingest.builder import build_document
    from ham.ingest.report import IngestReport

    report = IngestReport(root=__import__("pathlib").Path("."))
    # Table 1 runs to the foot of page 1 and its rest opens page 2 (bboxes: 0-1000 of the page)
    blocks = [Block("heading", "1 Specs", level=1, page=0, bbox=(80, 500, 900, 530)),
              Block("table", "Item | Value\nCapacity | 2600 mAh", caption="Table 1: Cell data", page=0,
                    bbox=(80, 600, 900, 920)),
              Block("table", "Item | Value\nVoltage | 3.6 V", page=1, bbox=(80, 70, 900, 200)),   # header repeated
              Block("table", "A | B\nx | y", caption="Table 2: Other", page=1, bbox=(80, 400, 900, 500))]
    doc = build_document("d", "Doc", "d.json", "mineru", blocks, report=report, path="d.json", authored=False)
    tables = [n.text for n in doc.leaves() if n.kind == "table"]
    assert tables == ["Table 1: Cell data\nItem | Value\nCapacity | 2600 mAh\nVoltage | 3.6 V",
                      "Table 2: Other\nA | B\nx | y"]
    assert report.excluded_totals()["table continued across pages (joined into one unit)"] == 1


def test_outline_levels_stay_where_the_numbering_disagrees():
    # lilypond's bookmarks put chapter 5 and its sections a level too deep; a PDF outline is the
    # author's, so they stay, while the same levels from Marker's Markdown are re-derived
    from ham.ingest.blocks import Block
    from ham.ingest.structure import resolve_levels

    titles = [("1 Intro", 1), ("1.1 Scope", 2), ("1.2 Terms", 2), ("2 Use", 1), ("2.1 Start", 2),
              ("2.2 Stop", 2), ("5 Tips", 2), ("5.1 Files", 3), ("5.2 Large", 3), ("5.3 Make", 3)]

    def levels(rule):
        blocks = [Block(kind="heading", text=t, level=lv, rule=rule) for t, lv in titles]
        return [b.level for b in resolve_levels(blocks)]

    assert levels("outline") == [lv for _, lv in titles]
    assert levels("") == [1, 2, 2, 1, 2, 2, 1, 2, 2, 2]
