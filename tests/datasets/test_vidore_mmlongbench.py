"""ViDoRe (BEIR layout, both column spellings) and MMLongBench-Doc readers on fixtures in the
shapes their hubs ship, their gold pages, and ham-questions' counts."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from ham.cli.questions import questions_main
from ham.datasets.mmlongbench import MmlongbenchReader
from ham.datasets.pages import gold_page_key, page_gold, page_keys
from ham.datasets.vidore import VidoreReader

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "datasets"
V3, V2 = FIXTURES / "vidore" / "v3", FIXTURES / "vidore" / "v2"
SAMPLES = FIXTURES / "mmlongbench" / "samples.json"


def test_vidore_v3_queries_with_graded_qrels_named_as_pages():
    questions, problems = VidoreReader(language="all").read(V3)
    by_id = {q.id: q for q in questions}
    assert list(by_id) == ["10", "11", "12", "14"]
    assert page_gold(by_id["10"]) == {"energy-report#0": 2, "energy-report#1": 0}    # a judged non-relevant page kept
    assert page_gold(by_id["11"]) == {"energy-report#1": 2, "energy-report#2": 1}
    assert by_id["10"].meta["qrels"] == {"0": 2, "1": 0}
    assert by_id["11"].reference_answer == "12 GW" and by_id["11"].kinds == ["numerical"]
    assert by_id["14"].meta["page_qrels"] == {} and by_id["14"].meta["language"] == "french"
    assert any("corpus id 99 is not in the corpus" in p for p in problems)
    assert any("query 13 has no text (skipped)" in p for p in problems)
    assert any("query 14 has no qrels row" in p for p in problems)


def _translated_set(root: Path) -> Path:
    """A v3-shaped set whose two questions ship in english and french (rows of their own)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def write(name, rows):
        (root / name).mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist(rows), root / name / "test-00000-of-00001.parquet")
    corpus = pq.read_table(next((V3 / "corpus").glob("*.parquet"))).to_pylist()
    write("corpus", corpus)
    write("queries", [{"query_id": q, "query": t, "language": lang, "query_types": ["extractive"], "answer": "x"}
                      for q, t, lang in [(0, "What share came from wind?", "english"),
                                         (1, "How large is solar?", "English"),
                                         (2, "Quelle part vient du vent ?", "french"),
                                         (3, "Quelle est la taille du solaire ?", "french")]])
    write("qrels", [{"query_id": q, "corpus_id": c, "score": 2} for q, c in [(0, 0), (1, 1), (2, 0), (3, 1)]])
    return root


def test_vidore_keeps_one_language_of_a_translated_set_and_says_what_it_left_out(tmp_path):
    """v3 ships every query once per language: read whole, one mean mixes translations and n counts
    each question once per language."""
    root = _translated_set(tmp_path / "set")
    questions, problems = VidoreReader().read(root)
    assert [(q.id, q.meta["language"]) for q in questions] == [("0", "english"), ("1", "english")]
    assert problems == [f"{root}: 2 english queries kept of 4 by language: english 2, french 2 "
                        "(dataset.reader.language=all keeps every row)"]     # the french qrels are no problem
    assert [q.id for q in VidoreReader(language="french").read(root)[0]] == ["2", "3"]
    every, problems = VidoreReader(language="all").read(root)
    assert [q.id for q in every] == ["0", "1", "2", "3"]
    assert len(problems) == 1 and "every language kept" in problems[0] and "english 2, french 2" in problems[0]
    none, problems = VidoreReader(language="german").read(root)
    assert none == [] and "0 german queries kept of 4" in problems[0]


def _set_with_queries(root: Path, queries: list[dict], qrels: list[tuple[int, int]]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    for name, rows in (("corpus", pq.read_table(next((V3 / "corpus").glob("*.parquet"))).to_pylist()),
                       ("queries", queries), ("qrels", [{"query-id": q, "corpus-id": c, "score": 1} for q, c in qrels])):
        (root / name).mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist(rows), root / name / "test-00000-of-00001.parquet")
    return root


