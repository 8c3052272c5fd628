"""Img-CBS, the Image Context BERTScore (paper 5.1.3).

For each image that the answer shows and the reference also shows (a correctly selected image),
take its context in the answer and in the reference: the ``window`` words (default 30, config
``metrics.img_cbs_window``) of text before the image plus the ``window`` words after it, across
segment boundaries, with image markers removed; the first occurrence when an image is shown twice.
The image's score is the BERTScore F1 between the two contexts. A question's Img-CBS is the mean
over its correctly selected images (each counted once, however often it is shown); 0 when it has
none or the generation failed; undefined (None) when the reference shows no image.

One ``BERTScorer`` is kept for the whole run (``bert_score.score`` would reload the model per call);
the pairs of a question are scored in one batched call. The scorer's hash string is recorded.
Model and layer are configurable (``roberta-large`` layer 17 is bert-score's English default; the
bundled MiniLM folder, 6 layers, works offline). Optional baseline rescaling,
F' = (F - b_F) / (1 - b_F), reads ``baseline_path`` (bert-score's CSV: ``LAYER,P,R,F``, one row per
layer 0..L); a local model folder needs one, since shipped baselines are keyed by hub names.
"""
from __future__ import annotations

import warnings
from pathlib import Path

from ham.answer import InterleavedAnswer, context_around
from ham.metrics.registry import Case, Resources, metric

DEFAULT_WINDOW = 30


def context_pairs(answer: InterleavedAnswer | None, reference: InterleavedAnswer,
                  window: int = DEFAULT_WINDOW) -> list[tuple[str, str, str]]:
    """(image, answer context, reference context) for each correctly selected image."""
    if answer is None:
        return []
    shared = [img for img in answer.images if img in set(reference.images)]
    return [(img, context_around(answer, img, window), context_around(reference, img, window)) for img in shared]


def default_layer(model: str) -> int | None:
    """The layer scored when ``num_layers`` is left null: the bundled MiniLM's last (6), else
    bert-score's own default for a hub name (roberta-large: 17); None for a name it does not know
    or a local folder (those need ``num_layers``)."""
    if model == "minilm":
        return 6
    if Path(model).exists():
        return None
    from bert_score.utils import model2layers

    return model2layers.get(model)


class ContextScorer:
    """A BERTScore F1 scorer over (candidate, reference) pairs."""

    def __init__(self, model: str = "minilm", num_layers: int | None = None, batch_size: int = 32,
                 device: str | None = None, rescale_with_baseline: bool = False,
                 baseline_path: str | None = None, lang: str = "en") -> None:
        from bert_score import BERTScorer

        if num_layers is None:
            num_layers = default_layer(model)
            if num_layers is None:
                raise ValueError(f"BERTScore with {model}: metrics.bertscore.num_layers is needed (a local "
                                 "folder, or a model bert-score has no default layer for)")
        if model == "minilm":
            from ham.backends.local import minilm_path
            model = str(minilm_path())
        local = Path(model).exists()
        if rescale_with_baseline and baseline_path is None and local:
            raise ValueError(f"BERTScore rescaling with a local model folder ({model}) needs baseline_path "
                             "(shipped baselines are keyed by hub model names)")
        if baseline_path is not None and not Path(baseline_path).is_file():
            raise FileNotFoundError(f"BERTScore baseline file {baseline_path} does not exist")
        self.scorer = BERTScorer(model_type=model, num_layers=num_layers, batch_size=batch_size,
                                 device=device, lang=lang, rescale_with_baseline=rescale_with_baseline,
                                 baseline_path=baseline_path)
        if rescale_with_baseline:
            self._check_baseline(baseline_path or self.scorer.baseline_path)
        self.hash = self.scorer.hash
        self.info = {"model": model, "num_layers": self.scorer.num_layers, "hash": self.hash,
                     "rescale_with_baseline": rescale_with_baseline, "baseline_path": baseline_path}

    def _check_baseline(self, path: str) -> None:
        """Read the baseline row now (bert-score reads it lazily, on the first score): a missing
        file or layer row fails at start-up with the file named, not mid-run."""
        try:
            with warnings.catch_warnings():   # bert-score's own torch.from_numpy on a read-only array
                warnings.simplefilter("ignore", UserWarning)
                values = self.scorer.baseline_vals
        except (ValueError, IndexError, OSError) as exc:
            raise ValueError(f"BERTScore baseline {path}: no usable row for layer {self.scorer.num_layers} "
                             f"(a CSV with header LAYER,P,R,F and one row per layer 0..L): {exc}") from exc
        if tuple(values.shape) != (3,):
            raise ValueError(f"BERTScore baseline {path}: expected P,R,F for layer {self.scorer.num_layers}, "
                             f"got {tuple(values.shape)} values")

    def f1(self, candidates: list[str], references: list[str]) -> list[float]:
        if not candidates:
            return []
        _, _, f1 = self.scorer.score(candidates, references, verbose=False)
        return [float(x) for x in f1]


@metric("img_cbs", label="Img-CBS", scale=100, needs=("bertscore",),
        description="BERTScore F1 of answer vs reference context around each correctly selected image")
def img_cbs(case: Case, res: Resources) -> float | None:
    reference = case.reference
    if reference is None or not reference.images:
        return None
    pairs = context_pairs(case.answer, reference, int(res.settings.get("img_cbs_window", DEFAULT_WINDOW)))
    f1 = res.bertscore.f1([a for _, a, _ in pairs], [r for _, _, r in pairs])
    return sum(f1) / len(f1) if f1 else 0.0
