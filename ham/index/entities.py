"""Entity anchors: recurring normalised entities that link evidence units across pages and
modalities (TopoGraphRAG-Bench 3.1), used by the topology builder (bridges, synthesis) and by
``retrieval=graph`` (shared-entity links). One extractor, one cache per corpus.

A unit's text (``unit_text``): a text unit's content; a table's content (caption, rows,
footnotes); a figure's caption or alt text, its context-aware description (``describer``) and any
OCR / VLM text the source gave it (MMDocIR's ``ocr_text``, ``vlm_text``). Headings are not part of
it: units under one heading are linked by the tree, not by entities.

``RakeEntities`` (``extractor: rake``, the offline default, model-free): RAKE keyphrases (Rose et
al., 2010, "Automatic keyword extraction from individual documents") normalised into entities.

1. Candidates: the text is cut at punctuation (``. , ; : ! ? ( ) [ ] { } " | / < > = + * &``,
   double quotes and dashes between spaces), at line breaks, at one-character words, at stopwords (``STOPWORDS``: English function
   words and the generic verbs of instructions, "click", "select", "enter"; plus bm25s's English
   list, the one ham's BM25 uses) and at tokens without a letter (numbers, amounts); what remains are maximal runs of
   content words. A run longer than ``max_words`` keeps its last ``max_words`` words (English
   noun phrases are head-final: "open checking account register" -> ... "account register").
   A candidate of three or more words also yields each two-word sub-phrase ("monthly interest
   rate" -> "monthly interest", "interest rate"; "monthly fee went" -> "monthly fee"), so a
   compound recurs when its modifiers differ or when a verb that is no stopword runs into it
   (there is no part-of-speech tagger; sub-phrases that do not recur never anchor), and a word that
   looks like an identifier (letters mixed with digits or underscores: a file name such as
   "gcashdata_5", a form "W-2", a model number) is also a candidate on its own.
2. Normalisation, per word: lower-cased; a possessive "'s" and surrounding punctuation dropped;
   plural to singular by suffix rules (``singular``: "entries" -> "entry", "taxes" -> "tax",
   "accounts" -> "account"; "ss", "us", "is" endings kept). Words of fewer than ``min_chars``
   characters leave a one-word candidate out. The surface form shown for an entity is its most
   frequent original spelling.
3. Scores: RAKE's word score deg(w) / freq(w) over the unit's candidates (deg: the summed length
   of the candidates it occurs in), a phrase's score the sum of its words'. A unit keeps its
   ``per_unit`` best phrases (ties: first occurrence).

``LLMEntities`` (``extractor: llm``, ``ham-topo`` only): a model lists the unit's entities in
``<entity>`` tags (prompt ``ham/topo/prompts/entities_v1.txt``, parsed strictly; a reply without a
tag is a counted failure and the unit has no LLM entities); the entities are normalised by the
same rule.

Anchors (``EntityIndex.build``): an entity anchors when it occurs in at least ``min_units`` units
(2: an entity of one unit links nothing) and in at most ``max_share`` of all units (so "account"
in a bookkeeping manual does not link every unit to every other); each anchor has an IDF,
``log(N / df)``, that weighs its links.
"""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from ham.settings import Checked, Doc, Range, setting
from ham.units import EvidenceUnit


@dataclass
class EntitySettings(Checked):
    """How entities are extracted and which anchor (module docstring): the one block
    ``retrieval=graph`` (``retrieval.graph.entities``) and ham-topo (``topo.entities``) share."""

    max_words: int = setting(4, Range(1), Doc("RAKE: at most this many words per phrase"))
    per_unit: int = setting(20, Range(1), Doc("phrases kept per unit"))
    min_chars: int = setting(3, Range(1), Doc("the shortest one-word entity"))
    min_units: int = setting(2, Range(2), Doc("an entity anchors when it occurs in at least this many units"))
    max_share: float = setting(0.1, Range(0.0, 1.0), Doc("and in at most this share of all units"))

    def extractor(self) -> "RakeEntities":
        return RakeEntities(self.max_words, self.per_unit, self.min_chars)

    def index(self, found: "UnitEntities", order: Iterable[str]) -> "EntityIndex":
        return EntityIndex.build(found, order, self.min_units, self.max_share)

