"""MRAMG-Bench's table prints beside Tables 3 and 4 when runs computed its own metrics."""
import pytest

from ham_analysis.collect import collect
from ham_analysis.tables import mramg_table
from tests.analysis.grid_fixture import config, make_corpus, prediction, write_run


def test_mramg_table_only_where_its_metrics_were_computed(tmp_path):
    root = make_corpus(tmp_path)
    write_run(tmp_path / "runs" / "plain", config("wiki", root), [prediction("q1", {"image_f1": 1.0})])
    assert mramg_table(collect([tmp_path / "runs"])) is None
    rows = [prediction("q1", {"image_f1": 1.0, "image_ordering": 0.5, "rouge_lsum": 0.25, "answer_bertscore": 0.75}),
            prediction("q2", {"image_f1": 0.0, "image_ordering": 0.0, "rouge_lsum": 0.75, "answer_bertscore": 0.25})]
    write_run(tmp_path / "runs" / "mramg", config("wiki", root, generator="gpt-5"), rows)
    table = mramg_table(collect([tmp_path / "runs"]))
    assert [c.header for c in table.columns] == ["Img-P", "Img-R", "Img-F1", "Img-Ord.", "ROUGE-Lsum", "BERTScore"]
    values = {tuple(labels): v for labels, v in table.rows}
    mramg = next(v for k, v in values.items() if "gpt5" in k)
    assert mramg["wiki:image_ordering"] == pytest.approx(25.0) and mramg["wiki:rouge_lsum"] == pytest.approx(50.0)
