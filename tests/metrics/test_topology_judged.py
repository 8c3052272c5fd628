"""TopoGraphRAG-Bench's judged metrics through the real judge machinery and a loopback
chat-completions server with scripted replies: hand-computed values, failures counted and never
scored, the judge cache, and metrics not computed without their prompts."""
import math

import numpy as np
import pytest

from ham.backends.chat import ChatClient
from ham.metrics.evaluator import Evaluator
from ham.metrics.judge import Judge
from tests.metrics.topology_cases import bridge, case, image_row, single_hop, synthesis, text_row
from tests.support.chat_server import ChatServer
from tests.support.topology_judge import ScriptedJudge

PROMPTS = {k: f"{k}_v1" for k in ("context_precision", "context_recall", "answer_accuracy", "answer_accuracy_swapped",
                                  "faithfulness_statements", "faithfulness", "response_relevancy", "step_coverage")}
NAMES = ["context_precision", "context_precision_joint", "context_recall", "answer_accuracy", "faithfulness",
         "response_relevancy", "step_coverage"]
VECTORS = {"Which file?": [1.0, 0.0], "q one": [1.0, 0.0], "q two": [0.0, 1.0], "q three": [1.0, 1.0]}


class FakeEncoder:
    model_id = "fake"

    def encode(self, texts):
        return np.array([VECTORS.get(t, [0.5, 0.5]) for t in texts], dtype=np.float32)


def _scripted(**rules):
    defaults = dict(
        useful=lambda f: int("USEFUL" in f["Context"]),
        attributed=lambda f, claim: int("gcashdata_3" in claim),
        rating=lambda f: 4, rating_swapped=lambda f: 2,
        statements=lambda f: ["S1 ok", "S2 bad", "S3 ok"],
        supported=lambda f, s: int("ok" in s),
        questions=lambda f: ["q one", "q two", "q three"],
        noncommittal=lambda f: 0,
        covered=lambda f, step: int("[text]" in step))
    return ScriptedJudge(**{**defaults, **rules})


@pytest.fixture
def served(tmp_path):
    def start(prompts=PROMPTS, **rules):
        script = _scripted(**rules)
        server = ChatServer(responder=script).__enter__()
        client = ChatClient("judge-m", base_url=server.base_url, temperature=0.0, max_tokens=1024, max_retries=0)
        judge = Judge(client, prompts, cache_root=tmp_path)
        started.append(server)
        return Evaluator(NAMES, judge=judge, encoder=FakeEncoder()), script
    started = []
    yield start
    for server in started:
        server.__exit__(None, None, None)


def _bridge_case(raw="The example opens gcashdata_3."):
    q = bridge()
    q.question = "Which file?"
    return case(q, text=[text_row("u1", "USEFUL open gcashdata_3"), text_row("x", "noise"),
                         text_row("y", "USEFUL more")], images=[image_row("u2", "fig.png", "a register")], raw=raw)


def test_hand_computed_values(served):
    evaluator, script = served()
    c = _bridge_case()
    s = evaluator.score(c)
    # verdicts in prompt order (text rows, then images): 1, 0, 1, 0
    assert c.scores["context_precision"] == pytest.approx((1 / 1 * 1 + 2 / 3 * 1) / (2 + 1e-10), abs=1e-12)
    assert c.scores["context_precision_joint"] == pytest.approx(1 / (1 + 1e-10), abs=1e-15)
    assert s["context_precision_joint"] == 1.0, "rows keep six decimals"
    # claims: 2 answer sentences, 2 hops, the bridge entities; those naming gcashdata_3 are attributed
    assert s["context_recall"] == pytest.approx(4 / 5)
    assert s["answer_accuracy"] == pytest.approx((4 / 4 + 2 / 4) / 2)
    assert s["faithfulness"] == pytest.approx(2 / 3)
    assert c.scores["response_relevancy"] == pytest.approx((1 + 0 + 1 / math.sqrt(2)) / 3, abs=1e-7)
    assert s["step_coverage"] == 0.5      # Step 1 [text] covered, Step 2 [image] not
    assert script.seen["context_precision"] == 5 and script.seen["answer_accuracy_swapped"] == 1
    detail = s["judge"]
    assert detail["context_precision"]["scores"]["verdicts"] == [1, 0, 1, 0]
    assert detail["context_recall"]["scores"]["verdicts"] == [1, 0, 1, 1, 1]
    assert detail["answer_accuracy"]["scores"]["ratings"] == [4, 2]
    assert detail["faithfulness"]["scores"]["statements"] == 3 and detail["faithfulness"]["value"] == pytest.approx(2 / 3)


