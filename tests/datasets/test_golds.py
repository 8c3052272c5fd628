"""Plain golds that match nothing in the corpus are named before a run scores them."""
from ham.datasets.golds import gold_problems
from ham.datasets.questions import Question
from ham.ingest.builder import Block, TreeBuilder
from ham.units import build_units


def _units():
    b = TreeBuilder("guide", "Guide", "docs/guide.md", "markdown")
    b.add(Block("heading", "1. Network", level=1))
    b.add(Block("text", "The port field accepts 1 to 65535."))
    b.add(Block("image", image="img/red.png", image_path="img/red.png"))
    b.add(Block("text", "Figure 1: The   network dialog."))
    return build_units(b.finish(), caption_units=False)


def test_golds_that_match_nothing_are_named_and_those_that_match_are_not():
    ok = Question("q1", "Which port?", gold_images=["img/red.png"], gold_text=["the PORT field accepts 1 to 65535."],
                  gold_pages=["docs/guide.md"])
    assert gold_problems([ok], _units()) == []
    bad = Question("q2", "Which port?", gold_images=["docs/img/red.png"], gold_text=["The port field takes 80."],
                   gold_pages=["guide.md"])
    problems = gold_problems([bad], _units())
    assert len(problems) == 3 and all(p.startswith("q2: ") for p in problems)
    assert "'docs/img/red.png'" in problems[0] and "'guide.md'" in problems[2]


def test_a_passage_held_only_by_an_images_caption_is_named_as_such():
    q = Question("q3", "What does figure 1 show?", gold_text=["Figure 1: The network dialog."])
    [problem] = gold_problems([q], _units())
    assert "only in an image's caption" in problem


def test_no_passage_matches_across_two_units():
    q = Question("q4", "?", gold_text=["65535. Figure 1"])
    assert len(gold_problems([q], _units())) == 1
