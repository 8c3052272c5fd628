"""A small table model rendered as Markdown and LaTeX (booktabs), best value per column in bold.

A ``Column`` whose ``best`` is ``"max"`` or ``"min"`` bolds the best numeric value of that column
(every tied value) when at least two rows have one; ``Table.bold_within`` names a row header
(``dataset``) whose rows are compared only among themselves, and ``values["<key>:group"]`` puts a
cell in a comparison group of its own (M Avg.s missing the same parts). Missing values print as
``–``. A cell's mark (``values["<key>:mark"]``, e.g. ``†``) is printed after the number; notes
explain the marks. A
value flagged ``values["<key>:incomparable"]`` (a mean over other parts or questions than the
column's others) is never bold and never takes the best from the others.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

MISSING = "–"
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "†": r"\dag{}", "‡": r"\ddag{}", "§": r"\S{}", "¶": r"\P{}", "‖": r"$\|$",
                  "→": r"$\rightarrow$", "·": r"$\cdot$", "—": "---", "–": "--", "−": r"$-$", "±": r"$\pm$", "√": r"$\surd$", "×": r"$\times$"}
_XBAR = "x\u0304"   # x̄: x with a combining macron


def latex_escape(text: str) -> str:
    parts = str(text).split(_XBAR)
    return r"$\bar{x}$".join("".join(_LATEX_SPECIAL.get(ch, ch) for ch in part) for part in parts)


def markdown_escape(text: str) -> str:
    return str(text).replace("|", "\\|")


@dataclass
class Column:
    key: str
    header: str
    group: str = ""            # spanning header, e.g. the dataset
    best: str | None = "max"   # "max", "min" or None (never bold)
    digits: int = 2


@dataclass
class Table:
    name: str                                  # file stem
    caption: str
    row_header: list[str]
    columns: list[Column]
    rows: list[tuple[list[str], dict]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    bold_within: str | None = None             # a row header (e.g. "dataset"): best per value of it

    def _group(self, labels: list[str], values: dict, key: str) -> tuple:
        """The cells a cell's value is compared with: those of rows with the same ``bold_within``
        label and the same ``values["<key>:group"]``."""
        within = labels[self.row_header.index(self.bold_within)] if self.bold_within else None
        return within, values.get(f"{key}:group")

    def best(self, col: Column, group: tuple = (None, None)) -> float | None:
        """The best value of a comparison group (``_group``), None where fewer than two rows have one."""
        return self._bests(col).get(group)

    def _bests(self, col: Column) -> dict[tuple, float]:
        """Comparison group -> its best value, for groups where at least two rows have a number."""
        numbers: dict[tuple, list[float]] = {}
        for labels, v in self.rows:
            x = v.get(col.key)
            if (isinstance(x, (int, float)) and not isinstance(x, bool) and not math.isnan(x)
                    and not v.get(f"{col.key}:incomparable")):
                numbers.setdefault(self._group(labels, v, col.key), []).append(x)
        if col.best is None:
            return {}
        return {g: (max(xs) if col.best == "max" else min(xs)) for g, xs in numbers.items() if len(xs) >= 2}

    def cells(self) -> list[tuple[list[str], list[tuple[str, bool]]]]:
        """Each row's label cells and (text, is_best) per column."""
        best = {c.key: self._bests(c) for c in self.columns}
        out = []
        for labels, values in self.rows:
            row = []
            for c in self.columns:
                v = values.get(c.key)
                if v is None or (isinstance(v, float) and math.isnan(v)):
                    row.append((MISSING, False))
                    continue
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    text = f"{v:.{c.digits}f}" if isinstance(v, float) else str(v)
                    top = best[c.key].get(self._group(labels, values, c.key))
                    is_best = (top is not None and not values.get(f"{c.key}:incomparable")
                               and round(v, c.digits) == round(top, c.digits))
                else:
                    text, is_best = str(v), False
                row.append((text + values.get(f"{c.key}:mark", ""), is_best))
            out.append((labels, row))
        return out

    def groups(self) -> list[tuple[str, int]]:
        spans: list[tuple[str, int]] = []
        for c in self.columns:
            if spans and spans[-1][0] == c.group:
                spans[-1] = (c.group, spans[-1][1] + 1)
            else:
                spans.append((c.group, 1))
        return spans


def to_markdown(table: Table) -> str:
    has_groups = any(c.group for c in table.columns)
    headers = table.row_header + [markdown_escape(f"{c.group} {c.header}" if has_groups and c.group else c.header)
                                  for c in table.columns]
    lines = [f"**{markdown_escape(table.caption)}**", "", "| " + " | ".join(headers) + " |",
             "|" + "|".join([" --- "] * len(table.row_header) + [" ---: "] * len(table.columns)) + "|"]
    for labels, row in table.cells():
        cells = [markdown_escape(x) for x in labels] + [f"**{t}**" if b else markdown_escape(t) for t, b in row]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [""] + [f"{markdown_escape(n)}  " for n in table.notes]
    return "\n".join(lines).rstrip() + "\n"


def to_latex(table: Table) -> str:
    n_label = len(table.row_header)
    spec = "l" * n_label + "r" * len(table.columns)
    lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{latex_escape(table.caption)}}}",
             rf"\label{{tab:{table.name}}}", rf"\begin{{tabular}}{{{spec}}}", r"\toprule"]
    if any(c.group for c in table.columns):
        spans, rules, start = [], [], n_label + 1
        for group, width in table.groups():
            spans.append(rf"\multicolumn{{{width}}}{{c}}{{{latex_escape(group)}}}" if group else "")
            if group:
                rules.append(rf"\cmidrule(lr){{{start}-{start + width - 1}}}")
            start += width
        lines += [" & ".join([""] * n_label + spans) + r" \\", " ".join(rules)]
    lines.append(" & ".join([latex_escape(h) for h in table.row_header]
                            + [latex_escape(c.header) for c in table.columns]) + r" \\")
    lines.append(r"\midrule")
    for labels, row in table.cells():
        cells = [latex_escape(x) for x in labels] + [rf"\textbf{{{latex_escape(t)}}}" if b else latex_escape(t)
                                                     for t, b in row]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if table.notes:
        lines.append(r"\par\smallskip{\footnotesize " + latex_escape(" ".join(table.notes)) + "}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def write_table(table: Table, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    md, tex = folder / f"{table.name}.md", folder / f"{table.name}.tex"
    md.write_text(to_markdown(table), encoding="utf-8")
    tex.write_text(to_latex(table), encoding="utf-8")
    return [md, tex]
