"""Reading and rewriting ``predictions.jsonl``: one policy for the runner, grids, tracking and
analysis.

A row is a JSON object with an ``id``. Reading goes line by line:
    * a later row for an id supersedes an earlier one (a resumed run redid that question);
    * a last line without its newline was torn by a kill: it is dropped (``repair`` cuts it off the
      file) and its question is answered again;
    * any other line that is not a row is reported as ``path:line: problem`` and skipped; a
      resumed run answers its question again and rewrites the file without it.
Writes replace the file atomically (a temporary file, then a rename).
"""
from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger("ham.run.predictions")


@dataclass
class Predictions:
    rows: dict[str, dict] = field(default_factory=dict)   # id -> its latest row, in first-seen order
    superseded: int = 0                                   # rows replaced by a later row of the same id
    problems: list[str] = field(default_factory=list)     # malformed lines, "path:line: problem"
    torn: bool = False                                    # the last line was cut off by a kill


def read(path: Path, repair: bool = False) -> Predictions:
    out = Predictions()
    if not path.exists():
        return out
    data = path.read_bytes()
    lines = data.split(b"\n")
    complete, tail = lines[:-1], lines[-1]
    for lineno, raw in enumerate(complete, 1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
            if not isinstance(row, dict) or "id" not in row:
                raise ValueError("not a prediction row (a JSON object with an id)")
        except (ValueError, UnicodeDecodeError) as exc:
            out.problems.append(f"{path}:{lineno}: {exc} (line skipped)")
            continue
        out.superseded += row["id"] in out.rows
        out.rows[row["id"]] = row
    if tail.strip():
        out.torn = True
        log.warning("%s: dropping a partly written last line; that question is answered again", path)
        if repair:
            with path.open("r+b") as fh:
                fh.truncate(len(data) - len(tail))
    for problem in out.problems:
        log.warning("%s", problem)
    return out


def read_predictions(path: Path, repair: bool = False) -> tuple[dict[str, dict], int]:
    """(rows by id, how many lines a rewrite would drop) under the policy above."""
    found = read(path, repair)
    return found.rows, found.superseded + len(found.problems)


def rewrite(path: Path, rows: list[dict]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    os.replace(tmp, path)
