"""MinerU content lists: heading levels from text_level, pages, captions in both spellings, tables."""
import json
import shutil

from ham.ingest import ingest_corpus
from tests.ingest.helpers import FIXTURES, heading_path, node_titled, leaf_with

DOC = "solar_panels/auto/solar_panels_content_list.json"


def solar():
    docs, report = ingest_corpus(FIXTURES / "mineru")
    assert report.problems == []
    assert len(docs) == 1
    return docs[0], report


def test_content_list_claims_its_markdown_sibling():
    doc, report = solar()
    assert doc.format == "mineru" and doc.source == DOC
    assert doc.id == "solar_panels/auto/solar_panels"
    assert doc.title == "Maintaining Rooftop Solar Panels"
    assert report.ignored_files == []  # the .md is part of this document, not left over or reported


def test_text_level_nesting_and_page_idx():
    doc, _ = solar()
    schedule = node_titled(doc, "2.1 Schedule")
    assert heading_path(doc, schedule) == ["2 Cleaning"]  # the level-1 heading is the title
    assert schedule.page == 2
    table = next(n for n in doc.leaves() if n.kind == "table")
    assert heading_path(doc, table) == ["2 Cleaning", "2.1 Schedule"]
    assert table.page == 2
    assert leaf_with(doc, "image", "3f9a2c7e").page == 1
    # text_level 0 is body text
    assert leaf_with(doc, "text", "Never use a pressure washer").kind == "text"


def test_image_caption_and_older_img_caption_spelling():
    doc, _ = solar()
    fig1 = leaf_with(doc, "image", "3f9a2c7e")
    assert fig1.image == "images/3f9a2c7e1b5d4a6f8e0c9b7a2d4e6f8a0b1c3d5e7f9a1b3c5d7e9f0a2b4c6d8e.jpg"
    assert fig1.image_path == "solar_panels/auto/" + fig1.image
    assert fig1.caption == "Figure 1: Daily yield of a 5 kW array during a dry month."
    assert leaf_with(doc, "text", "Figure 1: Daily yield").caption_of == fig1.id
    assert leaf_with(doc, "text", "Data logged every 15 minutes.").caption_of is None  # footnote
    fig2 = leaf_with(doc, "image", "c4d5e6f7")
    assert fig2.caption == "Figure 2: A soft brush on an extension pole."  # from "img_caption"
    assert heading_path(doc, fig2)[-1] == "2.2 Method"


def test_table_body_flattened_and_equation_kept_as_latex():
    doc, _ = solar()
    table = next(n for n in doc.leaves() if n.kind == "table")
    # caption, rows and footnote are the table's text: every representation and prompt shows them
    assert table.text == ("Table 1: Suggested cleaning interval\nClimate | Interval\nDry, dusty | Monthly\n"
                          "Temperate | Twice a year\nIntervals assume no nearby construction.")
    assert table.caption == "Table 1: Suggested cleaning interval" and table.label == "Table 1"
    assert table.image_path == "solar_panels/auto/" + table.image  # the table keeps its image
    equation = leaf_with(doc, "text", "\\cdot")
    assert equation.text == "$$\nE = A \\cdot r \\cdot H \\cdot PR\n$$"


def test_lone_mineru_markdown_is_plain_markdown(tmp_path):
    src = FIXTURES / "mineru" / "solar_panels" / "auto"
    shutil.copytree(src / "images", tmp_path / "images")
    shutil.copy(src / "solar_panels.md", tmp_path / "solar_panels.md")
    docs, report = ingest_corpus(tmp_path)
    assert [d.format for d in docs] == ["markdown"]
    assert report.problems == []
    image = next(n for n in docs[0].leaves() if n.kind == "image")
    assert image.caption == "Figure 1: Daily yield of a 5 kW array during a dry month."


def test_page_chrome_dropped_unknown_items_kept_or_reported(tmp_path):
    items = [
        {"type": "header", "text": "Company confidential", "page_idx": 0},
        {"type": "text", "text": "Title", "text_level": 1, "page_idx": 0},
        {"type": "list", "sub_type": "text", "list_items": ["- one", "- two"], "page_idx": 0},
        {"type": "page_footnote", "text": "1 A footnote.", "page_idx": 0},
        {"type": "page_number", "text": "1", "page_idx": 0},
        {"type": "mystery", "page_idx": 0},
        "not an object",
    ]
    (tmp_path / "x_content_list.json").write_text(json.dumps(items))
    docs, report = ingest_corpus(tmp_path)
    texts = [n.text for n in docs[0].leaves()]
    assert texts == ["- one\n- two", "1 A footnote."]
    messages = [str(p) for p in report.problems]
    assert any("x_content_list.json: item 5: unknown type 'mystery'" in m for m in messages)
    assert any("x_content_list.json: item 6 is not an object" in m for m in messages)


