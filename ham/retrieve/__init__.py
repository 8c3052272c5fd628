"""Online retrieval under separate text and image budgets k_t, k_v (paper 3.3).

    retriever.py   the query (dense + sparse), plain fused ranking, hits with provenance
    structural.py  section-grouped ranking (``retrieval=structural``)
    graph.py       hybrid seeds expanded along the tree, local relations and shared entities
                   (``retrieval=graph``)
"""
