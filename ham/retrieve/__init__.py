"""Online retrieval under separate text and image budgets k_t, k_v (paper 3.3).

    retriever.py   the query (dense + sparse), fused ranking, hits with provenance
    structural.py  section-grouped ranking (``retrieval=structural``)
    sections.py    the section map (unit -> section, parent section) the tree-aware steps share
    diversity.py   how the k_t text slots are shared out over the tree (``retrieval=diverse|mmr``)
    rerank.py      a cross-encoder rescoring the fused text candidates (config group ``reranker``)
    graph.py       hybrid seeds expanded along the tree, local relations and shared entities
                   (``retrieval=graph``)
"""
