"""Topology benchmarks over any ingested corpus: TopoGraphRAG-Bench's construction and
counterfactual validation as a tool (``ham-topo``; docs/topo_build.md).

    entities.py   entity anchors: RAKE keyphrases normalised (offline default) or an LLM's list;
                  also the entity links of ``retrieval=graph``
    prompt.py     versioned prompt files (``prompts/*.txt``) and strict parsing of replies
    calls.py      the run's generator behind the generation cache, calls counted by task
    views.py      a unit as a model sees it: in full, or as a text-only system would
    atomic.py     one QA per unit, answerable from that unit alone
    compose.py    candidates: single-hop, bridge chains through a shared anchor, synthesis groups
    validate.py   the counterfactual checks and the reasons they reject with
    build.py      the whole build, its outputs and its report
"""
