"""Heading levels from the evidence a source has, each with the rule that set it.

A source's own levels are used when they say something: Markdown ``#``/``##``, HTML ``h1``-``h6``,
MinerU's VLM backend, DOCX heading styles. When every heading has the same level (MinerU's
pipeline backend writes ``text_level: 1`` for all of them; a flattened Markdown file; a PDF read
without styles) or none, levels are recovered, per heading, from the first evidence that applies:

1. numbering: "1", "1.2", "1.2.1" (depth = number of parts), "Chapter 3", "Part II",
   "Appendix A", "第三章" / "第二节", "一、" / "（一）", "I." / "II.", "A." / "A.1", "1)", "(a)".
   Each numbering style nests below the styles already open ("Chapter 3" then "3.1"; IEEE's "I."
   then "A." then "1)"); a style seen before closes everything opened after it. Letters after a
   decimal top level are appendices ("A", "A.1" at the depth of "1", "1.1"). A bare capital
   letter numbers a heading only in a run of letters from A (two or more, or "A" after decimal
   numbering): "A Glimpse Into the Future", "R Schlicht", "X Resources" are not numbered.
2. typography, where the source gives it (font size from a PDF or MinerU's ``middle.json``, the
   font name from a PDF): headings fall into typographic classes, a size, split by font where
   headings of one size are set in distinct fonts (``typographic_classes``: numbered headings'
   fonts rank first, then by first appearance). A heading of the same class as numbered headings
   takes their depth; one of a lower class sits as many classes below the nearest numbered class
   above it; without numbered headings, the classes rank the depths (largest = 1).
3. section vocabulary of papers and manuals ("Abstract", "Introduction", "Related Work", ...,
   "References"; "Safety", "Installation", "Operation", "Maintenance", "Troubleshooting", ...):
   such a heading is top level, unless its font size ranks below the largest heading size (a PDF's
   "Installation" subsection) (in a numbered document only the names that are conventionally
   top level, ``STRONG_TOP``: an unnumbered "Results" there belongs to the numbered section).
4. context: any other unnumbered heading in a document that has numbered or vocabulary headings
   sits one level below the last of those (a ``\\paragraph``-style heading, or the subsections of an
   unnumbered "Related Work").

No evidence at all keeps the headings flat, and says so (a heading placed without evidence is no
anchor for rule 4: the unnumbered headings after it are its siblings). ``Block.rule`` records the rule for each
heading; ``ham-tree --why`` prints it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ham.text import clean_text

_ZH_NUM = "一二三四五六七八九十百零〇两"
_ROMAN = re.compile(r"^(?=[IVXLC])M*(C[MD]|D?C{0,3})(X[CL]|L?X{0,3})(I[XV]|V?I{0,3})$")

# (style, pattern); the first that matches wins. Group "n" is the number as written.
_PATTERNS: list[tuple[str, re.Pattern]] = [
    ("zh-part", re.compile(rf"^第\s*(?P<n>[{_ZH_NUM}\d]+)\s*[篇部编]")),
    ("zh-chapter", re.compile(rf"^第\s*(?P<n>[{_ZH_NUM}\d]+)\s*章")),
    ("zh-section", re.compile(rf"^第\s*(?P<n>[{_ZH_NUM}\d]+)\s*节")),
    ("zh-enum", re.compile(rf"^(?P<n>[{_ZH_NUM}]+)\s*[、．.]")),
    ("zh-paren", re.compile(rf"^[（(]\s*(?P<n>[{_ZH_NUM}]+)\s*[)）]")),
    ("part", re.compile(r"^(?:Part|PART)\s+(?P<n>[IVXLC]+|\d+|[A-Z])\b")),
    ("chapter", re.compile(r"^(?:Chapter|CHAPTER|Chap\.)\s+(?P<n>\d+|[IVXLC]+)\b")),
    ("appendix", re.compile(r"^(?:Appendix|APPENDIX|Annex|ANNEX)\s+(?P<n>[A-Z]|\d+)\b")),
    ("decimal", re.compile(r"^(?:(?:Section|SECTION|§)\s*)?(?P<n>\d{1,3}(?:\.\d{1,3})*)(?:\.(?!\d)|\))?(?=\s|$|[\u3000-\u9fff])")),
    ("decimal", re.compile(r"^(?:Section|SECTION)\s+(?P<n>\d{1,3}(?:\.\d{1,3})*):(?=\s|$)")),   # "Section 3: Title"
    ("alpha", re.compile(r"^(?P<n>[A-Z](?:\.\d{1,3})*)(?:\.(?!\d)|\))?\s+\S")),
    ("paren-num", re.compile(r"^\(\s*(?P<n>\d{1,2})\s*\)\s*\S")),
    ("paren-alpha", re.compile(r"^\(?(?P<n>[a-z])\)\s+\S")),
]
# a chapter opener's label, a line or heading of its own above the title: "CHAPTER", "Chapter 3",
# "Part II", "Appendix A" (the PDF reader and the parser-output pass both join it to the title)
CHAPTER_LABEL = re.compile(r"^(?:chapter|part|appendix|lesson|unit|section)(?:\s+(?:\d{1,3}|[ivxlcdm]{1,7}|[a-z]))?\.?$", re.I)
_STEP = re.compile(r"^\s*(?:Step|STEP|步骤|第\s*\d+\s*步)\s*(\d+)?")
_STEP_TITLE = re.compile(r"^\s*(?:Step|STEP)\s+\d+\b|^\s*步骤\s*\d+|^\s*第\s*[\d一二三四五六七八九十]+\s*步")

# Sections of papers and of manuals that are top level wherever they appear (lower-case, no numbers)
PAPER_SECTIONS = {
    "abstract", "introduction", "background", "related work", "related works", "prior work",
    "preliminaries", "preliminaries and notation", "preliminaries and notations", "notation", "notations",
    "problem formulation", "problem statement", "problem definition", "method", "methods", "methodology", "approach", "our approach", "model",
    "experiments", "experimental setup", "experimental results", "evaluation", "results",
    "results and discussion", "discussion", "analysis", "limitations", "conclusion", "conclusions",
    "conclusion and future work", "future work", "acknowledgements", "acknowledgments",
    "acknowledgement", "acknowledgment", "references", "bibliography", "appendix", "appendices",
    "supplementary material", "ethics statement", "broader impact", "keywords", "index terms",
    "ccs concepts", "acm reference format",     # ACM's front matter
    "摘要", "引言", "相关工作", "方法", "实验", "结论", "参考文献", "附录", "致谢",
}
MANUAL_SECTIONS = {
    "safety", "safety information", "safety instructions", "important safety instructions",
    "warnings", "introduction", "overview", "product overview", "getting started", "quick start",
    "installation", "install", "setup", "set up", "configuration", "operation", "operating instructions",
    "usage", "use", "maintenance", "care and maintenance", "cleaning", "troubleshooting",
    "specifications", "technical specifications", "technical data", "features", "package contents",
    "what's in the box", "warranty", "disposal", "support", "glossary", "index", "faq",
    "frequently asked questions", "appendix", "revision history", "ordering information",
    "electrical characteristics", "absolute maximum ratings", "mechanical characteristics",
    "storage", "transportation", "安全", "安全须知", "安全说明", "概述", "产品概述", "安装", "操作",
    "使用", "维护", "保养", "故障排除", "规格", "技术参数", "保修", "产品特性", "储存", "运输",
}
BACK_MATTER = {"references", "bibliography", "acknowledgements", "acknowledgments", "参考文献", "致谢"}


@dataclass(frozen=True)
class Numbering:
    style: str
    number: str
    parts: int          # dotted parts of a decimal or appendix number ("1.2.1" -> 3)


def numbering_of(title: str) -> Numbering | None:
    """The numbering prefix of a heading, or None ("Step N" is not numbering: it is a step)."""
    text = clean_text(title).strip()
    if _STEP_TITLE.match(text):
        return None
    for style, pattern in _PATTERNS:
        m = pattern.match(text)
        if not m:
            continue
        number = m.group("n")
        rest = text[m.end():].strip()
        if style == "decimal":
            if not rest and "." not in number:
                return None  # a bare number is a page number or a value, not a heading
            if "." not in number and int(number) > 99 and not text.startswith(("Section", "SECTION", "§")):
                return None  # "2023 annual report", "5000 mAh"
            return Numbering("decimal", number, number.count(".") + 1)
        if style == "alpha" and number[0] in "IVXLC" and "." not in number and _ROMAN.match(number):
            style = "roman-or-alpha"
        if style == "alpha" and not rest:
            return None
        return Numbering(style, number, number.count(".") + 1)
    m = re.match(r"^(?P<n>[IVXLC]+)\.\s+\S", text)
    if m and _ROMAN.match(m.group("n")):
        return Numbering("roman", m.group("n"), 1)
    return None


def continues_decimal(prev: str, cur: str) -> bool:
    """``cur`` ("3.1") is the decimal number right after ``prev`` ("3"): its first child, or the
    next number at ``cur``'s depth or above ("3.2" after "3.1.4", "4" after "3.2")."""
    try:
        p, c = [int(x) for x in prev.split(".")], [int(x) for x in cur.split(".")]
    except ValueError:
        return False
    if c == p + [1]:
        return True
    k = len(c)
    return k <= len(p) and c[:-1] == p[:k - 1] and c[-1] == p[k - 1] + 1


