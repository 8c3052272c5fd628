"""Which files of a folder make up one MinerU output, by the names MinerU's writers give them.

* ``mineru`` CLI and the local API's zip (``mineru/cli/common.py``, ``fast_api.py``), magic-pdf 0.x
  (``magic_pdf/tools/common.py``): ``<stem>_content_list.json``, ``<stem>_content_list_v2.json``
  (>= 2.7), ``<stem>.md``, ``<stem>_middle.json``, ``<stem>_model.json``, ``<stem>_origin.pdf``
  (``_origin.docx`` / ``.pptx`` / ``.xlsx`` for Office inputs, 3.x), ``<stem>_layout.pdf``,
  ``<stem>_span.pdf`` (``_spans.pdf``, ``_model.pdf``, ``_line_sort.pdf`` in 0.x), ``images/``.
* The cloud API's zip (mineru.net): ``<uuid>_content_list.json`` beside ``full.md`` (the Markdown)
  and ``layout.json`` (the middle json under another name): they are named by folder, not by stem.
* A content list saved under the API response's own field name: ``content_list.json`` (no stem),
  perhaps with ``middle.json``.

Folder-named files (``FOLDER_COMPANIONS``) belong to the folder's one document; beside content lists
of two documents they cannot be paired and are reported, not read. Beside a content list without a
stem, a single other ``.md`` is taken for its Markdown (reported by name, since that is a guess);
several are read as Markdown, and the report says ham could not pair them.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

V1 = "_content_list.json"
V2 = "_content_list_v2.json"
BARE = ("content_list.json", "content_list_v2.json")
COMPANIONS = (".md", "_middle.json", "_model.json", "_origin.pdf", "_origin.docx", "_origin.pptx",
              "_origin.xlsx", "_layout.pdf", "_span.pdf", "_spans.pdf", "_model.pdf", "_line_sort.pdf")
FOLDER_COMPANIONS = ("full.md", "layout.json", "middle.json", "model.json")
FOLDER_MIDDLE = ("middle.json", "layout.json")   # the middle json of a folder-named output, in order


def is_list(path: Path) -> bool:
    name = path.name
    return name in BARE or (name.endswith(V1) and len(name) > len(V1)) or (name.endswith(V2) and len(name) > len(V2))


def is_v2(path: Path) -> bool:
    return path.name.endswith(V2) or path.name == BARE[1]


def stem_of(path: Path) -> str:
    """The document stem of a content list ("" for ``content_list.json``) or of another file."""
    if path.name in BARE:
        return ""
    for suffix in (V2, V1):
        if path.name.endswith(suffix):
            return path.name[: -len(suffix)]
    return path.stem


@dataclass
class Outputs:
    """The MinerU outputs among a corpus' files."""

    lists: list[Path] = field(default_factory=list)
    companions: dict[Path, list[Path]] = field(default_factory=dict)   # content list -> its files
    guessed: dict[Path, Path] = field(default_factory=dict)           # a .md paired by folder -> its list
    unpaired: list[tuple[Path, str]] = field(default_factory=list)    # claimed, not read: (file, why)

    def claimed(self) -> list[Path]:
        out = list(self.lists)
        for files in self.companions.values():
            out += files
        return out + [p for p, _ in self.unpaired]

    def middle_of(self, path: Path) -> Path | None:
        """The middle json of a content list: ``<stem>_middle.json``, else its folder's."""
        beside = self.companions.get(path, [])
        named = path.with_name(stem_of(path) + "_middle.json") if stem_of(path) else None
        if named in beside:
            return named
        return next((p for name in FOLDER_MIDDLE for p in beside if p.name == name), None)


def find(files: list[Path]) -> Outputs:
    out = Outputs(lists=[p for p in files if is_list(p)])
    by_folder: dict[Path, dict[str, list[Path]]] = defaultdict(lambda: defaultdict(list))
    for p in out.lists:
        by_folder[p.parent][stem_of(p)].append(p)
    present = set(files)
    for folder, stems in by_folder.items():
        for stem, lists in stems.items():
            mine = [folder / (stem + c) for c in COMPANIONS if stem and folder / (stem + c) in present]
            for p in lists:
                out.companions[p] = list(mine)
        folder_named = [folder / n for n in FOLDER_COMPANIONS if folder / n in present]
        if len(stems) > 1:
            names = ", ".join(sorted(p.name for ls in stems.values() for p in ls))
            out.unpaired += [(p, f"MinerU file beside the content lists of {len(stems)} documents ({names}): "
                                 "ham cannot tell whose it is and does not read it; keep each MinerU output in "
                                 "its own folder") for p in folder_named]
            continue
        (stem, lists), = stems.items()
        for p in lists:
            out.companions[p] += folder_named
        if stem or any(p.suffix == ".md" for p in folder_named):
            continue
        taken = set(out.companions[lists[0]])
        loose = sorted(p for p in files if p.parent == folder and p.suffix.lower() == ".md" and p not in taken)
        if len(loose) == 1:
            for p in lists:
                out.companions[p].append(loose[0])
            out.guessed[loose[0]] = lists[0]
    return out


def unpaired_markdown(path: Path, outputs: Outputs) -> list[Path]:
    """The Markdown files beside a content list without a stem that ``find`` could not pair with it
    (several of them: they are not among the files claimed, so the folder is listed)."""
    if stem_of(path) or any(p.suffix.lower() == ".md" for p in outputs.companions.get(path, [])):
        return []
    return sorted(p for p in path.parent.iterdir() if p.is_file() and p.suffix.lower() == ".md"
                  and not p.name.startswith("."))


def belongs(list_rel: str, rel: str) -> bool:
    """``rel`` (a path relative to the corpus root) may be a file of the content list ``list_rel``'s
    output: named after its stem, or one of its folder's ``FOLDER_COMPANIONS``."""
    folder, _, name = list_rel.rpartition("/")
    other_folder, _, other = rel.rpartition("/")
    if folder != other_folder:
        return False
    stem = stem_of(Path(name))
    return other in FOLDER_COMPANIONS or bool(stem) and any(other == stem + c for c in COMPANIONS + (V1, V2))
