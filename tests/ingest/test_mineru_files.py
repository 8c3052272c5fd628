"""MinerU outputs named by folder, not by stem: the cloud API's zip (``<uuid>_content_list.json``,
``full.md``, ``layout.json``), a content list saved as ``content_list.json``, and the 0.x / Office
file names; each read once, with its middle json, and what cannot be paired reported by name."""
import json

from ham.ingest import ingest_corpus
from tests.ingest.helpers import node_titled
from tests.ingest.test_mineru import _middle

UUID = "4f0a9c1e-1b2c-4d5e-8f90-123456789abc"
ITEMS = [{"type": "text", "text": "A Study of Flow", "text_level": 1, "page_idx": 0},
         {"type": "text", "text": "Study Area", "text_level": 1, "page_idx": 0},
         {"type": "text", "text": "The catchments lie in the south.", "page_idx": 0},
         {"type": "text", "text": "Rainfall Records", "text_level": 1, "page_idx": 0},
         {"type": "text", "text": "Daily rainfall came from gauges.", "page_idx": 0}]
MIDDLE = _middle([[("title", [24], "A Study of Flow"), ("title", [14], "Study Area"),
                   ("text", [10, 10, 10], "body"), ("title", [11], "Rainfall Records")]])
MARKDOWN = "# A Study of Flow\n\n# Study Area\n\nThe catchments lie in the south.\n"


def _output(folder, list_name, markdown=None, middle=None):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / list_name).write_text(json.dumps(ITEMS))
    if markdown:
        (folder / markdown).write_text(MARKDOWN)
    if middle:
        (folder / middle).write_text(json.dumps(MIDDLE))


def test_cloud_zip_reads_the_content_list_once_with_layout_json_as_its_middle_json(tmp_path):
    _output(tmp_path / "paper", f"{UUID}_content_list.json", "full.md", "layout.json")
    docs, report = ingest_corpus(tmp_path)
    assert [d.format for d in docs] == ["mineru"]            # full.md is not a second document
    doc = docs[0]
    # layout.json's line heights set the levels: "Rainfall Records" (11pt) sits under "Study Area" (14pt)
    assert node_titled(doc, "Rainfall Records").rule.startswith("font size 11pt")
    assert [n.title for n in doc.paths()[node_titled(doc, "Rainfall Records").id][1:-1]] == ["Study Area"]
    assert report.excluded_totals()["MinerU file named by its folder (full.md, layout.json; not read again)"] == 2
    assert report.ignored_files == [] and report.problems == []


def test_a_content_list_without_a_stem_is_read_and_its_lone_markdown_named_in_the_report(tmp_path):
    _output(tmp_path / "demo", "content_list.json", "demo1.md", "middle.json")
    docs, report = ingest_corpus(tmp_path)
    assert [(d.format, d.id, d.title) for d in docs] == [("mineru", "demo", "A Study of Flow")]
    assert node_titled(docs[0], "Rainfall Records").rule.startswith("font size 11pt")
    [problem] = report.problems
    assert problem.file == "demo/demo1.md" and "content_list.json" in problem.problem
    assert report.ignored_files == []


def test_several_markdown_files_beside_a_stemless_content_list_are_read_and_reported(tmp_path):
    _output(tmp_path, "content_list.json", "a.md")
    (tmp_path / "b.md").write_text("# Notes\n\nOther text.\n")
    docs, report = ingest_corpus(tmp_path)
    assert sorted(d.format for d in docs) == ["markdown", "markdown", "mineru"]
    [problem] = report.problems
    assert problem.file == "content_list.json" and "a.md, b.md" in problem.problem


def test_folder_named_files_beside_two_documents_are_reported_not_read(tmp_path):
    _output(tmp_path, "one_content_list.json")
    _output(tmp_path, "two_content_list.json", "full.md", "layout.json")
    docs, report = ingest_corpus(tmp_path)
    assert sorted(d.id for d in docs) == ["one", "two"]       # full.md is neither read nor a third document
    assert sorted(p.file for p in report.problems) == ["full.md", "layout.json"]
    assert all("one_content_list.json, two_content_list.json" in p.problem for p in report.problems)


def test_magic_pdf_and_office_renders_beside_the_content_list_are_not_documents(tmp_path):
    _output(tmp_path, "x_content_list.json", "x.md")
    for name in ("x_spans.pdf", "x_origin.docx", "x_line_sort.pdf"):
        (tmp_path / name).write_bytes(b"not read")
    docs, report = ingest_corpus(tmp_path)
    assert [d.id for d in docs] == ["x"]
    assert report.problems == [] and report.ignored_files == []
