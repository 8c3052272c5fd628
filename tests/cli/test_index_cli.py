"""ham-show-unit prints the exact embedded string; ham-index builds the indexes alone."""
import json
import sys

from ham.cli.index import index_main
from ham.cli.show_unit import show_unit_main
from ham.paths import PROJECT_ROOT

CORPUS = PROJECT_ROOT / "tests" / "fixtures" / "ingest" / "markdown"


def _overrides(tmp_path):
    return ["dataset=custom", f"dataset.path={CORPUS}", "dataset.questions=unused.jsonl",
            f"paths.output_root={tmp_path}"]


def test_find_then_show_the_exact_strings(tmp_path, capsys):
    assert show_unit_main(["--find", "OPEN A BROWSER", *_overrides(tmp_path)]) == 0
    listed = [line.split("\t") for line in capsys.readouterr().out.strip().splitlines()]
    assert len(listed) == 1, "one paragraph says it (case-insensitive match)"
    unit_id, modality, path, content = listed[0]
    assert modality == "text" and path.endswith("2. Configuring the network")

    assert show_unit_main([unit_id, "text_repr=st", *_overrides(tmp_path)]) == 0
    out = capsys.readouterr()
    assert f"# {unit_id} (text, st)" in out.err
    assert out.out.startswith(content) and "Document:" not in out.out

    assert show_unit_main([unit_id, "text_repr=ct", *_overrides(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Document: ") and lines[1] == "Path: " + " > ".join(path.split(" > ")[1:])
    assert lines[2].startswith("Content: " + content[:40])
    assert any(line.startswith("Section summary: ") for line in lines)


def test_unknown_unit_is_an_error_naming_it(tmp_path, capsys):
    assert show_unit_main(["nope:42", *_overrides(tmp_path)]) == 1
    assert "no unit 'nope:42'" in capsys.readouterr().err
    assert show_unit_main([]) == 2


def _summary(stdout: str) -> dict:
    """The JSON summary ham-index prints last (Hydra's log lines come before it)."""
    return json.loads(stdout[stdout.index("\n{") + 1:] if not stdout.startswith("{") else stdout)


def test_ham_index_builds_then_reuses(tmp_path, monkeypatch, capsys):
    argv = ["ham-index", *_overrides(tmp_path), "progress=false", f"hydra.run.dir={tmp_path / 'hydra'}"]
    monkeypatch.setattr(sys, "argv", argv)
    index_main()
    out = capsys.readouterr()
    first = _summary(out.out)
    assert out.err.count("ingest: ") == 1, "the ingest report is printed once, not logged and printed"
    index_main()
    out = capsys.readouterr()
    second = _summary(out.out)
    assert out.err.count("ingest: ") == 1, "a reused ingest still reports what was read"
    assert not first["text"]["reused"] and second["text"]["reused"] and second["image"]["reused"]
    assert first["text"]["key"] == second["text"]["key"] and first["units"] == second["units"] > 0
    assert (tmp_path / "cache" / "index" / first["text"]["key"] / "dense.faiss").exists()
    assert first["si_fallback_images"] == first["image"]["size"], "the custom corpus ships no descriptions"
