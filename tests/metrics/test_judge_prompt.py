"""Judge prompt files: front matter, one-pass rendering, strict parsing of every score tag."""
import pytest

from ham.metrics.judge_prompt import JudgeParseError, JudgePrompt

QUALITY_TAGS = ("correctness", "completeness", "grounding", "coherence", "overall")


def _reply(**scores):
    return "Fine.\n" + "\n".join(f"<{k}>{v}</{k}>" for k, v in scores.items())


@pytest.fixture(scope="module")
def quality():
    return JudgePrompt.load("overall_quality_v1")


def test_shipped_prompts_load_with_their_version_and_fields(quality):
    assert quality.name == "overall_quality_v1" and quality.metric == "overall_quality"
    assert quality.scores == QUALITY_TAGS and quality.main == "overall" and (quality.low, quality.high) == (1, 5)
    assert quality.fields == {"question", "reference", "evidence", "answer"}
    tcr = JudgePrompt.load("tcr15_v1")
    assert tcr.metric == "tcr15" and (tcr.low, tcr.high) == (0, 1) and tcr.scores == ("sufficient",)
    assert [role for role, _ in tcr.messages] == ["system", "user"]


def test_render_fills_each_field_once_and_never_re_expands(quality):
    messages = quality.render({"question": "Q {{answer}}", "reference": "R", "evidence": "E", "answer": "A"})
    user = messages[1]["content"]
    assert "Q {{answer}}" in user, "a field value containing a placeholder stays literal"
    assert "\nA\n" in user and "{{" not in user.replace("Q {{answer}}", "")
    with pytest.raises(KeyError, match="answer"):
        quality.render({"question": "q", "reference": "r", "evidence": "e"})


def test_every_tag_is_parsed(quality):
    scores = quality.parse_reply(_reply(correctness=4, completeness=3, grounding=5, coherence=2, overall=4))
    assert scores == {"correctness": 4, "completeness": 3, "grounding": 5, "coherence": 2, "overall": 4}


@pytest.mark.parametrize("reply, reason", [
    ("", "empty reply"),
    ("The answer is good, 4/5.", "no <correctness> tag"),
    (_reply(correctness=4, completeness=3, grounding=5, coherence=2), "no <overall> tag"),
    (_reply(correctness=4, completeness=3, grounding=5, coherence=2, overall="4/5"), "not an integer"),
    (_reply(correctness=4, completeness=3, grounding=5, coherence=2, overall="N"), "not an integer"),
    (_reply(correctness=4, completeness=3, grounding=5, coherence=2, overall=6), "outside 1..5"),
    (_reply(correctness=0, completeness=3, grounding=5, coherence=2, overall=3), "outside 1..5"),
    (_reply(correctness=4, completeness=3, grounding=5, coherence=2, overall=4) + "\n<overall>2</overall>",
     "different values"),
])
def test_invalid_replies_are_failures_not_scores(quality, reply, reason):
    with pytest.raises(JudgeParseError, match=reason):
        quality.parse_reply(reply)


def test_a_tag_repeated_with_the_same_value_is_accepted(quality):
    reply = _reply(correctness=4, completeness=3, grounding=5, coherence=2, overall=4) + "\nSo: <OVERALL> 4 </overall>"
    assert quality.parse_reply(reply)["overall"] == 4


def test_prompt_file_errors_name_the_problem(tmp_path):
    bad = tmp_path / "x_v1.txt"
    bad.write_text("### user\nno front matter")
    with pytest.raises(ValueError, match="x_v1: no YAML front matter"):
        JudgePrompt.load(str(bad))
    bad.write_text("---\nmetric: x\nscores: [a]\nmain: b\nrange: [1, 5]\n---\n### user\nhi")
    with pytest.raises(ValueError, match="main score 'b'"):
        JudgePrompt.load(str(bad))
    with pytest.raises(FileNotFoundError, match="no_such_prompt_v9"):
        JudgePrompt.load("no_such_prompt_v9")
