"""Tables 3 and 4, robustness/cost, CIs and paired comparisons on a fixture grid of run folders
written here; Table 3's M Avg. checked against two rows of the paper's Table 3."""
import json

import pytest

from ham_analysis.collect import collect, questions_table, runs_table
from ham_analysis.table_format import to_latex, to_markdown
from ham_analysis.tables import ci_table, paired_table, robustness_cost, table3, table4
from tests.analysis.grid_fixture import config, paper_like_rows, prediction, write_run

# Table 3 (DeepSeek-V3) and Table 4 of the paper: Img-F1, Img-CBS (x100), Qual., TCR@15, IR
PAPER = {
    "ham": {"wukong": (55.67, 55.49, 3.74, 0.99, 0.83), "wiki": (100.0, 70.48, 3.39, 0.80, 1.00),
            "arxiv": (50.57, 50.82, 3.34, 0.77, 0.86), "recipe": (74.81, 65.74, 3.76, 0.97, 0.97)},
    "llm_based": {"wukong": (43.79, 45.57, 3.42, 0.80, 0.65), "wiki": (97.87, 66.07, 3.36, 0.70, 0.98),
                  "arxiv": (31.14, 34.28, 3.07, 0.62, 0.99), "recipe": (55.13, 52.10, 3.51, 0.91, 0.92)},
}


@pytest.fixture
def paper_grid(tmp_path):
    for method, by_dataset in PAPER.items():
        for dataset, (f1, cbs, qual, tcr, ir) in by_dataset.items():
            means = {"image_f1": f1 / 100, "img_cbs": cbs / 100, "overall_quality": qual, "tcr15": tcr, "ir": ir}
            write_run(tmp_path / "runs" / f"{method}-{dataset}",    # the paper's cut, as grid=main_text pins it
                      config(dataset, method=method, generator="deepseek-v3",
                             overrides=("units=blocks", "retrieval=hybrid")),
                      paper_like_rows(means), judge=True)
    return tmp_path / "runs"


def _row(table, label):
    return next(values for labels, values in table.rows if labels[0] == label)


def test_table3_reproduces_the_papers_m_avg_and_bolds_the_best(paper_grid):
    coll = collect([paper_grid])
    assert coll.problems == [] and len(coll.runs) == 8 and coll.varying_axes == ["dataset", "method"]
    t = table3(coll)
    assert t.row_header == ["method"]
    assert _row(t, "ham")["m_avg"] == pytest.approx(67.35, abs=0.005)        # paper: 67.35
    assert _row(t, "llm_based")["m_avg"] == pytest.approx(57.76, abs=0.005)  # paper: 57.76
    md = to_markdown(t)
    # datasets in name order: arxiv, recipe, wiki, wukong
    assert "| ham | **50.57** | **50.82** | **3.34** | **74.81** |" in md
    assert "| llm_based | 31.14 | 34.28 | 3.07 | 55.13 |" in md
    assert "**67.35**" in md and "57.76" in md and "**57.76**" not in md
    assert "**100.00**" in md and "97.87" in md
    tex = to_latex(t)
    assert r"\textbf{67.35}" in tex and r"\multicolumn{3}{c}{wukong}" in tex and r"llm\_based" in tex
    assert tex.count(r"\cmidrule") == 4 and "†" not in md


def test_table4_retrieval(paper_grid):
    t = table4(collect([paper_grid]))
    md = to_markdown(t)
    assert [c.header for c in t.columns[:2]] == ["TCR@15", "IR"]
    assert "| ham | **0.77** | 0.86 | **0.97** | **0.97** |" in md
    assert _row(t, "llm_based")["arxiv:ir"] == pytest.approx(0.99) and "**0.99**" in md.split("llm_based")[1]


