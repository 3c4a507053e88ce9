"""The layouts a price page is made of, each turned into *blocks* (sources._internal.page_offer):
one candidate offer as text cells with the label of each cell where the page gives one.

- rows: table rows without their table (a capture that starts inside a `<table>`, or a table with
  no header), grouped by their parent; the labels come from a header row of `<th>` cells if any,
  or from `<th>` cells a capture cut from their `<tr>`, standing right before the first row.
- grid: sibling elements of one tag and class that repeat the same structure, each naming one GPU
  and holding a price or a "Contact us": `<div>` tables and price cards alike. A member's columns
  are its child elements (below wrappers of one child); the grid's header is the nearest element
  before the grid (a sibling, or a sibling of an ancestor: `<div class=head>` beside
  `<div class=body>`) with as many columns, naming no GPU and no price. Its texts label the
  columns, so "Preemptible, GPU-hour | On-demand, GPU-hour" tells the two prices apart. A header
  row whose own element a capture cut leaves its cells loose before the first member: they are
  the header when there are as many as columns and together they read as one.
- data: data embedded in the page's scripts: JSON-LD, Next.js, Wix, JavaScript object literals.
- selectors: an entry's CSS selectors: `row` (one offer per match) or `split` (each match starts an
  offer that runs to the next match, for cards whose parts are not nested in one element).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

import chompjs
from bs4 import BeautifulSoup, NavigableString, Tag

from sources._internal.page_offer import Block
from sources._internal.page_text import (
    MONEY,
    Settings,
    family,
    gpu_count,
    gpu_mentions,
    label_meaning,
)
from sources._internal.price_page import NOT_A_PRICE
from sources._internal.records import ParseError
from sources._internal.tables import panel_count

SKIP_TAGS = ("script", "style", "noscript", "template", "s", "del", "strike", "svg", "head")
_MAX_SCRIPT = 3_000_000


def _texts(element: Tag) -> list[str]:
    """The element's visible text pieces in order, without struck-through prices and scripts."""
    out: list[str] = []

    def walk(node) -> None:
        for child in node.children:
            if isinstance(child, NavigableString):
                if type(child) is NavigableString:
                    text = re.sub(r"\s+", " ", str(child)).strip()
                    if text:
                        out.append(text)
            elif isinstance(child, Tag) and child.name not in SKIP_TAGS:
                walk(child)

    walk(element)
    return out


def _cell_text(cell: Tag) -> str:
    return " ".join(_texts(cell))


def table_blocks(soup: BeautifulSoup) -> list[Block]:
    """Rows of tables without a usable header and rows without their `<table>`."""
    groups: dict[int, list[Tag]] = defaultdict(list)
    parents: dict[int, Tag] = {}
    for tr in soup.find_all("tr"):
        parent = tr.parent
        if parent is not None and parent.name in ("thead", "tbody", "tfoot") and parent.parent:
            parent = parent.parent  # a header in <thead> labels the rows in <tbody>
        groups[id(parent)].append(tr)
        parents[id(parent)] = parent
    blocks = []
    for n, rows in enumerate(groups.values(), start=1):
        labels: list[str | None] = _cut_header(rows[0])
        for r_idx, tr in enumerate(rows, start=1):
            cells = tr.find_all(["td", "th"], recursive=False)
            texts = [_cell_text(c) for c in cells]
            if cells and all(c.name == "th" for c in cells) and not any(map(gpu_mentions, texts)):
                labels = list(texts)
                continue
            if any(texts):  # a row that does not line up with its header is read without it
                row_labels = labels if len(labels) == len(texts) else []
                tab = panel_count(tr)
                if tab and gpu_count(texts, "")[0] is None:  # the count its tab names ("8x")
                    texts, row_labels = texts + [f"{tab} GPUs"], row_labels and row_labels + ["tab"]
                blocks.append(Block(f"rows {n} row {r_idx}", texts, row_labels))
    # a capture cut in the middle of a row leaves its cells without a <tr>
    loose: dict[int, list[Tag]] = defaultdict(list)
    for td in soup.find_all("td"):
        if td.parent is not None and td.parent.name not in ("tr",):
            loose[id(td.parent)].append(td)
    for n, cells in enumerate(loose.values(), start=1):
        texts = [_cell_text(c) for c in cells]
        if any(texts):
            blocks.append(Block(f"cut row {n}", texts))
    return blocks


