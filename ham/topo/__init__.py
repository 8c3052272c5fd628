"""Topology benchmarks over any ingested corpus (TopoGraphRAG-Bench's construction and
counterfactual validation, as a tool):

    entities.py   entity anchors: RAKE keyphrases normalised (offline default) or an LLM's list
"""