def test_not_computed_metrics_and_partial_m_avg_are_marked(tmp_path):
    for image_repr, f1 in (("si", 0.6), ("li", 0.4)):
        write_run(tmp_path / image_repr, config("demo", image_repr=image_repr),
                  paper_like_rows({"image_f1": f1, "img_cbs": 0.5}))
    t = table3(collect([tmp_path]))
    md = to_markdown(t)
    assert _row(t, "si")["m_avg"] == pytest.approx(55.0) and _row(t, "si")["demo:overall_quality"] is None
    assert "**55.00†**" in md and "| li | 40.00 | **50.00** | – | 45.00† |" in md
    assert "judge=none" in md and "† M Avg. without a part" in md and "without Qual. (needs a judge) on demo: li, si" in md
    assert r"45.00\dag{}" in to_latex(t)
    assert "not computed" in to_markdown(table4(collect([tmp_path])))


def test_m_avg_is_over_every_dataset_and_a_row_missing_one_has_none(tmp_path):
    # M Avg. over the datasets a row happens to have is another number: 60 beat 35 here, bold
    scores = {("ham", "a"): 0.5, ("ham", "b"): 0.2, ("llm_based", "a"): 0.6}
    for (method, ds), v in scores.items():
        write_run(tmp_path / f"{method}-{ds}", config(ds, method=method),
                  paper_like_rows({"image_f1": v, "img_cbs": v, "overall_quality": 5 * v}), judge=True)
    t = table3(collect([tmp_path]))
    assert _row(t, "ham")["m_avg"] == pytest.approx(35.0) and _row(t, "llm_based")["m_avg"] is None
    md = to_markdown(t)
    assert "| llm_based | **60.00** | **60.00** | **3.00** | – | – | – | – |" in md
    assert "llm_based has no run on b" in md


def test_a_mean_that_left_out_judge_failures_is_marked_and_never_bold(tmp_path):
    # the judge failed on ham's two hard questions: its Qual. over the other two must not win
    ham = [prediction(f"q{i}", {"image_f1": f, "img_cbs": f, "overall_quality": q})
           for i, (f, q) in enumerate([(1.0, 5.0), (1.0, 5.0), (0.0, None), (0.0, None)])]
    for r in ham[2:]:
        r["metrics"]["judge"] = {"overall_quality": {"error": "unparseable: no score"}}
    other = [prediction(f"q{i}", {"image_f1": f, "img_cbs": f, "overall_quality": q})
             for i, (f, q) in enumerate([(1.0, 4.0), (1.0, 4.0), (0.0, 1.0), (0.0, 1.0)])]
    write_run(tmp_path / "ham", config("demo", method="ham"), ham, judge=True)
    write_run(tmp_path / "llm", config("demo", method="llm_based"), other, judge=True)
    t = table3(collect([tmp_path]))
    md = to_markdown(t)
    assert "| ham | **50.00** | **50.00** | 5.00‡ | 66.67‡ |" in md
    assert "| llm_based | **50.00** | **50.00** | 2.50 | 50.00 |" in md
    assert "Qual. over 2 of 4 questions (2 failed)" in md


def test_a_summary_written_before_the_rows_is_reported_and_the_run_skipped(tmp_path):
    rows = [prediction("q1", {"image_f1": 0.0}), prediction("q2", {"image_f1": 1.0})]
    run = write_run(tmp_path / "resumed", config("demo"), rows)
    redone = prediction("q1", {"image_f1": 1.0})     # a resume answered q1 again, then died before its summary
    with (run / "predictions.jsonl").open("a") as fh:
        fh.write(json.dumps(redone) + "\n")
    coll = collect([tmp_path])
    assert coll.runs == []
    problems = "\n".join(coll.problems)
    assert f"{run / 'metrics.json'}: its " in problems and "mean 0.5 is not the rows' (1.0)" in problems
    extra = write_run(tmp_path / "longer", config("demo", text_repr="st"), rows)
    with (extra / "predictions.jsonl").open("a") as fh:
        fh.write(json.dumps(prediction("q3", {"image_f1": 0.5})) + "\n")
    assert "it counts 2 questions, predictions.jsonl holds 3" in "\n".join(collect([tmp_path]).problems)


