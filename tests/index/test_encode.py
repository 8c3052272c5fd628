"""Encoders: length-sorted batches, out-of-memory halving, streaming to disk, the bundled MiniLM,
and BGE-M3 through FlagEmbedding on a tiny randomly initialised XLM-RoBERTa built here."""
import numpy as np
import pytest

from ham.index.encoders import BatchedEncoder, BGEM3Encoder, Encoded, SentenceTransformerEncoder
from ham.index.hybrid import Query
from ham.index.sparse import LexicalSparse
from tests.support.tiny_models import tiny_bge_m3


class LetterEncoder(BatchedEncoder):
    """Letter frequencies, L2-normalised; fails like a GPU when a batch exceeds ``fits``."""

    model_id = "letters"
    dim = 26

    def __init__(self, batch_size=8, fits=None, error="CUDA out of memory. Tried to allocate 2.00 GiB"):
        self.batch_size, self.fits, self.error, self.batches = batch_size, fits, error, []

    def _encode_batch(self, texts):
        if self.fits is not None and len(texts) > self.fits:
            raise RuntimeError(self.error)
        self.batches.append(list(texts))
        out = np.zeros((len(texts), 26), dtype=np.float32)
        for r, t in enumerate(texts):
            for ch in t.lower():
                if "a" <= ch <= "z":
                    out[r, ord(ch) - 97] += 1
        return Encoded(out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9))


TEXTS = ["a", "bbbbbbbbbb", "ccc", "dddddd dddddd", "ee", "ffff", "g" * 30, "hh hh"]


def test_batches_are_sorted_by_length_and_rows_keep_input_order():
    enc = LetterEncoder(batch_size=3)
    vecs = enc.encode(TEXTS)
    lengths = [len(t) for b in enc.batches for t in b]
    assert lengths == sorted(lengths, reverse=True) and [len(b) for b in enc.batches] == [3, 3, 2]
    for text, vec in zip(TEXTS, vecs):
        assert vec[ord(text[0]) - 97] == pytest.approx(1.0)


def test_out_of_memory_halves_the_batch_and_loses_nothing():
    enc = LetterEncoder(batch_size=8, fits=2)
    vecs = enc.encode(TEXTS)
    assert {len(b) for b in enc.batches} == {2} and sum(len(b) for b in enc.batches) == len(TEXTS)
    assert np.allclose(vecs, LetterEncoder(batch_size=8).encode(TEXTS))


def test_other_errors_and_oom_at_batch_one_propagate():
    with pytest.raises(RuntimeError, match="shape mismatch"):
        LetterEncoder(fits=1, error="shape mismatch").encode(TEXTS)
    with pytest.raises(RuntimeError, match="out of memory"):
        LetterEncoder(batch_size=4, fits=0).encode(TEXTS)


def test_encode_to_streams_rows_to_disk_in_input_order(tmp_path):
    enc = LetterEncoder(batch_size=3)
    enc.encode_to(TEXTS, tmp_path)
    on_disk = np.load(tmp_path / "dense.npy", mmap_mode="r")
    assert on_disk.shape == (len(TEXTS), 26) and np.allclose(on_disk, enc.encode(TEXTS))
    assert not (tmp_path / "sparse.npz").exists()


def test_minilm_loads_lazily_and_round_trips(tmp_path):
    enc = SentenceTransformerEncoder("minilm", batch_size=2)
    assert enc._model is None and enc.model_id.startswith("sentence-transformers:")
    texts = ["Reconcile the checking account.", "Enter a deposit.", "Save the file."]
    enc.encode_to(texts, tmp_path)
    stored = np.load(tmp_path / "dense.npy")
    assert stored.shape == (3, 384) and np.allclose(np.linalg.norm(stored, axis=1), 1.0, atol=1e-5)
    query = enc.encode_query("Enter a deposit.").dense[0]
    assert int(np.argmax(stored @ query)) == 1 and float(stored[1] @ query) == pytest.approx(1.0, abs=1e-5)


def test_missing_sentence_transformers_folder_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="no-model"):
        SentenceTransformerEncoder(str(tmp_path / "no-model"))


@pytest.fixture(scope="module")
def bge_folder(tmp_path_factory):
    return tiny_bge_m3(tmp_path_factory.mktemp("bge"))


