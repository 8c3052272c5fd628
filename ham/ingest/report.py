"""What ingest skipped and why, plus the checks on image files that produce most of it."""
from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from ham.images import image_problem
from ham.ingest.urls import MALFORMED, parse_url

log = logging.getLogger("ham.ingest")


@dataclass
class Problem:
    """One piece of input that could not be used. ``file`` is relative to the corpus root."""

    file: str
    problem: str
    skipped: str  # what was left out: "document", "image", "file", "question", ...

    def __str__(self) -> str:
        return f"{self.file}: {self.problem} ({self.skipped} skipped)"


@dataclass
class IngestReport:
    """Problems (input that could not be used, each logged), exclusions: content left out on
    purpose (page headers and footers by kind, page numbers, front matter, a parser's discarded
    blocks, inline icons kept as text), counted by kind, per file; and measures: counts a format
    takes of what it read (a PDF's bookmarks and how many were aligned, its text tokens, glued
    tokens and punctuation set off by a space), per file."""

    root: Path
    problems: list[Problem] = field(default_factory=list)
    documents: int = 0
    ignored_files: list[str] = field(default_factory=list)
    excluded: dict[str, Counter] = field(default_factory=dict)
    measures: dict[str, Counter] = field(default_factory=dict)

    def add(self, file: Path | str, problem: str, skipped: str) -> None:
        rel = self.rel(file)
        entry = Problem(rel, problem, skipped)
        self.problems.append(entry)
        log.warning("%s", entry)

    def exclude(self, file: Path | str, what: str, n: int = 1) -> None:
        """Count ``n`` pieces of ``file`` left out on purpose as ``what`` ("page footer", ...)."""
        if n:
            self.excluded.setdefault(self.rel(file), Counter())[what] += n

    def measure(self, file: Path | str, what: str, n: int) -> None:
        """Add ``n`` to the measure ``what`` of ``file`` ("glued tokens", ...); zero is recorded."""
        self.measures.setdefault(self.rel(file), Counter())[what] += n

    def excluded_totals(self) -> Counter:
        return _total(self.excluded)

    def measure_totals(self) -> Counter:
        return _total(self.measures)

    def rel(self, file: Path | str) -> str:
        path = Path(file)
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return str(file)

    def summary(self) -> str:
        lines = [f"ingest: {self.documents} documents from {self.root}"]
        if self.problems:
            counts = Counter(p.skipped for p in self.problems)
            lines.append("skipped: " + ", ".join(f"{n} {kind}(s)" for kind, n in sorted(counts.items())))
            lines.extend(f"  - {p}" for p in self.problems)
        totals = self.excluded_totals()
        if totals:
            lines.append("excluded on purpose: " + ", ".join(f"{n} {what}" for what, n in sorted(totals.items())))
        measured = self.measure_totals()
        if measured:
            lines.append("measured: " + ", ".join(f"{n} {what}" for what, n in sorted(measured.items())))
            if measured.get("text tokens"):
                lines.append(f"glued tokens: {measured['glued tokens'] / measured['text tokens']:.2%} of "
                             f"{measured['text tokens']}, punctuation set off by a space: "
                             f"{measured['punctuation set off by a space'] / measured['text tokens']:.2%} "
                             "(per file: excluded_by_file / measures_by_file)")
        if self.ignored_files:
            shown = ", ".join(self.ignored_files[:20]) + (f", … ({len(self.ignored_files) - 20} more)"
                                                         if len(self.ignored_files) > 20 else "")
            lines.append(f"not a supported document format (left alone): {len(self.ignored_files)} file(s): {shown}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"root": str(self.root), "documents": self.documents,
                "problems": [asdict(p) for p in self.problems], "ignored_files": self.ignored_files,
                "excluded": dict(sorted(self.excluded_totals().items())),
                "excluded_by_file": {f: dict(sorted(c.items())) for f, c in sorted(self.excluded.items())},
                "measures": dict(sorted(self.measure_totals().items())),
                "measures_by_file": {f: dict(sorted(c.items())) for f, c in sorted(self.measures.items())}}


def _total(per_file: dict[str, Counter]) -> Counter:
    total: Counter = Counter()
    for counts in per_file.values():
        total.update(counts)
    return total




def resolve_image(ref: str, base_dir: Path, root: Path, report: IngestReport,
                  source: Path) -> str | None:
    """Resolve an image reference as written in ``source`` to a path relative to ``root``.

    Returns None (and records why against ``source``) when the reference is remote, points outside
    the corpus root (such files are never opened), or names a missing, empty or corrupt file.
    """
    parsed = parse_url(ref)
    if parsed.scheme == MALFORMED:
        report.add(source, f"image {ref!r} is not a valid URL", "image")
        return None
    if parsed.scheme in ("http", "https", "ftp", "data"):
        report.add(source, f"image {ref!r} is remote or inline and is not fetched", "image")
        return None
    rel = unquote(parsed.path if parsed.scheme in ("", "file") else ref)
    candidate = (base_dir / PurePosixPath(rel)) if not PurePosixPath(rel).is_absolute() else Path(rel)
    resolved = Path(*candidate.parts).resolve()
    try:
        inside = resolved.relative_to(root.resolve())
    except ValueError:
        report.add(source, f"image {ref!r} points outside the corpus root (not read)", "image")
        return None
    problem = image_problem(resolved)
    if problem:
        report.add(source, f"image {ref!r}: {problem}", "image")
        return None
    return inside.as_posix()


def read_bytes(path: Path, report: IngestReport) -> bytes | None:
    """A document file's bytes; when it cannot be read, record why and return None."""
    try:
        return path.read_bytes()
    except OSError as exc:
        report.add(path, f"cannot read file ({exc})", "document")
        return None


def read_text(path: Path, report: IngestReport) -> str | None:
    """Read a UTF-8 text file; on bad bytes, record the problem and return None."""
    data = read_bytes(path, report)
    if data is None:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        report.add(path, f"not valid UTF-8 (byte {exc.start}: {exc.reason})", "document")
        return None


def read_json(path: Path, report: IngestReport):
    """Read a JSON file; when it is unreadable or corrupt, record the problem and return None."""
    text = read_text(path, report)
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        report.add(path, f"corrupt JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})", "document")
        return None
