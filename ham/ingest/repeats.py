"""Documents that repeat another's text: the same manual shipped twice in one corpus (MIT/GNU
Scheme's Debian package holds ``mit-scheme-user.html``, the manual on one page, beside the split
``mit-scheme-user/`` folder), which would put every passage in the index twice and let two copies
of one answer take two retrieval slots.

Such a document is reported, not dropped: which copy to keep is the user's choice, and two
versions of a manual (2.1 and 2.2) share most passages and are both wanted. A document repeats
another when at least ``SHARE`` of its distinct passages of ``MIN_CHARS`` characters or more (and
at least ``MIN_PASSAGES`` of them) are passages of that one; the ingest report counts them per
file ("passages repeated from another document") and the log names both files.
"""
from __future__ import annotations

import logging
from collections import Counter, defaultdict

from ham.document import Document
from ham.text import normalise_ws

log = logging.getLogger("ham.ingest")

MIN_CHARS = 40
MIN_PASSAGES = 20
SHARE = 0.9
REPEATED = "passages repeated from another document"


def _passages(doc: Document) -> set[str]:
    return {t for t in (normalise_ws(n.text or "") for n in doc.leaves() if n.kind in ("text", "table"))
            if len(t) >= MIN_CHARS}


def report_repeats(docs: list[Document], report) -> list[tuple[str, str, int]]:
    """(source, the source it repeats, passages shared) for each repeating document, reported; a
    pair that repeat each other is reported once, at the later one."""
    passages = {doc.id: _passages(doc) for doc in docs}
    holders: dict[str, list[str]] = defaultdict(list)
    for doc_id, texts in passages.items():
        for text in texts:
            holders[text].append(doc_id)
    source = {doc.id: doc.source for doc in docs}
    found, reported = [], set()
    for doc in docs:
        own = passages[doc.id]
        if len(own) < MIN_PASSAGES:
            continue
        shared = Counter(other for text in own for other in holders[text] if other != doc.id)
        if not shared:
            continue
        other, n = shared.most_common(1)[0]
        if n >= SHARE * len(own) and (source[other], doc.source) not in reported:
            found.append((doc.source, source[other], n))
            reported.add((doc.source, source[other]))
            report.measure(report.root / doc.source, REPEATED, n)
            log.warning("%s repeats %s: %d of its %d passages are there too (remove one copy from the corpus "
                        "unless both are wanted)", doc.source, source[other], n, len(own))
    return found
