"""The local transformers judge on the bundled SmolLM2-135M-Instruct (slow: converts the GGUF).
A model that small rarely writes the score tag; whatever it writes is either a valid score or a
counted failure with the reply kept, never a number made up."""
import pytest

from ham.metrics.judge import HFChat, Judge

pytestmark = pytest.mark.slow
FIELDS = {"question": "What colour is the sky?", "reference": "Blue.", "evidence": "[1] (Sky) The sky is blue."}


def test_local_judge_scores_or_fails_strictly(tmp_path):
    judge = Judge(HFChat("smollm2", max_new_tokens=48, cache_root=str(tmp_path)), {"tcr15": "tcr15_v1"}, tmp_path)
    j = judge.judge("tcr15", FIELDS)
    assert j.model == judge.client.model_id and j.model.startswith("hf:") and j.prompt == "tcr15_v1" and j.usage["prompt_tokens"] > 50
    if j.error is None:
        assert j.value in (0.0, 1.0) and judge.judge("tcr15", FIELDS).cached
    else:
        assert j.value is None and j.error.startswith("unparseable:") and j.reply
