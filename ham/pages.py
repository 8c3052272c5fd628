"""Page images as evidence: a ``PageUnit`` is one page of one document, as an image, with the
ham evidence units printed on it.

Where the images come from (``ham.ingest.pages``): PDF pages rendered with pypdfium2 at a
configured resolution, MMDocIR's page screenshots (``MMDocIR_pages.parquet``), ViDoRe's corpus
images, or the PDF MinerU was run on (``<name>_origin.pdf`` beside its content list). Each page
knows its document (``doc_id``, the same id the document's units carry), its 0-based page number,
its source file and the ids of the units on it (``units``, in source order), so a page hit maps
onto evidence units and gold evidence resolved to units (``ham.datasets.evidence``) is found
through the pages that hold it. ``layouts`` are the units on the page that have a box
(``extra["bbox"]``) in the page's own coordinates, the crops MMDocIR's layout-level retrieval
ranks (``ham.ingest.pages.layout_crop``).

Benchmarks name a gold page by document and page number; ``ham.datasets.pages`` turns those
names and a page's ``doc_id``/``page`` into comparable keys.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class PageUnit:
    page_id: str                 # ``{doc_id}#p{page}``: unique in a corpus
    doc_id: str
    page: int                    # 0-based
    source: str                  # the file the page comes from, relative to the corpus root
    image_path: str              # the page image, absolute (under the cache) or relative to the root
    width: int                   # image pixels
    height: int
    origin: str                  # pdf | mmdocir | vidore | mineru
    units: list[str] = field(default_factory=list)     # ham unit ids on the page, in source order
    layouts: list[dict] = field(default_factory=list)  # {"unit_id", "bbox" (page coordinates), "page_size"}
    extra: dict = field(default_factory=dict)          # dpi, points size, corpus_id (ViDoRe), passage_id ...

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "PageUnit":
        return cls(**data)


def page_id_of(doc_id: str, page: int) -> str:
    return f"{doc_id}#p{int(page)}"