def test_robustness_and_cost(tmp_path):
    rows = [prediction("q1", {"image_f1": 1.0}, answer=[], usage={"prompt_tokens": 1000, "completion_tokens": 100}),
            prediction("q2", {"image_f1": 0.0}, failure={"reason": "empty", "detail": ""},
                       usage={"prompt_tokens": 3000, "completion_tokens": 0}),
            prediction("q3", {"image_f1": 0.0}, failure={"reason": "over_length", "detail": ""}),
            prediction("q4", {"image_f1": 0.5}, answer=[])]
    write_run(tmp_path / "a", config("demo"), rows, pricing="gpt4o")
    write_run(tmp_path / "b", config("demo", generator="gpt-5"), [prediction("q1", {"image_f1": 1.0}, answer=[])])
    coll = collect([tmp_path])
    t = robustness_cost(coll)
    a = _row(t, "gpt4o")
    assert (a["n"], a["failures"], a["rate"]) == (4, 2, 50.0)
    assert a["reasons"] == "empty 1, over_length 1"
    # 4000 prompt and 100 completion tokens over 4 questions; GPT-4o prices: $2.50 and $10 per 1M
    assert a["prompt_tokens"] == 1000.0 and a["completion_tokens"] == 25.0
    assert a["cents"] == pytest.approx((4000 * 2.5 + 100 * 10) / 1e4 / 4) and a["pricing"] == "gpt4o"
    md = to_markdown(t)
    assert "| gpt5 | demo | 1 | **0** | **0.000** | none | 0.0 | 0.0 | – | – |" in md
    questions = questions_table(coll)
    q1 = questions[(questions.generator == "gpt4o") & (questions.question_id == "q1")].iloc[0]
    assert q1["cost_cents"] == pytest.approx((1000 * 2.5 + 100 * 10) / 1e4) and q1["prompt_tokens"] == 1000


def test_ci_and_paired_tables_use_per_question_scores(tmp_path):
    full = [prediction(f"q{i}", {"image_f1": v, "img_cbs": 0.5}) for i, v in enumerate([1.0, 0.5, 1.0, 0.5])]
    weak = [prediction(f"q{i}", {"image_f1": v, "img_cbs": 0.5}) for i, v in enumerate([0.5, 0.5, 0.0, 0.0])]
    write_run(tmp_path / "full", config("demo", image_repr="si"), full)
    write_run(tmp_path / "weak", config("demo", image_repr="li"), weak)
    coll = collect([tmp_path])
    t, records = ci_table(coll, n_resamples=500)
    f1 = next(r for r in records if r["variant"] == "si" and r["metric"] == "image_f1")
    assert f1["n"] == 4 and f1["mean"] == 0.75 and f1["low"] == pytest.approx(0.75 - 1.96 * 0.2886751 / 2)
    assert f1["boot_low"] <= 0.75 <= f1["boot_high"]
    assert not any(r["metric"] == "overall_quality" for r in records), "not computed: no row"
    t, records = paired_table(coll, n_resamples=500)
    rec = next(r for r in records if r["metric"] == "image_f1")
    assert (rec["a"], rec["b"], rec["n"]) == ("li", "si", 4), "default reference: best Average Score"
    assert rec["diff"] == pytest.approx(-0.5) and rec["wilcoxon"] == 0.0 and rec["p_value"] == pytest.approx(0.25)
    cbs = next(r for r in records if r["metric"] == "img_cbs")
    assert cbs["p_value"] == 1.0 and "zero" in cbs["note"]
    named = paired_table(coll, reference="li", n_resamples=200)[1]
    assert named[0]["b"] == "li"
    with pytest.raises(ValueError, match="reference variant 'xx' not found"):
        paired_table(coll, reference="xx")


def test_tidy_tables_are_keyed_by_axes(paper_grid):
    coll = collect([paper_grid])
    runs, questions = runs_table(coll), questions_table(coll)
    assert len(runs) == 8 and len(questions) == 32
    assert {"dataset", "method", "generator", "text_repr", "image_repr", "retrieval", "encoder"} <= set(runs.columns)
    assert set(runs["generator"]) == {"deepseek_v3"} and set(runs["retrieval"]) == {"hybrid"}
    sub = questions[(questions.method == "ham") & (questions.dataset == "wukong")]
    assert sub["image_f1"].mean() == pytest.approx(0.5567)