def test_non_list_json_is_reported(tmp_path):
    (tmp_path / "x_content_list.json").write_text('{"type": "text"}')
    docs, report = ingest_corpus(tmp_path)
    assert docs == []
    assert "x_content_list.json: a MinerU content list is a JSON list of items, found a JSON dict (document skipped)" in \
        [str(p) for p in report.problems]


def test_a_chapter_number_heading_joins_the_title_after_it(tmp_path):
    # a Redbook's chapter opener as Docling and MinerU give it: "1" and the title, two headings
    items = [{"type": "text", "text": "Row and Column Access Control", "text_level": 1, "page_idx": 0},
             {"type": "text", "text": "1", "text_level": 1, "page_idx": 1},
             {"type": "text", "text": "Securing and protecting IBM DB2 data", "text_level": 1, "page_idx": 1},
             {"type": "text", "text": "Data is the most valuable asset of a business.", "page_idx": 1},
             {"type": "text", "text": "1.1 Security fundamentals", "text_level": 1, "page_idx": 2},
             {"type": "text", "text": "Start from a security policy.", "page_idx": 2}]
    (tmp_path / "redbook_content_list.json").write_text(json.dumps(items))
    docs, report = ingest_corpus(tmp_path)
    doc = docs[0]
    assert [(n.kind, n.title) for n in doc.root.walk() if n.kind in ("section", "subsection")] == [
        ("section", "1 Securing and protecting IBM DB2 data"), ("subsection", "1.1 Security fundamentals")]
    assert report.excluded["redbook_content_list.json"]["chapter opener label (joined to its title)"] == 1


def test_a_chapter_label_keeps_its_case_when_joined(tmp_path):
    items = [{"type": "text", "text": "Wiring Guide", "text_level": 1, "page_idx": 0},
             {"type": "text", "text": "Chapter 3", "text_level": 1, "page_idx": 1},
             {"type": "text", "text": "Mains Connection", "text_level": 1, "page_idx": 1},
             {"type": "text", "text": "Turn the power off first.", "page_idx": 1}]
    (tmp_path / "w_content_list.json").write_text(json.dumps(items))
    doc = ingest_corpus(tmp_path)[0][0]
    assert [n.title for n in doc.root.children if n.kind == "section"] == ["Chapter 3 Mains Connection"]


def test_a_number_heading_before_a_numbered_heading_is_no_opener(tmp_path):
    # Docling's JATS paper lost its section titles: "2" then "2.1." are two headings, not "2 2.1."
    items = [{"type": "text", "text": "A Paper", "text_level": 1, "page_idx": 0},
             {"type": "text", "text": "1 Introduction", "text_level": 1, "page_idx": 0},
             {"type": "text", "text": "Text.", "page_idx": 0},
             {"type": "text", "text": "2", "text_level": 1, "page_idx": 1},
             {"type": "text", "text": "2.1 Setup", "text_level": 1, "page_idx": 1},
             {"type": "text", "text": "More text.", "page_idx": 1}]
    (tmp_path / "p_content_list.json").write_text(json.dumps(items))
    docs, report = ingest_corpus(tmp_path)
    titles = [n.title for n in docs[0].root.walk() if n.kind in ("section", "subsection")]
    assert "2.1 Setup" in titles and not any(t.startswith("2 2.1") for t in titles)
    assert "chapter opener label (joined to its title)" not in report.excluded.get("p_content_list.json", {})


def _middle(pages):
    """A middle.json: per page, (type, [line heights], text) blocks; a title's text is split into
    spans as MinerU splits CJK lines."""
    def block(kind, heights, text):
        parts = [text[i:i + 6] for i in range(0, len(text), 6)] or [""]
        return {"type": kind, "lines": [{"bbox": [0, 0, 100, h], "spans": [{"type": "text", "content": p}
                                                                         for p in (parts if i == 0 else ["x"])]}
                                        for i, h in enumerate(heights)]}
    return {"pdf_info": [{"page_idx": n, "para_blocks": [block(*b) for b in blocks]} for n, blocks in enumerate(pages)]}


def test_middle_json_titles_match_despite_ligatures_and_split_spans(tmp_path):
    # a research report: a rating box first, the report's title (larger, its spans split) after it
    items = [{"type": "text", "text": "增持（维持）", "text_level": 1, "page_idx": 0},
             {"type": "text", "text": "高测股份：扩产4000万公里金刚线", "text_level": 1, "page_idx": 0},
             {"type": "text", "text": "The response of flow duration curves", "text_level": 1, "page_idx": 0},
             {"type": "text", "text": "投资要点", "text_level": 1, "page_idx": 0},
             {"type": "text", "text": "事件：公司拟签署投资协议。", "page_idx": 0}]
    middle = _middle([[("title", [16], "增持（维持）"), ("title", [19], "高测股份：扩产4000万公 里金刚线"),
                       ("title", [13], "The response of ﬂow duration curves"), ("title", [13], "投资要点")]])
    (tmp_path / "r_content_list.json").write_text(json.dumps(items, ensure_ascii=False))
    (tmp_path / "r_middle.json").write_text(json.dumps(middle, ensure_ascii=False))
    docs, report = ingest_corpus(tmp_path)
    assert report.problems == []
    assert docs[0].title == "高测股份：扩产4000万公里金刚线"
    assert node_titled(docs[0], "The response of flow duration curves").rule.startswith("font size 13pt")


