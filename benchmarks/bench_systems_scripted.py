"""The GraphRAG systems' plumbing on the demo's topology questions, without a model: each system
(its own code, in its venv) indexes the demo corpus whole and answers every question against the
loopback chat server replying in the system's own extraction formats
(``tests.support.graph_replies``; capitalised phrases as entities, the first sentence of the first
chunk as the answer), MiniLM embeddings on the loopback endpoint. Prints, per system, one run's
index cost and graph size, the answering cost per question, the failures by reason, how much of
the retrieved context mapped onto ham's units and the judge-free structural metrics.

    .venv/bin/python benchmarks/bench_systems_scripted.py                 # lightrag hipporag raganything
    .venv/bin/python benchmarks/bench_systems_scripted.py --systems lightrag --limit 10

The scripted replies are a real but crude extractor, so the metrics say that the context reaches
ham's units and is scored, not how good the systems are (that takes a real LLM:
benchmarks/run_topograph_table2.sh).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

METRICS = ("gold_unit_recall", "both_hops", "ordered_chain", "evidence_point_coverage")


def run_system(system: str, limit: int | None, out_root: Path) -> dict:
    from ham.conf import compose
    from ham.run.job import run
    from tests.support.chat_server import ChatServer
    from tests.support.graph_replies import GraphReplies

    with ChatServer(responder=GraphReplies()) as chat:
        overrides = ["experiment=demo_topology", f"system={system}", "system.index_scope=corpus", "generator=openai",
                     "generator.client.model=scripted", f"generator.client.base_url={chat.base_url}",
                     f"paths.output_root={out_root / system}", "progress=false"]
        if limit:
            overrides.append(f"limit={limit}")
        out = run(compose(overrides, return_hydra_config=False))
    metrics = json.loads((out / "metrics.json").read_text())
    info, mapping = metrics["index"]["system"], metrics["index"]["context_mapping"]
    means = {m: (metrics["metrics"].get(m) or {}).get("mean") for m in METRICS}
    return {"system": system, "index": info["index"], "query": info["query"], "mapping": mapping, "metrics": means}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", nargs="+", default=["lightrag", "hipporag", "raganything"])
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for system in args.systems:
            if not (ROOT / f".venv-{system}" / "bin" / "python").exists():
                print(f"{system}: .venv-{system} not built (make systems-venv SYSTEM={system})")
                continue
            r = run_system(system, args.limit, Path(tmp))
            i, q, m = r["index"], r["query"], r["mapping"]
            print(f"{system}: index {i['llm_calls']} LLM calls ({i['llm_failed_calls']} failed), {i['seconds']} s, "
                  f"{i['nodes']} nodes, {i['edges']} edges; {q['questions']} questions, "
                  f"{q['per_question']['llm_calls']} LLM calls/q, {q['per_question']['seconds']} s/q, "
                  f"failures {q['failures'] or 'none'}; context items {m['items']}, mapped {m['mapped']} "
                  f"({m['mapped_share']}), by kind "
                  + ", ".join(f"{k} {v['mapped']}/{v['items']}" for k, v in m["by_kind"].items()) + "; "
                  + ", ".join(f"{k} {v:.3f}" if v is not None else f"{k} -" for k, v in r["metrics"].items()))
            for where, reasons in (("index", i.get("llm_failure_reasons")), ("query", q.get("llm_failure_reasons"))):
                for reason, n in (reasons or {}).items():
                    print(f"  {system} {where}: {n} failed LLM call(s): {reason}")


if __name__ == "__main__":
    main()
