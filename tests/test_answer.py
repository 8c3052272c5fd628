import pytest

from ham.answer import AnswerFailure, context_around, parse_generated, parse_reference

SLOTS = {1: ("d:5", "figures/a.png"), 2: ("d:9", "figures/b.png"), 3: ("d:12", "figures/c.png")}


@pytest.mark.parametrize("raw", [
    "Open the dialog.\n<img2>\nThen save.",
    "Open the dialog. ![the dialog](img2) Then save.",
    "Open the dialog. [IMG 2] Then save.",
    "Open the dialog. <img 2> Then save.",
    "Open the dialog. [img2] Then save.",
    "Open the dialog. <IMG_2/> Then save.",
    "Open the dialog. ![the dialog](image2) Then save.",
    "Open the dialog. [Image 2] Then save.",
    "Open the dialog. <image_2> Then save.",
    "Open the dialog. ![the dialog](figures/b.png) Then save.",     # by the reference the prompt printed
    "Open the dialog. ![the dialog](b.png) Then save.",             # by its file name
])
def test_reference_styles_map_to_units(raw):
    ans = parse_generated(raw, SLOTS)
    assert [s.type for s in ans.segments] == ["text", "image", "text"]
    assert ans.segments[1].unit_id == "d:9" and ans.segments[1].image == "figures/b.png"
    assert ans.segments[0].text == "Open the dialog." and ans.segments[2].text == "Then save."


def test_image_cited_twice_counts_once_in_images():
    ans = parse_generated("A <img1> B <img1> C <img3>", SLOTS)
    assert ans.images == ["figures/a.png", "figures/c.png"]


@pytest.mark.parametrize("raw,reason", [("", "empty"), ("   \n", "empty"), (None, "empty"),
                                        ("See <img7>.", "cites_unknown_image"), ("<img1>", "no_text"),
                                        # an image that was never given: shown, it had counted as no image
                                        ("See this.\n![chart](figures/made_up.png)", "cites_unknown_image")])
def test_failures_have_reasons(raw, reason):
    with pytest.raises(AnswerFailure) as exc:
        parse_generated(raw, SLOTS)
    assert exc.value.reason == reason


def test_no_images_given_and_cited():
    with pytest.raises(AnswerFailure, match="no images"):
        parse_generated("x <img1>", {})


def test_reference_parsing_and_context_window():
    ref = parse_reference("First do this one thing. ![dialog](figures/a.png) Then two three four.")
    assert ref.images == ["figures/a.png"]
    assert context_around(ref, "figures/a.png", 2) == "one thing. Then two"
    assert context_around(ref, "figures/a.png", 50) == "First do this one thing. Then two three four."
    assert context_around(ref, "figures/zzz.png", 5) == ""


@pytest.mark.parametrize("raw", ["See the imag2 file.", "An image 2 metres wide.", "Use [img] tags.",
                                 "The [[image:2]] marker alone is not a citation."])
def test_prose_that_only_resembles_a_citation_is_text(raw):
    ans = parse_generated(raw, SLOTS)
    assert ans.images == [] and ans.text == raw
