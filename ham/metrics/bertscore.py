"""Img-CBS, the Image Context BERTScore (paper 5.1.3).

For each image that the answer shows and the reference also shows (a correctly selected image),
take its context in the answer and in the reference: the ``window`` words of answer text before
the image plus the ``window`` words after it (image markers removed; the first occurrence when an
image is shown twice). The image's score is the BERTScore F1 between the two contexts. A question's
Img-CBS is the mean over its correctly selected images; 0 when it has none or the generation
failed; undefined (None) when the reference shows no image.

One ``BERTScorer`` is kept for the whole run (``bert_score.score`` would reload the model per call);
all pairs of a run are scored in one batched call. The scorer's hash string is recorded.
"""
from __future__ import annotations

from pathlib import Path

from ham.answer import InterleavedAnswer, context_around

DEFAULT_WINDOW = 30


def context_pairs(answer: InterleavedAnswer | None, reference: InterleavedAnswer,
                  window: int = DEFAULT_WINDOW) -> list[tuple[str, str, str]]:
    """(image, answer context, reference context) for each correctly selected image."""
    if answer is None:
        return []
    shared = [img for img in answer.images if img in set(reference.images)]
    return [(img, context_around(answer, img, window), context_around(reference, img, window)) for img in shared]


class ContextScorer:
    """A BERTScore F1 scorer over (candidate, reference) pairs."""

    def __init__(self, model: str = "minilm", num_layers: int | None = 6, batch_size: int = 32,
                 device: str | None = None, rescale_with_baseline: bool = False,
                 baseline_path: str | None = None, lang: str = "en") -> None:
        from bert_score import BERTScorer

        if model == "minilm":
            from ham.encode import minilm_path
            model = str(minilm_path())
        if Path(model).exists() and num_layers is None:
            raise ValueError(f"BERTScore with a local model folder ({model}) needs num_layers")
        self.scorer = BERTScorer(model_type=model, num_layers=num_layers, batch_size=batch_size,
                                 device=device, lang=lang, rescale_with_baseline=rescale_with_baseline,
                                 baseline_path=baseline_path)
        self.hash = self.scorer.hash

    def f1(self, candidates: list[str], references: list[str]) -> list[float]:
        if not candidates:
            return []
        _, _, f1 = self.scorer.score(candidates, references, verbose=False)
        return [float(x) for x in f1]
