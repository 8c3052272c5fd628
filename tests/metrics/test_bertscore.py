"""BERTScore for Img-CBS: the context window, layer choice, the recorded hash, baseline rescaling
with a baseline file written here."""
import pytest

from ham.answer import context_around, parse_reference
from ham.metrics.bertscore import ContextScorer, context_pairs

CANDIDATES = ["Select Actions then Reconcile and enter the closing balance.", "Click OK."]
REFERENCES = ["Choose Reconcile from the Actions menu and type the closing balance.", "Press the OK button."]


def test_window_takes_words_either_side_across_segments():
    ref = parse_reference("one two three ![a](a.png) four five ![b](b.png) six seven eight")
    assert context_around(ref, "a.png", 2) == "two three four five"
    assert context_around(ref, "b.png", 2) == "four five six seven"
    assert context_around(ref, "b.png", 30) == "one two three four five six seven eight"
    assert context_around(ref, "missing.png", 2) == ""


def test_pairs_only_for_correctly_selected_images_first_occurrence():
    ref = parse_reference("alpha ![a](a.png) beta ![b](b.png) gamma")
    answer = parse_reference("x ![a](a.png) y ![c](c.png) z ![a](a.png) w")
    pairs = context_pairs(answer, ref, window=1)
    assert pairs == [("a.png", "x y", "alpha beta")]
    assert context_pairs(None, ref) == []


def test_layer_is_configurable_and_recorded_in_the_hash(context_scorer):
    layer3 = ContextScorer(num_layers=3)
    assert "_L3_" in layer3.hash and "_L6_" in context_scorer.hash
    assert layer3.info["num_layers"] == 3 and context_scorer.info["num_layers"] == 6
    assert layer3.f1(CANDIDATES, REFERENCES) != pytest.approx(context_scorer.f1(CANDIDATES, REFERENCES), abs=1e-4)


def _baseline(path, layers=6, f=0.5):
    rows = ["LAYER,P,R,F"] + [f"{i},0.2,0.3,{f if i == layers else 0.9}" for i in range(layers + 1)]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_rescaling_with_a_baseline_file(context_scorer, tmp_path):
    rescaled = ContextScorer(rescale_with_baseline=True, baseline_path=str(_baseline(tmp_path / "base.tsv")))
    raw = context_scorer.f1(CANDIDATES, REFERENCES)
    # F' = (F - b_F) / (1 - b_F) with b_F = 0.5 on layer 6
    assert rescaled.f1(CANDIDATES, REFERENCES) == pytest.approx([(f - 0.5) / 0.5 for f in raw], abs=1e-5)
    assert rescaled.hash.endswith("-custom-rescaled") and rescaled.info["rescale_with_baseline"]


def test_rescaling_errors_name_the_file_or_the_need(tmp_path):
    with pytest.raises(ValueError, match="needs baseline_path"):
        ContextScorer(rescale_with_baseline=True)
    with pytest.raises(FileNotFoundError, match="nope.tsv"):
        ContextScorer(rescale_with_baseline=True, baseline_path=str(tmp_path / "nope.tsv"))
    short = _baseline(tmp_path / "short.tsv", layers=3)
    with pytest.raises(ValueError, match="short.tsv: no usable row for layer 6"):
        ContextScorer(rescale_with_baseline=True, baseline_path=str(short))