def numbering_depth(title: str) -> int | None:
    """Depth implied by a decimal or lettered numbering prefix alone: "4." -> 1, "4.7." -> 2,
    "A.2" -> 2; None when there is none (used where no document context is at hand)."""
    n = numbering_of(title)
    if n is None or n.style not in ("decimal", "alpha", "appendix", "chapter", "part") \
            or not any(c.isdigit() for c in n.number):
        return None
    return n.parts


def is_step_title(title: str) -> bool:
    return bool(_STEP_TITLE.match(clean_text(title)))


def vocabulary_of(title: str) -> str | None:
    """"paper" or "manual" when the heading (numbering removed) is a known top-level section name."""
    text = clean_text(title).strip()
    n = numbering_of(text)
    if n is not None:
        text = re.sub(r"^\S+\s*", "", text, count=1) if n.style not in ("zh-chapter", "zh-section") else text
    key = re.sub(r"[\s:：.]+$", "", " ".join(text.lower().split()))
    if key in PAPER_SECTIONS:
        return "paper"
    if key in MANUAL_SECTIONS:
        return "manual"
    # a bilingual heading ("概述 Overview"): either half
    halves = [h for h in re.split(r"(?<=[\u3000-\u9fff])\s+(?=[A-Za-z])|(?<=[A-Za-z])\s+(?=[\u3000-\u9fff])", key) if h]
    if len(halves) > 1:
        for half in halves:
            if half in PAPER_SECTIONS:
                return "paper"
            if half in MANUAL_SECTIONS:
                return "manual"
    return None


