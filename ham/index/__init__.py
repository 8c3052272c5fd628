"""Encoding and indexing (paper 3.2, Figure 2a): one hybrid index per modality, cached.

    encoders.py  MiniLM / any sentence-transformers folder, BGE-M3 (dense + lexical weights)
    sparse.py    BM25 (bm25s) and BGE-M3 lexical scoring as one column-sum kernel
    hybrid.py    faiss index types, the hybrid index and its 0.7 / 0.3 min-max fusion
    build.py     summaries + descriptions + strings -> embeddings -> indexes, keyed by content
"""
