"""The context-to-unit mapping (ham.systems.mapping) on hand-made units and contexts: each rule,
its thresholds, and what stays unmapped (counted with its reason, never dropped)."""
from ham.systems.mapping import ContextItem, ContextMapper, coverage
from ham.units import EvidenceUnit


def unit(uid, content, source="doc.pdf", page=None, bbox=None, kind="text", image=None, order=0):
    return EvidenceUnit(unit_id=uid, doc_id=source.rsplit(".", 1)[0], modality="image" if kind == "image" else "text",
                        kind=kind, content=content, path=[], ancestors={}, local={}, relation={}, source=source,
                        order=order, page=page, image=image, image_path=image, extra={"bbox": bbox} if bbox else {})


UNITS = [
    unit("d:1", "A credit card account is a short-term loan that you pay back with interest.", page=0,
         bbox=[0, 0, 100, 50], order=1),
    unit("d:2", "Purchases made with the card are the real expenses of the household budget.", page=0,
         bbox=[0, 60, 100, 100], order=2),
    unit("d:3", "Reconcile the statement every month.", page=1, order=3),
    unit("d:4", "Figure 1. The payment dialog", page=1, kind="image", image="figures/pay.png", order=4),
    unit("e:1", "A credit card account is a short-term loan that you pay back with interest.", source="other.md",
         order=1),
    unit("d:5", "Close it.", page=1, order=5),
]
MAPPER = ContextMapper(UNITS)


def test_a_chunk_holding_two_units_maps_to_both_in_reading_order():
    chunk = ContextItem("chunk", "Purchases made with the card are the real expenses of the household budget. "
                                 "A credit card account is a short-term loan that you pay back with interest.",
                        doc="doc.pdf")
    m = MAPPER.map_one(0, chunk)
    assert (m.rule, m.units) == ("text", ["d:1", "d:2"])
    assert m.scores["d:1"]["of_unit"] == 1.0


def test_the_document_decides_between_units_of_equal_text():
    m = MAPPER.map_one(0, ContextItem("chunk", UNITS[0].content, doc="other.md"))
    assert m.units == ["e:1"]
    # without a document every unit of that text is found
    assert MAPPER.map_one(0, ContextItem("chunk", UNITS[0].content)).units == ["d:1", "e:1"]


def test_a_chunk_cut_from_inside_a_long_unit_maps_to_it():
    piece = "is a short-term loan that you"   # every 4-gram of the chunk is the unit's, few of the unit's are in it
    m = MAPPER.map_one(0, ContextItem("chunk", piece, doc="doc.pdf"))
    assert m.units == ["d:1"] and m.scores["d:1"]["of_item"] == 1.0 and m.scores["d:1"]["of_unit"] < 0.5


def test_a_chunk_grazing_a_unit_does_not_map_to_it():
    # four of the unit's 12 4-grams: under the 0.5 threshold both ways
    text = "An unrelated sentence about taxes and forms and payroll and reports, " \
           "then short-term loan that you pay back, then more on taxes and payroll and forms and reports."
    m = MAPPER.map_one(0, ContextItem("chunk", text, doc="doc.pdf"))
    assert m.units == [] and m.reason.startswith("no unit matches")


def test_whitespace_case_and_markdown_do_not_matter():
    m = MAPPER.map_one(0, ContextItem("chunk", "**RECONCILE   the\nstatement** every month!", doc="doc.pdf"))
    assert m.units == ["d:3"]


def test_a_unit_shorter_than_four_words_maps_only_when_its_words_occur_in_order():
    assert "d:5" in MAPPER.map_one(0, ContextItem("chunk", "When done, close it.", doc="doc.pdf")).units
    assert "d:5" not in MAPPER.map_one(0, ContextItem("chunk", "It is closed.", doc="doc.pdf")).units


def test_box_rule_first_then_image_file_then_page():
    boxed = MAPPER.map_one(0, ContextItem("chunk", "OCR text nobody ingested", doc="doc.pdf", page=0,
                                          bbox=[0, 55, 100, 100]))
    assert (boxed.rule, boxed.units) == ("box", ["d:2"])
    image = MAPPER.map_one(1, ContextItem("image", image="/abs/elsewhere/pay.png", doc="doc.pdf"))
    assert (image.rule, image.units) == ("image", ["d:4"])
    page = MAPPER.map_one(2, ContextItem("image", image="page_2.jpg", doc="doc.pdf", page=1))
    assert (page.rule, sorted(page.units)) == ("page", ["d:3", "d:4", "d:5"])


