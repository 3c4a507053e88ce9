"""Pipe tables in Markdown documents, as vendors publish their performance tables: each table with
its line numbers, the heading it sits under and the caption line just above it, and the text lines
around it (where a publisher names the system it measured on).

Shared by the readers of published performance tables (TensorRT-LLM's performance overview, the
ROCm vLLM container's README); the readers decide what the columns mean, by their header text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sources._internal.records import ParseError
from sources.benchmarks.common import num

_SEPARATOR = re.compile(r"^\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


@dataclass
class Table:
    header: list[str]
    header_line: int  # 1-based line number of the header row
    rows: list[tuple[int, list[str]]]  # (line number, cells) below the separator
    heading: str  # the nearest heading above the table ("" if none)
    caption: str  # the non-empty text line right above the table ("" if a heading or nothing)
    after: list[str] = field(default_factory=list)  # text lines after the table, to the next one


def cells(line: str) -> list[str]:
    """ "| a | b |" -> ["a", "b"]; an empty cell stays "" (a table's blank cells mean "as above"
    or "not measured", which the reader decides)."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [c.strip() for c in body.split("|")]


def tables(text: str) -> list[Table]:
    """Every pipe table of the document, in order. A table is a header row, a separator row
    (`|---|:--|`) and the rows after it up to the first line that is no table row."""
    lines = text.splitlines()
    out: list[Table] = []
    heading, i = "", 0
    while i < len(lines):
        line = lines[i]
        m = _HEADING.match(line)
        if m:
            heading = m.group(2).strip()
        is_table = (
            line.lstrip().startswith("|")
            and i + 1 < len(lines)
            and _SEPARATOR.match(lines[i + 1].strip())
            and "-" in lines[i + 1]
        )
        if not is_table:
            i += 1
            continue
        above = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        caption = "" if (not above or _HEADING.match(above) or above.startswith("|")) else above
        rows, j = [], i + 2
        while j < len(lines) and lines[j].lstrip().startswith("|"):
            rows.append((j + 1, cells(lines[j])))
            j += 1
        after = []
        k = j
        while k < len(lines) and not (
            lines[k].lstrip().startswith("|") or _HEADING.match(lines[k])
        ):
            if lines[k].strip():
                after.append(lines[k].strip())
            k += 1
        out.append(Table(cells(line), i + 1, rows, heading, caption, after))
        i = j
    return out


def column(table: Table, where: str, *names: str, required: bool = True) -> int | None:
    """Index of the first header cell equal to one of `names` (case and spacing ignored). A
    missing required column is a layout change, named with the table's line."""
    wanted = [_key(n) for n in names]
    for i, h in enumerate(table.header):
        if _key(h) in wanted:
            return i
    if required:
        raise ParseError(
            where,
            names[0],
            f"column not found in the table at line {table.header_line} (header: "
            f"{' | '.join(table.header)}): the layout changed",
        )
    return None


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<br\s*/?>|\*\*", " ", text)).strip().lower()


def number(text: str) -> float | None:
    """A table figure: "13,383.3" or "13383.3" -> 13383.3; "" -> None (not measured). Raises
    ValueError for text that is no number (the row is then quarantined)."""
    clean = text.replace(",", "").strip()
    if clean in ("", "-", "—", "n/a", "N/A"):
        return None
    value = num(clean)
    if value is None:
        raise ValueError(f"not a number: {text!r}")
    return value