def test_bge_m3_dense_and_lexical_weights_through_flagembedding(bge_folder, tmp_path):
    enc = BGEM3Encoder(str(bge_folder), batch_size=2, max_length=64, query_max_length=64, device="cpu")
    assert enc.has_sparse and enc.dim == 32 and not enc.use_fp16 and enc.model_id.startswith("bge-m3:")
    texts = ["reconcile the checking account", "credit card payment", "enter a deposit into savings"]
    enc.encode_to(texts, tmp_path)
    dense = np.load(tmp_path / "dense.npy")
    assert dense.shape == (3, 32) and np.allclose(np.linalg.norm(dense, axis=1), 1.0, atol=1e-5)
    sparse = LexicalSparse.load(tmp_path / "sparse.npz")
    assert sparse.matrix.shape == (3, enc.sparse_dim) and sparse.matrix.nnz > 0
    q = enc.encode_query("checking account payment")
    scores = sparse.scores(Query("", q.dense[0], [], q.sparse[0]), 3)
    docs = enc.model.encode(texts, max_length=64, return_sparse=True)["lexical_weights"]
    qw = enc.model.encode(["checking account payment"], max_length=64, return_sparse=True)["lexical_weights"][0]
    expected = [enc.model.compute_lexical_matching_score(qw, d) for d in docs]
    assert np.allclose(scores, expected, atol=1e-5), "CSR product = FlagEmbedding's lexical matching score"


def test_bge_m3_folder_without_heads_is_refused(tmp_path):
    folder = tiny_bge_m3(tmp_path / "headless", heads=False)
    with pytest.raises(FileNotFoundError, match="sparse_linear.pt, colbert_linear.pt"):
        BGEM3Encoder(str(folder))


def test_bge_m3_not_in_the_cache_is_a_clear_error():
    with pytest.raises(FileNotFoundError, match="never downloads"):
        BGEM3Encoder("no-such-org/bge-m3-missing")


def test_truncation_by_the_encoder_window_is_counted_when_strings_are_embedded(tmp_path):
    from ham.cache import FolderCache
    from ham.index.build import index_strings
    from ham.index.dense import FlatSpec

    encoder = SentenceTransformerEncoder("minilm", max_seq_length=16, long_text="truncate")
    long_content = "word " * 40
    texts = ["Path: A\nContent: short", f"Path: A\nContent: {long_content}\nSummary: more",
             "Path: A\nContent: fine\nSummary: " + "context " * 40]
    contents = ["short", long_content, "fine"]
    _, info = index_strings(["a", "b", "c"], texts, encoder, FlatSpec(), FolderCache(tmp_path), contents=contents)
    assert info["truncation"] == {"max_tokens": 16, "strings": 3, "over_window": 2, "content_cut": 1}
    _, again = index_strings(["a", "b", "c"], texts, encoder, FlatSpec(), FolderCache(tmp_path), contents=contents)
    assert again["embeddings_reused"] and again["truncation"] == info["truncation"], "kept beside the embeddings"


def test_a_model_without_a_window_embeds_and_reports_no_truncation(tmp_path):
    # StaticEmbedding (mean of contextless token vectors) has max_seq_length = inf: truncation
    # counting must skip it, not fail the index build
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import StaticEmbedding

    from ham.cache import FolderCache
    from ham.index.build import index_strings
    from ham.index.dense import FlatSpec
    from ham.backends.local import minilm_path

    tokenizer = SentenceTransformer(str(minilm_path()), device="cpu").tokenizer.backend_tokenizer
    weights = np.random.default_rng(0).normal(size=(tokenizer.get_vocab_size(), 8)).astype(np.float32)
    SentenceTransformer(modules=[StaticEmbedding(tokenizer, embedding_weights=weights)]).save(str(tmp_path / "static"))
    encoder = SentenceTransformerEncoder(str(tmp_path / "static"))
    assert encoder.max_tokens is None
    index, info = index_strings(["a", "b"], ["Content: " + "word " * 400, "Content: short"], encoder, FlatSpec(),
                                FolderCache(tmp_path / "cache"), contents=["word " * 400, "short"])
    assert info["truncation"] is None
    assert info["size"] == 2