def test_unmappable_items_are_counted_with_their_reason():
    items = [ContextItem("entity", "Credit Card (concept): a loan"), ContextItem("relation", "A -> B"),
             ContextItem("chunk", "text of a file ham never ingested", doc="missing.pdf"),
             ContextItem("chunk", UNITS[2].content, doc="doc.pdf"), ContextItem("image", doc="doc.pdf")]
    mapped = MAPPER.map(items)
    report = coverage(mapped)
    assert report["items"] == 5 and report["mapped"] == 1 and report["unmapped"] == 4
    assert report["by_kind"]["entity"]["unmapped_reasons"] == {"generated description": 1}
    assert report["by_kind"]["chunk"]["unmapped_reasons"] == {"document 'missing.pdf' is not in the corpus": 1}
    assert report["by_kind"]["image"]["unmapped_reasons"] == {"it names no text, file, page or box": 1}
    assert [m.index for m in mapped] == [0, 1, 2, 3, 4]


def test_documents_of_one_file_are_documents_of_their_own_to_a_system():
    # MMDocIR's parquet and TopoGraph's loaded_info.json hold every document: keyed by file, document
    # scope had indexed them as one and mapped a chunk to units of either
    from types import SimpleNamespace

    from ham.systems.adapter import LightRAGSystem, documents

    units = [unit("a:1", "Revenue grew in the third quarter of the year.", source="layouts.parquet"),
             unit("b:1", "Revenue grew in the third quarter of the year.", source="layouts.parquet")]
    units[0].doc_id, units[1].doc_id = "alpha", "beta"
    corpus = SimpleNamespace(units=units, root=".")
    docs = documents(corpus)
    assert {name: [u["unit_id"] for u in d["units"]] for name, d in docs.items()} == {
        "layouts.parquet#alpha": ["a:1"], "layouts.parquet#beta": ["b:1"]}
    assert docs["layouts.parquet#alpha"]["file"] == "layouts.parquet"
    assert list(LightRAGSystem(index_scope="document").groups(corpus)) == ["layouts.parquet#alpha",
                                                                          "layouts.parquet#beta"]
    m = ContextMapper(units).map_one(0, ContextItem("chunk", units[1].content, doc="layouts.parquet#beta"))
    assert m.units == ["b:1"]
    assert "file" not in documents(SimpleNamespace(units=UNITS[:1], root="."))["doc.pdf"]   # one per file: as before


def test_a_file_name_two_documents_share_is_not_restored_to_the_wrong_one(tmp_path):
    import sys

    from ham.systems.client import WRAPPERS

    sys.path.insert(0, str(WRAPPERS))
    from lightrag_common import remember_sources, restore_sources

    remember_sources(str(tmp_path), [{"source": "manual_a/index.html"}, {"source": "manual_b/index.html"},
                                     {"source": "guide/intro.html"}])
    items = restore_sources(str(tmp_path), [{"file_path": "manual_a/index.html"}, {"file_path": "index.html"},
                                            {"file_path": "intro.html"}])
    assert [i["file_path"] for i in items] == ["manual_a/index.html", "index.html", "guide/intro.html"]


def test_a_chunk_mentioning_a_figure_does_not_retrieve_the_figure():
    # an image unit's content is its caption ("Figure 3"): text-only systems had been credited with
    # figure and table gold for a sentence that names them
    units = [unit("d:1", "Revenue grew in every quarter of the year, as the charts show.", order=1),
             unit("d:2", "Figure 3", kind="image", image="figures/rev.png", order=2),
             unit("d:3", "Note", order=3)]
    mapper = ContextMapper(units)
    m = mapper.map_one(0, ContextItem("chunk", "As Figure 3 shows, revenue grew. Note the dip.", doc="doc.pdf"))
    assert "d:2" not in m.units and "d:3" in m.units, "a short text unit of the document still maps"
    assert mapper.map_one(0, ContextItem("chunk", "Note the dip in the third quarter.")).units == [], \
        "with no document named, a word or two matches anywhere: not mapped"


def _ingested(tmp_path, files: dict):
    from ham.ingest import ingest_corpus
    from ham.units import build_units

    for name, content in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
    docs, _ = ingest_corpus(tmp_path)
    return [u for d in docs for u in build_units(d)]


