"""BM25 with a Snowball stemmer (``index.stem``): inflections meet, the index keeps the stemmer it
was built with (its queries are stemmed alike after a reload), the cache keys it, and the sharded
build stems as the single-process one does."""
import numpy as np
import pytest

from ham.cache import FolderCache
from ham.index.build import bm25_folder, index_strings
from ham.index.dense import FlatSpec
from ham.index.hybrid import Query
from ham.index.shards import build_sharded, merge_shards, plan_shards, run_shard
from ham.index.sparse import BM25Sparse
from ham.text import tokenize
from tests.support.shard_builds import WordEncoder, assert_same_index

TEXTS = ["Restoring a cluster from the archived WAL segments",
         "Printing the schematic to a PDF file",
         "The plotter writes Gerber files for each layer",
         "电池容量 is the battery's capacity"]
IDS = [f"doc/u{i}" for i in range(len(TEXTS))]


def query(text: str) -> Query:
    return Query(text, np.zeros(WordEncoder().dim, np.float32), tokenize([text])[0])


def test_stemmed_tokens_meet_and_cjk_bigrams_pass_through():
    assert tokenize(["restored archives"], "english") == tokenize(["restoring the archive"], "english") \
        == [["restor", "archiv"]]
    assert tokenize(["restored archives"]) == [["restored", "archives"]]
    assert tokenize(["电池容量 batteries"], "english") == [["电池", "池容", "容量", "batteri"]]


def test_an_unknown_stemmer_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="index.stem: 'klingon' is no Snowball stemmer; it must be one of none, .*english"):
        FlatSpec(stem="klingon")


def test_a_stemmed_index_finds_inflections_and_keeps_its_stemmer_after_a_reload(tmp_path):
    q = query("how do I restore an archive")
    plain, info = index_strings(IDS, TEXTS, WordEncoder(), FlatSpec(), FolderCache(tmp_path))
    stemmed, sinfo = index_strings(IDS, TEXTS, WordEncoder(), FlatSpec(stem="english"), FolderCache(tmp_path))
    assert (info["stem"], sinfo["stem"]) == ("none", "english")
    assert plain.sparse_scores(q)[0] == 0.0
    scores = stemmed.sparse_scores(q)
    assert scores[0] > 0 and scores.argmax() == 0 and not scores[1:].any()
    again, ainfo = index_strings(IDS, TEXTS, WordEncoder(), FlatSpec(stem="english"), FolderCache(tmp_path))
    assert ainfo["reused"] and again.sparse.stem == "english"
    np.testing.assert_array_equal(again.sparse_scores(q), scores)


def test_the_stemmer_keys_the_bm25_entry(tmp_path):
    cache = FolderCache(tmp_path)
    folders = {stem: bm25_folder(IDS, TEXTS, cache, stem=stem) for stem in ("none", "english", "porter")}
    assert len(set(folders.values())) == 3
    assert BM25Sparse.load(folders["porter"]).stem == "porter" and BM25Sparse.load(folders["none"]).stem == "none"


WORDS = ("print printing printed prints plot plotting plotted layer layers route routing routed track tracks "
         "restore restoring restored archive archived archives").split()


def test_sharded_build_stems_as_the_single_process_one(tmp_path):
    import random

    rng = random.Random(2)
    texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 9))) for _ in range(150)]
    ids = [f"doc{i // 10}/u{i}" for i in range(150)]
    enc, spec = WordEncoder(), FlatSpec(stem="english")
    single, _ = index_strings(ids, texts, enc, spec, FolderCache(tmp_path / "one"))
    merged, info = build_sharded(ids, texts, enc, spec, FolderCache(tmp_path / "many"), shard_size=37)
    assert info["stem"] == "english" and merged.sparse.stem == "english"
    assert_same_index(single, merged, enc, k=10, words=WORDS, n=12, seed=1, max_words=4)
    q = query("restoring")
    np.testing.assert_allclose(merged.sparse_scores(q), single.sparse_scores(q), rtol=1e-6)
    assert merged.sparse_scores(q)[[i for i, t in enumerate(texts) if "restored" in t.split()]].min() > 0


def test_shards_stemmed_differently_do_not_merge(tmp_path):
    ids, texts = [f"d/u{i}" for i in range(20)], [f"printing plots {i}" for i in range(20)]
    a = [run_shard(t) for t in plan_shards(ids, texts, None, WordEncoder(), tmp_path, 10, stem="english")]
    b = [run_shard(t) for t in plan_shards(ids, texts, None, WordEncoder(), tmp_path, 10)]
    assert a[0]["key"] != b[0]["key"]
    with pytest.raises(ValueError, match="stemmed differently"):
        merge_shards([a[0], b[1]], FlatSpec(), tmp_path)


def test_every_listed_stemmer_is_one_pystemmer_has():
    import Stemmer

    from ham.text import STEMMERS

    assert set(STEMMERS) <= set(Stemmer.algorithms())
    german = tokenize(["Einstellungen", "Einstellung"], "german")
    assert german[0] == german[1] != tokenize(["Einstellungen"])[0]


def test_a_config_with_an_unknown_stemmer_is_refused_when_composed():
    from ham.conf import ConfigError, compose

    with pytest.raises(ConfigError, match="index.stem.*must be one of none, arabic"):
        compose(["index.stem=klingon"], return_hydra_config=False)


def test_strings_without_a_word_bm25_keeps_give_a_sparse_side_of_zeros_not_a_crash(tmp_path):
    # images with no caption or neighbouring text under image_repr=li: every string empty or stopwords
    sparse = BM25Sparse.build(["", "the of", ""])
    query = Query("the pump", np.zeros((1, 4), np.float32), tokenize(["the pump"])[0])
    assert sparse.scores(query, 3).tolist() == [0.0, 0.0, 0.0]
    sparse.save(tmp_path)
    assert BM25Sparse.load(tmp_path).scores(query, 3).tolist() == [0.0, 0.0, 0.0]
