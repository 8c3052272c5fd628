"""Page retrieval beside ham's units on the demo PDF and the MMDocIR fixture, with a tiny random
ColPali built here: pages alone, both under their own budgets (RRF-fused), layout crops; every
pages setting changes what comes back; page_based shows what was retrieved."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from ham.cache import FolderCache
from ham.conf import compose
from ham.index.page_encoders import ColPaliEncoder
from ham.retrieve.pages import PageRetrieval, rrf, unit_page_ranking
from ham.retrieve.retriever import Retrieved
from ham.run.build import build_pipeline
from tests.support.tiny_models import tiny_colpali

QUESTION = "Why is there nothing to reconcile in an expense account?"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "datasets"


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("pages")
    model = tiny_colpali(root / "colpali")
    cfg = compose(["dataset=demo_pdf", "units=blocks", "retrieval=hybrid", "method=page_based", "progress=false",
                   f"paths.output_root={root / 'out'}"], return_hydra_config=False)
    pipeline = build_pipeline(cfg)
    return pipeline, FolderCache(root / "out" / "cache"), str(model)


def _attach(setup, **settings):
    pipeline, cache, model = setup
    encoder_settings = {k[8:]: settings.pop(k) for k in list(settings) if k.startswith("encoder_")}
    spec = PageRetrieval(ColPaliEncoder(model, **encoder_settings), **settings)
    return spec.attach(pipeline.retriever, pipeline.corpus, cache)


def test_a_transparent_page_is_embedded_on_white_under_a_key_of_its_own(tmp_path):
    from PIL import Image

    from ham.index.late_interaction import file_digest
    from ham.pages import PageUnit

    opaque, clear = tmp_path / "opaque.png", tmp_path / "clear.png"
    Image.new("RGB", (30, 30)).save(opaque)
    Image.new("RGBA", (30, 30), (0, 0, 0, 0)).save(clear)
    pages = [PageUnit(f"d#p{n}", "d", n, "d.pdf", str(path), 30, 30, "vidore") for n, path in enumerate((opaque, clear))]
    items = PageRetrieval(encoder=None).items(pages)
    assert items[0].digest == file_digest(opaque), "an opaque page keeps its vectors"
    assert items[1].digest != file_digest(clear), "vectors of the page turned black are not reused"
    assert items[1].load().getpixel((0, 0)) == (255, 255, 255)


def test_pages_alone_under_k_p(setup):
    paged, info = _attach(setup, mode="pages", k_p=1)
    got = paged.retrieve(QUESTION)
    assert got.text == [] and got.images == [] and len(got.pages) == 1
    assert info["pages"]["pages"] == 2 and info["page_index"]["items"] == 2
    row = got.pages[0].to_row()
    assert row["doc_id"] == "expense_accounts" and row["page"] in (1, 2) and row["units"]
    assert set(got.timing) == {"page_query_encode", "page_search"}


def test_both_keeps_the_units_budgets_and_fuses_pages_by_rank(setup):
    pipeline = setup[0]
    paged, _ = _attach(setup, mode="both", k_p=2, rrf_k=60)
    got = paged.retrieve(QUESTION)
    alone = pipeline.retriever.retrieve(QUESTION)
    assert [h.unit.unit_id for h in got.text] == [h.unit.unit_id for h in alone.text]
    ranked, _ = paged.page_ranking(QUESTION, None)
    units = unit_page_ranking(alone.text + alone.images)
    for hit in got.pages:
        where = hit.sources
        assert where["pages"] == [i for i, _ in ranked].index(hit.page.page_id) + 1
        assert where["units"] == units.index(hit.page.page_id) + 1
        assert hit.score == pytest.approx(1 / (60 + where["pages"]) + 1 / (60 + where["units"]))


def test_rrf_adds_reciprocal_ranks_and_keeps_the_first_rankings_order_on_ties():
    fused = rrf({"pages": ["a", "b", "c"], "units": ["b", "d"]}, 60)
    assert [i for i, _, _ in fused] == ["b", "a", "d", "c"]      # d: 1/62 beats c: 1/63
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61) and fused[0][2] == {"pages": 2, "units": 1}
    tied = rrf({"pages": ["a", "b"], "units": ["b", "a"]}, 60)
    assert [i for i, _, _ in tied] == ["a", "b"]


def test_every_pages_setting_changes_what_comes_back(setup):
    base, base_info = _attach(setup, mode="pages", k_p=2)
    base_pages = base.retrieve(QUESTION).pages
    assert len(_attach(setup, mode="pages", k_p=1)[0].retrieve(QUESTION).pages) == 1                        # k_p
    assert _attach(setup, mode="both", k_p=2)[0].retrieve(QUESTION).text                                   # mode
    pooled, pooled_info = _attach(setup, mode="pages", k_p=2, pool_factor=3)                              # pool_factor
    assert pooled_info["page_index"]["bytes"] < base_info["page_index"]["bytes"]
    assert [h.score for h in pooled.retrieve(QUESTION).pages] != [h.score for h in base_pages]
    wide, wide_info = _attach(setup, mode="pages", k_p=2, store_dtype="float32")                           # store_dtype
    assert wide_info["page_index"]["bytes"] > base_info["page_index"]["bytes"]
    low, low_info = _attach(setup, mode="pages", k_p=2, dpi=36)                                            # dpi
    assert low_info["page_index"]["key"] != base_info["page_index"]["key"]
    assert Path(low.retrieve(QUESTION).pages[0].page.image_path).stat().st_size < \
        Path(base_pages[0].page.image_path).stat().st_size
    fused = [h.score for h in _attach(setup, mode="both", k_p=2, rrf_k=60)[0].retrieve(QUESTION).pages]
    assert fused != [h.score for h in _attach(setup, mode="both", k_p=2, rrf_k=5)[0].retrieve(QUESTION).pages]   # rrf_k
    half, half_info = _attach(setup, mode="pages", k_p=2, encoder_dtype="bfloat16")                         # encoder.dtype
    assert half_info["page_index"]["encoder"] != base_info["page_index"]["encoder"]
    assert [h.score for h in half.retrieve(QUESTION).pages] != [h.score for h in base_pages]


def test_layout_level_ranks_mmdocir_crops_as_unit_boxes(tmp_path, setup):
    root = tmp_path / "mmdocir"
    root.mkdir()
    for name in ("MMDocIR_layouts.parquet", "MMDocIR_pages.parquet"):
        shutil.copy(FIXTURES / "mmdocir" / name, root / name)
    cfg = compose(["dataset=custom", f"dataset.path={root}", f"dataset.questions={root}", "units=blocks",
                   "retrieval=hybrid", "method=page_based", "describer=none", "progress=false",
                   f"paths.output_root={tmp_path / 'out'}"], return_hydra_config=False)
    pipeline = build_pipeline(cfg)
    spec = PageRetrieval(ColPaliEncoder(setup[2]), mode="pages", level="layout", k_p=4)
    paged, info = spec.attach(pipeline.retriever, pipeline.corpus, FolderCache(tmp_path / "out" / "cache"))
    boxes = sum(len(p.layouts) for p in paged.pages.values())
    assert info["page_index"]["items"] == boxes > 4
    rows = [h.to_row() for h in paged.retrieve("the table of service intervals").pages]
    units = pipeline.corpus.by_id
    assert len(rows) == 4
    for row in rows:
        assert row["units"] == [row["unit_id"]] and row["bbox"] == units[row["unit_id"]].extra["bbox"]
        assert units[row["unit_id"]].page == row["page"] - 1


def test_bad_settings_and_a_method_that_cannot_show_pages_are_refused(setup, tmp_path):
    encoder = ColPaliEncoder(setup[2])
    for settings, match in (({"level": "layout"}, "needs pages.mode=pages"), ({"mode": "all"}, "pages.mode"),
                            ({"k_p": 0}, "k_p"), ({"level": "word"}, "pages.level")):
        with pytest.raises(ValueError, match=match):
            PageRetrieval(encoder, **settings)
    cfg = compose(["dataset=demo_pdf", "pages=colpali", f"pages.encoder.model={setup[2]}", "method=ham",
                   f"paths.output_root={tmp_path}"], return_hydra_config=False)
    with pytest.raises(ValueError, match="only method=page_based shows"):
        build_pipeline(cfg)


def test_page_based_shows_pages_then_units_and_caps_the_images(setup):
    from ham.methods.page_based import PageBasedMethod

    paged, _ = _attach(setup, mode="both", k_p=2)
    got = paged.retrieve(QUESTION)
    prompt = PageBasedMethod(corpus_root=setup[0].corpus.root)(QUESTION, got)
    assert [i.unit_id for i in prompt.images] == [h.page.page_id for h in got.pages]
    assert prompt.text.index("[Page") < prompt.text.index("[T1]")
    assert f"[Page {got.pages[0].page.page + 1} of expense_accounts] [[image:1]]" in prompt.text
    assert [kind for kind, _ in prompt.parts()].count("image") == 2
    capped = PageBasedMethod(max_images=1, corpus_root=setup[0].corpus.root)(QUESTION, got)   # method.max_images
    assert len(capped.images) == 1 and capped.extra["page_filter"]["pages"] == [got.pages[0].page.page_id]


def test_an_unreadable_page_image_is_left_out_and_named(setup, tmp_path):
    from ham.methods.page_based import PageBasedMethod

    paged, _ = _attach(setup, mode="pages", k_p=2)
    got = paged.retrieve(QUESTION)
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not an image")
    got.pages[0].page.image_path = str(broken)
    prompt = PageBasedMethod()(QUESTION, got)
    assert len(prompt.images) == 1
    assert list(prompt.extra["page_filter"]["unreadable"]) == [f"page {got.pages[0].page.page_id}"]
    assert np.isfinite(got.pages[1].score)


def test_ranking_metrics_read_ten_pages_deep_while_the_prompt_holds_k_p(tmp_path):
    """k_p is what the generator is shown; nDCG@10 scores the retriever's ranking 10 deep, so a
    relevant page ranked 7th counts with k_p=5 (it had counted as a miss: only the 5 pages shown
    were ranked)."""
    import pytrec_eval
    from PIL import Image

    from ham.datasets.questions import Question
    from ham.generate.extractive import ExtractiveGenerator
    from ham.methods.page_based import PageBasedMethod
    from ham.metrics.evaluator import Evaluator
    from ham.pages import PageUnit
    from ham.retrieve.pages import PagedRetriever
    from ham.run.pipeline import Pipeline

    Image.new("RGB", (8, 8)).save(tmp_path / "p.png")
    pages = [PageUnit(f"doc#p{i}", "doc", i, "doc.pdf", str(tmp_path / "p.png"), 8, 8, "pdf") for i in range(12)]
    full = [(f"doc#p{i}", 12.0 - i) for i in range(12)]                  # page i at rank i + 1

    class Index:
        def search(self, query, k=None):
            return full if k is None else full[:k]

    class Encoder:
        model_id = "fake"

        def encode_queries(self, questions):
            return [None]

    qrels = {"doc#0": 1, "doc#6": 1}                                     # relevant at ranks 1 and 7
    question = Question(id="q", question="?", meta={"page_qrels": qrels})
    evaluator = Evaluator(["ndcg_10", "page_recall_5", "page_evidence_recall"])
    reference = pytrec_eval.RelevanceEvaluator({"q": qrels}, {"ndcg_cut.10"}).evaluate(
        {"q": {f"doc#{i}": s for i, (_, s) in enumerate(full)}})["q"]["ndcg_cut_10"]
    for mode in ("pages", "both"):
        units = None if mode == "pages" else type("NoUnits", (), {"retrieve": lambda self, q: Retrieved([], [])})()
        retriever = PagedRetriever(units, Index(), pages, Encoder(), k_p=5, mode=mode)
        row = Pipeline(retriever, PageBasedMethod(), ExtractiveGenerator(), evaluator).answer([question])[0]
        assert row["prompt"]["page_filter"]["pages"] == [f"doc#p{i}" for i in range(5)], mode   # the prompt: k_p
        assert [r["page_id"] for r in row["retrieved_pages"]] == [f"doc#p{i}" for i in range(10)], mode
        assert row["metrics"]["ndcg_10"] == pytest.approx(reference), mode
        assert row["metrics"]["page_recall_5"] == 0.5, mode