def test_an_image_item_naming_its_file_maps_to_the_image_not_to_text_repeating_its_caption(tmp_path):
    # RAG-Anything and MegaRAG return an image with its file and caption; the caption is also a text
    # unit and the sentence before repeats it: the image item had mapped to all three by text
    import io

    from PIL import Image

    from ham.systems.rows import _row

    png = io.BytesIO()
    Image.new("RGB", (40, 30)).save(png, format="PNG")
    caption = "Figure 2. The payment dialog lists the amount due and the due date."
    units = _ingested(tmp_path, {"img/pay.png": png.getvalue(), "g.md": (
        "# G\n\nThe Payment dialog is described next. As the figure shows, the payment dialog lists the amount "
        f"due and the due date.\n\n![pay](img/pay.png)\n\n{caption}\n")})
    image = next(u for u in units if u.modality == "image")
    assert [u.unit_id for u in units if u.content == caption and u.modality == "text"], "the caption is a text unit too"
    mapper = ContextMapper(units)
    item = ContextItem("image", caption, doc="g.md", image=str(tmp_path / "img/pay.png"))
    m = mapper.map_one(0, item)
    assert (m.rule, m.units) == ("image", [image.unit_id])
    row = _row(item, m, {u.unit_id: u for u in units})
    assert (row["unit_id"], row["image_path"]) == (image.unit_id, "img/pay.png")
    # a RAG-Anything chunk naming the file (``Image Path:``) maps the same way
    chunk = ContextItem("chunk", f"Image Path: {tmp_path}/img/pay.png\nCaption: {caption}", doc="g.md",
                        image=f"{tmp_path}/img/pay.png")
    assert mapper.map_one(0, chunk).units == [image.unit_id]
    # its file unknown, its caption maps to the image unit only, never to the text units repeating it
    lost = mapper.map_one(0, ContextItem("image", caption, doc="g.md", image="/elsewhere/other.png"))
    assert (lost.rule, lost.units) == ("text", [image.unit_id])
    assert mapper.map_one(0, ContextItem("image", "As the figure shows, the payment dialog lists the amount due "
                                                  "and the due date.", doc="g.md")).units == [image.unit_id]


def test_a_chunk_naming_its_page_maps_to_that_pages_copy_of_a_repeated_sentence():
    # MegaRAG's naive chunks are ham pages (0-based, as unit.page) with no box
    text = "Press Save to keep the changes you made to the account settings before closing the dialog."
    units = [unit("d:1", text, page=0, order=1), unit("d:2", "Budgets and reports and monthly statements "
                                                          "are listed on the first page.", page=0, order=2),
             unit("d:3", text, page=3, order=3)]
    mapper = ContextMapper(units)
    on_0 = mapper.map_one(0, ContextItem("chunk", text, doc="doc.pdf", page=0))
    on_3 = mapper.map_one(1, ContextItem("chunk", text, doc="doc.pdf", page=3))
    assert (on_0.units, on_3.units) == (["d:1"], ["d:3"]) and not on_0.page_fallback
    assert mapper.map_one(2, ContextItem("chunk", text, doc="doc.pdf")).units == ["d:1", "d:3"], "no page: both"
    # nothing of it on the page named: the whole document's units, and the fallback counted
    off = mapper.map_one(3, ContextItem("chunk", text, doc="doc.pdf", page=5))
    assert off.units == ["d:1", "d:3"] and off.page_fallback
    report = coverage([on_0, on_3, off])
    assert report["page_fallback"] == 1 and report["by_kind"]["chunk"]["page_fallback"] == 1


def test_a_source_file_with_a_hash_in_its_name_is_found(tmp_path):
    from types import SimpleNamespace

    from ham.systems.adapter import documents

    units = _ingested(tmp_path, {"C#-primer.md": "# Primer\n\nReconcile the statement every month before you "
                                                 "close the books for the year.\n"})
    name = next(iter(documents(SimpleNamespace(units=units, root=tmp_path))))
    assert name == "C#-primer.md"
    m = ContextMapper(units).map_one(0, ContextItem("chunk", units[-1].content, doc=name))
    assert (m.rule, m.units) == ("text", [units[-1].unit_id])
    # '<source>#<doc_id>' still names one document of a file holding several
    several = [unit("a:1", "Revenue grew in the third quarter of the year.", source="C#/layouts.parquet"),
               unit("b:1", "Revenue grew in the third quarter of the year.", source="C#/layouts.parquet")]
    several[0].doc_id, several[1].doc_id = "alpha", "be#ta"
    mapper = ContextMapper(several)
    assert mapper.map_one(0, ContextItem("chunk", several[1].content, doc="C#/layouts.parquet#be#ta")).units == ["b:1"]
    assert mapper.map_one(0, ContextItem("chunk", several[1].content, doc="C#/notes.md#alpha")).reason \
        == "document 'C#/notes.md#alpha' is not in the corpus"
