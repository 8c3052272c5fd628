"""Scripted replies in each GraphRAG system's own expected formats, for the loopback chat server
(``tests.support.chat_server.ChatServer(responder=GraphReplies())``): the system's real code parses
them, so its extraction, graph building, retrieval and answering run for real, deterministically.

Formats, taken from each system's prompts (the versions ``ham/systems/requirements`` pins):

LightRAG 1.5 (``lightrag/prompt.py``; RAG-Anything and MegaRAG build on LightRAG's):
    extraction       ``entity<|#|>Name<|#|>Type<|#|>description`` rows, then
                     ``relation<|#|>A<|#|>B<|#|>keywords<|#|>description`` rows, then ``<|COMPLETE|>``
                     (LightRAG 1.4.16's prompt, under RAG-Anything: the same rows, its input
                     under ``<Input Text>``; releases that write ``<|>`` get 1.4.3's
                     ``("entity"<|>...)##`` records)
    gleaning         ``<|COMPLETE|>`` (nothing missed)
    keywords         ``{"high_level_keywords": [...], "low_level_keywords": [...]}``
    summary          the descriptions, joined
    answer           the first sentence of the first document chunk in the context
HippoRAG 2 (``hipporag/prompts/templates``):
    NER              ``{"named_entities": [...]}``
    triples          ``{"triples": [[subject, predicate, object], ...]}`` over the named entities
    filter           ``{"fact": [...]}`` (the candidate facts kept)
    QA               ``Thought: ... Answer: <first sentence of the first passage>``
RAG-Anything (``raganything/prompt.py``) image / table analysis:
    ``{"detailed_description": ..., "entity_info": {"entity_name", "entity_type", "summary"}}``
MegaRAG (``megarag/prompt.py`` at ca7c627, on LightRAG 1.4.3's delimiters):
    extraction       its multimodal prompts (the page's "Primary Image Document OCR Text", with
                     "Knowledge Graph Data" in the refinement round): LightRAG 1.4's
                     ``("entity"<|>...)##`` records over the page text, then ``<|COMPLETE|>``
    keywords         LightRAG 1.4.3's prompt ("Current Query"): the same JSON
    summary          LightRAG 1.4.3's ("comprehensive summary"): the first description
    answers          the KG and the page branch: the first chunk's first sentence; the two-step
                     merge ("two independent answers"): the KG answer, else the page answer

Entities are the text's capitalised words and phrases (a real, if crude, rule), at most
``max_entities`` per chunk, linked in order of appearance. ``seen`` counts requests per kind.
"""
from __future__ import annotations

import json
import re
from collections import Counter

ENTITY = re.compile(r"\b([A-Z][a-zA-Z]+(?:\s+[A-Z][a-zA-Z]+)*)\b")
STOP = {"The", "This", "That", "These", "Those", "A", "An", "In", "On", "If", "When", "You", "Your", "It", "We",
        "For", "To", "Of", "And", "Or", "But", "As", "At", "By", "With", "From", "Then", "Now", "Note", "Figure",
        "Table", "Chapter", "Section", "Step", "See", "Is", "Are", "Be", "There", "Here", "What", "How", "Which"}


def _text_of(body: dict) -> tuple[str, str]:
    system, user = "", ""
    for m in body.get("messages", []):
        content = m.get("content")
        if isinstance(content, list):
            content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
        if m.get("role") == "system":
            system += content or ""
        elif m.get("role") == "user":
            user = content or ""
    return system, user


def entities_in(text: str, limit: int) -> list[str]:
    out = []
    for m in ENTITY.finditer(text):
        name = " ".join(w for w in m.group(1).split() if w not in STOP)
        if len(name) > 2 and name not in out:
            out.append(name)
        if len(out) >= limit:
            break
    return out


def first_sentence(text: str) -> str:
    text = " ".join((text or "").split())
    m = re.match(r"(.{20,400}?[.!?])(\s|$)", text)
    return m.group(1) if m else text[:300]


