"""Reading any provider's GPU price page without provider code: the automatic reading.

A page is turned into *blocks*, each one candidate offer as a list of text cells with the label of
each cell where the page gives one, from whichever layout the page is made of
(sources._internal.page_layouts): HTML and markdown tables by header meaning
(sources._internal.price_page), table rows without their table, repeated sibling elements (`<div>`
grids and price cards, labelled by the grid's header row), data embedded in scripts, or an entry's
CSS selectors. Each block is interpreted by what its cells say (sources._internal.page_offer, with
the cell reading of sources._internal.page_text): the GPU, its count, every price with the pricing
model and basis its label or words give it. An offer whose pricing model, count or price basis the
page does not determine is refused whole with the reason, never read with a default label.

Of the layouts that yield prices, the one with the most priced offers is taken (the same offers
often appear twice: as data and as rendered HTML). A page where no layout yields a GPU with a price
or a price-less GPU row raises a ParseError naming the page, what was looked for, and how an entry
with selectors can read a page the automatic reading cannot (docs/price-pages.md).
"""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import datetime

from bs4 import BeautifulSoup

from sources._internal.page_layouts import (
    data_blocks,
    grid_blocks,
    script_objects,
    selector_blocks,
    table_blocks,
)
from sources._internal.page_offer import Block, Offer, interpret, names_models
from sources._internal.page_text import (
    Settings,
    gpu_mentions,
    gpu_name,
    money_in,
    without_suffixes,
)
from sources._internal.parsing import decode_text
from sources._internal.price_page import parse_price_tables
from sources._internal.records import ParseError, ParseResult, PriceObservation

__all__ = ["Block", "Offer", "Settings", "gpu_name", "money_in", "read_page", "without_suffixes"]


def _group(block: Block) -> str:
    """The part of the page a block comes from (one grid, one table, one data script): a price
    that names no model is refused where the other prices of its part name theirs."""
    m = re.match(r"grid \d+|rows \d+|cut row|script \d+|Next\.js flight data", block.where)
    return m.group(0) if m else "page"


def _results(blocks: list[Block], url: str, settings: Settings, fetched_at: datetime):
    records, errors, seen = [], [], defaultdict(int)
    groups: dict[str, list[Block]] = defaultdict(list)
    for block in blocks:
        groups[_group(block)].append(block)
    allowed = {g: settings.model_configured or not names_models(members, settings)
               for g, members in groups.items()}  # fmt: skip
    for block in blocks:
        got = interpret(block, url, settings, allowed[_group(block)])
        if got is None:
            continue
        offers, row_errors = got
        errors += row_errors
        for o in offers:
            name, count, model, memory = o.name, o.count, o.model, o.memory
            base = f"{count}x {name}" if count > 1 else name
            if memory and f"{memory:g}" not in name:
                base = f"{base} {memory:g}GB"
            base = o.offer_id or base
            seen[(base, model)] += 1
            offer = base if seen[(base, model)] == 1 else f"{base} #{seen[(base, model)]}"
            records.append(
                PriceObservation(
                    provider=settings.provider,
                    offer_id=offer,
                    region="",
                    gpu_name_raw=name,
                    gpu_count=count,
                    pricing_model=model,
                    price_per_hour=o.price_per_hour,
                    currency=o.currency,
                    observed_at=fetched_at,
                    gpu_memory_gb=memory,
                    vcpus=o.vcpus,
                    ram_gb=o.ram,
                    price_qualifier=o.qualifier,
                )
            )
    return ParseResult(records, errors)


def read_page(content: bytes, url: str, fetched_at: datetime, settings: Settings) -> ParseResult:
    """The GPU prices of one captured page (see the module's docstring)."""
    text = decode_text(content, url)
    soup = BeautifulSoup(text, "html.parser")
    if settings.selector("row") or settings.selector("split"):
        return _results(selector_blocks(soup, url, settings), url, settings, fetched_at)
    attempts: list[tuple[str, ParseResult]] = []
    table_note = ""
    try:
        result = parse_price_tables(
            content, url, fetched_at, settings.provider,
            default_model=settings.default_model,
            price_basis=settings.price_basis if settings.basis_configured else None,
            default_currency=settings.currency,
            clean_name=lambda name: without_suffixes(name, settings),
            is_gpu=lambda name: bool(gpu_mentions(name)),
        )  # fmt: skip
        attempts.append(("table", result))
    except ParseError as exc:
        table_note = exc.reason
    notes: list[str] = []
    data = data_blocks(script_objects(soup, url, notes))
    attempts.append(("data", _results(data, url, settings, fetched_at)))
    attempts.append(("rows", _results(table_blocks(soup), url, settings, fetched_at)))
    attempts.append(("grid", _results(grid_blocks(soup), url, settings, fetched_at)))
    useful = [(name, r) for name, r in attempts if r.records or r.row_errors]
    if not useful:
        raise ParseError(
            url,
            "page",
            "no GPU prices found: no price table ("
            + (table_note or "none")
            + "), no table rows, repeated rows or cards naming a GPU with a price, "
            "and no embedded data naming a GPU with a price"
            + "".join(f"; {n}" for n in notes)
            + "; an entry with selectors (row or split) and pricing_words can read a page laid out "
            "otherwise: see docs/price-pages.md",
        )
    useful.sort(key=lambda a: (len(a[1].records), -len(a[1].row_errors)), reverse=True)
    return useful[0][1]
