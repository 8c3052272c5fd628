"""The builder's prompt files parse replies strictly; the synthesis checks' remaining outcomes
(too few required points, all points insufficient, a failed check call) on a fake model."""
import pytest

from ham.ingest.builder import Block, TreeBuilder
from ham.topo.calls import ModelCalls, Reply
from ham.topo.compose import Candidate
from ham.topo.prompt import ReplyError, TaskPrompt
from ham.topo.validate import Validator
from ham.units import build_units


@pytest.mark.parametrize("name", ["atomic_qa_v1", "bridge_compose_v1", "synthesis_v1", "sufficiency_v1", "entities_v1"])
def test_every_shipped_prompt_loads_and_names_its_task(name):
    prompt = TaskPrompt.load(name)
    assert prompt.name == name and prompt.task == name.rsplit("_v", 1)[0]
    assert prompt.messages[0][0] == "system" and prompt.fields


def test_replies_are_parsed_strictly():
    atomic = TaskPrompt.load("atomic_qa_v1")
    assert atomic.parse_reply("<question> Why? </question><answer>Because.</answer>") == \
        {"question": "Why?", "answer": "Because."}
    for bad, why in [("", "empty"), ("<question>Why?</question>", "no <answer>"),
                     ("<question>Why?</question><answer> </answer>", "empty <answer>"),
                     ("<question>A</question><question>B</question><answer>x</answer>", "2 <question> tags")]:
        with pytest.raises(ReplyError, match=why):
            atomic.parse_reply(bad)
    check = TaskPrompt.load("sufficiency_v1")
    assert check.parse_reply("ok <answerable>1</answerable>") == {"answerable": 1}
    for bad in ("<answerable>yes</answerable>", "<answerable>2</answerable>",
                "<answerable>1</answerable><answerable>0</answerable>"):
        with pytest.raises(ReplyError):
            check.parse_reply(bad)
    # a second verdict, even unclosed, is a reply that changed its mind: not read as its first
    for bad, tag in [("<answerable>0</answerable> wait, actually <answerable>1", "answerable"),
                     ("<answerable>1</answerable> <ANSWERABLE> 0", "answerable")]:
        with pytest.raises(ReplyError, match=f"<{tag}> opened 2 times, closed 1"):
            check.parse_reply(bad)
    with pytest.raises(ReplyError, match="<question> opened 2 times"):
        atomic.parse_reply("<question>Why?</question><answer>x</answer> or rather <question>How?")
    synthesis = TaskPrompt.load("synthesis_v1")
    good = "<point_1>a</point_1><point_2>b</point_2><question>q</question><conclusion>c</conclusion><pattern>Trend</pattern>"
    assert synthesis.parse_reply(good, 2)["point"] == ["a", "b"] and synthesis.parse_reply(good, 2)["pattern"] == "trend"
    with pytest.raises(ReplyError, match="point_3"):
        synthesis.parse_reply(good, 3)
    with pytest.raises(ReplyError, match="only 1"):
        synthesis.parse_reply(good, 1)
    with pytest.raises(ReplyError, match="not one of"):
        synthesis.parse_reply(good.replace("Trend", "vibes"), 2)


class FakeCalls:
    """Sufficiency verdicts from a function of the context's unit ids (None: the call failed)."""

    def __init__(self, verdict):
        self.verdict = verdict

    def ask(self, prompt, items, n_of=None, what=None):
        out = []
        for item in items:
            v = self.verdict(item["context"])
            out.append(Reply(None, "generation: api_error: boom") if v is None else Reply({"answerable": v}))
        return out


@pytest.fixture
def units():
    b = TreeBuilder("d", "Doc", "d.md", "markdown")
    b.add(Block("heading", "1. S", level=1))
    for i in range(5):
        b.add(Block("text", f"Point number P{i} of the group."))
    return {u.unit_id: u for u in build_units(b.finish())}


def _synthesis(units):
    ids = list(units)
    return Candidate("y", "synthesis", "q?", "c.", ids, ["text"] * len(ids), points=[f"f{i}" for i in range(len(ids))])


def test_leave_one_out_keeps_only_the_required_points(units):
    needed = {"P0", "P1", "P2"}
    validator = Validator(FakeCalls(lambda ctx: int(all(p in ctx for p in needed))), TaskPrompt.load("sufficiency_v1"),
                          units)
    c = _synthesis(units)
    validator.synthesis([c])
    assert c.rejected is None and c.required == [0, 1, 2]
    two = _synthesis(units)
    Validator(FakeCalls(lambda ctx: int("P0" in ctx and "P1" in ctx)), TaskPrompt.load("sufficiency_v1"),
              units).synthesis([two])
    assert two.rejected == {"check": "leave_one_out", "reason": "too_few_required_points"} and two.required == [0, 1]


def test_interchangeable_points_stay_in_the_gold_when_the_required_ones_alone_do_not_suffice(units):
    # the conclusion needs P2, P3, P4 and P0 or P1: neither of P0, P1 is required on its own, yet
    # the required three alone do not reach it; the gold had been those three
    either = lambda ctx: int(all(p in ctx for p in ("P2", "P3", "P4")) and ("P0" in ctx or "P1" in ctx))  # noqa: E731
    c = _synthesis(units)
    Validator(FakeCalls(either), TaskPrompt.load("sufficiency_v1"), units).synthesis([c])
    assert c.rejected is None and c.required == [0, 1, 2, 3, 4]
    assert [k["answerable"] for k in c.checks if k["check"] == "required_sufficient"] == [0]


def test_all_points_insufficient_and_failed_checks_reject(units):
    c = _synthesis(units)
    Validator(FakeCalls(lambda ctx: 0), TaskPrompt.load("sufficiency_v1"), units).synthesis([c])
    assert c.rejected == {"check": "all_points", "reason": "all_points_insufficient"}
    failed = _synthesis(units)
    Validator(FakeCalls(lambda ctx: None), TaskPrompt.load("sufficiency_v1"), units).synthesis([failed])
    assert failed.rejected == {"check": "all_points", "reason": "check_failed"}
    assert failed.checks[0]["error"].startswith("generation: api_error")


def test_the_builder_refuses_a_model_free_generator():
    from ham.generate.extractive import ExtractiveGenerator

    with pytest.raises(ValueError, match="needs a language model"):
        ModelCalls(ExtractiveGenerator())