def _cut_header(first_row: Tag) -> list[str | None]:
    """The header cells a capture cut from their `<tr>` (DataCrunch 2025: `<th>`s before
    `</tr></thead>` with no `<tr>` to open them): the `<th>`s right before the first row, outside
    any `<tr>`, as many as the row has cells; [] when there are none."""
    width = len(first_row.find_all(["td", "th"], recursive=False))
    cells = list(reversed(first_row.find_all_previous("th", limit=width)))
    if width < 2 or len(cells) != width or any(c.find_parent("tr") for c in cells):
        return []
    texts = [_cell_text(c) for c in cells]
    return list(texts) if _reads_as_header(texts) else []


def _reads_as_header(texts: list[str]) -> bool:
    """Texts that read as a header row: each short with a word in it, none naming a GPU or being a
    bare price, at least half of them meaning a column gpuledger knows and one a price."""
    if not texts or any(
        not t or len(t) >= 60 or not re.search(r"[A-Za-z]", t) or gpu_mentions(t) for t in texts
    ):
        return False
    if any(MONEY.fullmatch(t.strip()) for t in texts):
        return False
    meanings = [label_meaning(t) for t in texts]
    return "price" in meanings and 2 * sum(m is not None for m in meanings) >= len(texts)


def _signature(tag: Tag) -> tuple[str, str]:
    """Siblings of one kind: the same tag and first class ("plan-card featured" is a plan-card)."""
    classes = tag.get("class") or []
    return tag.name, classes[0] if classes else ""


def _has_price_or_refusal(texts: list[str]) -> bool:
    joined = " ".join(texts)
    return bool(MONEY.search(joined) or NOT_A_PRICE.search(joined))


def grid_blocks(soup: BeautifulSoup) -> list[Block]:
    """Repeated siblings each naming one GPU with a price or a refusal: grids and cards."""
    candidates: list[tuple[Tag, list[Tag], list[Tag]]] = []
    for parent in [soup, *soup.find_all(True)]:  # a capture's cut can leave the grid at the top
        if parent.name in SKIP_TAGS or parent.name in ("table", "thead", "tbody", "tr"):
            continue
        by_sig: dict[tuple, list[Tag]] = defaultdict(list)
        for child in parent.find_all(True, recursive=False):
            if child.name not in SKIP_TAGS and child.name not in ("tr", "td", "th", "br"):
                by_sig[_signature(child)].append(child)
        for members in by_sig.values():
            if len(members) < 2:
                continue
            offers, others = [], []
            for m in members:
                texts = _texts(m)
                families = {family(g) for g in gpu_mentions(" ".join(texts))}
                if len(families) >= 1 and _has_price_or_refusal(texts):
                    offers.append(m)
                else:
                    others.append(m)
            if len(offers) >= 2:
                candidates.append((parent, offers, others))
    # the innermost groups: drop a group whose members contain another group's members
    chosen = []
    for parent, offers, others in candidates:
        inner = any(
            other is not parent and any(p is parent or p in offers for p in other.parents)
            for other, _, _ in candidates
        )
        if not inner:
            chosen.append((parent, offers, others))
    blocks = []
    for g, (parent, offers, _others) in enumerate(chosen, start=1):
        siblings = [c for c in parent.find_all(True, recursive=False) if c not in offers]
        header = _grid_header(siblings, offers)
        widths = [len(_columns(o)) for o in offers]
        width = max(set(widths), key=widths.count)
        column_header = _column_header(parent, width) or _loose_header(offers[0], width)
        name = ".".join([parent.name, *(parent.get("class") or [])[:2]])
        for i, member in enumerate(offers, start=1):
            where = f"grid {g} ({name}) item {i}"
            if column_header and len(_columns(member)) == width:
                cells = [_cell_text(c) for c in _columns(member)]
                blocks.append(Block(where, cells, list(column_header)))
                continue
            texts = _texts(member)
            labels = list(header) if header and len(header) == len(texts) else []
            blocks.append(Block(where, texts, labels))
    return blocks