def test_vidore_v2_translations_sharing_a_query_id_keep_the_wanted_language(tmp_path):
    """v2 ships a language column too (MTEB's Vidore2 loaders filter by it); a translation that
    shares its query's id is left out by language, not kept in place of the english row."""
    root = _set_with_queries(tmp_path / "v2", [
        {"query-id": 0, "query": "Quelle part vient du vent ?", "language": "french"},
        {"query-id": 0, "query": "What share came from wind?", "language": "english"},
        {"query-id": 1, "query": "How large is solar?", "language": "english"},
        {"query-id": 1, "query": "How large is solar, again?", "language": "english"}], [(0, 0), (1, 1)])
    questions, problems = VidoreReader().read(root)
    assert [(q.id, q.question) for q in questions] == [("0", "What share came from wind?"), ("1", "How large is solar?")]
    repeats = [p for p in problems if "repeats" in p]
    assert len(repeats) == 1 and "row 3: query id 1 repeats" in repeats[0]     # a true repeat is still reported
    assert f"{root}: 2 english queries kept of 3 by language: english 2, french 1 " \
           "(dataset.reader.language=all keeps every row)" in problems
    assert not any("no query has" in p for p in problems)


def test_vidore_v3_reference_answers_from_a_gold_answer_column(tmp_path):
    root = _set_with_queries(tmp_path / "v3", [
        {"query_id": 0, "query": "What share came from wind?", "language": "english", "gold_answer": "40%"},
        {"query_id": 1, "query": "How large is solar?", "language": "english", "gold_answer": "12 GW"}], [(0, 0), (1, 1)])
    questions, problems = VidoreReader().read(root)
    assert [q.reference_answer for q in questions] == ["40%", "12 GW"]
    assert not any("no answer column" in p for p in problems)


