"""A document that repeats another's text is reported, not dropped (ham.ingest.repeats)."""
import logging

from ham.ingest import ingest_corpus
from ham.ingest.repeats import REPEATED

SENTENCES = [f"Section {i} explains how the scheduler orders job number {i} before the others run." for i in range(30)]


def page(title: str, sentences: list[str]) -> str:
    return f"<html><head><title>{title}</title></head><body><h1>{title}</h1>" + \
        "".join(f"<p>{s}</p>" for s in sentences) + "</body></html>"


def test_a_manual_twice_in_one_corpus_is_reported_once_and_both_copies_are_kept(tmp_path, caplog):
    (tmp_path / "split").mkdir()
    (tmp_path / "onepage.html").write_text(page("Scheduler", SENTENCES))
    (tmp_path / "split" / "index.html").write_text(page("Scheduler manual", SENTENCES))
    (tmp_path / "other.html").write_text(page("Other", [s.replace("scheduler", "printer") for s in SENTENCES[:25]]
                                                + SENTENCES[25:]))
    with caplog.at_level(logging.WARNING, logger="ham.ingest"):
        docs, report = ingest_corpus(tmp_path)
    assert len(docs) == 3, "reported, not dropped"
    assert report.measure_totals()[REPEATED] == 30, "the pair once; 'other' shares 5 of 30, no repeat"
    warnings = [r.getMessage() for r in caplog.records if "repeats" in r.getMessage()]
    assert len(warnings) == 1 and "onepage.html" in warnings[0] and "split/index.html" in warnings[0]
