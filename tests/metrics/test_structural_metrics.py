"""Judge-free structural retrieval metrics and entity recall on hand-computed cases."""
import pytest

from ham.metrics.evaluator import Evaluator
from ham.metrics.structural import entity_recall_of, found_in
from ham.text import normalise_ws, tokenize
from tests.metrics.topology_cases import bridge, case, image_row, single_hop, synthesis, text_row

NAMES = ["gold_unit_recall", "both_hops", "ordered_chain", "evidence_point_coverage", "entity_recall",
         "entity_recall_tokens"]


@pytest.fixture(scope="module")
def evaluator():
    return Evaluator(NAMES)


def test_bridge_both_hops_retrieved_in_order(evaluator):
    # bridge hop u1 at text rank 2, target u2 at image rank 2: ranked level with it -> ordered
    c = case(bridge(), text=[text_row("x", "noise"), text_row("u1", "open gcashdata_3")],
             images=[image_row("y", "other.png"), image_row("u2", "fig.png", "the checking account register")])
    s = evaluator.score(c)
    assert s["gold_unit_recall"] == 1.0 and s["both_hops"] == 1.0 and s["ordered_chain"] == 1.0
    assert s["evidence_point_coverage"] is None, "synthesis only"


def test_order_is_the_prompts_one_merged_order(evaluator):
    # text hop 1 at text rank 3, image hop 2 at image rank 1: the prompt shows T1..T3 then img1,
    # so hop 1 (position 3) comes before hop 2 (position 4): ordered, whatever the ranks within lists
    c = case(bridge(), text=[text_row("x", "noise"), text_row("y", "noise"), text_row("u1", "open gcashdata_3")],
             images=[image_row("u2", "fig.png")])
    s = evaluator.score(c)
    assert (s["both_hops"], s["ordered_chain"]) == (1.0, 1.0)


def test_worked_example_image_hop_before_a_text_hop_is_not_ordered(evaluator):
    """The docstring's example: hop 1 a figure (image rank 1), hop 2 a passage (text rank 4) of 15
    text and 10 image rows: positions 16 and 4, so not ordered, though both hops are retrieved."""
    q = bridge(units=(("fig",), ("passage",)))
    text = [text_row(f"t{i}", "noise") for i in range(15)]
    text[3] = text_row("passage", "the checking account")
    images = [image_row("fig", "fig.png")] + [image_row(f"i{i}", f"{i}.png") for i in range(9)]
    s = evaluator.score(case(q, text=text, images=images))
    assert (s["gold_unit_recall"], s["both_hops"], s["ordered_chain"]) == (1.0, 1.0, 0.0)


def test_bridge_with_one_hop_missing(evaluator):
    s = evaluator.score(case(bridge(), text=[text_row("u1", "open gcashdata_3")], images=[image_row("z", "x.png")]))
    assert (s["gold_unit_recall"], s["both_hops"], s["ordered_chain"]) == (0.5, 0.0, 0.0)


def test_an_item_with_several_units_counts_once_by_its_best_unit(evaluator):
    q = bridge(units=(("u1", "u1b"), ("u2",)))
    c = case(q, text=[text_row("u1b", "a")], images=[image_row("u2", "fig.png")])
    s = evaluator.score(c)
    assert s["gold_unit_recall"] == 1.0 and s["ordered_chain"] == 1.0


def test_unresolved_gold_makes_every_structural_metric_undefined(evaluator):
    q = bridge(units=(("u1",), ()))
    s = evaluator.score(case(q, text=[text_row("u1", "open gcashdata_3")]))
    assert s["gold_unit_recall"] is None and s["both_hops"] is None and s["ordered_chain"] is None


def test_single_hop_and_no_gold(evaluator):
    s = evaluator.score(case(single_hop(), text=[text_row("u9", "x"), text_row("u1", "it is a loan")]))
    assert s["gold_unit_recall"] == 1.0 and s["both_hops"] is None and s["ordered_chain"] is None
    # the benchmark reads a record's final_answer, which single-hop records do not have: no items
    assert s["entity_recall"] is None and s["entity_recall_tokens"] is None
    q = single_hop()
    q.evidence = []
    assert evaluator.score(case(q))["gold_unit_recall"] is None


def test_synthesis_point_coverage(evaluator):
    c = case(synthesis(), text=[text_row("t2", "2 | 315 | 735", "table"), text_row("x3", "six hundred")])
    s = evaluator.score(c)
    assert s["evidence_point_coverage"] == pytest.approx(2 / 3) and s["gold_unit_recall"] == pytest.approx(2 / 3)
    # entity recall: data points 900, 735, 600 -> only 735 is in the retrieved text (4 places, as the benchmark)
    assert s["entity_recall"] == 0.3333


def test_entity_recall_is_the_benchmarks_substring_rule_and_the_token_variant_is_named_apart(evaluator):
    # items: gcashdata_3 (bridge entity = hop 1 result, counted once), "the checking account",
    # and the short answer "gcashdata_3; the checking account"
    c = case(bridge(), text=[text_row("u1", "Open the file gcashdata_3.")],
             images=[image_row("u2", "fig.png", "Checking Account register")])
    s = evaluator.score(c)
    assert s["entity_recall"] == 0.3333          # only gcashdata_3 is a substring of the context
    assert s["entity_recall_tokens"] == 1.0      # the other two items' tokens are all there
    c = case(bridge(), text=[text_row("u1", "Open the file gcashdata_30.")])
    s = evaluator.score(c)
    assert s["entity_recall"] == 0.3333          # a substring match: gcashdata_3 is inside gcashdata_30
    assert s["entity_recall_tokens"] == 0.0      # word boundaries: gcashdata_30 is another file
    q = bridge()
    q.bridge_entities = ["GcashData_3"]          # de-duplicated case-insensitively, as the benchmark does
    assert evaluator.score(case(q, text=[text_row("u1", "gcashdata_3")]))["entity_recall"] == 0.3333
    text = "Refer to Chapter 11. Capital Gains."
    assert found_in("Chapter 11, Capital Gains", normalise_ws(text), set(tokenize([text])[0]))
    assert entity_recall_of([], "anything") == (None, [])