def levels_informative(levels: list[int], titles: list[str] | None = None, authored: bool = True,
                       numbering_overrules: bool = True) -> bool:
    """Whether a source's heading levels say something. Levels that differ do. Equal levels (or
    none) do not when they come from a parser (``authored=False``: MinerU's pipeline gives every
    heading level 1, a PDF has none) and there are two headings or more; when an author chose
    them (Markdown, HTML, DOCX styles) they do, unless the numbering nests where the levels do
    not ("1" and "1.1" both ``#``). Levels that differ say something unless the numbering
    contradicts them (``numbering_contradicts``; not asked when ``numbering_overrules`` is off:
    a PDF's outline)."""
    given = [lv for lv in levels if lv > 0]
    if len(given) < len(levels):
        return False if not given else len(set(given)) > 1
    if len(set(given)) > 1:
        return not (numbering_overrules and numbering_contradicts(levels, titles or []))
    if not authored:
        return len(given) < 2
    if not section_numbering(titles or []):
        return True
    numbered = [numbering_of(t) for t in titles or []]
    depths = {n.parts for n in numbered if n is not None and n.style in ("decimal", "alpha", "appendix")}
    chapters = any(n is not None and n.style in ("chapter", "zh-chapter", "part") for n in numbered)
    return not (len(depths) > 1 or (chapters and depths))


