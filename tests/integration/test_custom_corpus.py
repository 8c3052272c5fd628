"""`ham dataset=custom` on a user's folder: every supported document is indexed, bad input is
reported and skipped, and the questions are answered."""
import json

from PIL import Image

from ham.conf import compose
from ham.run.job import run


def _corpus(tmp_path):
    root = tmp_path / "manuals"
    (root / "img").mkdir(parents=True)
    Image.new("RGB", (32, 24), (200, 30, 30)).save(root / "img" / "filter.png")
    (root / "img" / "broken.png").write_bytes(b"not an image at all")
    (root / "pump.md").write_text(
        "# Pump Manual\n\n## 1. Filter\n\nReplace the filter cartridge every six months.\n\n"
        "![filter cartridge](img/filter.png)\n\nFigure 1. The filter cartridge.\n\n"
        "## 2. Seals\n\nInspect the shaft seal for leaks weekly.\n\n![seal](img/broken.png)\n")
    (root / "latin1.md").write_bytes("# Caf\xe9 manual\n\nBody.\n".encode("latin-1"))
    questions = tmp_path / "questions.jsonl"
    questions.write_text("\n".join([
        json.dumps({"id": "a", "question": "How often is the filter cartridge replaced?",
                    "reference_answer": "Every six months. ![filter](img/filter.png)", "extra": 1}),
        "{not json",
        json.dumps({"id": "b", "question": "How often is the shaft seal inspected?",
                    "gold_text": ["Inspect the shaft seal for leaks weekly."]}),
        json.dumps({"id": "c", "question": "What does the filter cartridge look like?",
                    "gold_images": ["manuals/img/filter.png"]}),   # relative to the wrong folder
    ]) + "\n")
    return root, questions


def test_custom_corpus_end_to_end(tmp_path, capsys):
    root, questions = _corpus(tmp_path)
    cfg = compose([
        "dataset=custom", f"dataset.path={root}", f"dataset.questions={questions}", "progress=false",
        f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}"])
    out = run(cfg)
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["a", "b", "c"]
    a = rows[0]
    assert a["retrieved_images"][0]["image"] == "img/filter.png"
    assert a["retrieved_images"][0]["heading_path"] == ["1. Filter"]  # "Pump Manual" is the title
    assert "six months" in a["raw_answer"] and a["metrics"]["image_recall"] == 1.0
    assert rows[1]["metrics"]["gold_text_recall"] == 1.0
    run_info = json.loads((out / "run.json").read_text())
    problems = {(p["file"], p["skipped"]) for p in run_info["ingest"]["problems"]}
    assert ("pump.md", "image") in problems and ("latin1.md", "document") in problems
    assert any(msg.startswith(f"{questions}:2:") for msg in run_info["question_problems"])
    # a gold that matches nothing scores 0 for every system: named, not silent
    assert rows[2]["metrics"]["ir"] == 0.0
    assert run_info["gold_problems"]["count"] == 1 and "'manuals/img/filter.png'" in run_info["gold_problems"]["examples"][0]
    err = capsys.readouterr().err
    assert "img/broken.png" in err and "latin1.md" in err and "UTF-8" in err
