"""The CLIP image filter of mllm_based, on a tiny randomly initialised CLIP built in the test."""
import numpy as np
import pytest
import torch
from transformers import AutoTokenizer, CLIPImageProcessor, CLIPModel

from ham.images import open_image
from ham.methods.clip_filter import ClipImageFilter
from ham.methods.mllm_based import MllmBasedMethod
from tests.support.evidence import evidence
from tests.support.tiny_models import tiny_clip

Q = "Check the oil level"


@pytest.fixture(scope="module")
def clip_folder(tmp_path_factory):
    return tiny_clip(tmp_path_factory.mktemp("tiny-clip"))


def reference_cosines(folder, query, paths):
    """CLIP's own forward pass: logits_per_text / logit_scale are the text-image cosines."""
    model = CLIPModel.from_pretrained(folder).eval()
    text = AutoTokenizer.from_pretrained(folder)([query], return_tensors="pt")
    pixels = CLIPImageProcessor.from_pretrained(folder)(images=[open_image(p) for p in paths],
                                                        return_tensors="pt")["pixel_values"]
    with torch.inference_mode():
        out = model(input_ids=text["input_ids"], attention_mask=text["attention_mask"], pixel_values=pixels)
        cosines = out.logits_per_text / model.logit_scale.exp()
    return cosines[0].numpy()


def test_scores_are_clip_cosines(clip_folder, tmp_path, manual_doc):
    evidence(manual_doc, tmp_path)
    paths = [tmp_path / "img/base.png", tmp_path / "img/mains.png", tmp_path / "img/oil.png"]
    clip = ClipImageFilter(str(clip_folder), device="cpu")
    scores, unreadable = clip.scores(Q, paths)
    assert not unreadable
    assert np.allclose([scores[p] for p in paths], reference_cosines(clip_folder, Q, paths), atol=1e-5)
    again, _ = clip.scores(Q, paths)
    assert again == scores and len(clip._image_vectors) == 3, "image embeddings are reused"


def test_mllm_based_keeps_the_top_images_by_clip(clip_folder, tmp_path, manual_doc):
    retrieved = evidence(manual_doc, tmp_path)
    (tmp_path / "img/mains.png").write_bytes(b"")   # an empty file: left out, named
    method = MllmBasedMethod(max_images=1, clip_model=str(clip_folder), clip_device="cpu", corpus_root=tmp_path)
    prompt = method(Q, retrieved)
    record = prompt.extra["image_filter"]
    assert record["method"] == "clip" and record["model"].startswith("clip:")
    assert set(record["scores"]) == {"manual:3", "manual:14"} and "manual:9" in record["unreadable"]
    best = max(record["scores"], key=record["scores"].get)
    assert record["kept"] == [best] and prompt.slots[1][0] == best and len(prompt.images) == 1


def test_a_missing_clip_model_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="never downloads"):
        ClipImageFilter(str(tmp_path / "no-clip-here"))
