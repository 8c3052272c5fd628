"""The end-of-run console summary: failures by reason, judge failures beside each metric, what an
average left out, the offline stage's failed calls and fallbacks, unknown cost."""
from ham.cli.main import summary_lines

METRICS = {
    "run_id": "abc", "n_questions": 5, "n_failures": 2, "failures": {"api_error": 1, "empty": 1},
    "metrics": {
        "tcr15": {"mean": None, "n": 0, "computed": True, "n_failed": 5, "failure_reasons": {"unparseable": 3,
                                                                                            "api_error": 2}},
        "image_f1": {"mean": 0.5, "n": 5, "computed": True, "n_failed": 0},
        "overall_quality": {"mean": None, "n": 0, "computed": False,
                            "reason": "not computed: no judge configured (judge=none)"},
        "average_score": {"mean": 0.25, "n": 5, "computed": True, "n_failed": 0, "parts": ["image_f1", "img_cbs"],
                          "parts_left_out": {"overall_quality": "not computed: no judge"}, "n_partial": 2}},
    "enrichment": {"summaries": {"backend": "openai:m", "requested": 69, "failed": 69, "failure_reasons":
                                 {"api_error": 69}, "fallback": "lead sentences"}, "si_fallback_images": 4},
    "cost": {"cents_total": None, "cents_unknown": "3 of 5 replies came without token usage from the server; "
                                                   "their cost is unknown"}}


def test_summary_says_what_failed_and_why():
    text = "\n".join(summary_lines(METRICS))
    assert "5 questions, 2 failures (api_error 1, empty 1)" in text
    assert "tcr15              n/a  (n=0; 5 not judged: unparseable 3, api_error 2)" in text
    assert "overall_quality    not computed: no judge configured (judge=none)" in text
    assert "average_score      0.250  (n=5; mean of image_f1, img_cbs; without overall_quality; " \
           "2 questions over fewer parts)" in text
    assert "summaries: 69 of 69 calls to openai:m failed (api_error 69); those use the fallback (lead sentences)" \
        in text
    assert "images without a context-aware description: 4" in text
    assert "cost: unknown (3 of 5 replies came without token usage" in text
