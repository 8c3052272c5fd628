"""Rule-Based post-hoc image insertion on hand-made answers and evidence."""
import numpy as np
import pytest

from ham.answer import parse_generated
from ham.index.encoders import SentenceTransformerEncoder
from ham.methods.rule_based import RuleBasedMethod, insert_images, lexical_scores
from tests.support.evidence import evidence

ANSWER = ("Check the oil level every month through the sight glass.\n"
          "First, install the pump on a level concrete base. Then connect the motor leads.")


@pytest.fixture(scope="module")
def minilm():
    return SentenceTransformerEncoder("minilm")


def test_lexical_scores_are_bm25_scaled_to_one():
    scores = lexical_scores(["check the oil level", "nothing in common", "oil"],
                            ["oil sight glass level", "concrete base"])
    assert scores.max() == pytest.approx(1.0) and scores[0, 0] == pytest.approx(1.0)
    assert scores[1].sum() == 0 and scores[:, 1].sum() == 0 and 0 < scores[2, 0] < 1


def test_images_go_after_the_sentence_they_match(manual_doc):
    retrieved = evidence(manual_doc)
    method = RuleBasedMethod(max_images=3, min_score=0.2)    # BM25 alone: no encoder given
    prompt = method("How do I install and maintain the pump?", retrieved)
    final = method.finish(prompt, ANSWER + " <img2>")
    assert final.splitlines() == [
        "Check the oil level every month through the sight glass.", "<img3>",
        "First, install the pump on a level concrete base.", "<img1>",
        "Then connect the motor leads."]
    answer = parse_generated(final, prompt.slots)
    assert answer.images == ["img/oil.png", "img/base.png"], "the model's own tag was removed; mains matched nothing"


def test_threshold_and_budget_limit_insertions():
    sentences = ["oil level", "concrete base", "mains switch"]
    proxies = ["oil level glass", "concrete base bolts", "mains switch off"]
    placed = insert_images(sentences, proxies, None, 0.5, 0.1, max_images=2)
    assert sum(len(v) for v in placed.values()) == 2
    assert all(images == [sentence] for sentence, images in placed.items()), "each beside its own sentence"
    assert insert_images(sentences, proxies, None, 0.5, 0.1, max_images=3) == {0: [0], 1: [1], 2: [2]}
    assert insert_images(sentences, proxies, None, 0.5, min_score=1.01, max_images=3) == {}


def test_semantic_similarity_places_images_without_shared_words(minilm):
    sentences = ["Pour the batter into a hot frying pan.", "Wash the car with soapy water."]
    proxies = ["automobile being cleaned with a sponge and a bucket", "pancake cooking on a skillet"]
    lexical_only = insert_images(sentences, proxies, None, 0.5, 0.2, 2)
    assert lexical_only == {}, "no word in common"
    placed = insert_images(sentences, proxies, minilm, semantic_weight=1.0, min_score=0.2, max_images=2)
    assert placed == {0: [1], 1: [0]}
    cos = minilm.encode(sentences) @ minilm.encode(proxies).T
    assert np.argmax(cos[0]) == 1 and np.argmax(cos[1]) == 0


def test_empty_reply_stays_a_failure(manual_doc):
    method = RuleBasedMethod()
    prompt = method("q", evidence(manual_doc))
    assert method.finish(prompt, "   ") == ""
