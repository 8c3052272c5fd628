"""Strings longer than the encoder's window, embedded whole (``encoder.long_text=windows``).

A ``ct`` string is document, heading path, content, then summaries and neighbours. An encoder
reads only its first ``max_tokens`` tokens, so with long units (``units=sections``) the end of a
unit's own content is never embedded (``truncate``, what sentence-transformers does). With
``windows`` the content is cut at token boundaries into consecutive windows, each prefixed with
the string's head (document and path) so every window knows where it sits; the context fields
after the content go on the last window, where the window cuts them first. The unit's vector is
the L2-normalised mean of its windows' vectors (one vector per unit, so the index, fusion and
every retrieval mode are unchanged); BGE-M3's lexical weights are the per-token maximum over the
windows, as BGE-M3 itself pools a token's weight within one string. Queries are short and are
embedded as they are. BM25 always sees the whole string.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from ham.index.digest import INDEX_VERSION

WINDOWS_VERSION = "1"


def is_windowed(encoder, contents) -> bool:
    """Whether long units are encoded as windows over their contents: ``long_text=windows`` and
    the units' contents given."""
    return contents is not None and encoder.long_text == "windows"


def encoding_key_parts(encoder, windowed: bool) -> list:
    """What of the encoding enters an embeddings key (the single-process entry's and a shard's
    alike): encoder id, index version, the configured window, the windows mode."""
    window = encoder.window_setting
    return [encoder.model_id, INDEX_VERSION, *(["window", window] if window is not None else []),
            *(["windows", WINDOWS_VERSION] if windowed else [])]
MIN_WINDOW_TOKENS = 32   # a head that leaves fewer content tokens per window is not windowed
MARGIN_TOKENS = 4        # a head tokenised alone can differ by a token or two from in context


@dataclass
class WindowPlan:
    """The strings to embed for units that need more than one window: ``windows[i]`` for unit
    row ``rows[i]``; every other unit is embedded as its own string. ``lengths``: every string's
    token count, as the plan measured it (None for an encoder without a window)."""

    rows: list[int]
    windows: list[list[str]]
    lengths: list[int] | None = None

    @property
    def extra(self) -> int:
        return sum(len(w) - 1 for w in self.windows)

    def first_strings(self, texts: Sequence[str]) -> list[str]:
        """One string per unit: its own, or its first window."""
        first = list(texts)
        for row, split in zip(self.rows, self.windows):
            first[row] = split[0]
        return first

    @property
    def further_windows(self) -> list[str]:
        """Every window after a unit's first, unit by unit."""
        return [w for split in self.windows for w in split[1:]]


def windows_of(text: str, content: str, encoder, limit: int) -> list[str]:
    """``text`` cut into windows of at most ``limit`` tokens that together hold all of
    ``content``; ``[text]`` when the content fits or cannot be located in the string."""
    at = text.find(content) if content else -1
    if at < 0:
        return [text]
    head, tail = text[:at], text[at + len(content):]
    n_head, n_with_content = encoder.count_tokens([head, text[:at + len(content)]])   # special tokens included
    if n_with_content <= limit:
        return [text]
    budget = limit - n_head - MARGIN_TOKENS
    if budget < MIN_WINDOW_TOKENS:
        return [text]
    spans = encoder.token_offsets(content)
    windows, i = [], 0
    while i < len(spans):
        j = min(i + budget, len(spans))
        if j < len(spans):   # end at a word boundary, not inside a word's sub-tokens
            k = j
            while k > i + budget // 2 and not _starts_word(content, spans[k][0]):
                k -= 1
            j = k if k > i + budget // 2 else j
        windows.append(head + content[spans[i][0]:spans[j - 1][1]])
        i = j
    windows[-1] += tail
    return windows


def _starts_word(text: str, at: int) -> bool:
    return at == 0 or not (text[at - 1].isalnum() and text[at].isalnum())


def plan_windows(texts: Sequence[str], contents: Sequence[str], encoder) -> WindowPlan:
    rows, windows = [], []
    if not texts or not encoder.max_tokens:
        return WindowPlan(rows, windows)
    limit = encoder.max_tokens
    lengths = encoder.count_tokens(list(texts))
    for i, (text, n) in enumerate(zip(texts, lengths)):
        if n > limit:
            split = windows_of(text, contents[i], encoder, limit)
            if len(split) > 1:
                rows.append(i)
                windows.append(split)
    return WindowPlan(rows, windows, lengths)


