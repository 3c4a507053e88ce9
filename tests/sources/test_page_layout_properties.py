"""Layout changes built from the real captures (tests/fixtures/page_captures/) never yield an
accepted price with a wrong label: every variant is read right or refused.

For each layout (a `<table>`, rows without their `<table>`, a table whose header was cut from its
row, `<div>` grids with a header row beside them or cut loose, Webflow items under a heading, a
table in the tab panel "8x" of "8x | 4x | 2x | 1x"), the variants are exhaustive, not sampled:

- every permutation of the price columns (each header cell moves with its column): read the same;
- an unlabelled price column "$9.99" added at every position from the first price column to the
  end, its header cell empty: $9.99 is never accepted, what is accepted is what the page prices;
- the header dropped, in every permutation of the price columns: what is accepted is what the
  page prices (without its labels most offers are refused, none mislabelled);
- for the tab panel, every order of the tabs: the panel keeps its own tab's count.

Hypothesis is not a pinned dependency (constraints.txt); these are plain parametrized tests.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from bs4 import BeautifulSoup, Tag

from sources import price_page
from sources._internal.records import ParseError
from tests.sources.test_page_captures import (
    COREWEAVE,
    CRUSOE_GRID,
    CRUSOE_TABLE,
    DATACRUNCH,
    EXPECTED,
    FLUIDSTACK,
    HYPERSTACK,
    LAMBDA,
    LAMBDA_TABS,
    NEBIUS,
    PAGES,
    VOLTAGE,
    VOLTAGE_ENTRY,
    _offers,
    _read,
)


def _children(tag: Tag) -> list[Tag]:
    return tag.find_all(True, recursive=False)


def _table_header(soup: BeautifulSoup) -> list[Tag]:
    head = soup.find("tr")
    return _children(head) if head and not head.find("td") else []


def _table_rows(soup: BeautifulSoup) -> list[list[Tag]]:
    return [_children(tr) for tr in soup.find_all("tr") if tr.find("td")]


def _th_cells(soup: BeautifulSoup) -> list[Tag]:
    return soup.find_all("th")


def _fluidstack_header(soup: BeautifulSoup) -> list[Tag]:
    first = soup.select_one(".pricing-row")
    return list(reversed(first.find_previous_siblings(True, limit=6)))


def _rows(selector: str) -> Callable[[BeautifulSoup], list[list[Tag]]]:
    return lambda soup: [_children(row) for row in soup.select(selector)]


def _header(selector: str) -> Callable[[BeautifulSoup], list[Tag]]:
    def cells(soup: BeautifulSoup) -> list[Tag]:
        head = soup.select_one(selector)
        return _children(head) if head else []

    return cells


def _coreweave_header(soup: BeautifulSoup) -> list[Tag]:
    # the capture keeps one header element ("GPU Component" / "Cost Per Hour"), not per column
    return [d for d in soup.find_all("div") if d.get_text(" ", strip=True).startswith("GPU Comp")][
        -1:
    ]


def _table_restored(html: str) -> str:
    """DataCrunch's capture with the `<table><thead><tr>` the cut removed put back: the table as
    the page had it."""
    at = html.index("<th")
    return html[:at] + "<table><thead><tr>" + html[at:]


@dataclass(frozen=True)
class Layout:
    name: str
    page: str
    header: Callable[[BeautifulSoup], list[Tag]]  # header cells in column order
    rows: Callable[[BeautifulSoup], list[list[Tag]]]  # each data row's cells
    prices: tuple[int, ...]  # the positions of the price columns
    cell: str  # an unlabelled price cell in the page's own markup
    source: Callable[[str], str] = staticmethod(lambda html: html)

    def html(self) -> str:
        return self.source((PAGES / self.page).read_text())

    def __str__(self) -> str:
        return self.name


LAYOUTS = [
    Layout("table crusoe 2025-05", CRUSOE_TABLE, _table_header, _table_rows, (1, 2, 3, 4, 5),
           "<td> $9.99 /hr </td>"),
    Layout("table hyperstack 2024", HYPERSTACK, _table_header, _table_rows, (4, 5),
           "<td>$ 9.99 per Hour</td>"),
    Layout("table datacrunch 2025 restored", DATACRUNCH, _th_cells, _table_rows, (7, 8, 9),
           "<td>$9.99/h</td>", _table_restored),
    Layout("rows cut from their header datacrunch 2025", DATACRUNCH, _th_cells, _table_rows,
           (7, 8, 9), "<td>$9.99/h</td>"),
    Layout("rows without table lambda 2024", LAMBDA, lambda soup: [], _table_rows, (5,),
           "<td>$9.99 / GPU / hr</td>"),
    Layout("tab panel lambda 2026", LAMBDA_TABS, _table_header, _table_rows, (5,),
           "<td>$9.99</td>"),
    Layout("div grid nebius 2026", NEBIUS, _header(".pc-highlight-table-block__head > div"),
           _rows(".pc-highlight-table-block__body > div"), (3, 4),
           '<div class="pc-highlight-table-block__cell"><div><p>$9.99</p></div></div>'),
    Layout("div grid loose header fluidstack 2023", FLUIDSTACK, _fluidstack_header,
           _rows(".pricing-row"), (4, 5),
           '<div class="pricing__col"><div class="pricing__text">$9.99</div></div>'),
    Layout("div grid coreweave 2023", COREWEAVE, _coreweave_header, _rows(".table-body-row"),
           (4,), '<div class="w-col w-col-2"><div><strong>$9.99</strong></div></div>'),
    Layout("webflow items crusoe 2025-12", CRUSOE_GRID, _header(".pricing-table-heading"),
           _rows(".pricing_gpu-item"), (1, 2),
           '<div class="pricing-rich w-richtext"><p>$9.99/GPU-hr</p></div>'),
]  # fmt: skip


def _permute(soup: BeautifulSoup, layout: Layout, order: tuple[int, ...]) -> None:
    """Put price column order[k] where price column k was, in the header and in every row."""
    header = layout.header(soup)
    width = max(len(cells) for cells in layout.rows(soup))
    for cells in [header, *layout.rows(soup)]:
        if len(cells) != width:
            continue  # a row the capture cut, or a header that is not one cell per column
        holes = []
        for p in layout.prices:
            hole = soup.new_tag("hole")
            cells[p].replace_with(hole)
            holes.append(hole)
        for hole, k in zip(holes, order, strict=True):
            hole.replace_with(cells[layout.prices[k]])


def _add_price_column(soup: BeautifulSoup, layout: Layout, at: int) -> int:
    """Add the unlabelled price at `at` in every whole row; the number of rows it went into."""
    header = layout.header(soup)
    width = max(len(cells) for cells in layout.rows(soup))
    added = 0
    for cells in [header, *layout.rows(soup)]:
        if len(cells) != width:
            continue
        added += cells is not header
        if cells is header:
            new = copy.copy(cells[0])
            new.clear()  # the header gets an empty cell
        else:
            new = BeautifulSoup(layout.cell, "html.parser").contents[0]
        if at < width:
            cells[at].insert_before(new)
        else:
            cells[-1].insert_after(new)
    return added


def _drop_header(soup: BeautifulSoup, layout: Layout) -> None:
    for cell in layout.header(soup):
        cell.decompose()


def _variant(layout: Layout, change) -> str:
    soup = BeautifulSoup(layout.html(), "html.parser")
    change(soup)
    return str(soup)


def _accepted(layout: Layout, html: str, entry=None) -> set:
    try:
        return _offers(_read(layout.page, entry, html.encode()))
    except ParseError:
        return set()  # nothing accepted: the page refused whole


def _cases(kind: str) -> list:
    cases = []
    for layout in LAYOUTS:
        orders = list(itertools.permutations(range(len(layout.prices))))
        if kind == "permute":
            cases += [pytest.param(layout, o, id=f"{layout}-{o}") for o in orders[1:]]
        elif kind == "drop":
            cases += [pytest.param(layout, o, id=f"{layout}-{o}") for o in orders]
        else:
            first = min(layout.prices)
            width = first + len(layout.prices) + 5  # enough: the last position is clamped
            ats = sorted({min(at, width) for at in range(first, max(layout.prices) + 2)})
            cases += [pytest.param(layout, at, id=f"{layout}-at{at}") for at in ats]
    return cases


def test_the_layouts_read_their_captures_as_expected():
    """The variants start from what the captures read: every layout's page as asserted."""
    for layout in LAYOUTS:
        assert _accepted(layout, layout.html()) == EXPECTED[layout.page], layout.name


