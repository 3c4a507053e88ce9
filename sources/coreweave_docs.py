"""CoreWeave's documentation pages "Resource Based Pricing" and "Node Types".

The pricing page lists a per-GPU hourly price for each GPU class with its scheduling label
(`A100_NVLINK_80GB`, `H100_PCIE`, ...); the node-types page lists each class's VRAM and label. The
markup changed over the years, and every change is read by header meaning through the generic
extractor (sources._internal.tables):
- 2021-04 .. 2022-10: markdown pipe tables, columns Type | Description | (Resource) Label |
  Cost per Hour | VRAM, GPU rows marked Type = GPU among CPU and RAM rows;
- 2022-11 .. 2023-06: GitBook HTML `<table>` blocks inside the markdown, the GPU price table without
  a Type column (Description | Label | Cost per hour | VRAM), CPU tables beside it.

Prices are per GPU (count 1), on demand, USD. The label carries the form factor the description may
leave out (NVLINK = SXM/HGX, PCIE), so it is kept as the offer id and GPU identity reads it. A
node-types page yields GPU spec rows (VRAM per label), no prices.

Verified on the real page history in coreweave/kubernetes-cloud (2021-04-28 .. 2023-06-22).
"""

from __future__ import annotations

import re
from datetime import datetime

from sources._internal.http import fetch_page as fetch  # noqa: F401
from sources._internal.parsing import parse_money, parse_quantity
from sources._internal.records import (
    GpuSpecObservation,
    ParseError,
    ParseResult,
    PriceObservation,
    RowError,
)
from sources._internal.tables import Table, extract_tables, find_tables

NAME = "coreweave_docs"
KIND = "price"
PARSER_VERSION = "1"
EXPECTED_ROWS = (3, 200)
DOCS_BASE = "https://raw.githubusercontent.com/coreweave/kubernetes-cloud/master"
URLS = (
    f"{DOCS_BASE}/docs/resources/resource-based-pricing.md",
    f"{DOCS_BASE}/docs/coreweave-kubernetes/node-types.md",
)
_NOT_GPU = re.compile(r"^(cpu|ram|storage|memory|network)", re.IGNORECASE)


def urls(as_of=None) -> tuple[str, ...]:
    return URLS


def _gpu_rows(table: Table):
    kind_col = table.column("kind")
    for r_idx, row in enumerate(table.rows, start=1):
        if kind_col is not None and kind_col < len(row) and row[kind_col].strip().upper() != "GPU":
            continue
        yield r_idx, row


def _cell(row: list[str], col: int | None) -> str:
    return row[col].strip() if col is not None and col < len(row) else ""


def _label(text: str) -> str:
    """Undo markdown escape debris in labels: "A100_NVLINK _ 80GB", "Quadro_RTX___5000"."""
    return re.sub(r"[\s_]+", "_", text.strip())


def _memory(text: str) -> float | None:
    if not text or text.upper() in {"N/A", "-", "—"}:
        return None
    return parse_quantity(text)


def parse(content: bytes, url: str, fetched_at: datetime) -> ParseResult:
    tables = extract_tables(content, url)
    price_tables = [t for t in tables if {"gpu", "price"} <= set(t.meanings)]
    if price_tables:
        return _parse_prices(price_tables, url, fetched_at)
    spec_tables = find_tables(tables, url, ("gpu", "memory", "offer"))
    return _parse_specs(spec_tables, url, fetched_at)


def _parse_prices(tables: list[Table], url: str, fetched_at: datetime) -> ParseResult:
    records, specs, errors = [], [], []
    for table in tables:
        gpu_col, price_col = table.column("gpu"), table.column("price")
        offer_col, mem_col = table.column("offer"), table.column("memory")
        for r_idx, row in _gpu_rows(table):
            name = _cell(row, gpu_col)
            if not name or _NOT_GPU.match(name):
                continue
            ref = f"table {table.index} row {r_idx}"
            field = table.headers[price_col]
            try:
                price, currency = parse_money(_cell(row, price_col), table.locale)
                if price <= 0:
                    raise ValueError(f"price must be positive, got {price}")
                field = table.headers[mem_col] if mem_col is not None else "VRAM"
                memory = _memory(_cell(row, mem_col))
            except ValueError as exc:
                errors.append(RowError(url, ref, field, str(exc), " | ".join(row)))
                continue
            label = _label(_cell(row, offer_col)) or name
            records.append(
                PriceObservation(
                    provider="coreweave",
                    offer_id=label,
                    region="",
                    gpu_name_raw=name,
                    gpu_count=1,
                    pricing_model="on_demand",
                    price_per_hour=price,
                    currency=currency,
                    observed_at=fetched_at,
                    gpu_memory_gb=memory,
                )
            )
            if memory is not None:
                specs.append(GpuSpecObservation(name, fetched_at, offer_id=label, memory_gb=memory))
    if not records:
        raise ParseError(url, "Cost per Hour", "price tables found but no GPU row with a price")
    return ParseResult(records, errors, specs)


def _parse_specs(tables: list[Table], url: str, fetched_at: datetime) -> ParseResult:
    specs, errors = [], []
    for table in tables:
        gpu_col, mem_col, offer_col = (
            table.column("gpu"),
            table.column("memory"),
            table.column("offer"),
        )
        for r_idx, row in enumerate(table.rows, start=1):
            name = _cell(row, gpu_col)
            try:
                memory = _memory(_cell(row, mem_col))
            except ValueError as exc:
                errors.append(
                    RowError(
                        url,
                        f"table {table.index} row {r_idx}",
                        table.headers[mem_col],
                        str(exc),
                        " | ".join(row),
                    )
                )
                continue
            specs.append(
                GpuSpecObservation(
                    name, fetched_at, offer_id=_label(_cell(row, offer_col)), memory_gb=memory
                )
            )
    return ParseResult([], errors, specs)
