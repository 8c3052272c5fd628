"""A scripted model for ham-topo's prompts, served by ``tests.support.chat_server.ChatServer``: it
writes atomic QAs, bridge questions and synthesis questions from fixed scripts keyed by what the
prompt shows, and answers the sufficiency check the way a careful reader would: answerable (1)
exactly when every key passage a question needs is in the context it is shown."""
from __future__ import annotations

import re
from collections import Counter


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def _between(text: str, start: str, end: str | None) -> str:
    tail = text.split(start, 1)[1] if start in text else ""
    return tail.split(end, 1)[0] if end and end in tail else tail


class TopoScript:
    def __init__(self, atomic: dict, compose: dict, synthesis: dict) -> None:
        """``atomic``: evidence marker -> (question, answer, keys) or a raw reply string;
        ``compose``: (hop 1 question, hop 2 question) -> (question, keys); unscripted pairs get a
        question that names the bridge entity; ``synthesis``: entity -> (question, conclusion,
        pattern, keys)."""
        self.atomic, self.compose, self.synthesis = atomic, compose, synthesis
        self.keys: dict[str, list[str]] = {}
        for value in atomic.values():
            if isinstance(value, tuple):
                self.keys[value[0]] = value[2]
        for question, keys in compose.values():
            self.keys[question] = keys
        for question, _, _, keys in synthesis.values():
            self.keys[question] = keys
        self.seen: Counter = Counter()

    def __call__(self, body: dict) -> str:
        messages = body["messages"]
        system = messages[0]["content"] if messages[0]["role"] == "system" else ""
        user = messages[-1]["content"]
        if "You write questions for a retrieval" in system:
            self.seen["atomic"] += 1
            evidence = _norm(_between(user, "[Evidence]", "Write one question"))
            for marker, value in self.atomic.items():
                if _norm(marker) in evidence:
                    if isinstance(value, str):
                        return value
                    return f"<question>{value[0]}</question>\n<answer>{value[1]}</answer>"
            return "no script for this unit"
        if "You combine two simple questions" in system:
            self.seen["compose"] += 1
            q1 = _between(user, "Step 1 question:", "\n").strip()
            q2 = _between(user, "Step 2 question:", "\n").strip()
            bridge = _between(user, "Bridge entity:", "\n").strip()
            if (q1, q2) in self.compose:
                return f"<question>{self.compose[(q1, q2)][0]}</question>"
            return f"<question>What about {bridge}, as both steps say?</question>"
        if "multi-source synthesis" in system:
            self.seen["synthesis"] += 1
            n = int(re.search(r"The (\d+) pieces", user).group(1))
            entity = re.search(r'all concern "([^"]+)"', user).group(1).lower()
            question, conclusion, pattern, _ = self.synthesis[entity]
            # each point quotes the start of its own piece, as "a short sentence from that piece only"
            pieces = re.split(r"\n?\[\d+\] \([^)]*\)\n", _between(user, "numbered.", "For each piece"))[1:]
            points = "\n".join(f"<point_{i}>Fact {i} about {entity}: {' '.join(p.split()[:8])}</point_{i}>"
                                for i, p in enumerate(pieces[:n], 1))
            return f"{points}\n<question>{question}</question>\n<conclusion>{conclusion}</conclusion>\n<pattern>{pattern}</pattern>"
        if "You check whether a context" in system:
            self.seen["sufficiency"] += 1
            ctx = _norm(_between(user, "[Context]", "[Question]"))
            question = _between(user, "[Question]", "[Reference answer]").strip()
            keys = self.keys.get(question, ["\0never"])
            ok = all(_norm(k) in ctx for k in keys)
            return f"Checked the context.\n<answerable>{int(ok)}</answerable>"
        return "unknown prompt"
