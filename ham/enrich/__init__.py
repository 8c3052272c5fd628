"""Offline enrichment of evidence units (paper 3.2): section summaries for ``ct``/``si`` and
context-aware image descriptions for ``si``, from model calls cached by what determines them.

    summaries.py     lead (extractive, no model), OpenAI-compatible and local HF summarisers
    descriptions.py  shipped description files, OpenAI-compatible and local HF VLM describers
    calls.py         the cached, counted, batched call loop both use
"""
