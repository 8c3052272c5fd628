"""Small topology questions and retrieved rows shared by the topology metric tests."""
from ham.datasets.questions import Evidence, EvidencePoint, Hop, Question
from ham.answer import parse_generated
from ham.metrics.registry import Case


def text_row(uid, text, modality="text", path=("Ch 1",)):
    return {"unit_id": uid, "modality": modality, "text": text, "heading_path": list(path), "score": 0.5}


def image_row(uid, image, caption=""):
    return {"unit_id": uid, "modality": "image", "image": image, "caption": caption, "heading_path": ["Ch 2"],
            "score": 0.4}


def single_hop(units=("u1",)):
    return Question("s1", "Is the card payment an expense?", reference_answer="No. The card is a loan.",
                    answer_short="No", topology="single_hop",
                    evidence=[Evidence(modality="text", text="a loan", units=list(units))])


def bridge(units=(("u1",), ("u2",))):
    return Question(
        "b1", "Which file does the example open, and what does it hold?",
        reference_answer="The example opens gcashdata_3. It holds the checking account.",
        answer_short="gcashdata_3; the checking account", topology="bridge_chain",
        evidence=[Evidence(modality="text", text="open gcashdata_3", units=list(units[0])),
                  Evidence(modality="image", image="fig.png", units=list(units[1]))],
        bridge_entities=["gcashdata_3"],
        hops=[Hop("Which file does the example open?", "gcashdata_3", "text", 0),
              Hop("What does gcashdata_3 hold?", "the checking account", "image", 1)])


def synthesis():
    return Question(
        "y1", "How do the three schemes compare after two years?",
        reference_answer="Linear leaves 900, geometric 735 and sum of digits 600.",
        topology="synthesis",
        evidence=[Evidence(modality="table", text="t1", units=["t1"]), Evidence(modality="table", text="t2",
                                                                                units=["t2"]),
                  Evidence(modality="text", text="x3", units=["x3"])],
        evidence_points=[EvidencePoint("Linear leaves 900", ["900"], 0),
                         EvidencePoint("Geometric leaves 735", ["735"], 1),
                         EvidencePoint("Sum of digits leaves 600", ["600"], 2)],
        meta={"pattern_type": "comparison"})


def case(question, text=(), images=(), raw="An answer.", slots=None):
    answer = parse_generated(raw, slots or {}) if raw is not None else None
    return Case(question, list(text), list(images), answer)
