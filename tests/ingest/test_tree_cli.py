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
