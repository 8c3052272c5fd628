"""Text handling shared by every stage, one implementation each: whitespace normalisation, word
windows, sentence splitting and the tokens BM25 and lexical overlap count.

Sentences: text is split at line breaks, then after ``.``, ``!`` or ``?`` followed by whitespace
and a capital letter, a digit or an opening quote or bracket, except after a bare list marker
("1.", "12.", "a." standing alone: a numbered line stays one sentence), and after the CJK full
stops ``。！？``.

Tokens: bm25s's rule (lower-cased runs of two or more word characters, English stopwords
removed) for every script that separates words with spaces; Chinese, Japanese and Korean runs,
which do not, give overlapping character bigrams ("电池容量" -> "电池", "池容", "容量"; a lone
character stands for itself), the usual n-gram rule of CJK search engines. Used for the BM25 index
and its queries alike, so both always agree. ``stem``: a Snowball stemmer's name (PyStemmer:
"english", "porter", "german", ...) maps each word token to its stem ("restoring", "restored" ->
"restor"), as Lucene's and Anserini's English analyzers do; CJK bigrams are left alone. The BM25
index records the stemmer it was built with and stems its queries' tokens the same way
(``ham.index.sparse``).

Ingest text: ``clean_text`` removes zero-width characters (U+200B-U+200D, U+2060, U+FEFF, soft
hyphens), which break passage matching and tokens without being visible.
"""
from __future__ import annotations

import logging
import re
import threading
from typing import Sequence

# lines are split with a space in front, so a list marker at the start also follows whitespace
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\s\d\.)(?<!\s\d\d\.)(?<!\s[A-Za-z]\.)\s+(?=[\"'(\[\u201c\u2018]?[A-Z0-9])"
                           r"|(?<=[。！？])")


_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
# scripts written without spaces between words: CJK ideographs (and extensions, compatibility
# forms), kana, Hangul
_CJK = ("\u2e80-\u2fdf\u3005\u3007\u3021-\u3029\u3031-\u3035\u3040-\u30ff\u3100-\u312f"
        "\u31a0-\u31bf\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
        "\uff66-\uff9f\U00020000-\U0002fa1f")
_CJK_RUN = re.compile(f"[{_CJK}]+")
_WORD = re.compile(r"(?u)\b\w\w+\b")  # bm25s's token pattern
TOKENIZER_VERSION = "2"  # 2: CJK bigrams (1 was bm25s.tokenize)


def clean_text(text: str) -> str:
    """Text with zero-width characters removed (ingest's normalisation of every leaf and title)."""
    return text.translate(_ZERO_WIDTH)


def normalise_ws(text: str) -> str:
    """Whitespace collapsed to single spaces, lower-cased, zero-width characters removed (how gold
    passages are matched)."""
    return " ".join(clean_text(text).split()).lower()


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


_STOPWORDS: frozenset[str] | None = None


def _stopwords() -> frozenset[str]:
    global _STOPWORDS
    if _STOPWORDS is None:
        from bm25s.tokenization import _infer_stopwords

        _bm25s()
        _STOPWORDS = frozenset(_infer_stopwords("en"))
    return _STOPWORDS


def _tokens(text: str, stop: frozenset[str]) -> list[str]:
    out: list[str] = []
    pos = 0
    for run in _CJK_RUN.finditer(text):
        out.extend(t for t in _WORD.findall(text[pos:run.start()]) if t not in stop)
        chars = run.group()
        out.extend([chars] if len(chars) == 1 else [chars[i:i + 2] for i in range(len(chars) - 1)])
        pos = run.end()
    out.extend(t for t in _WORD.findall(text[pos:]) if t not in stop)
    return out


NO_STEMMER = "none"


def tokenize(texts: Sequence[str], stem: str = NO_STEMMER) -> list[list[str]]:
    """BM25 tokens of each text (rule: module docstring), stemmed with ``stem`` unless "none"."""
    stop = _stopwords()
    tokens = [_tokens(clean_text(t).lower(), stop) for t in texts]
    return tokens if stem == NO_STEMMER else [stem_tokens(t, stem) for t in tokens]


# PyStemmer 3.1's Snowball stemmers (``Stemmer.algorithms()``), listed so that a config is checked
# when it is composed, before anything runs
STEMMERS = ("arabic", "armenian", "basque", "catalan", "czech", "danish", "dutch", "dutch_porter", "english",
            "esperanto", "estonian", "finnish", "french", "german", "greek", "hindi", "hungarian", "indonesian",
            "irish", "italian", "lithuanian", "nepali", "norwegian", "persian", "polish", "porter", "portuguese",
            "romanian", "russian", "serbian", "sesotho", "spanish", "swedish", "tamil", "turkish", "yiddish")


def check_stemmer(stem: str, what: str = "stem") -> str:
    """``stem`` if it is "none" or a Snowball stemmer's name; else an error listing the names."""
    if stem != NO_STEMMER and stem not in STEMMERS:
        raise ValueError(f"{what}: {stem!r} is no Snowball stemmer; it must be one of "
                         f"{', '.join([NO_STEMMER, *STEMMERS])}")
    return stem


def stemmer_key(stem: str) -> list[str]:
    """What a cache key of stemmed tokens adds for ``stem``: nothing unstemmed, so entries made
    before stemming existed keep their keys."""
    return [] if stem == NO_STEMMER else [stem]


_STEMMERS = threading.local()   # a PyStemmer object must not be shared between threads (its docs)


def stem_tokens(tokens: list[str], stem: str) -> list[str]:
    """``tokens`` stemmed by the Snowball stemmer ``stem`` ("none": unchanged). CJK bigrams pass
    through: Snowball leaves tokens without Latin, Greek or Cyrillic letters as they are."""
    if stem == NO_STEMMER or not tokens:
        return list(tokens)
    mine = _STEMMERS.__dict__
    stemmer = mine.get(stem)
    if stemmer is None:
        import Stemmer

        stemmer = mine[stem] = Stemmer.Stemmer(check_stemmer(stem))
    return stemmer.stemWords(tokens)
