"""ham-tree: print the tree of a file's document or of every document in a folder."""
from ham.cli.tree import tree_main
from tests.ingest.helpers import FIXTURES


def test_a_page_prints_the_manual_it_belongs_to(capsys):
    assert tree_main([str(FIXTURES / "docbook" / "cbook-together1.html")]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == "Part II. The Common Usage  [html: part.managing_personal.html]"
    assert "  section: Chapter 5. Checkbook" in lines  # the part page's heading is the title
    assert "    subsection: 5.5. Putting It All Together" in lines
    assert "      subsection: 5.5.1. Opening Balances" in lines
    assert any("[image] figures/cbook_checkexamp.png — Figure 5.3." in line for line in lines)
    assert "ingest: 1 documents" in err


def test_a_folder_prints_every_document(capsys):
    assert tree_main([str(FIXTURES / "mramg")]) == 0
    out, _ = capsys.readouterr()
    assert out.count("[mramg: doc_recipe.jsonl]") == 2
    assert "[image] 101 — Whisking the pancake batter" in out


def test_mineru_markdown_prints_its_content_list_document(capsys):
    md = FIXTURES / "mineru" / "solar_panels" / "auto" / "solar_panels.md"
    assert tree_main([str(md)]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("Maintaining Rooftop Solar Panels  [mineru: solar_panels_content_list.json]")


def test_format_option_restricts_the_parsers(capsys):
    folder = FIXTURES / "mineru" / "solar_panels" / "auto"
    assert tree_main([str(folder), "--format", "markdown"]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("Maintaining Rooftop Solar Panels  [markdown: solar_panels.md]")


def test_nothing_parsed_exits_1(tmp_path, capsys):
    (tmp_path / "empty.md").write_text("")
    assert tree_main([str(tmp_path)]) == 1
    _, err = capsys.readouterr()
    assert "empty.md: no content (empty document)" in err
    assert tree_main([str(tmp_path / "missing.md")]) == 1


def test_why_shows_the_rule_behind_each_level(capsys):
    from tests.ingest.helpers import FIXTURES as F

    assert tree_main([str(F / "parsed" / "paper"), "--why"]) == 0
    out, _ = capsys.readouterr()
    assert "  section: 1 Introduction  [numbering 1 -> depth 1]" in out
    assert "    subsection: Graph-based RAG  [font size 10.9pt, as numbered headings of depth 2]" in out
    assert "(title: the largest heading of the document (17.2pt)" in out.splitlines()[0]


def test_reconstruct_writes_markdown_that_ingests_back_to_the_same_tree(tmp_path, capsys):
    import shutil

    from ham.cli.tree import recon_main
    from ham.ingest import ingest_corpus

    src = tmp_path / "src"
    shutil.copytree(FIXTURES / "parsed" / "paper", src)
    out = tmp_path / "out" / "paper.md"
    assert recon_main([str(src), str(out)]) == 0
    text = out.read_text()
    assert text.startswith("# Hierarchy-Aware Retrieval for Manuals\n")
    assert "\n## 1 Introduction\n" in text and "\n#### 1.2.1 Trees\n" in text and "\n### Graph-based RAG\n" in text
    assert "| Variant | EM |\n|---|---|\n| full tree | 61.2 |" in text
    image = next(line for line in text.splitlines() if line.startswith("!["))
    assert (out.parent / image.split("](")[1].rstrip(")")).is_file()  # the link works from the file
    # ingested again, the Markdown gives the same headings at the same depths
    (again,), _ = ingest_corpus(out.parent)
    original, _ = ingest_corpus(src)

    def outline(doc):
        paths = doc.paths()
        return [(len(paths[n.id]), n.title) for n in doc.root.walk() if n.kind in ("section", "subsection")]
    assert outline(again) == outline(original[0]) and again.title == original[0].title


def test_reconstruct_flat_markdown_recovers_nesting_from_numbering(tmp_path):
    from ham.cli.tree import recon_main

    (tmp_path / "flat.md").write_text("# Guide\n\n# 1 Setup\n\nText.\n\n# 1.1 Cables\n\nMore.\n\n# 2 Use\n\nEnd.\n")
    out = tmp_path / "recon"
    assert recon_main([str(tmp_path / "flat.md"), str(out)]) == 0
    text = (out / "flat.md").read_text()
    assert "## 1 Setup" in text and "### 1.1 Cables" in text and "## 2 Use" in text


def test_a_pdf_is_read_alone_not_with_the_other_files_of_its_folder(tmp_path, capsys):
    from tests.ingest.test_pdf_columns import two_columns_pdf

    two_columns_pdf(tmp_path / "notes.pdf")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >>\ngarbage")   # a neighbour
    assert tree_main([str(tmp_path / "notes.pdf")]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("Pump Notes Spanning The Page Width Of The Sheet  [pdf: notes.pdf]")
    assert "ingest: 1 documents" in err and "broken.pdf" not in err
    # with --root the folder is the corpus, and its other files are read (and reported) too
    assert tree_main([str(tmp_path / "notes.pdf"), "--root", str(tmp_path)]) == 0
    assert "broken.pdf" in capsys.readouterr().err
