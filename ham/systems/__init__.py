"""The GraphRAG systems TopoGraphRAG-Bench compares (LightRAG, HippoRAG, RAG-Anything, MegaRAG)
as ham components: ``adapter`` (indexing, answering, caching), ``client`` (the wrapper
subprocess), ``mapping`` (retrieved context -> ham units), ``rows`` (prediction rows),
``wrappers/`` (the scripts run inside each system's own venv; ham never imports them).
docs/systems.md."""
