"""ham: hierarchy-aware multimodal retrieval-augmented generation (HAM-RAG).

Data flows one way through one subpackage per stage:

    ingest/     sources -> Document trees (document.py); granularity.py cuts them into
                evidence units e_i (units.py): blocks, merged or sections
    represent/  the strings each unit is embedded as (ct, st, si, li, flat)
    enrich/     section summaries and context-aware image descriptions (cached model calls)
    index/      encoders, sparse scoring, faiss + hybrid fusion, built and cached by content
    retrieve/   budgets k_t, k_v, k_tab; fused, structural, diverse, MMR and graph ranking; reranking
    methods/    prompt assembly: HAM-RAG and the LLM-, MLLM- and Rule-based baselines
    generate/   backbones, the generation cache, cost, the interleaved-answer parser
    metrics/    the metric registry, judges, the evaluator
    run/        pipeline, resumable runner, run identity, grids, tracking
    report/     one run's report.html and metrics plot, from its folder
    topo/       ham-topo: validated topology benchmarks (TopoGraphRAG-Bench's construction) over a corpus

Shared by the stages: ``backends/`` (OpenAI-compatible and local model plumbing), ``datasets/``
(questions and gold evidence), ``conf/`` (config groups and schemas), ``cli/`` (entry points),
``cache.py`` (content-addressed store), ``text.py`` and ``images.py`` (the one tokeniser and image
decoder), ``paths.py``. The ``analysis`` package
(tables, CIs, figures) reads ``outputs/`` only; nothing in ``ham`` imports it.
"""

__all__ = ["Pipeline", "build_pipeline", "compose"]


def __getattr__(name: str):
    """``from ham import Pipeline, compose``: the Python API, imported on first use (so
    ``import ham`` stays light)."""
    if name == "compose":
        from ham.conf import compose

        return compose
    if name == "Pipeline":
        from ham.run.pipeline import Pipeline

        return Pipeline
    if name == "build_pipeline":
        from ham.run.build import build_pipeline

        return build_pipeline
    raise AttributeError(f"module 'ham' has no attribute {name!r}")