def encode_windowed(encoder, texts: Sequence[str], contents: Sequence[str], folder: Path, desc: str) -> WindowPlan:
    """``encoder.encode_to`` with every over-long unit embedded as the mean of its windows: the
    first windows go through the streamed encode, the other windows are encoded after it and
    folded into those rows."""
    plan = plan_windows(texts, contents, encoder)
    encoder.encode_to(plan.first_strings(texts), folder, desc=desc)
    if not plan.rows:
        return plan
    owner = np.repeat(np.arange(len(plan.rows)), [len(w) - 1 for w in plan.windows])
    dense = np.load(folder / "dense.npy", mmap_mode="r+")
    sums = np.asarray(dense[plan.rows], dtype=np.float64)
    lexical: list[tuple[int, dict[int, float]]] = []
    for idx, enc in encoder.iter_encoded(plan.further_windows, desc=f"{desc}, further windows"):
        np.add.at(sums, owner[idx], enc.dense)
        if enc.sparse is not None:
            lexical.extend(zip(owner[idx].tolist(), enc.sparse))
    sums /= np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
    dense[plan.rows] = sums.astype(np.float32)
    dense.flush()
    del dense
    if lexical:
        _fold_lexical(folder / "sparse.npz", [(plan.rows[o], w) for o, w in lexical])
    return plan


def _fold_lexical(path: Path, extra: list[tuple[int, dict[int, float]]]) -> None:
    """Per-token maximum of a row's stored lexical weights and its further windows' weights."""
    import scipy.sparse as sp

    csr = sp.load_npz(path).tocoo()
    rows = np.concatenate([csr.row, np.fromiter((r for r, w in extra for _ in w), dtype=np.int64)])
    cols = np.concatenate([csr.col, np.fromiter((c for _, w in extra for c in w), dtype=np.int64)])
    vals = np.concatenate([csr.data, np.fromiter((v for _, w in extra for v in w.values()), dtype=np.float32)])
    order = np.lexsort((-vals, cols, rows))     # per (row, col), the largest weight first
    rows, cols, vals = rows[order], cols[order], vals[order]
    first = np.ones(len(rows), dtype=bool)
    first[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
    sp.save_npz(path, sp.csr_matrix((vals[first], (rows[first], cols[first])), shape=csr.shape, dtype=np.float32))


def truncation(contents: Sequence[str], texts: Sequence[str], encoder, plan: WindowPlan | None = None) -> dict | None:
    """How many embedded strings exceed the encoder's window, and in how many of those the unit's
    own content is cut (the fields after it, summaries and neighbours, are what a window should
    lose first); with a window ``plan``, how many units were windowed, into how many extra
    windows, and a windowed unit counts as cut only if one of its windows' content runs past the
    window. None for an encoder that cannot count tokens."""
    limit = encoder.max_tokens
    if not limit or not texts:
        return None
    lengths = plan.lengths if plan is not None and plan.lengths is not None else encoder.count_tokens(list(texts))
    if lengths is None:
        return None
    over = [i for i, n in enumerate(lengths) if n > limit]
    windowed = dict(zip(plan.rows, plan.windows)) if plan else {}
    parts = []
    for i in over:
        ends = _content_end(texts[i], contents[i])
        split = windowed.get(i)
        if split is None:
            parts.append((i, ends))
        else:   # the last window carries the fields after the content: drop them again
            tail = len(texts[i]) - len(ends)
            parts.extend((i, w) for w in split[:-1])
            parts.append((i, split[-1][:len(split[-1]) - tail] if tail else split[-1]))
    cut = {i for (i, _), n in zip(parts, encoder.count_tokens([t for _, t in parts]) if parts else []) if n > limit}
    record = {"max_tokens": limit, "strings": len(texts), "over_window": len(over), "content_cut": len(cut)}
    if plan is not None:
        record.update(long_text="windows", windowed=len(plan.rows), extra_windows=plan.extra)
    return record


def _content_end(text: str, content: str) -> str:
    at = text.find(content)
    return text[:at + len(content)] if at >= 0 else text