def numbering_contradicts(levels: list[int], titles: list[str]) -> bool:
    """Whether the levels a source gives its decimal-numbered headings do not follow the numbering:
    taking, for each depth of numbering ("1" / "1.1" / "1.1.1"), the level most of its headings
    have, those levels do not rise with the depth, or 2 headings or more (and a tenth of the
    numbered ones) sit at another level than their depth's. Marker's Markdown of the AArch64
    procedure call standard sets "1.1 Abstract" and "1.5" with "#", "1.2" with "##". Numbers that
    do not succeed as sections' do (``section_numbering``: a changelog's versions) contradict nothing."""
    if not section_numbering(titles):
        return False
    by_depth: dict[int, list[int]] = {}
    for level, title in zip(levels, titles):
        n = numbering_of(title)
        if n is not None and n.style == "decimal":
            by_depth.setdefault(n.parts, []).append(level)
    by_depth = {d: lv for d, lv in by_depth.items() if len(lv) >= 2}   # one heading of a depth says little
    if len(by_depth) < 2:
        return False
    usual = {d: max(set(lv), key=lv.count) for d, lv in by_depth.items()}
    ordered = [usual[d] for d in sorted(usual)]
    if any(a >= b for a, b in zip(ordered, ordered[1:])):
        return True
    off = sum(1 for d, lv in by_depth.items() for x in lv if x != usual[d])
    return off >= max(2, 0.1 * sum(map(len, by_depth.values())))


def section_numbering(titles: list[str]) -> bool:
    """Whether the decimal numbers of these headings succeed as section numbers do, each after the
    one before it ("1", "1.1", "1.2", "2"): not where most of them go down, as a changelog's
    versions do ("2.1", "2.0.1", "2.0", "1.9.2"), which number releases, not a depth of nesting.
    A restart here and there (a second part numbered from 1 again) is still section numbering."""
    numbers = [tuple(int(p) for p in n.number.split(".")) for n in map(numbering_of, titles)
               if n is not None and n.style == "decimal"]
    steps = list(zip(numbers, numbers[1:]))
    down = sum(1 for a, b in steps if b <= a)
    return down * 2 <= len(steps)


# names that are top level even in a numbered document (an unnumbered "Results" there is more
# likely a run-in heading of a numbered section)
STRONG_TOP = {"abstract", "keywords", "index terms", "ccs concepts", "acm reference format", "introduction",
              "background", "related work", "related works",
              "prior work", "conclusion", "conclusions", "conclusion and future work", "limitations",
              "acknowledgements", "acknowledgments", "acknowledgement", "acknowledgment", "references",
              "bibliography", "appendix", "appendices", "supplementary material", "ethics statement",
              "broader impact", "safety", "safety information", "safety instructions",
              "important safety instructions", "installation", "operation", "operating instructions",
              "maintenance", "care and maintenance", "troubleshooting", "specifications",
              "technical specifications", "warranty", "glossary", "index", "revision history", "摘要", "引言",
              "相关工作", "结论", "参考文献", "附录", "致谢", "安全", "安全须知", "安全说明", "安装", "维护",
              "故障排除", "规格", "保修"}


def _vocab_key(title: str) -> str:
    return re.sub(r"[\s:：.]+$", "", " ".join(clean_text(title).lower().split()))


