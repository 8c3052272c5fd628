"""The RAGAS side of ham's cross-check (``tests/metrics/test_ragas_crosscheck.py``): run with a
Python that has ``ragas==0.4.*`` (not ham's environment; see docs/topology.md)::

    /path/to/ragas-venv/bin/python tests/support/ragas_crosscheck.py SPEC.json OUT.json

SPEC holds, per case, the exact strings ham gave its judge (question, enriched reference, the
retrieved contexts, the answer, the reference answer) and the verdicts ham's scripted judge gave;
this script serves the same verdicts to RAGAS in RAGAS's own JSON reply format from a loopback
chat-completions server (``chat_server.py``, stdlib only), scores the cases with RAGAS's metric
collections and writes their values to OUT. Nothing leaves the machine: telemetry is off and the
only client points at 127.0.0.1.
"""
from __future__ import annotations

import asyncio
import json
import os
import sys
from collections import Counter
from pathlib import Path

os.environ["RAGAS_DO_NOT_TRACK"] = "true"
sys.path.insert(0, str(Path(__file__).resolve().parent))

from chat_server import ChatServer  # noqa: E402

INPUT_MARK = "Now perform the same with the following input\ninput: "


def _input(prompt: str) -> dict:
    start = prompt.rindex(INPUT_MARK) + len(INPUT_MARK)
    end = prompt.rindex("\nOutput: ")
    return json.loads(prompt[start:end])


class Responder:
    """Answers each RAGAS prompt from the case its input names (by question or by answer)."""

    def __init__(self, cases: list[dict]) -> None:
        self.by_question = {c["question"]: c for c in cases}
        self.by_answer = {c["answer"]: c for c in cases}
        self.calls: Counter = Counter()

    def __call__(self, body: dict) -> str:
        prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
        data = _input(prompt)
        first = prompt.split("\n", 1)[0]
        if first.startswith("Given question, answer and context verify if the context was useful"):
            c = self.by_question[data["question"]]
            verdict = c["cp_joint"] if data["context"] == "\n".join(c["contexts"]) and len(c["contexts"]) > 1 \
                else c["cp"][c["contexts"].index(data["context"])]
            return json.dumps({"reason": "scripted", "verdict": verdict})
        if first.startswith("Given a context and an answer, analyze each statement"):
            c = self.by_question[data["question"]]
            return json.dumps({"classifications": [{"statement": s, "reason": "scripted", "attributed": v}
                                                   for s, v in zip(c["claims"], c["cr"])]})
        if first.startswith("You are a world class state of the art assistant"):
            return json.dumps({"rating": self.by_question[data["query"]]["ratings"][0]})
        if first.startswith("I will rate the User Answer"):
            return json.dumps({"rating": self.by_question[data["query"]]["ratings"][1]})
        if first.startswith("Given a question and an answer, analyze the complexity"):
            return json.dumps({"statements": self.by_question[data["question"]]["statements"]})
        if first.startswith("Your task is to judge the faithfulness"):
            c = next(c for c in self.by_question.values() if c["statements"] == data["statements"])
            return json.dumps({"statements": [{"statement": s, "reason": "scripted", "verdict": v}
                                              for s, v in zip(c["statements"], c["faith"])]})
        if first.startswith("Generate a question for the given answer"):
            c = self.by_answer[data["response"]]
            i = self.calls[c["answer"]]
            self.calls[c["answer"]] += 1
            return json.dumps({"question": c["questions"][i % len(c["questions"])],
                               "noncommittal": c["noncommittal"]})
        raise ValueError(f"unexpected RAGAS prompt: {first[:80]!r}")


async def score(cases: list[dict], base_url: str) -> list[dict]:
    from openai import AsyncOpenAI
    from ragas.embeddings.base import BaseRagasEmbedding
    from ragas.llms.base import llm_factory
    from ragas.metrics.collections import (AnswerAccuracy, AnswerRelevancy, ContextPrecision, ContextRecall,
                                           Faithfulness)

    vectors = {text: vec for c in cases for text, vec in c["vectors"].items()}

    class Lookup(BaseRagasEmbedding):
        """The vectors ham's encoder gave the same texts."""

        def embed_text(self, text, **kwargs):
            return vectors[text]

        async def aembed_text(self, text, **kwargs):
            return vectors[text]

    llm = llm_factory("scripted", client=AsyncOpenAI(base_url=base_url, api_key="test"))
    precision, recall = ContextPrecision(llm=llm), ContextRecall(llm=llm)
    accuracy, faithfulness = AnswerAccuracy(llm=llm), Faithfulness(llm=llm)
    relevancy = AnswerRelevancy(llm=llm, embeddings=Lookup())
    out = []
    for c in cases:
        q, ctx = c["question"], c["contexts"]
        row = {"id": c["id"]}
        row["context_precision"] = (await precision.ascore(user_input=q, reference=c["enriched"],
                                                           retrieved_contexts=ctx)).value
        row["context_precision_joint"] = (await precision.ascore(user_input=q, reference=c["enriched"],
                                                                 retrieved_contexts=["\n".join(ctx)])).value
        row["context_recall"] = (await recall.ascore(user_input=q, retrieved_contexts=ctx,
                                                     reference=c["enriched"])).value
        row["answer_accuracy"] = (await accuracy.ascore(user_input=q, response=c["answer"],
                                                        reference=c["reference"])).value
        row["faithfulness"] = (await faithfulness.ascore(user_input=q, response=c["answer"],
                                                         retrieved_contexts=ctx)).value
        row["response_relevancy"] = (await relevancy.ascore(user_input=q, response=c["answer"])).value
        out.append(row)
    return out


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    responder = Responder(spec["cases"])
    with ChatServer(responder=responder) as server:
        rows = asyncio.run(score(spec["cases"], server.base_url))
    import ragas

    Path(argv[2]).write_text(json.dumps({"ragas": ragas.__version__, "rows": rows}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
