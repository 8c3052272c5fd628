"""Exact MaxSim against a brute-force reference, token pooling's effect on bytes, the stored
precision, and building that resumes and reuses page vectors by content."""
from __future__ import annotations

import numpy as np
import pytest

from ham.cache import FolderCache
from ham.index import late_interaction as li
from ham.index.late_interaction import Item, build_index, hierarchical_pool, maxsim_scores


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _ragged(rng, n_pages: int, dim: int = 16):
    pages = [_unit(rng.standard_normal((int(rng.integers(1, 40)), dim))) for _ in range(n_pages)]
    offsets = np.cumsum([0] + [len(p) for p in pages]).astype(np.int64)
    return pages, np.concatenate(pages), offsets


def brute_force(query: np.ndarray, pages: list[np.ndarray]) -> np.ndarray:
    return np.array([sum(max(float(q @ d) for d in page) for q in query) for page in pages], dtype=np.float64)


@pytest.mark.parametrize("chunk_rows", [1, 7, 64, li.CHUNK_ROWS])
def test_maxsim_equals_the_brute_force_sum_of_maxima(chunk_rows):
    rng = np.random.default_rng(3)
    pages, tokens, offsets = _ragged(rng, 25)
    query = _unit(rng.standard_normal((9, 16)))
    got = maxsim_scores(query, tokens, offsets, chunk_rows=chunk_rows)
    np.testing.assert_allclose(got, brute_force(query, pages), rtol=1e-5, atol=1e-5)


def test_maxsim_of_single_vectors_is_the_inner_product():
    rng = np.random.default_rng(4)
    docs = _unit(rng.standard_normal((12, 8)))
    query = _unit(rng.standard_normal((1, 8)))
    np.testing.assert_allclose(maxsim_scores(query, docs, np.arange(13)), docs @ query[0], rtol=1e-6)


def test_pooling_keeps_a_share_of_the_vectors_unit_length():
    rng = np.random.default_rng(5)
    page = _unit(rng.standard_normal((100, 16)))
    for factor, expected in ((1, 100), (2, 50), (3, 33), (200, 1)):
        pooled = hierarchical_pool(page, factor)
        assert len(pooled) == expected
        np.testing.assert_allclose(np.linalg.norm(pooled, axis=1), 1.0, rtol=1e-5)
    assert np.array_equal(hierarchical_pool(page, 1), page)


def test_pooled_vectors_stay_close_to_the_tokens_they_replace():
    """Two tight clusters pool to their two directions: MaxSim against a cluster member is ~1."""
    rng = np.random.default_rng(6)
    a, b = _unit(rng.standard_normal((1, 16))), _unit(rng.standard_normal((1, 16)))
    page = _unit(np.concatenate([a + 0.01 * rng.standard_normal((10, 16)), b + 0.01 * rng.standard_normal((10, 16))]))
    pooled = hierarchical_pool(page, 10)
    assert len(pooled) == 2
    assert maxsim_scores(a, pooled, np.array([0, 2]))[0] > 0.99


class Vectors:
    """A page encoder whose vectors are fixed arrays (the index's contract: ``model_id``,
    ``model_name`` and ``encode_images``); counts what it encodes."""

    model_name = "fixed"

    def __init__(self, arrays: dict[str, np.ndarray], model_id: str = "fixed:1", fail_after: int | None = None):
        self.arrays, self.model_id, self.fail_after, self.encoded = arrays, model_id, fail_after, []

    def encode_images(self, images):
        if self.fail_after is not None and len(self.encoded) >= self.fail_after:
            raise KeyboardInterrupt("killed mid-build")
        self.encoded.extend(images)
        return [self.arrays[name] for name in images]


def _items(arrays):
    return [Item(name, name + "-digest", lambda name=name: name) for name in arrays]


@pytest.fixture
def arrays():
    rng = np.random.default_rng(7)
    return {f"p{i}": _unit(rng.standard_normal((30, 16))) for i in range(6)}


def test_index_scores_as_the_reference_and_counts_its_bytes(tmp_path, arrays):
    index, info = build_index(_items(arrays), Vectors(arrays), FolderCache(tmp_path), store_dtype="float32")
    query = _unit(np.random.default_rng(8).standard_normal((5, 16)))
    np.testing.assert_allclose(index.scores(query), brute_force(query, list(arrays.values())), rtol=1e-5)
    assert info["bytes"] == 6 * 30 * 16 * 4 + 7 * 8 == index.bytes
    assert info["bytes_per_item"] == pytest.approx(index.bytes / 6, abs=0.05)
    assert [i for i, _ in index.search(query, 2)] == [list(arrays)[j] for j in np.argsort(-index.scores(query))[:2]]


def test_pool_factor_and_store_dtype_change_the_bytes_and_the_scores(tmp_path, arrays):
    cache = FolderCache(tmp_path)
    exact, _ = build_index(_items(arrays), Vectors(arrays), cache, pool_factor=1, store_dtype="float32")
    half, _ = build_index(_items(arrays), Vectors(arrays), cache, pool_factor=1, store_dtype="float16")
    pooled, info = build_index(_items(arrays), Vectors(arrays), cache, pool_factor=3, store_dtype="float32")
    vectors = exact.tokens.nbytes
    assert half.tokens.nbytes == vectors // 2
    assert pooled.tokens.nbytes == vectors // 3 and info["vectors_per_item"] == 10
    query = _unit(np.random.default_rng(9).standard_normal((5, 16)))
    assert not np.allclose(exact.scores(query), pooled.scores(query))
    np.testing.assert_allclose(exact.scores(query), half.scores(query), atol=5e-3)


def test_page_vectors_are_cached_by_content_and_a_killed_build_resumes(tmp_path, arrays, monkeypatch):
    monkeypatch.setattr(li, "ENCODE_CHUNK", 2)
    cache = FolderCache(tmp_path)
    killed = Vectors(arrays, fail_after=4)
    with pytest.raises(KeyboardInterrupt):
        build_index(_items(arrays), killed, cache)
    assert killed.encoded == ["p0", "p1", "p2", "p3"]          # two chunks stored before the kill
    resumed = Vectors(arrays)
    index, info = build_index(_items(arrays), resumed, cache)
    assert resumed.encoded == ["p4", "p5"] and (info["encoded"], info["reused"]) == (2, 4)
    again = Vectors(arrays)
    _, info = build_index(_items(arrays), again, cache)
    assert again.encoded == [] and info["reused"] == 6 and info["key"] == index.folder.name
    changed = [Item("p0", "p0-new-digest", lambda: "p0")] + _items(arrays)[1:]
    once_more = Vectors(arrays)
    _, info = build_index(changed, once_more, cache)
    assert once_more.encoded == ["p0"]                           # only the page whose content changed
    other_model = Vectors(arrays, model_id="fixed:2")
    build_index(_items(arrays), other_model, cache)
    assert len(other_model.encoded) == 6                         # vectors are keyed by the encoder too


def test_bad_settings_and_empty_pages_are_refused(tmp_path, arrays):
    with pytest.raises(ValueError, match="pool_factor"):
        build_index(_items(arrays), Vectors(arrays), FolderCache(tmp_path), pool_factor=0)
    with pytest.raises(ValueError, match="store_dtype"):
        build_index(_items(arrays), Vectors(arrays), FolderCache(tmp_path), store_dtype="int8")
    empty = {"p0": np.zeros((0, 16), dtype=np.float32)}
    with pytest.raises(ValueError, match="p0: the encoder returned no vectors"):
        build_index(_items(empty), Vectors(empty), FolderCache(tmp_path / "e"))
