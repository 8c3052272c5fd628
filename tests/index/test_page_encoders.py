"""Page encoders on tiny randomly initialised ColPali, ColQwen2, ColQwen2.5 and VisRAG-shaped models
built here (nothing downloaded): the vectors are the models' own, MaxSim over them is the score
transformers' processor computes, batching and dtype behave."""
from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch
from PIL import Image

from ham.index.late_interaction import maxsim_scores
from ham.index.page_encoders import ColPaliEncoder, ColQwen2Encoder, VisRAGEncoder, weighted_mean
from tests.support.tiny_models import tiny_colpali, tiny_colqwen2, tiny_llava

QUERIES = ["how do I reconcile the account", "oil level", "where is the pump installed"]


def _pages(sizes):
    return [Image.new("RGB", size, (40 * i % 255, 90, 200 - 30 * i)) for i, size in enumerate(sizes)]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("page_models")
    return {"colpali": tiny_colpali(root / "colpali"), "colqwen2": tiny_colqwen2(root / "colqwen2"),
            "colqwen25": tiny_colqwen2(root / "colqwen25", backbone="qwen2_5_vl"), "vlm": tiny_llava(root / "vlm")}


def test_colpali_maxsim_equals_the_processors_own_scores(models):
    from transformers import ColPaliProcessor

    enc = ColPaliEncoder(str(models["colpali"]), batch_size=2)
    pages = enc.encode_images(_pages([(60, 80), (80, 60), (50, 50)]))
    queries = enc.encode_queries(QUERIES)
    tokens = np.concatenate(pages)
    offsets = np.cumsum([0] + [len(p) for p in pages])
    ours = np.stack([maxsim_scores(q, tokens, offsets) for q in queries])
    reference = ColPaliProcessor.from_pretrained(models["colpali"]).score_retrieval(
        [torch.from_numpy(q) for q in queries], [torch.from_numpy(p) for p in pages]).numpy()
    np.testing.assert_allclose(ours, reference, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["colqwen2", "colqwen25"])
def test_colqwen_vectors_are_the_models_attended_tokens(models, name):
    from transformers import ColQwen2ForRetrieval, ColQwen2Processor

    images = _pages([(56, 56), (112, 84), (84, 112)])
    enc = ColQwen2Encoder(str(models[name]), batch_size=3)
    pages = enc.encode_images(images)
    processor = ColQwen2Processor.from_pretrained(models[name])
    model = ColQwen2ForRetrieval.from_pretrained(models[name]).eval()
    enc._adapt(model)
    batch = processor(images=images, return_tensors="pt")
    with torch.no_grad():
        own = model(**batch).embeddings
    mask = batch["attention_mask"].bool()
    assert [len(p) for p in pages] == mask.sum(dim=1).tolist()
    assert len({len(p) for p in pages}) > 1                       # pages of other sizes, other token counts
    for p, e, m in zip(pages, own, mask):
        np.testing.assert_allclose(p, e[m].numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(np.linalg.norm(p, axis=1), 1.0, rtol=1e-4)   # no zero padding rows


def test_batching_does_not_change_the_vectors(models):
    images = _pages([(56, 56), (112, 84), (84, 112)])
    batched = ColQwen2Encoder(str(models["colqwen25"]), batch_size=3).encode_images(images)
    single = ColQwen2Encoder(str(models["colqwen25"]), batch_size=1).encode_images(images)
    for a, b in zip(batched, single):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4)
    q_batched = ColQwen2Encoder(str(models["colqwen2"]), batch_size=3).encode_queries(QUERIES)
    q_single = ColQwen2Encoder(str(models["colqwen2"]), batch_size=1).encode_queries(QUERIES)
    for a, b in zip(q_batched, q_single):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4)


def test_half_precision_runs_and_is_its_own_model_id(models):
    images = _pages([(60, 80)])
    full = ColPaliEncoder(str(models["colpali"]))
    half = ColPaliEncoder(str(models["colpali"]), dtype="bfloat16")
    a, b = full.encode_images(images)[0], half.encode_images(images)[0]
    assert a.dtype == b.dtype == np.float32 and a.shape == b.shape
    assert not np.array_equal(a, b) and np.abs(a - b).max() < 0.1
    assert full.model_id != half.model_id and "bfloat16" in half.model_id


def test_a_moved_model_keeps_its_id(models, tmp_path):
    moved = shutil.copytree(models["colpali"], tmp_path / "elsewhere")
    assert ColPaliEncoder(str(moved)).model_id == ColPaliEncoder(str(models["colpali"])).model_id


def test_visrag_shape_one_unit_vector_per_page_and_the_instruction_counts(models):
    enc = VisRAGEncoder(str(models["vlm"]), interface="processor", batch_size=2)
    pages = enc.encode_images(_pages([(30, 40), (40, 30), (20, 20)]))
    assert [p.shape for p in pages] == [(1, 32)] * 3
    np.testing.assert_allclose([np.linalg.norm(p) for p in pages], 1.0, rtol=1e-5)
    plain = VisRAGEncoder(str(models["vlm"]), interface="processor", query_instruction="")
    assert not np.allclose(enc.encode_queries(QUERIES[:1])[0], plain.encode_queries(QUERIES[:1])[0])


def test_weighted_mean_weighs_token_i_by_i():
    hidden = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]]])
    mask = torch.tensor([[1, 1, 0]])
    expected = np.array([1 * 1.0 + 2 * 0.0, 1 * 0.0 + 2 * 1.0]) / 3
    np.testing.assert_allclose(weighted_mean(hidden, mask)[0].numpy(), expected / np.linalg.norm(expected), rtol=1e-6)


def test_visrag_own_code_needs_consent_and_bad_settings_are_refused(models):
    with pytest.raises(ValueError, match="trust_remote_code"):
        VisRAGEncoder(str(models["vlm"])).encode_queries(["q"])
    with pytest.raises(ValueError, match="interface"):
        VisRAGEncoder(str(models["vlm"]), interface="other")
    with pytest.raises(ValueError, match="dtype"):
        ColPaliEncoder(str(models["colpali"]), dtype="int8")
    with pytest.raises(FileNotFoundError, match="never downloads"):
        ColPaliEncoder("no-such-org/no-such-model").encode_queries(["q"])


def test_the_settings_left_out_of_the_run_id_leave_the_vectors_alone(models):
    """batch_size, query_threads and trust_remote_code are NotResult / excluded by name
    (ham.run.identity): the vectors they give are the same."""
    images = _pages([(60, 80), (80, 60), (50, 50)])
    one = ColPaliEncoder(str(models["colpali"]), batch_size=1, query_threads=1)
    three = ColPaliEncoder(str(models["colpali"]), batch_size=3, query_threads=2)
    for a, b in zip(one.encode_images(images) + one.encode_queries(QUERIES),
                    three.encode_images(images) + three.encode_queries(QUERIES)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    trusted = VisRAGEncoder(str(models["vlm"]), interface="processor", trust_remote_code=True, batch_size=1)
    untrusted = VisRAGEncoder(str(models["vlm"]), interface="processor", batch_size=3)
    for a, b in zip(trusted.encode_images(images) + trusted.encode_queries(QUERIES),
                    untrusted.encode_images(images) + untrusted.encode_queries(QUERIES)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
