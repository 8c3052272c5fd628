"""The sparse side of the hybrid index: BM25 (bm25s) or BGE-M3 lexical weights.

Both reduce to one operation. bm25s stores, for every (token, unit) pair, the unit's precomputed
BM25 contribution in a CSC matrix; BGE-M3 stores each unit's lexical weight per token. A query's
score for every unit is then a weighted sum of the matrix columns of its tokens (weight = how often
the token occurs in the query for BM25, the query's lexical weight for BGE-M3), which
``ColumnSums`` computes without the per-token scatter-add of bm25s's own ``get_scores`` (about 2x
slower on the demo index).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ham.text import NO_STEMMER, _bm25s, check_stemmer, stem_tokens, tokenize

if TYPE_CHECKING:
    from ham.index.hybrid import Query




class ColumnSums:
    """``scores[unit] = sum_j weights[j] * matrix[unit, cols[j]]`` for a units x tokens CSC matrix.

    Short posting lists (up to ``bincount_up_to`` entries in all) go through one ``np.bincount``
    over the concatenated columns: a single call, cheapest for small corpora. Longer ones go
    through scipy's compiled CSC mat-vec, about 2x faster per entry (measured at 10k-100k units)
    but with a fixed cost of some 35 us."""

    def __init__(self, matrix, bincount_up_to: int = 16384) -> None:
        self.matrix, self.bincount_up_to = matrix, bincount_up_to   # a scipy CSC matrix
        self.data, self.indices, self.n_units = matrix.data, matrix.indices, matrix.shape[0]
        self.bounds = matrix.indptr.tolist()   # Python ints: slicing with them is the cheapest per token

    def __call__(self, cols: Sequence[int], weights: Sequence[float] | None = None) -> np.ndarray:
        if not cols:
            return np.zeros(self.n_units, dtype=np.float32)
        bounds = self.bounds
        spans = [(bounds[c], bounds[c + 1]) for c in cols]
        lengths = [b - a for a, b in spans]
        if sum(lengths) > self.bincount_up_to:
            w = np.ones(len(cols), dtype=np.float32) if weights is None else np.asarray(weights, dtype=np.float32)
            return np.asarray(self.matrix[:, list(cols)] @ w, dtype=np.float32).ravel()
        rows = np.concatenate([self.indices[a:b] for a, b in spans])
        values = np.concatenate([self.data[a:b] for a, b in spans])
        if weights is not None:
            values = values * np.repeat(np.asarray(weights, dtype=np.float32), lengths)
        return np.bincount(rows, weights=values, minlength=self.n_units).astype(np.float32)


NO_WORDS = "\x00no-words"   # never produced by ``tokenize``


class BM25Sparse:
    """BM25 over bm25s tokens (English stopwords removed), stemmed by ``stem`` unless "none"
    (``ham.text``); queries are token lists, stemmed here the way the index was. A token that
    occurs twice in the query counts twice, as in bm25s. The stemmer is saved with the index
    (``analyzer.json``), so a loaded index stems its queries as it was built."""

    kind = "bm25"
    ANALYZER = "analyzer.json"

    def __init__(self, bm25, stem: str = NO_STEMMER) -> None:
        self.stem = check_stemmer(stem, "BM25 stem")
        import scipy.sparse as sp

        self.bm25 = bm25
        m = bm25.scores   # bm25s's precomputed BM25 contributions, CSC arrays
        self.column_sums = ColumnSums(sp.csc_matrix((m["data"], m["indices"], m["indptr"]), copy=False,
                                                    shape=(m["num_docs"], len(m["indptr"]) - 1)))
        self.nonoccurrence = getattr(bm25, "nonoccurrence_array", None)   # BM25L / BM25+ only

    @classmethod
    def build(cls, texts: Sequence[str], stem: str = NO_STEMMER) -> "BM25Sparse":
        bm25s = _bm25s()
        bm25 = bm25s.BM25()
        tokens = tokenize(texts, check_stemmer(stem, "BM25 stem"))
        if tokens and not any(tokens):
            # no string holds a word BM25 keeps (images without caption or neighbouring text):
            # bm25s cannot index an empty vocabulary; a token no query holds scores every unit 0
            tokens = [[NO_WORDS] for _ in tokens]
        bm25.index(tokens, show_progress=False)
        return cls(bm25, stem)

    def save(self, folder: Path) -> None:
        self.bm25.save(str(folder))
        (Path(folder) / self.ANALYZER).write_text(json.dumps({"stem": self.stem}))

    @classmethod
    def load(cls, folder: Path) -> "BM25Sparse":
        analyzer = Path(folder) / cls.ANALYZER
        stem = json.loads(analyzer.read_text())["stem"] if analyzer.exists() else NO_STEMMER
        return cls(_bm25s().BM25.load(str(folder)), stem)

    def scores(self, query: "Query", n: int) -> np.ndarray:
        vocab = self.bm25.vocab_dict
        cols = [vocab[t] for t in stem_tokens(query.tokens, self.stem) if t in vocab]
        scores = self.column_sums(cols)
        if self.nonoccurrence is not None and cols:
            scores += self.nonoccurrence[cols].sum()
        return scores


class LexicalSparse:
    """BGE-M3 lexical matching: sum over shared tokens of w_query * w_unit (FlagEmbedding's
    ``compute_lexical_matching_score`` for every unit at once)."""

    kind = "bge_m3_lexical"

    def __init__(self, matrix) -> None:
        self.column_sums = ColumnSums(matrix.tocsc())
        self.matrix = self.column_sums.matrix

    @classmethod
    def load(cls, path: Path) -> "LexicalSparse":
        import scipy.sparse as sp

        return cls(sp.load_npz(path))

    def scores(self, query: "Query", n: int) -> np.ndarray:
        if not query.lexical:
            return np.zeros(n, dtype=np.float32)
        vocab_size = self.matrix.shape[1]
        known = [(c, w) for c, w in query.lexical.items() if 0 <= int(c) < vocab_size]
        return self.column_sums([int(c) for c, _ in known], [w for _, w in known])
