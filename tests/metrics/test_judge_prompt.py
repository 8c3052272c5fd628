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
    # a second verdict left unclosed is not read as the first
    (_reply(correctness=4, completeness=3, grounding=5, coherence=2, overall=4) + "\non reflection <overall>2",
     "opened 2 times, closed 1"),
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


ITEMS = """---
metric: m
version: 1
items: claim
range: [0, 1]
---
### user
{{claims}} ({{n}})
"""


def test_per_item_verdicts_are_numbered_and_all_required():
    prompt = JudgePrompt.parse(ITEMS, "m_v1")
    assert prompt.items == "claim" and prompt.main is None and prompt.scores == ()
    scores = prompt.parse_reply("ok <claim_1>1</claim_1> <claim_2>0</claim_2> <claim_3>1</claim_3>", n_items=3)
    assert scores == {"claim_1": 1, "claim_2": 0, "claim_3": 1}
    assert prompt.value(scores) == pytest.approx(2 / 3), "an item prompt's value is the mean of its verdicts"
    for reply, reason in [("<claim_1>1</claim_1>", "no <claim_2> tag"),
                          ("<claim_1>1</claim_1><claim_2>1</claim_2><claim_3>0</claim_3>", "only 2 item"),
                          ("<claim_1>1</claim_1><claim_2>2</claim_2>", "outside 0..1"),
                          ("<claim_1>1</claim_1><claim_2>0</claim_2><claim_2>1</claim_2>", "different values")]:
        with pytest.raises(JudgeParseError, match=reason):
            prompt.parse_reply(reply, n_items=2)
    with pytest.raises(ValueError, match="needs n_items"):
        prompt.parse_reply("<claim_1>1</claim_1>")


def test_text_tags_with_and_without_a_count_and_allowed_values():
    prompt = JudgePrompt.load("response_relevancy_v1")
    assert prompt.texts == (("question", 3),) and prompt.main == "noncommittal"
    reply = "<question> Who?</question><question>What\n is it?</question><question>Why?</question>" \
            "<noncommittal>0</noncommittal>"
    assert prompt.parse_reply(reply) == {"noncommittal": 0, "question": ["Who?", "What is it?", "Why?"]}
    with pytest.raises(JudgeParseError, match="2 <question> tags, 3 asked for"):
        prompt.parse_reply("<question>a</question><question>b</question><noncommittal>0</noncommittal>")
    statements = JudgePrompt.load("faithfulness_statements_v1")
    assert statements.value({"statement": ["a"]}) is None
    assert statements.parse_reply("<statement>a</statement>")["statement"] == ["a"]
    with pytest.raises(JudgeParseError, match="an empty <statement>"):
        statements.parse_reply("<statement>a</statement><statement> </statement>")
    with pytest.raises(JudgeParseError, match="no <statement> tag"):
        statements.parse_reply("There are no statements.")
    accuracy = JudgePrompt.load("answer_accuracy_v1")
    assert accuracy.parse_reply("<rating>2</rating>") == {"rating": 2}
    with pytest.raises(JudgeParseError, match="is not one of 0, 2, 4"):
        accuracy.parse_reply("<rating>3</rating>")


@pytest.mark.parametrize("name", ["context_precision_v1", "context_recall_v1", "answer_accuracy_v1",
                                  "answer_accuracy_swapped_v1", "faithfulness_statements_v1", "faithfulness_v1",
                                  "response_relevancy_v1", "step_coverage_v1"])
def test_topology_prompts_load_and_name_their_metric(name):
    prompt = JudgePrompt.load(name)
    assert prompt.metric == name.rsplit("_v", 1)[0] and prompt.messages[-1][0] == "user"
    if prompt.items:
        assert "n" in prompt.fields, "an item prompt tells the judge how many verdicts to give"