EXTRACTOR_VERSION = "1"
# RAKE's stoplist: English function words (determiners, pronouns, auxiliaries, prepositions,
# conjunctions, common adverbs) and the generic verbs of instructions and tutorials
STOPWORDS = frozenset("""
a about above across after afterwards again against all almost alone along already also although always
am among an and another any anybody anyhow anyone anything anyway anywhere are around as at back be
became because become becomes been before beforehand behind being below beside besides between beyond
both but by can cannot could did do does doing done down during each either else elsewhere enough
etc even ever every everyone everything everywhere except few for from further had has have having he
hence her here hers herself him himself his how however i if in indeed instead into is it its itself
just least less lest let lets like likely may me meanwhile might mine more moreover most mostly much
must my myself namely neither never nevertheless next no nobody none nor not nothing now nowhere of
off often on once one only onto or other others otherwise our ours ourselves out over own per perhaps
quite rather really same several shall she should since so some somehow someone something sometimes
somewhat somewhere soon still such than that the their theirs them themselves then thence there
thereafter thereby therefore therein these they this those though through throughout thru thus to
together too toward towards under until up upon us very via was we well were what whatever when
whenever where whereas wherever whether which while whither who whoever whole whom whose why will
with within without would yet you your yours yourself yourselves
also click clicks clicked clicking select selects selected selecting choose chooses chosen enter enters
entered entering use uses used using press pressed open opens opened opening see sees seen shown show
shows showing want wants wanted need needs needed make makes made making look looks looking get gets
got getting go goes going gone put puts keep keeps kept say says said know knows tell find finds found
give gives given take takes taken call calls called two three first second third new following follow
follows way ways example examples e.g i.e note notice simply many
""".split())
_DELIMS = re.compile(r"[.,;:!?()\[\]{}\"“”|/\\<>=+*&…•·]|(?<=\s)[-–—']+(?=\s)|\s[-–—]\s|\n")
_WORD = re.compile(r"[\w][\w'’_-]*")
_HAS_LETTER = re.compile(r"[^\W\d_]")
_IDENTIFIER = re.compile(r"(?=.*[^\W\d_])(?=.*[\d_])")   # letters mixed with digits or underscores


def singular(word: str) -> str:
    """A plural English word's singular by suffix rules (module docstring, step 2)."""
    if len(word) <= 3 or not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "zes", "sses")):
        return word[:-2]
    return word[:-1]


def normalise_word(word: str) -> str:
    w = word.lower().replace("’", "'").strip("'-_")
    if w.endswith("'s"):
        w = w[:-2]
    return singular(w)


def normalise(phrase: str) -> str:
    """An entity's normal form: each word normalised (module docstring), joined by spaces."""
    return " ".join(w for w in (normalise_word(t) for t in _WORD.findall(phrase)) if w)


def unit_text(unit: EvidenceUnit, descriptions=None) -> str:
    """The text entities are extracted from (module docstring)."""
    if unit.modality != "image":
        return unit.content or ""
    parts = [unit.caption or unit.alt or unit.content or ""]
    description = descriptions.of(unit) if descriptions is not None else None
    parts += [description or "", str(unit.extra.get("ocr_text") or ""), str(unit.extra.get("vlm_text") or "")]
    return "\n".join(p for p in parts if p.strip())


@dataclass
class Phrase:
    entity: str          # normalised form
    surface: str         # as written in the text
    score: float


def _stopwords() -> frozenset[str]:
    from ham.text import _stopwords as bm25_stopwords

    return bm25_stopwords() | STOPWORDS


