"""Words hyphenated at a line break ("pro- gramming", "environ- ment"): a paragraph's lines are
joined with a space, so a word TeX split over two lines became two tokens that neither BM25 nor an
embedding model knows ("environ", "ment").

Where a line ends in letters and a hyphen and the next line starts with a lower-case letter, the
two pieces ``a-`` and ``b`` are rejoined by what the document itself and an English word list say:

1. ``b`` is "and", "or", "nor" or "to": a suspended hyphen ("x- and y-coordinates"), kept as set;
2. the joined word ``ab`` or the compound ``a-b`` occurs elsewhere in the document: the one that
   occurs more often ("programming", "top-level", "cd-hit" though a file name says "cdhit");
3. ``ab`` is an English word (``pdf_glued.english_words``, the bundled WordPiece vocabulary): ``ab``;
4. both pieces are English words: the compound ``a-b`` ("user-controllable");
5. otherwise ``ab``: TeX breaks a word between syllables, and a syllable is rarely a word.

A break where the word before or after it is set in a monospaced font is never touched
(``--with-`` options and code keep their hyphens), nor are a listing's lines (joined with their
line breaks). The document's vocabulary is counted from all its lines before any is joined.

A line LaTeX broke because it did not fit, with a mark at the break (doxygen's and dblatex's ↩,
Sphinx's ␣ and ↪), is joined to its continuation without the marks, in running text and listings
alike (``continued``).
"""
from __future__ import annotations

import re
from collections import Counter

from ham.ingest.pdf_glued import english_words

SUSPENDED = frozenset({"and", "or", "nor", "to"})
_HYPHENS = "-\u00ad\u2010"
_TAIL = re.compile(rf"([^\W\d_]+)[{_HYPHENS}]$")          # "... environ-"
_HEAD = re.compile(r"([^\W\d_]+)")                          # "ment ..."
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def vocabulary(texts) -> Counter:
    """Lower-case words and hyphenated compounds of ``texts``, with how often each occurs; a word
    cut by a hyphen at a line's end does not count (its piece is no word)."""
    counts: Counter = Counter()
    for text in texts:
        body = _TAIL.sub("", text.rstrip())
        for word in _WORD.findall(body):
            word = word.lower()
            counts[word] += 1
            if "-" in word:
                counts.update(word.split("-"))
    return counts


def rejoin(a: str, b: str, vocab: Counter) -> str:
    """How the pieces ``a`` (before the hyphen) and ``b`` (the next line's first word) are written
    (the module docstring's rules, in order)."""
    low_a, low_b = a.lower(), b.lower()
    if low_b in SUSPENDED:
        return f"{a}- {b}"
    whole, compound = vocab[low_a + low_b], vocab[f"{low_a}-{low_b}"]
    if whole or compound:
        return a + b if whole >= compound else f"{a}-{b}"
    english = english_words()
    if low_a + low_b in english:
        return a + b
    if low_a in english and low_b in english:
        return f"{a}-{b}"
    return a + b


# where LaTeX broke a line too long for the page it sets a mark: doxygen and dblatex's listings end
# the line with ↩ (\hookleftarrow: cmsy's "←" and cmmi's right hook), Sphinx ends it with a visible
# space "␣" when it broke at a space and opens the next line with ↪ (cmmi's left hook and "→")
_BROKEN = re.compile(r"\s*←?\s*↩\s*$")
_VISIBLE_SPACE = re.compile(r"␣\s*$")
_CONTINUED = re.compile(r"^\s*↪\s*→?\s*")


def continued(line: str, text: str) -> str | None:
    """``line`` and the next line ``text`` as one, the marks dropped, when LaTeX broke the line to
    fit ("Post←↩" + "Script" is "PostScript"; "does not␣" + "↪→support" is "does not support");
    else None."""
    if not (_BROKEN.search(line) or _CONTINUED.match(text)):
        return None
    head = _BROKEN.sub("", line)
    gap = " " if _VISIBLE_SPACE.search(head) else ""
    return _VISIBLE_SPACE.sub("", head) + gap + _CONTINUED.sub("", text)


def unwrap(texts: list[str]) -> list[str]:
    """A listing's lines with each line LaTeX broke to fit joined to its continuation."""
    out: list[str] = []
    for text in texts:
        joined = continued(out[-1], text) if out else None
        if joined is None:
            out.append(text)
        else:
            out[-1] = joined
    return out


def join_lines(texts: list[str], vocab: Counter, mono: list[tuple[bool, bool]] | None = None) -> tuple[str, int]:
    """The lines of one paragraph joined with spaces, words hyphenated at a line's end rejoined;
    and how many were rejoined (not counting suspended hyphens). ``mono``: per line, whether its
    first and its last word are monospaced."""
    if not texts:
        return "", 0
    out, joined = texts[0], 0
    for i, text in enumerate(texts[1:], start=1):
        marked = continued(out, text)
        if marked is not None:
            out = marked
            continue
        tail = _TAIL.search(out.rstrip())
        head = _HEAD.match(text)
        if tail is None or head is None or not head.group(1)[0].islower() or (mono and (mono[i - 1][1] or mono[i][0])):
            out = f"{out} {text}"
            continue
        a, b = tail.group(1), head.group(1)
        word = rejoin(a, b, vocab)
        joined += word != f"{a}- {b}"
        out = out.rstrip()[: tail.start()] + word + text[head.end():]
    return out, joined
