"""Text handling shared by every stage, one implementation each: whitespace normalisation, word
windows, sentence splitting and the tokens BM25 and lexical overlap count.

Sentences: text is split at line breaks, then after ``.``, ``!`` or ``?`` followed by whitespace
and a capital letter, a digit or an opening quote or bracket, except after a bare list marker
("1.", "12.", "a." standing alone: a numbered line stays one sentence), and after the CJK full
stops ``。！？``.

Tokens: bm25s's rule (lower-cased runs of two or more word characters, English stopwords
removed). Used for the BM25 index and its queries alike, so both always agree.
"""
from __future__ import annotations

import logging
import re
from typing import Sequence

# lines are split with a space in front, so a list marker at the start also follows whitespace
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\s\d\.)(?<!\s\d\d\.)(?<!\s[A-Za-z]\.)\s+(?=[\"'(\[\u201c\u2018]?[A-Z0-9])"
                           r"|(?<=[。！？])")


def normalise_ws(text: str) -> str:
    """Whitespace collapsed to single spaces, lower-cased (how gold passages are matched)."""
    return " ".join(text.split()).lower()


def words(text: str, limit: int, from_end: bool = False) -> str:
    """At most ``limit`` words of ``text`` (its last ones with ``from_end``), an ellipsis marking
    the cut."""
    toks = text.split()
    if len(toks) <= limit:
        return " ".join(toks)
    return ("… " + " ".join(toks[-limit:])) if from_end else (" ".join(toks[:limit]) + " …")


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` in order, whitespace inside each collapsed (rule: module docstring)."""
    out = []
    for line in text.splitlines():
        out.extend(" ".join(s.split()) for s in _SENTENCE_END.split(" " + line) if s and s.strip())
    return out


def _bm25s():
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)  # bm25s sets DEBUG on import and logs every build
    return bm25s


def tokenize(texts: Sequence[str]) -> list[list[str]]:
    """BM25 tokens of each text (rule: module docstring)."""
    return _bm25s().tokenize(list(texts), stopwords="en", return_ids=False, show_progress=False)
