"""The extractive generator places images from what the method's prompt shows a model: the tree
under method=ham, the image's caption and surrounding text under the flat baselines."""
from ham.generate.extractive import ExtractiveGenerator
from ham.ingest.builder import Block, TreeBuilder
from ham.methods.llm_based import LlmBasedMethod
from ham.methods.ham import HamAssembler
from ham.retrieve.retriever import Hit, Retrieved
from ham.units import build_units


def _units():
    b = TreeBuilder("m", "Manual", "m.md", "markdown")
    b.add(Block("heading", "1. Filter", level=1))
    b.add(Block("text", "Replace the filter cartridge every six months."))
    b.add(Block("text", "Keep spare cartridges dry."))
    b.add(Block("image", image="img/valve.png", image_path="img/valve.png", alt="The drain valve below the tank"))
    b.add(Block("heading", "2. Drain", level=1))
    b.add(Block("text", "Open the drain valve below the tank to empty the filter housing."))
    return build_units(b.finish())


def _answer(method):
    units = _units()
    text = [u for u in units if u.modality == "text"]
    image = next(u for u in units if u.modality == "image")
    retrieved = Retrieved([Hit(u, 1.0, i + 1) for i, u in enumerate(text)], [Hit(image, 1.0, 1)])
    prompt = method("How do I empty the filter housing through the drain valve?", retrieved)
    return ExtractiveGenerator(max_sentences=2).generate(prompt).text.splitlines()


def test_ham_places_an_image_by_its_place_in_the_tree_a_flat_baseline_by_its_caption():
    # the image sits in "1. Filter"; its alt text and the text after it in the source are about draining
    assert _answer(HamAssembler()) == ["Replace the filter cartridge every six months.", "<img1>",
                                    "Open the drain valve below the tank to empty the filter housing."]
    assert _answer(LlmBasedMethod()) == ["Replace the filter cartridge every six months.",
                                         "Open the drain valve below the tank to empty the filter housing.", "<img1>"]
