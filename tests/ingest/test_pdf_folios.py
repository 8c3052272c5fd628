"""Page numbers set above the footer band (freefem-doc's LaTeX manual: the folio at 690pt of a
792pt letter page, the band starting at 697) are furniture found by place: each page's lowest line,
a bare number, at one height on most pages, counting up with the pages."""
from ham.ingest import ingest_corpus
from ham.ingest.pdf_furniture import PAGE_NUMBER, mark_slots
from ham.ingest.pdf_text import Line

W, H = 612.0, 792.0
BODY = "The mesh generator reads the border description and triangulates the domain"


def _line(text: str, top: float, x0: float = 126.0) -> Line:
    return Line(text, 10.9, False, x0, x0 + 5 * len(text), top, top + 11, len(text))


def _page(n: int, last: str | None, bottom_line: float = 690.3) -> list[Line]:
    lines = [_line(BODY, 132 + 14 * i) for i in range(30)]
    return lines + ([_line(last, bottom_line, 300.0)] if last is not None else [])


def test_a_folio_above_the_band_is_a_page_number_where_it_counts_up_with_the_pages():
    pages = [_page(n, str(n + 7)) for n in range(8)]
    counts, _ = mark_slots(pages, [H] * 8)
    assert counts[PAGE_NUMBER] == 8
    assert all(p[-1].furniture == PAGE_NUMBER for p in pages)
    assert not any(ln.furniture for p in pages for ln in p[:-1])


def test_a_number_closing_pages_that_does_not_count_up_with_them_is_text():
    # a table's total or a list's last item: the same height, but not the page's number
    pages = [_page(n, "12") for n in range(8)]
    mark_slots(pages, [H] * 8)
    assert not any(ln.furniture for p in pages for ln in p)
    # counting up, but at another height on each page: a numbered list's last item, not a folio
    pages = [_page(n, str(n + 1), 300 + 25 * n) for n in range(8)]
    mark_slots(pages, [H] * 8)
    assert not any(ln.furniture for p in pages for ln in p)


def test_a_number_in_the_folios_slot_off_their_count_stays_text():
    # nine pages numbered in the slot, the tenth closing on a table's last cell at the same height
    pages = [_page(n, str(n + 1)) for n in range(9)] + [_page(9, "2048")]
    mark_slots(pages, [H] * 10)
    assert all(p[-1].furniture == PAGE_NUMBER for p in pages[:9])
    assert pages[9][-1].furniture != PAGE_NUMBER


def test_a_folio_above_the_band_leaks_into_no_paragraph(tmp_path):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(tmp_path / "manual.pdf"), pagesize=(W, H))
    for n in range(6):
        c.setFont("Times-Bold", 16)
        c.drawString(126, H - 120, f"{n + 1} Chapter about meshes")
        c.setFont("Times-Roman", 10.9)
        for i in range(30):
            words = BODY if i < 29 else "and the paragraph goes on over the page break into"
            c.drawString(126, H - 150 - 14 * i, words)
        c.drawString(300, H - 690.3 - 9, str(n + 41))
        c.showPage()
    c.save()
    (doc,), report = ingest_corpus(tmp_path)
    texts = [n.text for n in doc.leaves()]
    assert not [t for t in texts if any(f" {n} " in f" {t} " for n in range(41, 47))]
    assert report.excluded["manual.pdf"]["page number"] == 6
