"""EverXCloud, a European GPU spot exchange: its "GPUs für LLM-Inferenz" page (German).

One table per page: GPU | Speicher | Bandbreite | FP8-Tensor | Inferenz, 16 Bit | Inferenz, 4 Bit |
Preis/Std., numbers in German format ("1.008 GB/s", "ab 0,44 $"). The price is the best live offer
for one GPU-hour on the exchange ("ab" = from), so each row is a `marketplace` offer of one GPU in
USD. The same row gives spec observations: memory, bandwidth and dense FP8 TFLOPS (the page says
its tensor figures are without sparsity); "Nicht veröffentlicht" (not published) stays empty.
The text capture glues each GPU's architecture to its name ("L4Ada Lovelace"); it is split off.

Verified on the real text capture of the page in the project's reference articles (seeds/003).
No public URL of the live page is known to gpuledger: set GPULEDGER_EVERXCLOUD_URLS (comma
separated) to fetch it daily, or add captures with `gpuledger import-snapshot --source everxcloud`.
"""

from __future__ import annotations

import os
import re
from datetime import datetime

from sources._internal.http import fetch_page as fetch  # noqa: F401
from sources._internal.parsing import parse_money, parse_quantity
from sources._internal.records import GpuSpecObservation, ParseResult, PriceObservation, RowError
from sources._internal.tables import extract_tables, find_tables

NAME = "everxcloud"
KIND = "price"
PARSER_VERSION = "1"
EXPECTED_ROWS = (3, 200)
ARCHITECTURES = ("Ada Lovelace", "Blackwell", "Hopper", "Ampere", "Turing", "Volta", "CDNA 3",
                 "CDNA 4", "CDNA 2", "Grace Hopper", "Grace Blackwell")  # fmt: skip
_UNPUBLISHED = re.compile(r"nicht veröffentlicht|not published|n/a|^-$|^—$", re.IGNORECASE)


def urls(as_of=None) -> tuple[str, ...]:
    configured = os.environ.get("GPULEDGER_EVERXCLOUD_URLS", "")
    return tuple(u.strip() for u in configured.split(",") if u.strip())


def split_architecture(name: str) -> str:
    """ "L4Ada Lovelace" -> "L4"; "RTX PRO 6000 BlackwellBlackwell" -> "RTX PRO 6000 Blackwell"."""
    for arch in sorted(ARCHITECTURES, key=len, reverse=True):
        if name.endswith(arch) and len(name) > len(arch):
            return name[: -len(arch)].strip()
    return name.strip()


def _optional(text: str, locale: str) -> float | None:
    if not text.strip() or _UNPUBLISHED.search(text.strip()):
        return None
    return parse_quantity(text, locale)


def parse(content: bytes, url: str, fetched_at: datetime) -> ParseResult:
    tables = find_tables(extract_tables(content, url), url, ("gpu", "price"))
    records, specs, errors = [], [], []
    for table in tables:
        col = {m: table.column(m) for m in ("gpu", "price", "memory", "bandwidth", "fp8_tflops")}
        for r_idx, row in enumerate(table.rows, start=1):

            def cell(meaning: str, row=row, col=col) -> str:
                i = col[meaning]
                return row[i] if i is not None and i < len(row) else ""

            name = split_architecture(cell("gpu"))
            field = "price"
            try:
                price, currency = parse_money(cell("price"), table.locale)
                if price <= 0:
                    raise ValueError(f"price must be positive, got {price}")
                field = "memory"
                memory = _optional(cell("memory"), table.locale)
                field = "bandwidth"
                bandwidth = _optional(cell("bandwidth"), table.locale)
                field = "fp8_tflops"
                fp8 = _optional(cell("fp8_tflops"), table.locale)
            except ValueError as exc:
                header = table.headers[col[field]] if col[field] is not None else field
                errors.append(
                    RowError(
                        url, f"table {table.index} row {r_idx}", header, str(exc), " | ".join(row)
                    )
                )
                continue
            records.append(
                PriceObservation(
                    provider=NAME,
                    offer_id=name,
                    region="",
                    gpu_name_raw=name,
                    gpu_count=1,
                    pricing_model="marketplace",
                    price_per_hour=price,
                    currency=currency,
                    observed_at=fetched_at,
                    gpu_memory_gb=memory,
                )
            )
            specs.append(
                GpuSpecObservation(
                    name,
                    fetched_at,
                    memory_gb=memory,
                    memory_bandwidth_gb_s=bandwidth,
                    fp8_tflops=fp8,
                )
            )
    return ParseResult(records, errors, specs)