class RakeEntities:
    """RAKE keyphrases normalised into entities (module docstring)."""

    name = "rake"
    model_id = f"rake-v{EXTRACTOR_VERSION}"

    def __init__(self, max_words: int = 4, per_unit: int = 20, min_chars: int = 3) -> None:
        if max_words < 1 or per_unit < 1 or min_chars < 1:
            raise ValueError("rake entities: max_words, per_unit and min_chars must be >= 1")
        self.max_words, self.per_unit, self.min_chars = max_words, per_unit, min_chars
        self._stop = None

    def key(self) -> dict:
        return {"extractor": self.model_id, "max_words": self.max_words, "per_unit": self.per_unit,
                "min_chars": self.min_chars}

    def candidates(self, text: str) -> list[list[str]]:
        """Step 1: the candidate word runs, surface words in order."""
        stop = self._stop = self._stop or _stopwords()
        runs: list[list[str]] = []
        for piece in _DELIMS.split(text):
            run: list[str] = []
            for token in _WORD.findall(piece):
                bare = token.lower().replace("’", "'").strip("'-_")
                if bare.endswith("'s"):
                    bare = bare[:-2]
                if len(bare) < 2 or bare in stop or not _HAS_LETTER.search(bare):
                    if run:
                        runs.append(run)
                    run = []
                else:
                    run.append(token)
            if run:
                runs.append(run)
        out = []
        for run in runs:
            if len(run) > 1:
                out.extend([token] for token in run if _IDENTIFIER.search(token))
            run = run[-self.max_words:]
            out.append(run)
            if len(run) >= 3:
                out.extend(run[i:i + 2] for i in range(len(run) - 1))
        return out

    def extract(self, text: str) -> list[Phrase]:
        """The unit's best ``per_unit`` phrases, normalised (steps 1-3)."""
        cands = []
        for run in self.candidates(text):
            words = [normalise_word(w) for w in run]
            if len(words) == 1 and len(words[0]) < self.min_chars:
                continue
            cands.append((words, " ".join(w.strip("'’") for w in run)))
        freq: Counter = Counter()
        degree: Counter = Counter()
        for words, _ in cands:
            for w in words:
                freq[w] += 1
                degree[w] += len(words)
        best: dict[str, Phrase] = {}
        order: dict[str, int] = {}
        for n, (words, surface) in enumerate(cands):
            entity = " ".join(words)
            score = sum(degree[w] / freq[w] for w in words)
            if entity not in best or score > best[entity].score:
                best[entity] = Phrase(entity, surface, score)
            order.setdefault(entity, n)
        ranked = sorted(best.values(), key=lambda p: (-p.score, order[p.entity]))
        return ranked[: self.per_unit]

    def extract_units(self, units: Sequence[EvidenceUnit], descriptions=None) -> "UnitEntities":
        phrases = {u.unit_id: self.extract(unit_text(u, descriptions)) for u in units}
        return UnitEntities.of(phrases)


@dataclass
class UnitEntities:
    """Each unit's entities (normalised, in score order) and each entity's surface form."""

    of_unit: dict[str, list[str]]
    surface: dict[str, str]
    stats: dict = field(default_factory=dict)

    @classmethod
    def of(cls, phrases: dict[str, list[Phrase]], stats: dict | None = None) -> "UnitEntities":
        spellings: dict[str, Counter] = defaultdict(Counter)
        of_unit = {}
        for unit_id, found in phrases.items():
            of_unit[unit_id] = list(dict.fromkeys(p.entity for p in found))
            for p in found:
                spellings[p.entity][p.surface] += 1
        surface = {e: max(c.items(), key=lambda kv: (kv[1], kv[0]))[0] for e, c in spellings.items()}
        return cls(of_unit, surface, stats or {})

    def to_dict(self) -> dict:
        return {"of_unit": self.of_unit, "surface": self.surface, "stats": self.stats}

    @classmethod
    def from_dict(cls, data: dict) -> "UnitEntities":
        return cls(data["of_unit"], data["surface"], data.get("stats") or {})


