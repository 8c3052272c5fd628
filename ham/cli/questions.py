"""``ham-questions FILE --format mmdocir|topograph|mmdocrag|mramg|jsonl|vidore|mmlongbench``: read a
questions file (for ``vidore``, a set folder) without indexing anything, so a dataset can be checked
before a long run.

Prints the number of questions read (as digits), the counts by topology and by kind (a dataset's
normalised type; MMDocIR also by its raw ``type`` string, MMLongBench-Doc by answer format, ViDoRe
by language: the rows of ``--language``, default english, as a run reads them), how
many carry gold evidence and gold pages, and every problem with its file and line number. Questions are counted as they are read, never held all at
once. Exit status 0 when at least one question was read, 1 when none could be (a missing or
unreadable file included).
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Callable, Iterator

from ham.datasets.questions import Question


def _jsonl_iter(path: Path, problems: list[str]) -> Iterator[Question]:
    from ham.datasets.questions import collect_questions, parse_question
    from ham.records import jsonl_records

    yield from collect_questions(jsonl_records(path, problems), lambda r: (parse_question(r), None), path, problems)


def _mramg_iter(path: Path, problems: list[str]) -> Iterator[Question]:
    from ham.datasets.mramg import question_maker
    from ham.datasets.questions import collect_questions, jsonl_records

    yield from collect_questions(jsonl_records(path, problems), question_maker(path), path, problems)


def _mmdocir_iter(path: Path, problems: list[str]) -> Iterator[Question]:
    from ham.datasets.mmdocir import iter_mmdocir

    return iter_mmdocir(path, problems)


def _topograph_iter(path: Path, problems: list[str]) -> Iterator[Question]:
    from ham.datasets.topograph import iter_topograph

    return iter_topograph(path, problems)


def _mmdocrag_iter(path: Path, problems: list[str]) -> Iterator[Question]:
    from ham.datasets.mmdocrag import iter_mmdocrag

    return iter_mmdocrag(path, problems)


def _vidore_iter(path: Path, problems: list[str], language: str = "english") -> Iterator[Question]:
    from ham.datasets.vidore import iter_vidore

    return iter_vidore(path, problems, language)


def _mmlongbench_iter(path: Path, problems: list[str]) -> Iterator[Question]:
    from ham.datasets.mmlongbench import iter_mmlongbench

    return iter_mmlongbench(path, problems)


# format -> a function yielding the file's questions and appending its problems
ITERATORS: dict[str, Callable[[Path, list[str]], Iterator[Question]]] = {
    "mmdocir": _mmdocir_iter, "topograph": _topograph_iter, "mmdocrag": _mmdocrag_iter,
    "mramg": _mramg_iter, "jsonl": _jsonl_iter, "vidore": _vidore_iter, "mmlongbench": _mmlongbench_iter,
}
FOLDER_FORMATS = {"vidore"}   # the questions are a folder (a ViDoRe set: queries/, qrels/, corpus/)


def summarise(path: Path, fmt: str, language: str = "english") -> tuple[dict, list[str]]:
    """Counts over the file's questions and its problems (``language``: the ViDoRe rows read)."""
    problems: list[str] = []
    iterate = (lambda p, probs: _vidore_iter(p, probs, language)) if fmt == "vidore" else ITERATORS[fmt]
    stats = {"questions": 0, "topology": Counter(), "kind": Counter(), "type": Counter(),
             "language": Counter(), "with_evidence": 0, "evidence_items": 0, "with_gold_pages": 0, "gold_pages": 0}
    try:
        for q in iterate(path, problems):
            stats["questions"] += 1
            stats["topology"][q.topology or "(none)"] += 1
            for kind in q.kinds or ["(none)"]:
                stats["kind"][kind] += 1
            if fmt == "mmdocir":
                stats["type"][str(q.meta.get("type_raw"))] += 1
            if fmt == "mmlongbench":
                stats["type"][str(q.meta.get("answer_format"))] += 1
            if fmt == "vidore":
                stats["language"][str(q.meta.get("language") or "(none)")] += 1
            if q.evidence:
                stats["with_evidence"] += 1
                stats["evidence_items"] += len(q.evidence)
            judged = [g for g in (q.meta.get("page_qrels") or {}).values() if g > 0]
            if judged:
                stats["with_gold_pages"] += 1
                stats["gold_pages"] += len(judged)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        problems.append(f"{path}: cannot read the questions file ({exc})")
    return stats, problems


def _counts(title: str, counter: Counter, out) -> None:
    if not counter:
        return
    print(f"by {title}:", file=out)
    width = max(len(k) for k in counter)
    for key, n in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {key:<{width}}  {n}", file=out)


def questions_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ham-questions", description="Read a questions file without "
                                     "indexing anything: count its questions and list its problems.")
    parser.add_argument("file", type=Path, help="the questions file")
    parser.add_argument("--format", required=True, choices=sorted(ITERATORS), help="the file's format")
    parser.add_argument("--language", default="english", help="vidore: the query language read (all: every "
                        "row), as dataset.reader.language")
    return parser


def questions_main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:          # ``ham-questions ... | head``
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _main(argv: list[str] | None) -> int:
    args = questions_parser().parse_args(argv)
    out = sys.stdout
    folder = args.format in FOLDER_FORMATS
    if not (args.file.is_dir() if folder else args.file.is_file()):
        print(f"ham-questions: {args.file} is not a {'folder' if folder else 'file'}", file=sys.stderr)
        return 1
    stats, problems = summarise(args.file, args.format, args.language)
    print(f"{stats['questions']} questions read from {args.file} (format {args.format})", file=out)
    _counts("topology", stats["topology"], out)
    _counts("kind", stats["kind"], out)
    _counts("answer format" if args.format == "mmlongbench" else "type (raw)", stats["type"], out)
    _counts("language", stats["language"], out)
    print(f"with gold evidence: {stats['with_evidence']} ({stats['evidence_items']} items)", file=out)
    if stats["with_gold_pages"] or args.format in ("vidore", "mmlongbench", "mmdocir"):
        print(f"with gold pages: {stats['with_gold_pages']} ({stats['gold_pages']} judged relevant)", file=out)
    print(f"problems: {len(problems)}", file=out)
    for problem in problems:
        print(f"  {problem}", file=out)
    return 0 if stats["questions"] else 1


if __name__ == "__main__":
    sys.exit(questions_main())