def _unwrapped(tag: Tag) -> Tag:
    """The element below wrappers of one child element and no text of their own."""
    while True:
        children = [c for c in tag.find_all(True, recursive=False) if c.name not in SKIP_TAGS]
        own = "".join(str(s) for s in tag.find_all(string=True, recursive=False)).strip()
        if len(children) != 1 or own:
            return tag
        tag = children[0]


def _columns(tag: Tag) -> list[Tag]:
    """A grid member's columns: the child elements of its innermost wrapper."""
    inner = _unwrapped(tag)
    return [c for c in inner.find_all(True, recursive=False) if c.name not in SKIP_TAGS]


def _column_header(parent: Tag, width: int) -> list[str] | None:
    """The grid's header row: the nearest element before the grid's members (a sibling of their
    parent or of one of its next three ancestors) with `width` columns that name no GPU and no
    price. None for a grid of one column or no such element."""
    if width < 2:
        return None
    node: Tag | None = parent
    for _ in range(4):
        if node is None:
            return None
        for sibling in node.find_previous_siblings(True, limit=3):
            columns = _columns(sibling)
            texts = [_cell_text(c) for c in columns]
            joined = " ".join(texts)
            if (
                len(columns) == width
                and sum(1 for t in texts if t) >= width - 1
                and all(len(t) < 60 for t in texts)
                and not gpu_mentions(joined)
                and not MONEY.search(joined)
            ):
                return texts
        node = node.parent
    return None


def _loose_header(first: Tag, width: int) -> list[str] | None:
    """A header row whose own element a capture cut (FluidStack 2023: "GPU Model" ... "GPU 6 Month
    Cost (/hr)" left as loose siblings before the first row): the `width` elements right before the
    grid's first member, one header cell each, when together they read as a header."""
    if width < 2:
        return None
    cells = list(reversed(first.find_previous_siblings(True, limit=width)))
    if len(cells) != width or any(len(_texts(c)) != 1 for c in cells):
        return None
    texts = [_cell_text(c) for c in cells]
    return texts if _reads_as_header(texts) else None


def _grid_header(siblings: list[Tag], offers: list[Tag]) -> list[str] | None:
    """A sibling of the offers that names no GPU and no price and has as many text pieces as
    they have: the grid's header row."""
    sizes = {len(_texts(o)) for o in offers}
    for sibling in siblings:
        texts = _texts(sibling)
        joined = " ".join(texts)
        if (
            len(texts) in sizes
            and len(texts) > 1
            and not gpu_mentions(joined)
            and not MONEY.search(joined)
        ):
            return texts
    return None


def script_objects(
    soup: BeautifulSoup, url: str, notes: list[str] | None = None
) -> Iterator[tuple[str, Any]]:
    """(where, object) for every data object embedded in the page's scripts; a data script that
    cannot be read is noted in `notes` (why a page yielded nothing)."""
    notes = notes if notes is not None else []
    next_chunks = []
    for n, script in enumerate(soup.find_all("script"), start=1):
        text = script.string or "".join(script.strings)
        if not text or len(text) > _MAX_SCRIPT or script.get("src"):
            continue
        kind = (script.get("type") or "").lower()
        ident = script.get("id") or ""
        where = f"script {n}" + (f" #{ident}" if ident else "") + (f" ({kind})" if kind else "")
        if "json" in kind:
            try:
                yield where, json.loads(text)
                continue
            except json.JSONDecodeError as exc:
                notes.append(f"{where}: not valid JSON ({exc})")
        if "self.__next_f.push" in text:
            for chunk in re.findall(r"self\.__next_f\.push\((\[.*?\])\)", text, re.S):
                try:
                    parts = json.loads(chunk)
                except json.JSONDecodeError:
                    continue
                next_chunks += [p for p in parts if isinstance(p, str)]
            continue
        if kind and "javascript" not in kind and "json" not in kind:
            continue
        try:
            for obj in chompjs.parse_js_objects(text):
                yield where, obj
        except Exception:  # noqa: BLE001 - not a data script (code chompjs cannot read)
            continue
    if next_chunks:
        payload = "".join(next_chunks)
        for line in payload.splitlines():
            body = line.split(":", 1)[1] if re.match(r"^[0-9a-f]+:", line) else line
            try:
                for obj in chompjs.parse_js_objects(body):
                    yield "Next.js flight data", obj
            except Exception:  # noqa: BLE001 - a line of markup, not data
                continue


