"""Rule-Based (MRAMG baseline, paper 5.1.1): the model writes a pure text answer from the flat
retrieved text; images are inserted afterwards, by rule.

Insertion (``insert_images``):
1. Split the answer into sentences (per line, then at sentence ends).
2. Describe each candidate image by its textual proxy: caption or alt text plus the text around
   it in its source.
3. Score every (sentence, image) pair: ``semantic_weight * cos + (1 - semantic_weight) * lex``,
   with ``cos`` the cosine of the two texts under a sentence encoder (the run's encoder unless
   ``semantic_model`` names a sentence-transformers folder; negative cosines count as 0) and
   ``lex`` the BM25 score of the proxy for the sentence (bm25s over the candidates' proxies),
   divided by the largest BM25 score of the answer so it lies in [0, 1].
4. Greedily, best pair first (ties: better retrieved image, then earlier sentence), put each image
   after its sentence when the pair scores at least ``min_score``; each image at most once, at most
   ``max_images`` images in all.
Image tags the model wrote anyway are removed first: the text answer is meant to be pure text.
"""
from __future__ import annotations

from typing import Annotated

import logging
import numpy as np

from ham.generate.answer import SLOT_PATTERN
from ham.text import _bm25s, split_sentences, tokenize
from ham.settings import Doc, Model, Range
from ham.methods.base import Template, Method, Prompt, flat_text_blocks, image_proxy, slots_of
from ham.retrieve.retriever import Retrieved

log = logging.getLogger("ham.methods.rule")
def lexical_scores(sentences: list[str], proxies: list[str]) -> np.ndarray:
    bm25s = _bm25s()
    scores = np.zeros((len(sentences), len(proxies)), dtype=np.float32)
    if not sentences or not proxies:
        return scores
    index = bm25s.BM25()
    index.index(tokenize(proxies), show_progress=False)
    vocabulary = set(index.vocab_dict)
    for i, tokens in enumerate(tokenize(sentences)):
        known = [t for t in tokens if t in vocabulary]
        if known:
            scores[i] = index.get_scores(known)
    top = scores.max()
    return scores / top if top > 0 else scores


def semantic_scores(sentences: list[str], proxies: list[str], encoder) -> np.ndarray:
    if encoder is None or not sentences or not proxies:
        return np.zeros((len(sentences), len(proxies)), dtype=np.float32)
    return np.clip(encoder.encode(sentences) @ encoder.encode(proxies).T, 0.0, 1.0)


def insert_images(sentences: list[str], proxies: list[str], encoder, semantic_weight: float,
                  min_score: float, max_images: int) -> dict[int, list[int]]:
    """{sentence index: [image index, ...]} by the rule in the module docstring (0-based)."""
    weight = semantic_weight if encoder is not None else 0.0
    combined = weight * semantic_scores(sentences, proxies, encoder) + \
        (1 - weight) * lexical_scores(sentences, proxies)
    pairs = sorted(((float(combined[s, i]), i, s) for s in range(len(sentences)) for i in range(len(proxies))),
                   key=lambda p: (-p[0], p[1], p[2]))
    after: dict[int, list[int]] = {}
    placed: set[int] = set()
    for score, image, sentence in pairs:
        if len(placed) == max_images or score < min_score:
            break
        if image not in placed:
            placed.add(image)
            after.setdefault(sentence, []).append(image)
    return after


class RuleBasedMethod(Method):
    name = "rule_based"

    def __init__(self, template: Template = "rule_based_v1",
                 max_images: Annotated[int, Range(0), Doc("images inserted at most")] = 3,
                 min_score: Annotated[float, Range(0.0, 1.0), Doc("an image goes after the sentence it matches "
                                                                  "best when the pair scores at least this")] = 0.3,
                 semantic_weight: Annotated[float, Range(0.0, 1.0), Doc("pair score = w x cosine + (1 - w) x "
                                                                        "BM25")] = 0.5,
                 semantic_model: Annotated[str | None, Model(), Doc("None: the run's encoder; or a "
                                                                    "sentence-transformers folder")] = None,
                 **context) -> None:
        super().__init__(template, **context)
        self.max_images, self.min_score, self.semantic_weight = max_images, min_score, semantic_weight
        if semantic_model:
            from ham.index.encoders import SentenceTransformerEncoder

            self.encoder = SentenceTransformerEncoder(semantic_model)
        if self.encoder is None:
            log.warning("rule_based: no sentence encoder; images are matched to sentences by BM25 alone")

    def __call__(self, question: str, retrieved: Retrieved) -> Prompt:
        return self.render(question, retrieved, slots_of(retrieved.images),
                           text_blocks=flat_text_blocks(retrieved.text))

    def finish(self, prompt: Prompt, reply: str) -> str:
        sentences = split_sentences(SLOT_PATTERN.sub(" ", reply))
        proxies = [" ".join(v for v in image_proxy(h).values() if v) for h in prompt.retrieved.images]
        after = insert_images(sentences, proxies, self.encoder, self.semantic_weight, self.min_score,
                              self.max_images)
        lines = []
        for n, sentence in enumerate(sentences):
            lines.append(sentence)
            lines.extend(f"<img{image + 1}>" for image in after.get(n, []))
        return "\n".join(lines)
