"""Per-question scoring on hand-computed cases (image sets, Img-CBS, judged metrics, Average
Score) and the run summary, with a real BERTScore scorer and a loopback judge."""
import pytest

from ham.answer import parse_generated, parse_reference
from ham.metrics.evaluator import Evaluator
from ham.metrics.registry import Case
from ham.backends.chat import ChatClient
from ham.metrics.judge import Judge
from ham.datasets.questions import Question
from tests.support.chat_server import ChatServer

REFERENCE = "Open the window. ![w](a.png) Then click OK. ![ok](b.png) Done."
SLOTS = {1: ("u1", "a.png"), 2: ("u2", "b.png"), 3: ("u3", "c.png")}
QUALITY = "<correctness>4</correctness><completeness>4</completeness><grounding>4</grounding>" \
          "<coherence>4</coherence><overall>4</overall>"


def _case(raw, reference=REFERENCE, gold=None):
    q = Question("q1", "How?", reference_answer=reference, gold_images=gold or [])
    answer = parse_generated(raw, SLOTS) if raw is not None else None
    text = [{"heading_path": ["Ch 1", "1.1 Window"], "text": "Open the window, then click OK.", "score": 0.9}]
    images = [{"image": "a.png", "caption": "the window", "score": 0.8}, {"image": "c.png", "caption": "other"}]
    return Case(q, text, images, answer)


@pytest.fixture
def evaluator(metrics_cfg, context_scorer):
    return Evaluator.from_config(metrics_cfg, bertscore=context_scorer)


def test_image_cited_twice_and_a_wrong_image(evaluator, context_scorer):
    # P = {a, c} (a shown twice counts once), G = {a, b}: precision 1/2, recall 1/2, F1 1/2
    s = evaluator.score(_case("Open the window. <img1> Press OK. <img3> <img1>"))
    assert (s["image_precision"], s["image_recall"], s["image_f1"]) == (0.5, 0.5, 0.5)
    assert s["ir"] == 0.5   # retrieved {a, c} covers a of {a, b}
    # only a.png is correctly selected; its contexts (first occurrence, 30 words each side):
    expected = context_scorer.f1(["Open the window. Press OK."], ["Open the window. Then click OK. Done."])[0]
    assert s["img_cbs"] == pytest.approx(expected, abs=1e-6)
    # no judge: Qual. not computed, Average Score = mean(F1, Img-CBS)
    assert s["overall_quality"] is None and s["tcr15"] is None
    assert s["average_score"] == pytest.approx((0.5 + expected) / 2, abs=1e-6)


def test_answer_equal_to_the_reference_scores_one(evaluator):
    s = evaluator.score(_case("Open the window. <img1> Then click OK. <img2> Done."))
    assert s["image_f1"] == 1.0 and s["img_cbs"] == pytest.approx(1.0, abs=1e-5)


def test_img_cbs_is_the_mean_over_correctly_selected_images(evaluator, context_scorer):
    s = evaluator.score(_case("Look. <img1> Click it. <img2> End."))
    f1 = context_scorer.f1(["Look. Click it. End.", "Look. Click it. End."],
                           ["Open the window. Then click OK. Done.", "Open the window. Then click OK. Done."])
    assert s["img_cbs"] == pytest.approx(sum(f1) / 2, abs=1e-6)


def test_no_correct_image_and_no_image_score_zero(evaluator):
    wrong = evaluator.score(_case("Something else. <img3>"))
    none = evaluator.score(_case("Just text, no image."))
    for s in (wrong, none):
        assert s["image_f1"] == 0.0 and s["img_cbs"] == 0.0 and s["average_score"] == 0.0


def test_reference_without_images(evaluator):
    text_only = evaluator.score(_case("Just text.", reference="Only text here."))
    with_image = evaluator.score(_case("Text. <img1>", reference="Only text here."))
    assert (text_only["image_precision"], text_only["image_recall"], text_only["image_f1"]) == (1.0, 1.0, 1.0)
    assert text_only["img_cbs"] is None and text_only["ir"] is None
    assert text_only["average_score"] == 1.0, "Img-CBS undefined: the mean of what is defined"
    assert with_image["image_f1"] == 0.0 and with_image["image_precision"] == 0.0


def test_failed_generation_scores_zero_and_keeps_retrieval(evaluator):
    s = evaluator.score(_case(None))
    assert s["image_precision"] == s["image_recall"] == s["image_f1"] == s["img_cbs"] == 0.0
    assert s["ir"] == 0.5, "retrieval metrics do not depend on the generation"


def test_failed_generation_scores_zero_where_no_image_was_expected_too(evaluator):
    # an answer without images scores 1 when the reference shows none; a failed one scores 0
    answered, failed = evaluator.score(_case("Just text.", reference="Only text.")), \
        evaluator.score(_case(None, reference="Only text."))
    assert answered["image_f1"] == 1.0
    assert failed["image_precision"] == failed["image_recall"] == failed["image_f1"] == 0.0
    assert failed["average_score"] == 0.0