def _paper(tmp_path, paragraph_heights):
    titles = [("Introduction", 14), ("Related Work", 15), ("Medication Recommendation", 15), ("Method", 15),
              ("Graph Convolution", 17), ("Case Study", 19), ("Conclusion", 15)]
    items, blocks = [{"type": "text", "text": "A Paper", "text_level": 1, "page_idx": 0}], [("title", [24], "A Paper")]
    for title, height in titles:
        items += [{"type": "text", "text": title, "text_level": 1, "page_idx": 0},
                  {"type": "text", "text": f"Body of {title}.", "page_idx": 0}]
        blocks += [("title", [height], title), ("text", paragraph_heights, "body")]
    (tmp_path / "p_content_list.json").write_text(json.dumps(items))
    (tmp_path / "p_middle.json").write_text(json.dumps(_middle([blocks])))
    docs, _ = ingest_corpus(tmp_path)
    return docs[0]


def test_line_heights_as_noisy_as_the_paragraphs_say_nothing_about_levels(tmp_path):
    # MinerU 2.x's pipeline: one paragraph's lines measure 10-14pt, so headings of 14-19pt are one size
    doc = _paper(tmp_path, [12, 10, 14, 12, 13])
    assert heading_path(doc, node_titled(doc, "Medication Recommendation")) == ["Related Work"]
    assert heading_path(doc, node_titled(doc, "Case Study")) == ["Method"]
    assert heading_path(doc, node_titled(doc, "Conclusion")) == []


def test_precise_line_heights_keep_their_sizes(tmp_path):
    doc = _paper(tmp_path, [12, 12, 12, 12, 12])
    # every paragraph line measures the same: 19pt and 15pt are distinct sizes, and levels follow them
    assert heading_path(doc, node_titled(doc, "Conclusion")) == ["Case Study"]
    assert node_titled(doc, "Case Study").rule.startswith("font size 19pt")


def test_size_chains_join_sizes_closer_than_the_noise():
    from ham.ingest.mineru_middle import size_chains

    assert size_chains([19, 17, 15, 14, 12], 2.0) == {19: 19, 17: 19, 15: 19, 14: 19, 12: 19}
    assert size_chains([19, 16, 15, 13], 2.0) == {19: 19, 16: 16, 15: 16, 13: 16}
    assert size_chains([19, 17, 15], 0.0) == {19: 19, 17: 17, 15: 15}


def test_table_of_contents_entries_marked_as_headings_and_credits_after_a_cover(tmp_path):
    # a thesis as MinerU's pipeline gives it: the entries of its 目录 are headings, without leaders
    h = lambda text, page: {"type": "text", "text": text, "text_level": 1, "page_idx": page}
    t = lambda text, page: {"type": "text", "text": text, "page_idx": page}
    items = [h("硕士研究生学位论文", 0), t("姓名：王", 0),
             h("版权声明", 1), t("任何收存和保管本论文各种版本的单位和个人，未经同意不得转借。", 1),
             h("摘要", 2), t("中小企业在推动技术创新方面发挥着作用。", 2),
             h("目录", 3), h("第一章 引言", 3), t("1.1 研究背景\n1.2 研究意义 3", 3), h("第二章 文献综述 7", 3),
             h("2.1 理论基础 7", 3), t("2.1.1 信息不对称理论..\n2.1.2 委托代理理论 8", 3),
             h("第一章 引言", 4), h("1.1 研究背景", 4), t("中小企业数量持续增长。", 4),
             h("第二章 文献综述", 5), h("2.1 理论基础", 5), t("信息不对称理论认为。", 5)]
    (tmp_path / "thesis_content_list.json").write_text(json.dumps(items, ensure_ascii=False))
    docs, report = ingest_corpus(tmp_path)
    doc = docs[0]
    assert doc.title == "硕士研究生学位论文"
    assert [n.title for n in doc.root.children if n.kind == "section"] == ["摘要", "第一章 引言", "第二章 文献综述"]
    assert heading_path(doc, node_titled(doc, "2.1 理论基础")) == ["第二章 文献综述"]
    excluded = report.excluded["thesis_content_list.json"]
    assert excluded["table of contents"] == 6 and excluded["front matter (copyright, credits)"] == 2
