"""ham's RAGAS-formula metrics against ragas 0.4 itself on the same judge verdicts, to 1e-9.

ham scores the cases through its own judge machinery and prompts against a loopback server whose
scripted judge gives chosen verdicts; ``tests/support/ragas_crosscheck.py`` then serves RAGAS the
same verdicts in RAGAS's reply format (its own loopback server) and scores the same strings with
``ragas.metrics.collections``. RAGAS pins dependencies ham cannot share (openai < 3, langchain), so
it runs in its own environment, named by ``HAM_RAGAS_PYTHON`` (docs/topology.md says how to make
one offline); without it the test is skipped.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ham.backends.chat import ChatClient
from ham.datasets.questions import Question
from ham.index.encoders import SentenceTransformerEncoder
from ham.metrics.evaluator import Evaluator
from ham.metrics.judge import Judge
from ham.metrics.ragas_answer import _answer
from ham.metrics.topology import contexts, enriched_reference, reference_claims, reference_text
from tests.metrics.topology_cases import bridge, case, image_row, single_hop, synthesis, text_row
from tests.metrics.test_topology_judged import PROMPTS
from tests.support.chat_server import ChatServer
from tests.support.topology_judge import ScriptedJudge

PYTHON = os.environ.get("HAM_RAGAS_PYTHON")
SCRIPT = Path(__file__).resolve().parents[1] / "support" / "ragas_crosscheck.py"
NAMES = ["context_precision", "context_precision_joint", "context_recall", "answer_accuracy", "faithfulness",
         "response_relevancy"]

pytestmark = pytest.mark.skipif(not PYTHON or not Path(PYTHON).exists(),
                                reason="HAM_RAGAS_PYTHON (a Python with ragas 0.4) not set")


def _cases():
    b = bridge()
    one = single_hop()
    one.question = "Is the monthly payment itself an expense?"
    return [
        (case(b, text=[text_row("u1", "open gcashdata_3"), text_row("x", "noise"), text_row("y", "more")],
              images=[image_row("u2", "fig.png", "the checking account register")],
              raw="The example opens gcashdata_3.\nIt holds the checking account and a savings account."),
         dict(cp=[1, 0, 1, 0], cp_joint=1, ratings=[4, 2], faith=[1, 0, 1], noncommittal=0,
              statements=["The example opens gcashdata_3.", "gcashdata_3 holds a savings account.",
                          "gcashdata_3 holds the checking account."],
              questions=["Which file does the example open?", "What does gcashdata_3 hold?",
                         "Which accounts are in the example file?"])),
        (case(synthesis(), text=[text_row("t1", "Year | 1 | 1200 | 2 | 900", "table"), text_row("t2", "735"),
                                 text_row("x3", "600 left")], raw="Linear 900, geometric 735, digits 600."),
         dict(cp=[0, 1, 1], cp_joint=1, ratings=[2, 2], faith=[1, 1], noncommittal=0,
              statements=["Linear depreciation leaves 900.", "Geometric depreciation leaves 735."],
              questions=["How much does linear leave?", "How much does geometric leave?", "Which leaves least?"])),
        (case(one, text=[text_row("u7", "Pay the bill."), text_row("u8", "Budgets.")], raw="The guide does not say."),
         dict(cp=[0, 0], cp_joint=0, ratings=[0, 4], faith=[0], noncommittal=1,
              statements=["The guide does not say whether the payment is an expense."],
              questions=["Is the payment an expense?", "What does the guide say?", "Is it a loan?"])),
        (case(Question("q4", "Where is the reconcile button?", reference_answer="On the toolbar."),
              text=[text_row("r1", "The Reconcile button is on the toolbar.")], raw="It is on the toolbar."),
         dict(cp=[1], cp_joint=1, ratings=[4, 4], faith=[1], noncommittal=0, statements=["The button is on the toolbar."],
              questions=["Where is the button?", "Where is the reconcile button?", "Is it on the toolbar?"])),
    ]


def test_ham_matches_ragas_on_the_same_verdicts(tmp_path):
    cases = _cases()
    specs = []
    for c, v in cases:
        q = c.question
        claims = reference_claims(q)
        specs.append({"id": q.id, "question": q.question, "enriched": enriched_reference(q),
                      "reference": reference_text(q), "contexts": contexts(c.text, c.images), "answer": _answer(c),
                      "claims": claims, "cr": [int(i % 3 != 1) for i in range(len(claims))], **v})
    by_q = {s["question"]: s for s in specs}
    by_answer = {s["answer"]: s for s in specs}
    by_statement = {st: (s, i) for s in specs for i, st in enumerate(s["statements"])}

    def useful(f):
        s = by_q[f["Question"]]
        return s["cp_joint"] if f["Context"] == "\n".join(s["contexts"]) and len(s["contexts"]) > 1 \
            else s["cp"][s["contexts"].index(f["Context"])]

    script = ScriptedJudge(
        useful=useful,
        attributed=lambda f, claim: by_q[f["Question"]]["cr"][by_q[f["Question"]]["claims"].index(claim)],
        rating=lambda f: by_q[f["Question"]]["ratings"][0],
        rating_swapped=lambda f: by_q[f["question"]]["ratings"][1],
        statements=lambda f: by_q[f["Question"]]["statements"],
        supported=lambda f, st: by_statement[st][0]["faith"][by_statement[st][1]],
        questions=lambda f: by_answer[f["Answer"]]["questions"],
        noncommittal=lambda f: by_answer[f["Answer"]]["noncommittal"])
    encoder = SentenceTransformerEncoder("minilm")
    ham = {}
    with ChatServer(responder=script) as server:
        client = ChatClient("scripted", base_url=server.base_url, temperature=0.0, max_tokens=256, max_retries=0)
        evaluator = Evaluator(NAMES, judge=Judge(client, PROMPTS, cache_root=tmp_path), encoder=encoder)
        for c, _ in cases:
            evaluator.score(c)
            assert all(c.scores.get(m) is not None for m in NAMES), c.scores
            ham[c.question.id] = dict(c.scores)
    for s in specs:
        generated = s["questions"]
        vectors = encoder.encode([s["question"], *generated])   # the call ham's metric makes
        s["vectors"] = {t: [float(x) for x in vec] for t, vec in zip([s["question"], *generated], vectors)}
    (tmp_path / "spec.json").write_text(json.dumps({"cases": specs}))
    done = subprocess.run([PYTHON, str(SCRIPT), str(tmp_path / "spec.json"), str(tmp_path / "ragas.json")],
                          capture_output=True, text=True, timeout=600, env={**os.environ, "RAGAS_DO_NOT_TRACK": "true"})
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads((tmp_path / "ragas.json").read_text())
    assert result["ragas"].startswith("0.4")
    report = []
    for row in result["rows"]:
        for m in NAMES:
            report.append((row["id"], m, ham[row["id"]][m], row[m]))
    sys.stderr.write("".join(f"{i:4} {m:24} ham {a:.12f} ragas {b:.12f}\n" for i, m, a, b in report))
    sys.stderr.write(f"max |ham - ragas| = {max(abs(a - b) for _, _, a, b in report):.3g} over {len(report)} values\n")
    for qid, m, a, b in report:
        assert abs(a - b) <= 1e-9, (qid, m, a, b)
