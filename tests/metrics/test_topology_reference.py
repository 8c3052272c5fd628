"""The topology-enriched reference, its claims, the required steps, and the RAGAS formulas on
hand-computed verdicts (the collapsed context-precision variant included)."""
import math

import pytest

from ham.metrics.ragas_answer import accuracy, relevancy, supported_fraction
from ham.metrics.ragas_context import average_precision, recall_fraction
from ham.metrics.topology import contexts, enriched_reference, reference_claims, required_steps, row_context
from tests.metrics.topology_cases import bridge, image_row, single_hop, synthesis, text_row


def test_enriched_reference_per_topology():
    assert enriched_reference(single_hop()) == "No. The card is a loan."
    assert enriched_reference(bridge()) == (
        "Final answer: The example opens gcashdata_3. It holds the checking account.\n"
        "Hop 1: Which file does the example open? -> gcashdata_3\n"
        "Hop 2: What does gcashdata_3 hold? -> the checking account\n"
        "Bridge entities: gcashdata_3")
    assert enriched_reference(synthesis()) == (
        "Final answer: Linear leaves 900, geometric 735 and sum of digits 600.\n"
        "Required evidence points:\n1. Linear leaves 900\n2. Geometric leaves 735\n3. Sum of digits leaves 600")


def test_claims_and_steps():
    assert reference_claims(single_hop()) == ["No.", "The card is a loan."]
    assert reference_claims(bridge())[2:] == ["Hop 1: Which file does the example open? -> gcashdata_3",
                                              "Hop 2: What does gcashdata_3 hold? -> the checking account",
                                              "Bridge entities: gcashdata_3"]
    assert len(reference_claims(synthesis())) == 4
    assert required_steps(single_hop()) is None
    assert required_steps(bridge()) == ["Step 1 [text]: Which file does the example open? -> gcashdata_3",
                                        "Step 2 [image]: What does gcashdata_3 hold? -> the checking account"]
    assert required_steps(synthesis())[1] == "Step 2 [table]: Geometric leaves 735 (data points: 735)"
    q = single_hop()
    q.reference_answer = None
    assert enriched_reference(q) == "No", "the short answer stands in for a missing reference answer"


def test_context_rows_in_prompt_order():
    rows = [text_row("a", "Body A", path=("Ch 1", "1.1"))], [image_row("i", "f.png", "Figure 1")]
    assert contexts(*rows) == ["(Ch 1 > 1.1) Body A", "(Ch 2) [IMAGE: f.png | Figure 1]"]
    assert row_context({"modality": "image", "image": "g.png"}) == "[IMAGE: g.png | no caption]"


@pytest.mark.parametrize("verdicts, expected", [
    ([1, 0, 1, 0], (1 / 1 + 2 / 3) / (2 + 1e-10)),
    ([0, 1, 1], (1 / 2 + 2 / 3) / (2 + 1e-10)),
    ([1, 1, 1], 3 / (3 + 1e-10)),
    ([0, 0, 0], 0.0),
    ([1], 1 / (1 + 1e-10)),          # the collapsed (joint) variant: one verdict on the whole context
    ([0], 0.0),
])
def test_average_precision(verdicts, expected):
    assert average_precision(verdicts) == pytest.approx(expected, abs=1e-15)


def test_recall_accuracy_faithfulness_relevancy_formulas():
    assert recall_fraction([1, 0, 1, 1, 1]) == 0.8 and recall_fraction([]) is None
    assert accuracy(4, 4) == 1.0 and accuracy(4, 2) == 0.75 and accuracy(2, 0) == 0.25 and accuracy(0, 0) == 0.0
    assert supported_fraction([1, 0, 1]) == pytest.approx(2 / 3) and supported_fraction([]) is None
    q = [1.0, 0.0]
    assert relevancy(q, [[1.0, 0.0], [0.0, 2.0], [3.0, 3.0]], False) == pytest.approx((1 + 0 + 1 / math.sqrt(2)) / 3)
    assert relevancy(q, [[1.0, 0.0]], True) == 0.0, "noncommittal answers score 0"
    assert relevancy(q, [], False) == 0.0