def test_bad_run_folders_are_reported_and_skipped(tmp_path):
    write_run(tmp_path / "good", config("demo"), [prediction("q1", {"image_f1": 1.0}, answer=[])])
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    (unfinished / "config.yaml").write_text(json.dumps(config("demo", image_repr="li")["config"]))
    (unfinished / "run.json").write_text("{}")
    broken = write_run(tmp_path / "broken", config("demo", text_repr="st"), [])
    (broken / "metrics.json").write_text("{not json")
    torn = write_run(tmp_path / "torn", config("other"), [prediction("q1", {"image_f1": 1.0}, answer=[])])
    with (torn / "predictions.jsonl").open("a") as fh:
        fh.write('{"id": "q2", "metr\n')
    dup = write_run(tmp_path / "dup", config("demo"), [])   # the same run as good, fewer questions
    (tmp_path / "good" / ".hydra").mkdir()
    (tmp_path / "good" / ".hydra" / "config.yaml").write_text("a: 1")
    coll = collect([tmp_path])
    assert sorted(r.path.name for r in coll.runs) == ["good", "torn"]
    text = "\n".join(coll.problems)
    assert f"{unfinished / 'metrics.json'}: missing (unfinished run?)" in text
    assert f"{broken / 'metrics.json'}: unreadable JSON" in text
    assert f"{torn / 'predictions.jsonl'}:2:" in text
    assert f"{dup}: another copy of run" in text and f"{tmp_path / 'good'} is used" in text
    assert ".hydra" not in text and len(coll.runs[1].rows) == 1


def test_variant_labels_name_numeric_axes(tmp_path):
    for k_v in (3, 10):
        cfg = config("demo", overrides=(f"retrieval.k_v={k_v}",))
        write_run(tmp_path / f"kv{k_v}", cfg, [prediction("q1", {"image_f1": 1.0}, answer=[])])
    coll = collect([tmp_path])
    assert sorted(coll.label(r) for r in coll.runs) == ["k_v=10", "k_v=3"]
    assert table3(coll).row_header == ["retrieval.k_v"]


@pytest.mark.parametrize("variants,labels", [
    ([("generator=hf", "generator.model=/models/A"), ("generator=hf", "generator.model=/models/B")],
     ["model=/models/A", "model=/models/B"]),
    ([("summariser=lead",), ("summariser=openai",)], ["lead", "openai"]),
    ([("describer=file",), ("describer=none",)], ["file", "none"]),
    ([("index=flat",), ("index=hnsw",)], ["flat", "hnsw"]),
    ([(), ("metrics.names=[ir,image_f1]",)], ["names=[\"image_f1\", \"ir\", ...]", "names=[\"ir\", \"image_f1\"]"]),
    ([("index=hnsw",), ("index=hnsw", "index.ef_search=16")], ["ef_search=128", "ef_search=16"]),
])
def test_runs_that_differ_in_any_hashed_key_are_separate_rows(tmp_path, variants, labels):
    for n, overrides in enumerate(variants):
        write_run(tmp_path / f"run{n}", config("demo", overrides=overrides), [prediction("q1", {"image_f1": 1.0}, answer=[])])
    coll = collect([tmp_path])
    assert coll.problems == [] and len(coll.runs) == 2 and len(runs_table(coll)) == 2
    got = sorted(coll.label(r) for r in coll.runs)
    assert len(set(got)) == 2
    if "names" not in labels[0]:
        assert got == sorted(labels)


def test_two_copies_of_one_run_are_one_row(tmp_path):
    for n in (1, 2):
        write_run(tmp_path / f"copy{n}", config("demo"), [prediction(f"q{i}", {"image_f1": 1.0}, answer=[])
                                                         for i in range(n)])
    coll = collect([tmp_path])
    assert len(coll.runs) == 1 and coll.runs[0].path.name == "copy2" and "another copy of run" in coll.problems[0]
