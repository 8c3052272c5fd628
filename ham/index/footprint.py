"""What an index costs in memory: the bytes a query needs resident, per modality, for ham's hybrid
unit indexes (the dense faiss index as faiss serialises it, plus the sparse side's CSC matrix),
beside which ``ham.index.late_interaction.MultiVectorIndex.bytes`` counts a page index. The
embeddings kept for exact rescoring (``dense.npy``) duplicate the flat index's vectors and are not
counted again."""
from __future__ import annotations


def hybrid_bytes(index) -> int:
    import faiss

    dense = int(faiss.serialize_index(index.dense).nbytes) if index.dense is not None else 0
    matrix = getattr(getattr(index.sparse, "column_sums", None), "matrix", None)
    sparse = int(matrix.data.nbytes + matrix.indices.nbytes + matrix.indptr.nbytes) if matrix is not None else 0
    return dense + sparse


def index_bytes(indexes: dict) -> dict:
    """Bytes per modality and their sum (``total``), with the unit count of each."""
    out = {m: {"bytes": hybrid_bytes(ix), "units": len(ix.unit_ids)} for m, ix in indexes.items()}
    out["total"] = sum(v["bytes"] for v in out.values())
    return out