def test_ham_questions_counts_a_vidore_set_by_language(tmp_path, capsys):
    root = _translated_set(tmp_path / "set")
    assert questions_main([str(root), "--format", "vidore"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 questions read") and "by language:\n  english  2\n" in out
    assert "english 2, french 2" in out
    assert questions_main([str(root), "--format", "vidore", "--language", "all"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("4 questions read") and "by language:\n  english  2\n  french   2\n" in out


def test_the_vidore_language_enters_the_run_id():
    from ham.conf import compose
    from ham.run.identity import run_id

    ids = {lang: run_id(compose(["dataset=vidore", f"dataset.reader.language={lang}"], return_hydra_config=False))
           for lang in ("english", "french", "all")}
    assert len(set(ids.values())) == 3
    assert run_id(compose(["dataset=vidore"], return_hydra_config=False)) == ids["english"]


def test_vidore_v2_hyphenated_columns_each_row_its_own_page():
    questions, problems = VidoreReader().read(V2)
    assert problems == [f"{next((V2 / 'queries').glob('*.parquet'))}: no answer column (answer or gold_answer): "
                        "its queries have no reference answer (answer metrics undefined)"]
    assert [(q.id, page_gold(q)) for q in questions] == [("0", {"corpus-2#0": 1}), ("1", {"corpus-0#0": 1})]


def test_a_folder_that_is_not_a_vidore_set_says_what_is_missing(tmp_path):
    (tmp_path / "queries").mkdir()
    shutil.copy(next((V2 / "queries").glob("*.parquet")), tmp_path / "queries" / "test-00000-of-00001.parquet")
    questions, problems = VidoreReader().read(tmp_path)
    assert questions == [] and problems == [f"{tmp_path}: no qrels/*.parquet shards (not a ViDoRe BEIR set folder)"]


def test_mmlongbench_samples_as_its_repository_ships_them():
    questions, problems = MmlongbenchReader().read(SAMPLES)
    assert [q.id for q in questions] == ["solar-brief#0", "solar-brief#1", "solar-brief#2", "travel-guide#0",
                                         "travel-guide#1", "travel-guide#2"]
    first, cross, negative, listing = questions[:4]
    assert page_gold(first) == {"solar-brief#1": 1}                           # "[2]" is the second page
    assert first.meta["evidence_pages"] == [1] and first.kinds == ["text"] and first.meta["answer_format"] == "Str"
    assert page_gold(cross) == {"solar-brief#0": 1, "solar-brief#2": 1} and cross.meta["multi_page"]
    assert negative.meta["unanswerable"] and page_gold(negative) == {}
    assert listing.reference_answer == "['City Museum', 'Harbour Gallery']" and listing.kinds == ["layout"]
    assert len(problems) == 3
    assert "sample 4: evidence_pages 'page two'" in problems[0]
    assert "sample 5: not a sample with question and doc_id (skipped)" in problems[1]
    assert "sample 6: answer_format 'Integer'" in problems[2]


def test_mmlongbench_multi_page_is_the_benchmarks_cross_page_split(tmp_path):
    """eval_score.py's show_results: cross-page = len(evidence_pages) != 1 and answer != "Not answerable"."""
    def sample(pages, answer="7"):
        return {"doc_id": "d.pdf", "question": "?", "answer": answer, "evidence_pages": pages,
                "evidence_sources": "['Table']", "answer_format": "Int"}
    cases = [("[2]", "7", False), ("[1, 3]", "7", True), ("[3, 3]", "7", True), ("[]", "7", True),
             ("[]", "Not answerable", False), ("[1, 2]", "Not answerable", False), ("page two", "7", None)]
    path = tmp_path / "samples.json"
    path.write_text(json.dumps([sample(pages, answer) for pages, answer, _ in cases]))
    questions, _ = MmlongbenchReader().read(path)
    official = [len(json.loads(p)) != 1 and a != "Not answerable" if p.startswith("[") else None for p, a, _ in cases]
    assert [q.meta["multi_page"] for q in questions] == [want for _, _, want in cases] == official


def test_mmlongbench_jsonl_and_parquet_copies_read_alike(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    samples = json.loads(SAMPLES.read_text())
    (tmp_path / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    pq.write_table(pa.Table.from_pylist(samples), tmp_path / "samples.parquet")
    reference = [q.to_dict() for q in MmlongbenchReader().read(SAMPLES)[0]]
    for name in ("samples.jsonl", "samples.parquet"):
        assert [q.to_dict() for q in MmlongbenchReader().read(tmp_path / name)[0]] == reference


def test_page_keys_match_gold_keys_across_folders_and_pdf_suffixes():
    assert gold_page_key("PH 2016 Economy.pdf", 4) == "PH_2016_Economy#4"
    assert gold_page_key("PH 2016 Economy.pdf", 4) in page_keys("documents/PH_2016_Economy", 4)
    assert gold_page_key("energy-report.pdf", 0) in page_keys("energy-report", 0)
    assert page_keys("energy-report", None) == set()


def test_ham_questions_counts_vidore_and_mmlongbench(capsys):
    assert questions_main([str(V3), "--format", "vidore"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"3 questions read from {V3} (format vidore)")          # english only
    assert "with gold pages: 3 (4 judged relevant)" in out and "problems: 3" in out
    assert "3 english queries kept of 4 by language: english 3, french 1" in out
    assert questions_main([str(SAMPLES), "--format", "mmlongbench"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("6 questions read") and "by answer format:" in out and "with gold pages: 4 (5" in out
    assert questions_main([str(SAMPLES), "--format", "vidore"]) == 1        # a set is a folder


def test_every_language_kept_makes_each_translation_a_question_of_its_own(tmp_path):
    # v2's translations share their query's id: under language=all each is kept as <id>@<language>,
    # judged by its query's qrels, instead of whichever came first standing for all of them
    root = _set_with_queries(tmp_path / "v2", [
        {"query-id": 0, "query": "Quelle part vient du vent ?", "language": "french"},
        {"query-id": 0, "query": "What share came from wind?", "language": "english"},
        {"query-id": 1, "query": "How large is solar?", "language": "english"},
        {"query-id": 1, "query": "Quelle taille a le solaire ?", "language": "french"}], [(0, 0), (1, 1)])
    questions, problems = VidoreReader(language="all").read(root)
    assert sorted(q.id for q in questions) == ["0@english", "0@french", "1@english", "1@french"]
    by_id = {q.id: q for q in questions}
    assert by_id["0@french"].meta["qrels"] == by_id["0@english"].meta["qrels"] != by_id["1@french"].meta["qrels"]
    assert not any("repeats" in p for p in problems)
