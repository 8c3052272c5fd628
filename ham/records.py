"""Reading records from JSON files with the line each starts on, so that a bad record is reported
as ``file:line: problem`` and the rest are read: JSONL (one record per line), a JSON array (a raw
decoder walks the elements), or either by the file's first character. Shared by the question
readers (``ham.datasets``) and the corpus readers (``ham.ingest``)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator


def jsonl_records(path: Path, problems: list[str]) -> Iterator[tuple[int, object]]:
    """(line number, parsed JSON) of every non-empty line; a line that is not JSON is reported in
    ``problems`` with its file and line number and skipped. An unreadable file raises OSError."""
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield lineno, json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(f"{path}:{lineno}: not valid JSON ({exc.msg}) (question skipped)")


def json_array_records(path: Path, problems: list[str]) -> Iterator[tuple[int, object]]:
    """(line where the element starts, element) of a file holding one JSON array, read with a raw
    decoder so each record keeps its line number. After a syntax error the element is reported and
    reading resumes at the next line that opens an object at the first element's indentation."""
    text = path.read_text(encoding="utf-8-sig")
    decoder = json.JSONDecoder()
    n = len(text)
    i = text.index("[") + 1
    line, counted = 1, 0
    indent: str | None = None

    def line_at(pos: int) -> int:
        nonlocal line, counted
        line += text.count("\n", counted, pos)
        counted = pos
        return line

    while True:
        while i < n and text[i] in " \t\r\n,":
            i += 1
        if i >= n:
            problems.append(f"{path}:{line_at(n)}: the JSON array is not closed")
            return
        if text[i] == "]":
            return
        start = i
        if indent is None:
            indent = text[text.rfind("\n", 0, start) + 1: start]
        try:
            value, i = decoder.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            lineno = line_at(start)
            marker = "\n" + (indent or "") + "{"
            resume = text.find(marker, exc.pos)
            skipped = "the record is skipped" if resume != -1 else "the rest of the file is not read"
            problems.append(f"{path}:{lineno}: not valid JSON ({exc.msg} at line {exc.lineno}); {skipped}")
            if resume == -1:
                return
            i = resume + 1
            continue
        yield line_at(start), value


def records(path: Path, problems: list[str]) -> Iterator[tuple[int, object]]:
    """A JSON array file or a JSONL file, by its first character."""
    with path.open(encoding="utf-8-sig") as fh:
        head = fh.read(4096).lstrip()
    if head.startswith("["):
        return json_array_records(path, problems)
    return jsonl_records(path, problems)
