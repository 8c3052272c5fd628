"""``ham-questions FILE --format ...``: counts as digits, breakdowns, every problem with its line,
exit status 1 when nothing could be read."""
import json

import pytest

from ham.cli.questions import questions_main
from ham.datasets.questions import load_questions
from tests.datasets.conftest import MMDOCIR, MMDOCRAG, TOPOGRAPH


def run(capsys, *argv):
    code = questions_main([str(a) for a in argv])
    return code, capsys.readouterr()


def test_mmdocir_counts_kinds_raw_types_and_lists_problems(capsys):
    path = MMDOCIR / "MMDocIR_annotations.jsonl"
    code, out = run(capsys, path, "--format", "mmdocir")
    lines = out.out.splitlines()
    assert code == 0
    assert lines[0] == f"13 questions read from {path} (format mmdocir)"
    kinds = lines[lines.index("by kind:") + 1: lines.index("by type (raw):")]
    assert [k.split() for k in kinds][:2] == [["text", "5"], ["chart", "2"]]
    assert any(line.split() == ["[]", "1"] for line in lines)
    assert "problems: 5" in lines
    assert f"  {path}:2: question 3 has no Q (question skipped)" in lines
    assert any(line.startswith(f"  {path}:3: not valid JSON") for line in lines)


def test_topograph_counts_by_topology(capsys):
    path = TOPOGRAPH / "annotations" / "benchmark.json"
    code, out = run(capsys, path, "--format", "topograph")
    lines = out.out.splitlines()
    assert code == 0 and lines[0].startswith("6 questions read")
    topo = lines[lines.index("by topology:") + 1: lines.index("by kind:")]
    assert sorted(t.split() for t in topo) == [["bridge_chain", "2"], ["single_hop", "2"], ["synthesis", "2"]]
    assert "with gold evidence: 6 (10 items)" in lines
    assert "problems: 3" in lines


@pytest.mark.parametrize("fmt, name, count", [("mmdocrag", "evaluation_15.jsonl", 3)])
def test_mmdocrag(capsys, fmt, name, count):
    code, out = run(capsys, MMDOCRAG / name, "--format", fmt)
    assert code == 0 and out.out.startswith(f"{count} questions read")


def test_jsonl_and_mramg_formats(tmp_path, capsys):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"id": "a", "question": "Q?", "kinds": ["x"], "topology": "synthesis"}) + "\nnot json\n")
    code, out = run(capsys, path, "--format", "jsonl")
    assert code == 0 and out.out.startswith("1 questions read")
    assert f"{path}:2: not valid JSON" in out.out
    mqa = tmp_path / "wit_mqa.jsonl"
    mqa.write_text(json.dumps({"id": 1, "question": "Q?", "ground_truth": "A <PIC>", "images_list": [5]}) + "\n")
    code, out = run(capsys, mqa, "--format", "mramg")
    assert code == 0 and out.out.startswith("1 questions read")


def test_jsonl_fields_of_the_wrong_type_are_reported_with_their_line(tmp_path, capsys):
    path = tmp_path / "q.jsonl"
    rows = [{"id": "q1", "question": "Fine?", "gold_text": ["a passage"], "evidence": [{"text": "x", "page": 2}]},
            {"id": "q2", "question": 5},
            {"id": "q3", "question": "Q?", "reference_answer": ["a list"]},
            {"id": "q4", "question": "Q?", "gold_text": [None]},
            {"id": "q5", "question": "Q?", "gold_images": ["a.png", 7]},
            {"id": "q6", "question": "Q?", "evidence": [{"text": 12}]},
            {"id": "q7", "question": "Q?", "hops": [{"sub_question": "S?", "result": None}]},
            {"id": ["q8"], "question": "Q?"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out = run(capsys, path, "--format", "jsonl")
    assert code == 0 and out.out.startswith("1 questions read")
    for lineno, field in [(2, "question"), (3, "reference_answer"), (4, "gold_text[0]"), (5, "gold_images[1]"),
                          (6, "evidence[0].text"), (7, "hops[0].result"), (8, "id")]:
        assert f"{path}:{lineno}: {field} must be" in out.out
    questions, problems = load_questions(path)
    assert [q.id for q in questions] == ["q1"] and len(problems) == 7


def test_nothing_read_exits_1(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("garbage\n")
    code, out = run(capsys, empty, "--format", "mmdocir")
    assert code == 1 and out.out.startswith("0 questions read") and "problems: 1" in out.out
    code, out = run(capsys, tmp_path / "missing.jsonl", "--format", "mmdocir")
    assert code == 1 and "is not a file" in out.err
    notarray = tmp_path / "b.json"
    notarray.write_text("[ {\"sh_id\": ")
    code, out = run(capsys, notarray, "--format", "topograph")
    assert code == 1 and "not valid JSON" in out.out


def test_reads_a_large_annotations_file_line_by_line(tmp_path, capsys):
    doc = json.loads((MMDOCIR / "MMDocIR_annotations.jsonl").read_text().splitlines()[0])
    path = tmp_path / "big.jsonl"
    with path.open("w") as fh:
        for i in range(400):
            fh.write(json.dumps(dict(doc, doc_name=f"d{i}.pdf")) + "\n")
    code, out = run(capsys, path, "--format", "mmdocir")
    assert code == 0 and out.out.startswith("2800 questions read")