@pytest.mark.parametrize(("layout", "order"), _cases("permute"))
def test_permuted_price_columns_read_the_same(layout, order):
    original = _read(layout.page, None, layout.html().encode())
    html = _variant(layout, lambda soup: _permute(soup, layout, order))
    assert html != layout.html()
    result = _read(layout.page, None, html.encode())
    assert _offers(result) == EXPECTED[layout.page]
    assert len(result.row_errors) == len(original.row_errors)


@pytest.mark.parametrize(("layout", "at"), _cases("add"))
def test_an_added_unlabelled_price_is_never_accepted_nor_mislabels_the_others(layout, at):
    added = []
    html = _variant(layout, lambda soup: added.append(_add_price_column(soup, layout, at)))
    assert added[0] >= 4 and html.count("9.99") == added[0]
    got = _accepted(layout, html)
    assert all(price != 9.99 for _name, _count, _model, price, _q in got)
    assert got <= EXPECTED[layout.page], got - EXPECTED[layout.page]


@pytest.mark.parametrize(("layout", "order"), _cases("drop"))
def test_a_dropped_header_in_any_column_order_never_yields_a_wrong_label(layout, order):
    def change(soup):
        _permute(soup, layout, order)
        _drop_header(soup, layout)

    got = _accepted(layout, _variant(layout, change))
    assert got <= EXPECTED[layout.page], got - EXPECTED[layout.page]


