"""encoder.long_text=windows: a unit longer than the encoder's window is embedded whole, as the
mean of windows that each carry the string's head, and no window cuts the unit's content."""
import numpy as np
import pytest

from ham.cache import FolderCache
from ham.index.build import index_strings
from ham.index.dense import FlatSpec
from ham.index.encoders import SentenceTransformerEncoder
from ham.index.windows import plan_windows, windows_of

HEAD = "Document: Manual\nPath: Tools > Scale\nContent: "
CONTENT = " ".join(f"option{i} sets the value" for i in range(40))
TAIL = "\nSummary: " + "context " * 30
TEXTS = [HEAD + "short", HEAD + CONTENT + TAIL]
CONTENTS = ["short", CONTENT]


@pytest.fixture(scope="module")
def encoder():
    return SentenceTransformerEncoder("minilm", max_seq_length=64, long_text="windows")


def test_windows_hold_all_content_under_the_window_and_keep_the_head(encoder):
    windows = windows_of(TEXTS[1], CONTENT, encoder, 64)
    assert len(windows) > 3
    assert all(w.startswith(HEAD) for w in windows), "every window knows its document and path"
    assert windows[-1].endswith(TAIL) and not any(TAIL in w for w in windows[:-1])
    pieces = [w[len(HEAD):] for w in windows]
    pieces[-1] = pieces[-1][:-len(TAIL)]
    assert " ".join(pieces) == CONTENT, "consecutive windows, cut between words, lose nothing"
    assert all(n <= 64 for n in encoder.count_tokens([HEAD + p for p in pieces])), "no content part is cut"
    assert windows_of(TEXTS[0], "short", encoder, 64) == [TEXTS[0]]


def test_content_that_cannot_be_found_or_a_head_that_fills_the_window_is_not_windowed(encoder):
    assert windows_of(TEXTS[1], "not in the string", encoder, 64) == [TEXTS[1]]
    long_head = "Path: " + "Chapter > " * 20 + "\nContent: "
    assert windows_of(long_head + CONTENT, CONTENT, encoder, 64) == [long_head + CONTENT]


def test_a_windowed_unit_is_the_normalised_mean_of_its_windows(encoder, tmp_path):
    index, info = index_strings(["a", "b"], TEXTS, encoder, FlatSpec(), FolderCache(tmp_path), contents=CONTENTS)
    plan = plan_windows(TEXTS, CONTENTS, encoder)
    assert plan.rows == [1]
    mean = encoder.encode(plan.windows[0]).mean(axis=0)
    assert np.allclose(index.vectors[1], mean / np.linalg.norm(mean), atol=1e-5)
    assert np.allclose(index.vectors[0], encoder.encode([TEXTS[0]])[0], atol=1e-5), "short units as before"
    assert info["truncation"] == {"max_tokens": 64, "strings": 2, "over_window": 1, "content_cut": 0,
                                  "long_text": "windows", "windowed": 1, "extra_windows": len(plan.windows[0]) - 1}


def test_windows_and_truncation_never_share_embeddings(encoder, tmp_path):
    cache = FolderCache(tmp_path)
    _, windowed = index_strings(["a", "b"], TEXTS, encoder, FlatSpec(), cache, contents=CONTENTS)
    truncating = SentenceTransformerEncoder("minilm", max_seq_length=64, long_text="truncate")
    index, cut = index_strings(["a", "b"], TEXTS, truncating, FlatSpec(), cache, contents=CONTENTS)
    assert cut["embeddings_key"] != windowed["embeddings_key"] and not cut["embeddings_reused"]
    assert cut["truncation"]["content_cut"] == 1 and "windowed" not in cut["truncation"]
    assert np.allclose(index.vectors[1], truncating.encode([TEXTS[1]])[0], atol=1e-5)


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="long_text must be one of truncate, windows"):
        SentenceTransformerEncoder("minilm", long_text="chunks")


def test_bge_m3_lexical_weights_of_a_windowed_unit_are_the_per_token_maximum(tmp_path):
    from ham.index.encoders import BGEM3Encoder
    from ham.index.sparse import LexicalSparse
    from tests.support.tiny_models import tiny_bge_m3

    enc = BGEM3Encoder(str(tiny_bge_m3(tmp_path / "bge")), max_length=48, device="cpu", long_text="windows")
    words = "reconcile the checking account credit card payment enter a deposit into savings".split()
    content = " ".join(words[i % len(words)] for i in range(100))
    texts, contents = ["savings account " + content, "credit card payment"], [content, "credit card payment"]
    plan = plan_windows(texts, contents, enc)
    assert plan.rows == [0] and len(plan.windows[0]) == 3
    index, info = index_strings(["long", "short"], texts, enc, FlatSpec(), FolderCache(tmp_path / "cache"),
                                contents=contents)
    out = enc.model.encode(plan.windows[0] + [texts[1]], max_length=48, return_sparse=True)
    expected = {}
    for weights in out["lexical_weights"][:3]:
        for token, w in weights.items():
            expected[int(token)] = max(expected.get(int(token), 0.0), float(w))
    row = index.sparse.matrix.getrow(0)
    assert dict(zip(row.indices.tolist(), row.data.tolist())) == pytest.approx(expected, abs=1e-5)
    short = index.sparse.matrix.getrow(1)
    assert dict(zip(short.indices.tolist(), short.data.tolist())) == pytest.approx(
        {int(t): float(w) for t, w in out["lexical_weights"][3].items()}, abs=1e-5)
    mean = out["dense_vecs"][:3].mean(axis=0)
    assert np.allclose(index.vectors[0], mean / np.linalg.norm(mean), atol=1e-4)
    assert isinstance(index.sparse, LexicalSparse) and info["truncation"]["content_cut"] == 0


def test_another_window_length_never_reuses_embeddings(tmp_path):
    # max_seq_length changes what is embedded; before it entered the key, 64-token embeddings
    # were served to a 128-token encoder from the cache
    cache = FolderCache(tmp_path)
    short = SentenceTransformerEncoder("minilm", max_seq_length=64, long_text="truncate")
    longer = SentenceTransformerEncoder("minilm", max_seq_length=128, long_text="truncate")
    _, a = index_strings(["a", "b"], TEXTS, short, FlatSpec(), cache, contents=CONTENTS)
    index, b = index_strings(["a", "b"], TEXTS, longer, FlatSpec(), cache, contents=CONTENTS)
    assert not b["embeddings_reused"] and b["embeddings_key"] != a["embeddings_key"]
    assert np.allclose(index.vectors[1], longer.encode([TEXTS[1]])[0], atol=1e-5)
