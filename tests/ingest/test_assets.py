"""Embedded images written under the corpus root (ham/ingest/assets.py)."""
from pathlib import Path

from PIL import Image

from ham.ingest import assets
from ham.ingest.report import IngestReport


def _png(colour) -> bytes:
    import io

    buf = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(buf, format="PNG")
    return buf.getvalue()


def test_two_writers_of_one_image_at_once_both_get_it(tmp_path, monkeypatch):
    # grid jobs ingesting one corpus together: the second writer stores the same image while the
    # first is between writing its temporary file and renaming it
    report = IngestReport(tmp_path)
    data = _png("red")
    original = Path.write_bytes
    state = {"nested": False, "inner": None}

    def write_then_let_the_other_writer_finish(self, payload):
        written = original(self, payload)
        if not state["nested"]:
            state["nested"] = True
            state["inner"] = assets.store_image(tmp_path, report, tmp_path / "b.pdf", data=data)
        return written

    monkeypatch.setattr(Path, "write_bytes", write_then_let_the_other_writer_finish)
    outer = assets.store_image(tmp_path, report, tmp_path / "a.pdf", data=data)
    assert outer is not None and outer == state["inner"]
    assert (tmp_path / outer).read_bytes() == data
    assert report.problems == []
    assert [p.name for p in (tmp_path / assets.ASSET_DIR).iterdir()] == [Path(outer).name]   # no temporaries left


def test_the_same_bytes_are_one_file_and_other_bytes_another(tmp_path):
    report = IngestReport(tmp_path)
    first = assets.store_image(tmp_path, report, tmp_path / "a.pdf", data=_png("red"))
    again = assets.store_image(tmp_path, report, tmp_path / "b.pdf", data=_png("red"))
    other = assets.store_image(tmp_path, report, tmp_path / "a.pdf", data=_png("blue"))
    assert first == again != other
    assert sorted(p.name for p in (tmp_path / assets.ASSET_DIR).iterdir()) == sorted([Path(first).name,
                                                                                       Path(other).name])