def size_classes(sizes: list[float]) -> dict[float, float]:
    """Each size mapped to its class: sizes within 8% of a larger one count as that one (line
    heights and font sizes measured from a page are noisy)."""
    out: dict[float, float] = {}
    head = None
    for size in sorted(set(sizes), reverse=True):
        if head is None or size < head * 0.92:
            head = size
        out[size] = head
    return out


MIN_FONT_HEADINGS = 2


def typographic_classes(sizes: list[float | None], fonts: list[str],
                        numbered: list[bool]) -> list[tuple[float, str] | None]:
    """Each heading's typographic class, (size class, font) or None where its size is unknown.
    The font is "" unless headings of one size class are set in distinct fonts each used by
    ``MIN_FONT_HEADINGS`` headings or more (a font used once at a size, a title-page line, is an
    exception, not a level): then each such font is a class of its own, the rest join the size's
    first class. Within a size, classes rank (``rank_classes``) fonts of numbered headings first
    (documents number their upper levels and leave the deeper ones unnumbered, not the reverse),
    then by first appearance (a level's first heading precedes the first heading below it)."""
    classes = size_classes([s for s in sizes if s is not None])
    heads = [classes.get(s) if s is not None else None for s in sizes]
    fonts_at: dict[float, dict[str, list[int]]] = {}
    for i, (size, font) in enumerate(zip(heads, fonts)):
        if size is not None:
            fonts_at.setdefault(size, {}).setdefault(font, []).append(i)
    order: dict[float, list[str]] = {}
    for size, by_font in fonts_at.items():
        used = [f for f, at in by_font.items() if len(at) >= MIN_FONT_HEADINGS and f]
        if len(used) > 1:
            order[size] = sorted(used, key=lambda f: (not any(numbered[i] for i in by_font[f]), by_font[f][0]))
    out: list[tuple[float, str] | None] = []
    for size, font in zip(heads, fonts):
        if size is None:
            out.append(None)
        elif size in order:
            out.append((size, font if font in order[size] else order[size][0]))
        else:
            out.append((size, ""))
    return out


def rank_classes(classes: list[tuple[float, str] | None], numbered: list[bool]) -> list[tuple[float, str]]:
    """The distinct classes, highest first: larger sizes first, then within a size the order of
    ``typographic_classes``. Empty when there is only one (no typographic evidence)."""
    first: dict[tuple[float, str], tuple[bool, int]] = {}
    for i, c in enumerate(classes):
        if c is not None:
            seen = first.get(c, (True, i))
            first[c] = (seen[0] and not numbered[i], seen[1])
    ranked = sorted(first, key=lambda c: (-c[0], first[c]))
    return ranked if len(ranked) > 1 else []


def class_name(c: tuple[float, str]) -> str:
    return f"{c[0]:g}pt ({c[1]})" if c[1] else f"{c[0]:g}pt"


_DOTTED = ("decimal", "alpha")    # "1.2.1", "C.1.1": depth from the number of parts


@dataclass
class _Open:
    style: str
    depth: int      # depth of the last heading of this style
    base: int = 0   # dotted styles only: depth - parts
    size: float | None = None   # its font size class, where known


_BARE_LETTER = re.compile(r"^\s*[A-Z]\s+\S")


def _without_articles(numbered: list[Numbering | None], titles: list[str]) -> list[Numbering | None]:
    """A heading opening with a bare capital letter ("A Glimpse Into the Future", an author's "R
    Schlicht", "X Resources") is numbered only as part of a run of letters from A ("A", "B", ...):
    two letters or more, or "A" after decimal numbering (an appendix). Else the letter is an
    article, a pronoun, an initial or a name, not a number."""
    bare = [n is not None and n.style in ("alpha", "roman-or-alpha") and len(n.number) == 1
            and bool(_BARE_LETTER.match(t)) for n, t in zip(numbered, titles)]
    letters = {n.number for n, b in zip(numbered, bare) if b}
    run, letter = set(), "A"
    while letter in letters:
        run.add(letter)
        letter = chr(ord(letter) + 1)
    first = next((n for n in numbered if n is not None), None)
    if len(run) < 2 and not (first is not None and first.style == "decimal"):
        run = set()
    return [None if b and n.number not in run else n for n, b in zip(numbered, bare)]