class GraphReplies:
    def __init__(self, max_entities: int = 4) -> None:
        self.max_entities = max_entities
        self.seen: Counter = Counter()

    def __call__(self, body: dict) -> str:
        system, user = _text_of(body)
        # every message: one-shot examples (HippoRAG's) come as earlier user/assistant turns
        both = "\n".join(str(m.get("content")) for m in body.get("messages", []))
        kind, reply = self.reply(system, user, both)
        self.seen[kind] += 1
        return reply

    # ------------------------------------------------------------------ LightRAG family

    def _rows(self, text: str, tuple_delim: str, done: str) -> str:
        names = entities_in(text, self.max_entities)
        sentence = first_sentence(text)
        rows = [f"entity{tuple_delim}{n}{tuple_delim}concept{tuple_delim}{n} is named in: {sentence}" for n in names]
        rows += [f"relation{tuple_delim}{a}{tuple_delim}{b}{tuple_delim}mentioned together{tuple_delim}"
                 f"{a} and {b} are mentioned in the same passage." for a, b in zip(names, names[1:])]
        return "\n".join(rows + [done])

    def reply(self, system: str, user: str, both: str) -> tuple[str, str]:
        if "Based on the last extraction task" in user or "MANY entities and relationships were missed" in both:
            return "gleaning", "<|COMPLETE|>"
        if "Primary Image Document OCR Text:" in user:   # MegaRAG: init and refinement rounds
            text = _after(user, "Primary Image Document OCR Text:").split("Additional Layout Detection Images:")[0]
            return ("mm_refine" if "Knowledge Graph Data:" in user else "mm_extraction"), self._rows_14(text)
        if "two independent answers" in both:             # MegaRAG's mix_two_step merge
            kg = _after(system, "**Answer from Knowledge Graph**:").split("- **Answer from Document Images**")[0]
            image = _after(system, "**Answer from Document Images**:").split("---Goal---")[0]
            chosen = kg if kg.strip() and "[no-context]" not in kg else image
            return "two_step", first_sentence(chosen) or "No answer."
        if "Current Query:" in both and "high_level_keywords" in both:   # LightRAG 1.4.3 (MegaRAG)
            query = _after(both, "Current Query:").split("######")[0]
            words = [w for w in re.findall(r"[A-Za-z][A-Za-z]+", query) if len(w) > 3][:6]
            return "keywords", json.dumps({"high_level_keywords": words[:2], "low_level_keywords": words[2:]})
        if "responsible for generating a comprehensive summary" in both:   # LightRAG 1.4.3's summary
            return "summary", first_sentence(_after(user, "Description List:").split("#######")[0]) or "A summary."
        if "---Input Text---" in user or "<Input Text>" in user:
            text = _between(user, "```", "```") or _after(both, "Text:")
            delim = "<|#|>" if "<|#|>" in both else "<|>"
            done = "<|COMPLETE|>" if "<|COMPLETE|>" in both else "<|COMPLETE|>"
            if delim == "<|>":   # LightRAG 1.4's record format: ("entity"<|>...)## rows
                return "extraction", self._rows_14(text)
            return "extraction", self._rows(text, delim, done)
        if "expert keyword extractor" in both or "high_level_keywords" in both and "User Query" in both:
            query = _after(both, "User Query:").split("---Output---")[0]
            words = [w for w in re.findall(r"[A-Za-z][A-Za-z]+", query) if len(w) > 3][:6]
            return "keywords", json.dumps({"high_level_keywords": words[:2], "low_level_keywords": words[2:]})
        if "synthesizing information from a provided knowledge base" in both or "---Context---" in both:
            chunk = re.search(r'"content":\s*"((?:[^"\\]|\\.){20,})"', both)
            if chunk:
                return "answer", first_sentence(json.loads('"' + chunk.group(1) + '"'))
        if "proficient in data curation and synthesis" in both:
            return "summary", " ".join(re.findall(r'"description":\s*"([^"]+)"', both)[:3]) or first_sentence(user)
        if '"detailed_description"' in both and "entity_info" in both:
            name = entities_in(user, 1) or ["Item"]
            return "modal", json.dumps({"detailed_description": first_sentence(user) or "An image.",
                                        "entity_info": {"entity_name": name[0] + " figure", "entity_type": "image",
                                                        "summary": "A figure of the document."}})
        # ------------------------------------------------------------ HippoRAG
        if "named_entities" in both and "triples" not in both:
            return "ner", json.dumps({"named_entities": entities_in(user, self.max_entities)})
        if "triples" in both and "named_entities" in both:
            passage = _after(user, "Paragraph:").split("{")[0] or user
            names = entities_in(passage, self.max_entities)
            triples = [[a, "is mentioned with", b] for a, b in zip(names, names[1:])]
            return "triples", json.dumps({"triples": triples})
        if '"fact"' in both and "Fact Before Filter" in both:
            facts = _after(user, "Fact Before Filter:").strip()
            try:
                kept = json.loads(facts).get("fact", [])[:4]
            except ValueError:
                kept = []
            return "filter", json.dumps({"fact": kept})
        if "Answer:" in both and ("Wikipedia Title" in both or "Thought" in both):
            passage = _after(user, "Wikipedia Title:") or user
            return "qa", f"Thought: the first passage answers it. Answer: {first_sentence(passage.split(chr(10), 1)[-1])}"
        # ------------------------------------------------------------ answers
        chunk = re.search(r'"content":\s*"((?:[^"\\]|\\.){20,})"', both)
        if chunk:
            return "answer", first_sentence(json.loads('"' + chunk.group(1) + '"'))
        return "other", first_sentence(user) or "No answer."

    def _rows_14(self, text: str) -> str:
        names = entities_in(text, self.max_entities)
        sentence = first_sentence(text).replace('"', "'")
        rows = [f'("entity"<|>{n}<|>concept<|>{n} is named in: {sentence})' for n in names]
        rows += [f'("relationship"<|>{a}<|>{b}<|>{a} and {b} are mentioned together.<|>mentioned together<|>1)'
                 for a, b in zip(names, names[1:])]
        return "##".join(rows) + "<|COMPLETE|>"


def _between(text: str, start: str, end: str) -> str:
    i = text.find(start)
    if i < 0:
        return ""
    j = text.find(end, i + len(start))
    return text[i + len(start): j if j >= 0 else None].strip()


def _after(text: str, marker: str) -> str:
    i = text.rfind(marker)
    return text[i + len(marker):].strip() if i >= 0 else ""
