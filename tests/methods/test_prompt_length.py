"""Every prompt's length is recorded: characters (and tokens where the generator's tokenizer is
known) of the retrieved text it shows and of the whole prompt; metrics.json averages them."""
from ham.methods.base import length_summary, prompt_length
from ham.methods.ham import HamAssembler
from ham.retrieve.retriever import Hit, Retrieved
from ham.units import EvidenceUnit


def _unit(uid, text):
    return EvidenceUnit(unit_id=uid, doc_id="d", modality="text", kind="text", content=text,
                        path=[{"id": "d", "kind": "document", "title": "Manual"}], ancestors={"doc_title": "Manual"},
                        local={}, relation={}, source="d.md", order=0)


def test_prompt_length_counts_the_retrieved_text_and_the_prompt():
    hits = [Hit(_unit("a", "Open the Plot dialog."), 1.0, 1), Hit(_unit("b", "Choose SVG."), 0.5, 2)]
    prompt = HamAssembler()("How do I export SVG?", Retrieved(hits, []))
    chars = prompt_length(prompt)
    assert chars["retrieved_chars"] == len("Open the Plot dialog.\nChoose SVG.") and chars["text_units"] == 2
    assert chars["prompt_chars"] == len(prompt.text) > chars["retrieved_chars"]
    assert chars["prompt_tokens"] is None and chars["retrieved_tokens"] is None, "no tokenizer: unknown, not 0"
    words = prompt_length(prompt, lambda s: len(s.split()))
    assert words["retrieved_tokens"] == 6 and words["prompt_tokens"] == len(prompt.text.split())


def test_the_summary_averages_and_keeps_unknown_tokens_unknown():
    rows = [{"prompt_length": {"retrieved_chars": 100, "retrieved_tokens": 20, "prompt_chars": 300,
                               "prompt_tokens": 60, "text_units": 2}},
            {"prompt_length": {"retrieved_chars": 200, "retrieved_tokens": None, "prompt_chars": 500,
                               "prompt_tokens": None, "text_units": 4}}]
    out = length_summary(rows)
    assert out["retrieved_chars"] == 150 and out["prompt_chars"] == 400 and out["text_units"] == 3
    assert out["retrieved_tokens"] is None and out["questions"] == 2