@pytest.mark.parametrize("order", list(itertools.permutations(range(4))))
def test_a_tab_panel_keeps_its_own_tabs_count_in_any_tab_order(order):
    """Lambda 2026: the table sits in the panel of the tab "8x" (tabs "8x | 4x | 2x | 1x"); the
    tabs in any order leave its rows 8-GPU offers."""
    soup = BeautifulSoup((PAGES / LAMBDA_TABS).read_text(), "html.parser")
    tabs = soup.find(attrs={"role": "tablist"})
    buttons = _children(tabs)
    assert [b.get_text() for b in buttons] == ["8x", "4x", "2x", "1x"]
    for b in buttons:
        b.extract()
    for k in order:
        tabs.append(buttons[k])
    assert _offers(_read(LAMBDA_TABS, None, str(soup).encode())) == EXPECTED[LAMBDA_TABS]


def test_the_card_entry_under_layout_changes():
    """Voltage Park's cards read by the documented entry: an added price in a card refuses that
    card, a selector that no longer matches fails the page with the selector named."""
    entry = price_page.check_entry("voltagepark", VOLTAGE_ENTRY, "test")
    original = (PAGES / VOLTAGE).read_text()
    added = original.replace("$1.99/hr</div>", "$1.99/hr</div><div>$9.99/hr</div>")
    got = _offers(_read(VOLTAGE, entry, added.encode()))
    assert got == {("H100", 8, "on_demand", 2.49, None)}
    dropped = original.replace("text-eyebrow", "text-other")
    with pytest.raises(ParseError, match="matched nothing"):
        _read(VOLTAGE, entry, dropped.encode())
