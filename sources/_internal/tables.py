"""Generic price-table extraction from HTML and markdown pages, by header meaning.

`extract_tables` turns a page into tables of text cells: HTML `<table>` elements (BeautifulSoup),
and markdown pipe tables rendered to HTML first (markdown-it), so a GitBook page that mixes both
yields both. `classify_header` tells what a column means, in English and German ("Cost per Hour",
"Preis/Std.", "VRAM", "Speicher", "Bandbreite", ...). `find_tables` returns the tables that have
the wanted meanings, or raises a ParseError naming the page and the headers it did find, so a page
whose layout changed fails loudly instead of yielding nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

from sources._internal.parsing import decode_text
from sources._internal.records import ParseError

# Order matters: the first rule whose pattern matches the normalised header wins.
HEADER_RULES: list[tuple[str, re.Pattern]] = [
    ("bandwidth", re.compile(r"bandwidth|bandbreite")),
    # model-API price tables: price per (million) input / output tokens
    ("input_price", re.compile(r"\binput\b|eingabe|\bprompt\b")),
    ("output_price", re.compile(r"\boutput\b|ausgabe|completion")),
    ("fp8_tflops", re.compile(r"fp8")),
    ("fp16_tflops", re.compile(r"fp16|bf16")),
    ("price", re.compile(r"\b(cost|price|preis|kosten|rate)\b|per hour|pro stunde|/std|/hr")),
    ("pricing_model", re.compile(r"pricing model|billing|commitment|tarif|abrechnung|laufzeit")),
    ("memory", re.compile(r"\bvram\b|gpu memory|\bmemory\b|speicher|\bram per gpu\b")),
    ("count", re.compile(r"^(gpus|gpu count|count|anzahl( gpus?)?|# ?gpus?|number of gpus)$")),
    (
        "offer",
        re.compile(
            r"\blabel\b|instance type|instanztyp|\bsku\b|offer|^(instance|instanz)( name)?$"
        ),
    ),
    ("kind", re.compile(r"^(type|typ|resource type|art)$")),
    (
        "gpu",
        re.compile(
            r"^(gpu|gpus? model|gpu type|model|modell|model name|description|beschreibung|class|"
            r"klasse|product|produkt|accelerator|grafikkarte)$"
        ),
    ),
]

GERMAN_HINTS = re.compile(r"preis|speicher|bandbreite|std\.|stunde|anzahl|beschreibung|modell")


def normalise_header(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w/#+. -]", " ", text.lower())).strip()


def classify_header(text: str) -> str | None:
    norm = normalise_header(text)
    for meaning, pattern in HEADER_RULES:
        if pattern.search(norm):
            return meaning
    return None


@dataclass
class Table:
    index: int  # position on the page, from 1
    headers: list[str]
    rows: list[list[str]]
    meanings: list[str | None] = field(default_factory=list)
    panel_count: int | None = None  # the GPU count the table's tab names ("8x"), see panel_count

    def column(self, meaning: str) -> int | None:
        return self.meanings.index(meaning) if meaning in self.meanings else None

    @property
    def locale(self) -> str:
        return "de" if GERMAN_HINTS.search(" ".join(self.headers).lower()) else "en"


_MARKDOWN = MarkdownIt("commonmark").enable("table")


def _looks_like_html(text: str) -> bool:
    head = text.lstrip()[:500].lower()
    return head.startswith(("<!doctype", "<html", "<table", "<!--", "<div", "<body"))


_DELIMITER_ROW = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _pipe_cells(line: str) -> int:
    return len(line.strip().strip("|").split("|"))


def _end_pipe_tables(text: str) -> str:
    """Repair what text captures do to pipe tables. They often drop the blank lines around a
    table (GFM would then read the following prose as more rows, or the table as the text of the
    list item before it): each table starts on a fresh block and ends at its last piped line.
    And they shorten the delimiter row ("|---|" under three headers, which GFM rejects as a
    table): it is widened to the header's cell count."""
    out, in_table = [], False
    lines = text.splitlines()
    for i, line in enumerate(lines):
        piped = "|" in line
        if in_table and line.strip() and not piped:
            out.append("")
        starts_table = (
            piped and not in_table and i + 1 < len(lines) and _DELIMITER_ROW.match(lines[i + 1])
        )
        if starts_table and out and out[-1].strip():
            out.append("")  # a table glued to the line before it would be read as that line's text
        if (
            _DELIMITER_ROW.match(line)
            and out
            and "|" in out[-1]
            and _pipe_cells(line) < _pipe_cells(out[-1])
        ):
            line = "|" + "---|" * _pipe_cells(out[-1])
        in_table = piped and line.strip() != ""
        out.append(line)
    return "\n".join(out)


_PANEL_COUNT = re.compile(
    r"^\s*(?:(\d{1,2})\s*[x×]|[x×]\s*(\d{1,2})|(\d{1,2})\s*GPUs?)\s*$", re.IGNORECASE
)


def panel_count(element) -> int | None:
    """The GPU count named by the tab of the tab panel holding `element`: a price table shown
    under tabs "8x | 4x | 2x | 1x" (role="tablist") is the table of that many GPUs, its rows name
    the GPU alone. None when the element is in no tab panel or its tab names no count alone."""
    panel = element.find_parent(attrs={"role": "tabpanel"})
    if panel is None:
        return None
    root = panel
    while root.parent is not None:
        root = root.parent
    tab = root.find(id=panel["aria-labelledby"]) if panel.get("aria-labelledby") else None
    if tab is None and panel.get("id"):
        tab = root.find(attrs={"aria-controls": panel["id"]})
    m = _PANEL_COUNT.match(tab.get_text(" ", strip=True)) if tab is not None else None
    return int(next(g for g in m.groups() if g)) if m else None


def _cell_text(cell) -> str:
    return re.sub(r"\s+", " ", cell.get_text(" ", strip=True)).strip()


def extract_tables(content: bytes | str, where: str) -> list[Table]:
    text = content if isinstance(content, str) else decode_text(content, where)
    html = text if _looks_like_html(text) else _MARKDOWN.render(_end_pipe_tables(text))
    soup = BeautifulSoup(html, "html.parser")
    tables = []
    for index, element in enumerate(soup.find_all("table"), start=1):
        rows = element.find_all("tr")
        if not rows:
            continue
        head = element.find("thead")
        header_row = head.find("tr") if head else rows[0]
        headers = [_cell_text(c) for c in header_row.find_all(["th", "td"])]
        body = [r for r in rows if r is not header_row]
        cells = [[_cell_text(c) for c in r.find_all(["td", "th"])] for r in body]
        cells = [r for r in cells if any(r)]
        meanings = [classify_header(h) for h in headers]
        tables.append(Table(index, headers, cells, meanings, panel_count(element)))
    return tables


def find_tables(tables: list[Table], where: str, required: tuple[str, ...]) -> list[Table]:
    """The tables that have every `required` meaning; a ParseError naming the page otherwise."""
    found = [t for t in tables if all(m in t.meanings for m in required)]
    if not found:
        seen = "; ".join(f"table {t.index}: {t.headers}" for t in tables) or "no tables at all"
        raise ParseError(
            where,
            "+".join(required),
            f"no table with {' and '.join(required)} columns any more ({seen})",
        )
    return found