@dataclass
class EntityIndex:
    """Anchor entities: entity -> the units it occurs in (module docstring, "Anchors")."""

    units_of: dict[str, list[str]]
    of_unit: dict[str, list[str]]
    surface: dict[str, str]
    n_units: int
    min_units: int = 2
    max_share: float = 0.1

    @classmethod
    def build(cls, entities: UnitEntities, order: Iterable[str] | None = None, min_units: int = 2,
              max_share: float = 0.1) -> "EntityIndex":
        if min_units < 2:
            raise ValueError("an entity anchors only when it occurs in at least two units (min_units >= 2)")
        if not 0.0 < max_share <= 1.0:
            raise ValueError(f"max_share must lie in (0, 1], not {max_share}")
        unit_ids = list(order) if order is not None else list(entities.of_unit)
        n = len(unit_ids)
        cap = max(min_units, math.floor(max_share * n))
        units_of: dict[str, list[str]] = defaultdict(list)
        for uid in unit_ids:
            for e in entities.of_unit.get(uid, []):
                units_of[e].append(uid)
        anchors = {e: us for e, us in units_of.items() if min_units <= len(us) <= cap}
        of_unit = {uid: [e for e in entities.of_unit.get(uid, []) if e in anchors] for uid in unit_ids}
        return cls(anchors, of_unit, {e: entities.surface.get(e, e) for e in anchors}, n, min_units, max_share)

    def idf(self, entity: str) -> float:
        return math.log(self.n_units / len(self.units_of[entity]))

    def neighbours(self, unit_id: str) -> dict[str, tuple[float, str]]:
        """Units sharing an anchor with ``unit_id``: other unit -> (the best shared anchor's IDF, it)."""
        out: dict[str, tuple[float, str]] = {}
        for e in self.of_unit.get(unit_id, []):
            w = self.idf(e)
            for other in self.units_of[e]:
                if other != unit_id and (other not in out or w > out[other][0]):
                    out[other] = (w, e)
        return out

    def shared(self, a: str, b: str) -> list[str]:
        """Anchors units ``a`` and ``b`` share, rarest first."""
        both = set(self.of_unit.get(a, [])) & set(self.of_unit.get(b, []))
        return sorted(both, key=lambda e: (-self.idf(e), e))

    def summary(self) -> dict:
        sizes = Counter(len(us) for us in self.units_of.values())
        linked = sum(1 for es in self.of_unit.values() if es)
        return {"anchors": len(self.units_of), "units": self.n_units, "units_with_anchor": linked,
                "min_units": self.min_units, "max_share": self.max_share,
                "anchors_by_units": {str(k): v for k, v in sorted(sizes.items())}}


def mentions(text: str, entity: str) -> bool:
    """Whether ``text`` names ``entity`` (both normalised word by word; whole words only), so
    "the Checking Accounts" names "checking account"."""
    words = normalise(text).split()
    target = entity.split()
    if not target:
        return False
    k = len(target)
    return any(words[i:i + k] == target for i in range(len(words) - k + 1))


def corpus_entities(units: Sequence[EvidenceUnit], extractor, cache=None, descriptions=None,
                    corpus_key: str = "") -> UnitEntities:
    """Every unit's entities under ``extractor``, cached per corpus under ``<cache>/entities/``,
    keyed by the exact unit texts and the extractor's settings (RAKE is cheap, but one corpus's
    links are then the same object for every run and the builder)."""
    import json

    from ham.cache import key_of
    from ham.index.build import strings_digest

    if cache is None:
        return extractor.extract_units(units, descriptions)
    texts = [unit_text(u, descriptions) for u in units]
    key = key_of(["entities", corpus_key, strings_digest([u.unit_id for u in units], texts), extractor.key()])

    def build(folder) -> None:
        found = extractor.extract_units(units, descriptions)
        (folder / "entities.json").write_text(json.dumps(found.to_dict(), ensure_ascii=False))

    folder, _ = cache.get_or_build("entities", key, build)
    return UnitEntities.from_dict(json.loads((folder / "entities.json").read_text(encoding="utf-8")))