def test_no_useful_context_scores_zero_precision_and_noncommittal_zero_relevancy(served):
    evaluator, _ = served(useful=lambda f: 0, noncommittal=lambda f: 1)
    s = evaluator.score(_bridge_case())
    assert s["context_precision"] == 0.0 and s["context_precision_joint"] == 0.0 and s["response_relevancy"] == 0.0


def test_nothing_retrieved_scores_zero_context_precision_and_recall_without_asking(served):
    # TopoGraphRAG-Bench scores an empty retrieval 0 ("retrieval totally failed"); None had dropped a
    # system's failed retrievals from its means
    evaluator, script = served()
    s = evaluator.score(case(bridge(), text=[], images=[], raw="I could not find it."))
    assert s["context_precision"] == s["context_precision_joint"] == s["context_recall"] == 0.0
    assert script.seen.get("context_precision", 0) == 0 and script.seen.get("context_recall", 0) == 0
    # faithfulness needs a context: undefined without one, whether the generation failed or not
    assert s["faithfulness"] is None
    assert evaluator.score(case(bridge(), text=[], images=[], raw=None))["faithfulness"] is None


def test_topology_rules_single_hop_synthesis_and_failed_generation(served):
    evaluator, script = served()
    single = evaluator.score(case(single_hop(), text=[text_row("u1", "USEFUL it is a loan")], raw="No, a loan."))
    assert single["step_coverage"] is None, "step coverage is undefined for single-hop questions"
    syn = synthesis()
    s = evaluator.score(case(syn, text=[text_row("t1", "USEFUL 900")], raw="Linear leaves 900."))
    assert s["step_coverage"] == pytest.approx(1 / 3)   # points [table], [table], [text]: the text one
    before = sum(script.seen.values())
    failed = evaluator.score(case(bridge(), text=[text_row("u1", "USEFUL x")], raw=None))
    assert failed["answer_accuracy"] == failed["faithfulness"] == failed["step_coverage"] == 0.0
    assert failed["response_relevancy"] == 0.0
    asked = sum(script.seen.values()) - before
    # a failed generation asks only the retrieval judges: CP (one unit: the joint context is the same
    # input, answered from the cache) and CR
    assert asked == 2


def test_judge_failure_is_counted_never_scored_and_asked_again(served):
    evaluator, script = served(bad=("faithfulness", "context_precision"))
    rows = [{"metrics": evaluator.score(_bridge_case())}]
    s = rows[0]["metrics"]
    assert s["faithfulness"] is None and s["context_precision"] is None and s["context_precision_joint"] is None
    assert s["judge"]["faithfulness"]["error"].startswith("unparseable: no <verdict_1> tag")
    # every per-unit verdict (4 contexts) and the joint one are asked at once; one failure fails the question
    assert script.seen["context_precision"] == 5
    summary = evaluator.summary(rows)
    assert summary["metrics"]["faithfulness"]["n_failed"] == 1 and summary["metrics"]["faithfulness"]["n"] == 0
    assert summary["metrics"]["context_precision_joint"]["n_failed"] == 1
    assert summary["metrics"]["answer_accuracy"]["n"] == 1 and summary["judge"]["failures"]["faithfulness"] == 1


def test_second_scoring_is_answered_from_the_judge_cache(served):
    evaluator, script = served()
    evaluator.score(_bridge_case())
    asked = sum(script.seen.values())
    again = evaluator.score(_bridge_case())
    assert sum(script.seen.values()) == asked, "every verdict came from the cache"
    assert all(again["judge"][m]["cached"] for m in NAMES)


def test_a_metric_whose_prompts_the_judge_lacks_is_not_computed(served):
    prompts = {k: v for k, v in PROMPTS.items() if k != "answer_accuracy_swapped"}
    evaluator, _ = served(prompts=prompts)
    assert evaluator.not_computed["answer_accuracy"].endswith("has no prompt for answer_accuracy_swapped")
    assert "context_precision_joint" not in evaluator.not_computed
    assert Evaluator(NAMES).not_computed["step_coverage"].startswith("not computed: no judge configured")
