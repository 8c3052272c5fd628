"""A model-free, deterministic generator: extractive answer assembly.

1. Split every retrieved text unit into sentences.
2. Score each sentence by the IDF-weighted overlap of its terms with the query (IDF over the
   retrieved sentences), plus ``rank_weight`` times the unit's retrieval score to break ties.
3. Keep the ``max_sentences`` best sentences with a positive overlap, at most ``per_unit`` from one
   unit, and write them in source order (documents in order of their best retrieval rank).
4. Place each retrieved image (best first, at most ``max_images``). Under ``method=ham``, whose
   prompt shows each image's place in the tree: after the last kept sentence of the text unit it
   is locally related to (its relation target), failing that after the last kept sentence from the
   same section. Under a prompt that shows no hierarchy (the baselines): only from what that prompt
   says about the image (the text after its ``<imgN>`` tag: a caption, the text around it), after
   the kept sentence sharing the most terms with it. An image with no kept text beside it is left
   out.

The output cites images as ``<imgN>`` like a model would, and goes through the same parser. It uses
no more of the evidence than the method's prompt shows a model, so methods still differ under it.
"""
from __future__ import annotations

from typing import Annotated

import math
import re
import time
from collections import Counter

from ham.settings import Doc, Range
from ham.generate.base import Pricing, Generation, Generator
from ham.text import split_sentences, tokenize
from ham.methods.base import Prompt

class ExtractiveGenerator(Generator):
    model_id = "extractive-v1"
    cacheable = False

    def __init__(self, max_sentences: Annotated[int, Range(1), Doc("sentences in the answer at most")] = 5,
                 per_unit: Annotated[int, Range(1), Doc("sentences taken from one unit at most")] = 3,
                 max_images: Annotated[int, Range(0), Doc("images cited at most")] = 3,
                 rank_weight: Annotated[float, Range(0.0), Doc("weight of the unit's retrieval rank beside the "
                                                               "sentence's overlap with the question")] = 0.5,
                 pricing: Pricing = None) -> None:
        self.max_sentences, self.per_unit = max_sentences, per_unit
        self.max_images, self.rank_weight = max_images, rank_weight
        self.pricing = pricing

    def settings(self) -> dict:
        return {"max_sentences": self.max_sentences, "per_unit": self.per_unit,
                "max_images": self.max_images, "rank_weight": self.rank_weight}

    def generate(self, prompt: Prompt) -> Generation:
        start = time.perf_counter()
        text = self.compose(prompt)
        return Generation(text=text, model=self.model_id, seconds=time.perf_counter() - start)

    def compose(self, prompt: Prompt) -> str:
        hits = prompt.retrieved.text
        sentences = [(h, i, s) for h in hits for i, s in enumerate(split_sentences(" ".join(h.unit.content.split())))]
        if not sentences:
            return ""
        tokens = tokenize([s for _, _, s in sentences])
        df = Counter(t for toks in tokens for t in set(toks))
        n = len(sentences)
        query = set(tokenize([prompt.question])[0])
        scored = []
        for (hit, i, sent), toks in zip(sentences, tokens):
            overlap = sum(math.log(1 + n / df[t]) for t in query & set(toks))
            if overlap > 0:
                scored.append((overlap + self.rank_weight * hit.score, hit, i, sent))
        scored.sort(key=lambda x: (-x[0], x[1].rank, x[2]))
        kept, per_unit = [], Counter()
        for _, hit, i, sent in scored:
            if len(kept) == self.max_sentences:
                break
            if per_unit[hit.unit.unit_id] < self.per_unit:
                per_unit[hit.unit.unit_id] += 1
                kept.append((hit, i, sent))
        if not kept:
            return ""
        doc_rank = {}
        for h in hits:
            doc_rank.setdefault(h.unit.doc_id, h.rank)
        kept.sort(key=lambda x: (doc_rank[x[0].unit.doc_id], x[0].unit.order, x[1]))
        return self._interleave(kept, prompt)

    def _interleave(self, kept, prompt: Prompt) -> str:
        last_of_unit = {}
        for pos, (hit, _, _) in enumerate(kept):   # an assembled passage stands for each of its members
            for uid in (hit.unit.unit_id, *hit.unit.extra.get("members", ())):
                last_of_unit[uid] = pos
        last_of_section: dict[str, int] = {}
        for pos, (hit, _, _) in enumerate(kept):
            if hit.unit.path:
                last_of_section[hit.unit.path[-1]["id"]] = pos
        structured = prompt.method == "ham"
        cues = {} if structured else image_cues(prompt.text)
        kept_terms = [] if structured else [set(tokenize([sent])[0]) for _, _, sent in kept]
        after: dict[int, list[int]] = {}
        placed = 0
        for slot, image_hit in enumerate(prompt.retrieved.images, 1):
            if placed == self.max_images:
                break
            unit = image_hit.unit
            if structured:
                pos = last_of_unit.get(unit.relation.get("target") or "")
                if pos is None and unit.path:
                    pos = last_of_section.get(unit.path[-1]["id"])
            else:
                pos = best_match(set(tokenize([cues.get(slot, "")])[0]), kept_terms)
            if pos is not None:
                after.setdefault(pos, []).append(slot)
                placed += 1
        lines = []
        for pos, (_, _, sent) in enumerate(kept):
            lines.append(sent)
            lines.extend(f"<img{slot}>" for slot in after.get(pos, []))
        return "\n".join(lines)


_TAG = re.compile(r"<img(\d+)>")


def image_cues(prompt_text: str) -> dict[int, str]:
    """What a prompt says about each image: the text after its ``<imgN>`` tag in the image section,
    up to the next tag or section (``[Answer]``)."""
    section = prompt_text.rsplit("[Retrieved Image]", 1)[-1] if "[Retrieved Image]" in prompt_text else ""
    section = section.split("\n[", 1)[0]
    marks = list(_TAG.finditer(section))
    return {int(m.group(1)): section[m.end(): marks[i + 1].start() if i + 1 < len(marks) else len(section)]
            for i, m in enumerate(marks)}


def best_match(cue: set[str], kept_terms: list[set[str]]) -> int | None:
    """The kept sentence sharing the most terms with an image's cue (the first of ties), or None."""
    shared = [len(cue & terms) for terms in kept_terms]
    return max(range(len(shared)), key=lambda i: (shared[i], -i)) if shared and max(shared) > 0 else None