@pytest.fixture
def judged(metrics_cfg, context_scorer, tmp_path):
    replies = {"tcr15": "Covered. <sufficient>1</sufficient>", "overall_quality": QUALITY}

    def respond(body):
        return replies["tcr15" if "retrieved passages" in body["messages"][1]["content"].lower() else "overall_quality"]

    with ChatServer(responder=respond) as server:
        judge = Judge(ChatClient("m", base_url=server.base_url, max_retries=0),
                      {"tcr15": "tcr15_v1", "overall_quality": "overall_quality_v1"}, tmp_path)
        yield Evaluator.from_config(metrics_cfg, judge=judge, bertscore=context_scorer), server, replies


def test_judged_metrics_and_average_score(judged):
    evaluator, server, _ = judged
    s = evaluator.score(_case("Open the window. <img1> Then click OK. <img2> Done."))
    assert s["tcr15"] == 1.0 and s["overall_quality"] == 4.0
    assert s["average_score"] == pytest.approx((1.0 + s["img_cbs"] + 4 / 5) / 3, abs=1e-6)
    assert s["judge"]["overall_quality"]["scores"]["coherence"] == 4
    tcr_prompt = next(r for r in server.requests if "Retrieved passages" in r["messages"][1]["content"])
    assert "[1] (Ch 1 > 1.1 Window)" in tcr_prompt["messages"][1]["content"]
    quality_prompt = next(r for r in server.requests if r is not tcr_prompt)["messages"][1]["content"]
    assert "[IMAGE: a.png | the window]" in quality_prompt and "[IMAGE: b.png | ok]" in quality_prompt


def test_failed_generation_gets_quality_zero_without_asking(judged):
    evaluator, server, _ = judged
    s = evaluator.score(_case(None))
    assert s["overall_quality"] == 0.0 and s["tcr15"] == 1.0 and s["average_score"] == 0.0
    assert len(server.requests) == 1, "only TCR@15 was asked"
    assert "generation failed" in s["judge"]["overall_quality"]["skipped"]


def test_judge_failures_are_counted_not_scored(judged):
    evaluator, _, replies = judged
    replies["overall_quality"] = "Quality: 4"
    rows = [{"failure": None, "metrics": evaluator.score(_case("Open the window. <img1>"))},
            {"failure": {"reason": "empty"}, "metrics": evaluator.score(_case(None))}]
    assert rows[0]["metrics"]["overall_quality"] is None
    # not a mean of Img-F1 and Img-CBS alone beside three-part means: failed, and counted so
    assert rows[0]["metrics"]["average_score"] is None
    summary = evaluator.summary(rows)
    assert summary["metrics"]["average_score"]["n_failed"] == 1 and summary["metrics"]["average_score"]["n"] == 1
    quality = summary["metrics"]["overall_quality"]
    assert quality["computed"] and quality["n"] == 1 and quality["mean"] == 0.0, "only the failed generation's 0"
    assert summary["judge"]["failures"] == {"overall_quality": 1}
    assert summary["judge"]["failure_reasons"] == {"overall_quality": {"unparseable": 1}}
    assert summary["judge"]["prompts"] == {"tcr15": "tcr15_v1", "overall_quality": "overall_quality_v1"}
    assert summary["failures"] == {"empty": 1} and summary["metrics"]["image_f1"]["n"] == 2


def test_summary_without_judge_says_not_computed(evaluator):
    rows = [{"failure": None, "metrics": evaluator.score(_case("Open the window. <img1>"))},
            {"failure": None, "metrics": evaluator.score(_case("Text."))}]
    summary = evaluator.summary(rows)
    for name in ("tcr15", "overall_quality"):
        m = summary["metrics"][name]
        assert m["mean"] is None and m["computed"] is False and "judge=none" in m["reason"]
    assert summary["metrics"]["average_score"]["parts"] == ["image_f1", "img_cbs"]
    assert summary["judge"]["backend"] == "none"
    assert summary["bertscore"]["num_layers"] == 6 and summary["bertscore_hash"]


def test_reference_parse_keeps_image_order_for_contexts():
    ref = parse_reference(REFERENCE)
    assert ref.images == ["a.png", "b.png"]


def test_tcr_judges_the_top_15_text_units_as_one_set(judged):
    evaluator, server, _ = judged
    case = _case("Open the window. <img1>")
    case.text = [{"heading_path": [f"S{i}"], "text": f"passage number {i}", "score": 1 - i / 100}
                      for i in range(1, 21)]
    assert evaluator.score(case)["tcr15"] == 1.0
    prompt = next(r for r in server.requests if "[Retrieved passages]" in r["messages"][1]["content"])
    text = prompt["messages"][1]["content"]
    assert "[15] (S15)\npassage number 15" in text and "passage number 16" not in text
    assert "Open the window." in text, "the reference answer shows the judge what a full answer needs"