def _letters_in_sequence(numbered: list[Numbering | None]) -> list[Numbering | None]:
    """A lone letter that could be a Roman numeral ("C", "I") is a letter when the single letter
    numbered before it is the one before it in the alphabet: appendix "C" after "B", "I" after
    "H" (graphviz's dot guide, appendices A to I, had "C" nested as the Roman numeral 100 below "B")."""
    out: list[Numbering | None] = []
    last = ""
    for n in numbered:
        if n is not None and n.style == "roman-or-alpha" and len(n.number) == 1 and last \
                and ord(n.number) == ord(last) + 1:
            n = Numbering("alpha", n.number, n.parts)
        if n is not None and n.style in ("alpha", "roman-or-alpha", "appendix") and len(n.number) == 1:
            last = n.number
        out.append(n)
    return out


class LevelResolver:
    """Assigns ``(level, rule)`` to each heading of one document, in order (rules: module docstring).
    ``headings``: (title, font size or None[, font name]) for every heading of the document, in order."""

    def __init__(self, headings: list[tuple]) -> None:
        titles = [h[0] for h in headings]
        self.numbered = _letters_in_sequence(_without_articles([numbering_of(t) for t in titles], titles))
        present = [n for n in self.numbered if n is not None]
        styles = [n.style for n in present]
        self.has_roman = "roman" in styles or styles.count("roman-or-alpha") >= 2
        self.decimal_top = bool(present) and present[0].style == "decimal" and present[0].parts == 1
        self.has_numbering = any(s in ("decimal", "roman", "chapter", "zh-chapter", "part") for s in styles) or \
            self.has_roman
        is_numbered = [n is not None for n in self.numbered]
        self.types = typographic_classes([h[1] for h in headings], [h[2] if len(h) > 2 else "" for h in headings],
                                         is_numbered)
        self.ranked = rank_classes(self.types, is_numbered)
        self.sizes = [c[0] if c is not None else None for c in self.types]
        self.stack: list[_Open] = []
        self.class_depth: dict[tuple[float, str], int] = {}
        self.anchor = 0            # depth of the last heading placed by real evidence
        self.last_number: tuple[Numbering, int] | None = None   # the last numbered heading and its depth
        self.after_back_matter = False
        self._i = 0

    def _numbered_depth(self, n: Numbering, size: float | None = None) -> tuple[int, str]:
        style = n.style
        if style == "roman-or-alpha":
            style = "roman" if self.has_roman else "alpha"
        if size is not None and all(e.style != style for e in self.stack):
            # a new numbering style set larger than the open ones does not nest below them
            # ("II. DNA" at 16pt after "2. Copyright" at 14pt)
            while self.stack and self.stack[-1].size is not None and self.stack[-1].size < size:
                self.stack.pop()
        if style in ("alpha", "appendix") and (self.decimal_top or self.after_back_matter):
            # appendices after decimal sections: "A" / "A.1" as deep as "1" / "1.1"
            self.stack = [_Open("appendix", n.parts, 0)]
            return n.parts, f"numbering {n.number} (appendix) -> depth {n.parts}"
        if style == "appendix" and self.stack and all(e.style != "appendix" for e in self.stack):
            # "Appendix A" after "Chapter 9" / "9.3": as deep as the top numbering, not below its last section
            depth = self.stack[0].depth
            self.stack = [_Open("appendix", depth, size=size)]
            return depth, f"numbering {n.number} (appendix) -> depth {depth}, as the top numbering"
        for i, entry in enumerate(self.stack):
            if entry.style == style:
                del self.stack[i + 1:]
                floor = self.stack[i - 1].depth + 1 if i else 1
                depth = max(floor, entry.base + n.parts) if style in _DOTTED else entry.depth
                entry.depth = depth
                return depth, f"numbering {n.number} -> depth {depth}"
        if style in _DOTTED:
            depth = self.stack[-1].depth + 1 if self.stack else n.parts
            self.stack.append(_Open(style, depth, depth - n.parts, size))
            return depth, f"numbering {n.number} -> depth {depth}"
        depth = self.stack[-1].depth + 1 if self.stack else 1
        self.stack.append(_Open(style, depth, size=size))
        return depth, f"numbering {n.number} ({style}) nested in the open numbering -> depth {depth}"

    def _inside_open_number(self, i: int, depth: int, rule: str) -> tuple[int, str]:
        """An unnumbered heading between "7" and "7.2" is inside "7" whatever its size says: the
        next numbered heading continues the last one's numbering, and the tree is read in order
        (MinerU's "警告" warning label, set as large as the chapters, had "7.2" nested below it)."""
        if self.last_number is None:
            return depth, rule
        last, last_depth = self.last_number
        after = next((n for n in self.numbered[i + 1:] if n is not None), None)
        if after is None or depth > last_depth or last.style not in _DOTTED or after.style != last.style \
                or not after.number.startswith(last.number + "."):
            return depth, rule
        return last_depth + 1, f"{rule}; inside {last.number}, as {after.number} follows -> depth {last_depth + 1}"

    def next(self, title: str) -> tuple[int, str]:
        i = self._i
        depth, rule, evidence = self._place(title)
        if self.numbered[i] is not None:
            self.last_number = (self.numbered[i], depth)
        else:
            depth, rule = self._inside_open_number(i, depth, rule)
        if evidence:
            self.anchor = depth
        return depth, rule

    def _place(self, title: str) -> tuple[int, str, bool]:
        """(depth, rule, whether real evidence placed it: then it anchors the unnumbered headings after it)."""
        i = self._i
        self._i += 1
        n, size, face = self.numbered[i], self.sizes[i], self.types[i]
        vocab = vocabulary_of(title)
        key = _vocab_key(title)
        top_vocab = vocab is not None and (not self.has_numbering or key in STRONG_TOP)
        rank = self.ranked.index(face) if face is not None and self.ranked else None
        if top_vocab and rank is not None and rank > 0 and not self.class_depth:
            top_vocab = False   # set smaller than the largest headings: the size says it is not top level
        above = [c for c in self.class_depth if rank is not None and self.ranked.index(c) < rank]
        if n is not None:
            depth, rule = self._numbered_depth(n, size)
            if face is not None:
                self.class_depth.setdefault(face, depth)
        elif face is not None and face in self.class_depth:
            depth = self.class_depth[face]
            rule = f"font size {class_name(face)}, as numbered headings of depth {depth}"
        elif above:
            ref = max(above, key=self.ranked.index)
            steps = rank - self.ranked.index(ref)
            depth = self.class_depth[ref] + steps
            what = "font(s) or size(s)" if face[1] or ref[1] else "size(s)"
            rule = (f"font size {class_name(face)}: {steps} {what} below the {class_name(ref)} headings "
                    f"of depth {self.class_depth[ref]}")
        elif rank is not None and not self.class_depth and not top_vocab:
            depth = rank + 1
            what = "heading fonts and sizes" if any(c[1] for c in self.ranked) else "heading sizes"
            rule = f"font size {class_name(face)}: rank {depth} of {len(self.ranked)} {what}"
        elif top_vocab:
            depth, rule = 1, f"section vocabulary ({vocab}): top level"
            self.stack = []
        elif self.anchor:
            depth = self.anchor + 1
            rule = f"unnumbered: one level below the last numbered or known section (depth {depth})"
            self.after_back_matter = self.after_back_matter and True
            return depth, rule, False
        else:
            # no evidence: top level, and no anchor for the unnumbered headings after it (they are
            # its siblings, not its children, until a numbered or known section says otherwise)
            return 1, "no nesting evidence (numbering, font size, section names): top level", False
        if n is None and depth == 1:
            self.after_back_matter = key in BACK_MATTER
        return depth, rule, True
