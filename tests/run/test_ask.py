"""One question from the command line (ham-ask) and from Python (compose, Pipeline, ask)."""
import json

import pytest

from ham.cli.ask import ask_main


@pytest.fixture(scope="module")
def overrides(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ask")
    return [f"paths.output_root={tmp / 'out'}", f"paths.cache_root={tmp / 'cache'}"]


def test_ham_ask_prints_the_interleaved_answer_with_image_files_and_the_evidence(overrides, tmp_path, capsys):
    page = tmp_path / "answer.html"
    code = ask_main(["How do I reconcile my checking account with the bank statement?", *overrides,
                     "--html", str(page)])
    out = capsys.readouterr().out
    assert code == 0
    # a new cache: a preliminary answer from BM25 first, then the full one
    preliminary, full = out.split("Full answer (dense + sparse retrieval):")
    assert preliminary.startswith("Preliminary answer, from BM25 alone") and "strings to encode" in preliminary
    assert "Retrieved text:" in preliminary and "[image: " in preliminary
    answer, evidence = full.split("Retrieved text:")
    assert "[image: " in answer and "reconcil" in answer.lower()
    shown = [line.split("[image: ")[1].split(" — ")[0] for line in answer.splitlines() if "[image: " in line]
    assert shown and all(__import__("os").path.isfile(p) for p in shown), "each image is a file that exists"
    assert "Chapter 5. Checkbook > 5.5. Putting It All Together" in evidence and "score" in evidence
    assert "Retrieved images:" in evidence and "Figure 5." in evidence
    html = page.read_text()
    assert "<html" in html.lower() and "Generated answer" in html and "reconcil" in html.lower()


def test_a_second_ham_ask_on_a_built_index_prints_the_full_answer_alone(overrides, capsys):
    assert ask_main(["How do I enter a split transaction?", *overrides]) == 0
    out = capsys.readouterr().out
    assert "Preliminary answer" not in out and "Full answer" not in out and out.count("Retrieved text:") == 1


def test_ham_ask_json_row_and_bad_arguments(overrides, capsys):
    assert ask_main(["What is a split transaction?", *overrides, "--json"]) in (0, 1)
    row = json.loads(capsys.readouterr().out)
    assert row["question"] == "What is a split transaction?" and row["retrieved_text"] and "prompt" in row
    assert ask_main(["What is it?", "not-an-override"]) == 2
    assert "is not an override" in capsys.readouterr().err
    assert ask_main(["What is it?", "retrieval.k_t=-3"]) == 2
    assert "retrieval.k_t=-3" in capsys.readouterr().err
    assert ask_main(["What is it?", "retrieval.k_t=abc"]) == 2   # a type error: one line, no traceback
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "retrieval.k_t" in err and "Traceback" not in err


def test_ham_ask_says_what_is_wrong_with_dataset_path(overrides, tmp_path, capsys):
    from ham.cache import FolderCache
    from ham.ingest.corpus import load_corpus

    document = tmp_path / "guide.md"
    document.write_text("# Guide\n\nText.\n")
    for path, said in [(None, "dataset.path is not set"),
                       (document, f"is a file; it must be the corpus folder (every document under it is indexed), "
                                  f"e.g. dataset.path={tmp_path}"),
                       (tmp_path / "nowhere", "no such file or folder")]:
        extra = [] if path is None else [f"dataset.path={path}"]
        assert ask_main(["What is it?", *overrides, "dataset=custom", *extra]) == 2
        err = capsys.readouterr().err
        assert err.startswith("ham-ask: ") and said in err and "Traceback" not in err, err
    with pytest.raises(NotADirectoryError, match="is a file"):
        load_corpus(document, FolderCache(tmp_path / "cache"))


def test_python_api_builds_once_and_answers_many(overrides):
    from ham import build_pipeline, compose

    pipeline = build_pipeline(compose([*overrides, "retrieval.k_t=5", "retrieval.k_v=2"]))
    first = pipeline.ask("How do I record an ATM withdrawal?")
    retriever = pipeline.retriever
    second = pipeline.ask("How do I set up a loan?")
    assert pipeline.retriever is retriever, "one pipeline answers many questions"
    assert len(first["retrieved_text"]) == 5 and len(second["retrieved_images"]) == 2
    assert first["retrieved_text"][0]["heading_path"] and first["answer"] is not None