def _scalars(obj: dict, prefix: str = "", depth: int = 0) -> list[tuple[str, str]]:
    out = []
    for key, value in obj.items():
        label = f"{prefix}{key}"
        if isinstance(value, dict) and depth < 2:
            out += _scalars(value, f"{label}.", depth + 1)
        elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
            out.append((label, str(value)))
    return out


def data_blocks(objects: Iterable[tuple[str, Any]]) -> list[Block]:
    blocks: list[Block] = []

    def offer_like(pairs: list[tuple[str, str]]) -> bool:
        kinds = [(label_meaning(k.split(".")[-1]), v) for k, v in pairs]
        names = any(gpu_mentions(v) for kind, v in kinds if kind != "price")
        priced = any(kind == "price" for kind, _ in kinds)
        return names and priced

    def visit(node: Any, where: str, inherited: list[tuple[str, str]]) -> bool:
        if isinstance(node, list):
            found = False
            for i, item in enumerate(node):
                found |= visit(item, f"{where}[{i}]", inherited)
            return found
        if not isinstance(node, dict):
            return False
        pairs = _scalars(node)
        names = [(k, v) for k, v in pairs if gpu_mentions(v) and len(v) < 80]
        below = False
        for key, value in node.items():
            if isinstance(value, (list, dict)):
                below |= visit(value, f"{where}.{key}", names or inherited)
        if below:
            return True
        own = pairs if any(gpu_mentions(v) for _, v in pairs) else inherited + pairs
        if offer_like(own):
            blocks.append(Block(where, [v for _, v in own], [k for k, _ in own]))
            return True
        return False

    for where, obj in objects:
        visit(obj, where, [])
    return blocks


def selector_blocks(soup: BeautifulSoup, url: str, settings: Settings) -> list[Block]:
    """The blocks an entry's selectors name: `row` (one offer per match, its cells the `gpu`,
    `count`, `memory`, `price` matches inside it, else its text pieces) or `split` (each match
    starts an offer running to the next match; its cells the text pieces in between)."""
    split = settings.selector("split")
    if split:
        starts = soup.select(split)
        if not starts:
            raise ParseError(
                url, f"selector {split!r}", "matched nothing: the page's layout changed"
            )
        return [Block(f"{split} {i}", _texts_until(start, starts[i] if i < len(starts) else None))
                for i, start in enumerate(starts, start=1)]  # fmt: skip
    row_selector = settings.selector("row")
    rows = soup.select(row_selector)
    if not rows:
        reason = "matched nothing: the page's layout changed"
        raise ParseError(url, f"selector {row_selector!r}", reason)
    blocks = []
    for i, row in enumerate(rows, start=1):
        cells, labels = [], []
        for name in ("gpu", "count", "memory", "price"):
            selector = settings.selector(name)
            if not selector:
                continue
            for element in row.select(selector):
                cells.append(_cell_text(element))
                labels.append(name)
        if not any(settings.selector(n) for n in ("gpu", "count", "memory", "price")):
            cells, labels = _texts(row), []
        blocks.append(Block(f"{row_selector} {i}", cells, labels))
    return blocks


def _texts_until(start: Tag, stop: Tag | None, limit: int = 60) -> list[str]:
    """The visible text pieces from `start` on, in document order, up to `stop` (or `limit`)."""
    out: list[str] = []
    for node in start.next_elements:
        if node is stop or len(out) >= limit:
            break
        if type(node) is NavigableString and not node.find_parent(SKIP_TAGS):
            text = re.sub(r"\s+", " ", str(node)).strip()
            if text:
                out.append(text)
    return out
