"""How ham talks to models, shared by every stage that calls one (enrich, generate, metrics).

    chat.py    ``ChatClient``: any OpenAI-compatible server (OpenAI, vLLM, SGLang, Ollama,
               ``transformers serve``) through the ``openai`` SDK: bounded concurrency, retries
               with backoff, a request budget, streamed replies aggregated, errors as values
    local.py   local transformers models: where a model is (folder or HF cache, never
               downloaded), its revision, device and dtype, loading, and greedy generation
"""
