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


def test_a_page_gold_whose_file_name_two_documents_share_is_named():
    """MMLongBench-style gold "report.pdf" page 3 answers to a page of 2019/report and of
    2020/report alike: a page of the wrong one is credited, so the run says so."""
    from ham.datasets.pages import gold_page_key

    def units(doc_id):
        b = TreeBuilder(doc_id, "Report", f"{doc_id}.pdf", "pdf")
        b.add(Block("text", "Revenue rose."))
        return build_units(b.finish())
    corpus = units("2019/report") + units("2020/report") + units("2019/summary") + units("2020/summary")
    q = Question("q5", "?", meta={"page_qrels": {gold_page_key("report.pdf", 3): 1}})
    assert gold_problems([q], corpus) == ["report: 2 documents share this name; their pages match the same "
                                          "gold page keys"]                      # summary: no gold names it
    assert gold_problems([Question("q6", "?")], corpus) == []                   # no page judgments
