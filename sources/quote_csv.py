"""Prices an analyst types in: vendor quotes, reserved contracts, prices read off a call.

The format: CSV, UTF-8, one offer per row.

Columns (any order, header names case-insensitive); * = required:

- provider*: who sells it (lower case is used)
- gpu*: the GPU as the vendor names it ("NVIDIA H100 SXM5 80GB")
- gpu_count*: GPUs in the offer
- price*: the price per hour
- price_unit*: `per_gpu_hour` or `per_instance_hour` (the whole offer)
- currency*: ISO code (USD, EUR, GBP)
- pricing_model: on_demand (default), spot, reserved_6m, reserved_1y, reserved_3y, dynamic,
  marketplace
- term_months: contract term; 6, 12 or 36 give reserved_6m / reserved_1y / reserved_3y when the
  model is empty; another term without a model is refused (it would otherwise read as on-demand)
- valid_from: first day the price holds (default: the import's fetched-at)
- valid_to: last day it holds; until then the price never goes stale
- region, offer_id, vcpus, ram_gb, gpu_memory_gb, note: as they say

`gpuledger import-snapshot --source quote_csv --url <where it came from> --fetched-at <when> FILE`
puts the file in the archive; the next refresh loads it.

Exports of other scrapers are read too, by header meaning: `product` = gpu, `price_per_hour_usd` =
price in USD, `vram_gb` = GPU memory, `system_ram_gb` = ram_gb. Without a `price_unit` column a row
is a per-GPU price only when its gpu_count is empty or 1 (such exports list per-GPU prices without
a count), and an empty count means that only when the whole column is empty. A row with more
GPUs and no unit, or with no count where other rows have one, is rejected as ambiguous, never
guessed. Junk rows are rejected with the reason: no product, a pricing label as product
("On-Demand", "Reserved"), a product that is not a GPU ("General-purpose", "Persistent disks"), no
price or a non-positive one.

Verified on the real, dirty output of another project's scraper of eight providers' pages
(becloudready/gpu-price @ 64a1fca6, 2026-02-11).
"""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, date, datetime, time

from sources._internal.http import fetch_page as fetch  # noqa: F401
from sources._internal.parsing import decode_text, parse_number
from sources._internal.records import (
    PRICING_MODELS,
    ParseError,
    ParseResult,
    PriceObservation,
    RowError,
)

NAME = "quote_csv"
KIND = "price"
PARSER_VERSION = "1"
EXPECTED_ROWS = (1, 10_000)

SYNONYMS = {
    "provider": ("provider", "vendor", "anbieter"),
    "gpu": ("gpu", "product", "gpu_model", "model"),
    "gpu_count": ("gpu_count", "gpus", "count"),
    "price": ("price", "price_per_hour", "price_per_hour_usd", "preis"),
    "price_unit": ("price_unit", "unit"),
    "currency": ("currency", "waehrung"),
    "pricing_model": ("pricing_model", "model_type", "tarif"),
    "term_months": ("term_months", "term"),
    "valid_from": ("valid_from", "gueltig_ab"),
    "valid_to": ("valid_to", "gueltig_bis"),
    "region": ("region",),
    "offer_id": ("offer_id", "instance_type", "sku"),
    "vcpus": ("vcpus",),
    "ram_gb": ("ram_gb", "system_ram_gb"),
    "gpu_memory_gb": ("gpu_memory_gb", "vram_gb"),
}
PRICE_UNITS = ("per_gpu_hour", "per_instance_hour")
_PRICING_LABEL = re.compile(r"^(on[- ]?demand|reserved|spot|savings plan|commit(ted)?)$", re.I)
# A GPU product names a GPU vendor or brand, or a GPU model token (H100, A40, L40S, MI300X, GB200).
_GPU_LIKE = re.compile(
    r"\b(nvidia|amd|intel|geforce|quadro|tesla|radeon|instinct|gaudi|rtx|"
    r"(gh|gb|mi|[ahltvpbm])\d{1,4}[a-z]{0,2})\b",
    re.IGNORECASE,
)
_NOT_GPU = re.compile(r"cpu|general[- ]purpose|storage|disk|registry|network|cluster pricing|"
                      r"memory-optimi[sz]ed", re.I)  # fmt: skip


def urls(as_of=None) -> tuple[str, ...]:
    return ()  # imported, never fetched


def _columns(header: list[str], url: str) -> dict[str, str]:
    lower = {h.strip().lower(): h for h in header}
    found = {}
    for field, names in SYNONYMS.items():
        for name in names:
            if name in lower:
                found[field] = lower[name]
                break
    missing = [f for f in ("provider", "gpu", "price") if f not in found]
    if missing:
        raise ParseError(url, ", ".join(missing), f"required column(s) missing from {header}")
    if "currency" not in found and not found["price"].lower().endswith("_usd"):
        raise ParseError(url, "currency", "no currency column and the price column names none")
    return found


def _date(text: str) -> datetime | None:
    text = text.strip()
    if not text:
        return None
    return datetime.combine(date.fromisoformat(text), time(0), tzinfo=UTC)


def parse(content: bytes, url: str, fetched_at: datetime) -> ParseResult:
    text = decode_text(content, url)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if not reader.fieldnames:
        raise ParseError(url, "<header>", "empty file: no CSV header")
    col = _columns(list(reader.fieldnames), url)
    default_currency = "USD" if col["price"].lower().endswith("_usd") else None
    records, errors = [], []
    try:
        rows = list(reader)
    except csv.Error as exc:
        raise ParseError(url, "<csv>", f"malformed CSV: {exc}") from exc
    # An export whose count column is empty throughout lists per-GPU prices; in one that has counts,
    # an empty count is a missing value.
    counts_given = "gpu_count" in col and any((r.get(col["gpu_count"]) or "").strip() for r in rows)
    for lineno, row in enumerate(rows, start=2):

        def get(field: str, row=row) -> str:
            return (row.get(col[field]) or "").strip() if field in col else ""

        field = "gpu"
        try:
            product = get("gpu")
            if not product:
                raise ValueError("no product/GPU name")
            if _PRICING_LABEL.match(product):
                raise ValueError(f"{product!r} is a pricing label, not a GPU")
            if _NOT_GPU.search(product) or not _GPU_LIKE.search(product):
                raise ValueError(f"{product!r} is not a GPU product")
            field = "price"
            price = parse_number(get("price").lstrip("$€£"))
            if price is None:
                raise ValueError("no price")
            if price <= 0:
                raise ValueError(f"price must be positive, got {price}")
            field = "gpu_count"
            count = parse_number(get("gpu_count"))
            if count is not None and (count < 1 or not count.is_integer()):
                raise ValueError(f"gpu_count must be a whole number >= 1, got {get('gpu_count')!r}")
            field = "price_unit"
            unit = get("price_unit").lower()
            if unit and unit not in PRICE_UNITS:
                raise ValueError(f"price_unit must be one of {PRICE_UNITS}, got {unit!r}")
            if not unit:
                if "price_unit" in col:
                    raise ValueError("price_unit is empty")
                if count not in (None, 1.0):
                    raise ValueError(
                        f"{int(count)} GPUs and no price_unit: per-GPU or per-instance?"
                    )
                unit = "per_gpu_hour"
            if count is None:
                if unit == "per_instance_hour" or counts_given:
                    raise ValueError("gpu_count missing")
                count = 1.0
            gpus = int(count)
            field = "currency"
            currency = (get("currency") or default_currency or "").upper()
            if not re.fullmatch(r"[A-Z]{3}", currency):
                raise ValueError(f"currency must be an ISO code, got {currency!r}")
            field = "pricing_model"
            model = get("pricing_model").lower().replace("-", "_") or None
            term = parse_number(get("term_months"))
            if model is None and term is not None:
                field = "term_months"
                model = {6.0: "reserved_6m", 12.0: "reserved_1y", 36.0: "reserved_3y"}.get(term)
                if model is None:  # a term no pricing model stands for: never on-demand
                    raise ValueError(
                        f"a {term:g}-month term is no pricing model (6, 12 or 36 months, or "
                        "give pricing_model)"
                    )
            model = model or "on_demand"
            if model not in PRICING_MODELS:
                raise ValueError(f"unknown pricing model {model!r}")
            field = "valid_from"
            valid_from = _date(get("valid_from")) or fetched_at
            field = "valid_to"
            valid_to = _date(get("valid_to"))
            if valid_to is not None and valid_to < valid_from:
                raise ValueError("valid_to is before valid_from")
            field = "vcpus"
            vcpus = parse_number(get("vcpus"))
            field = "ram_gb"
            ram = parse_number(get("ram_gb"))
            field = "gpu_memory_gb"
            memory = parse_number(get("gpu_memory_gb"))
        except ValueError as exc:
            errors.append(
                RowError(
                    url,
                    f"line {lineno}",
                    col.get(field, field),
                    str(exc),
                    ",".join(f"{k}={v}" for k, v in row.items() if v),
                )
            )
            continue
        instance_price = price * gpus if unit == "per_gpu_hour" else price
        records.append(
            PriceObservation(
                provider=get("provider").lower(),
                offer_id=get("offer_id") or f"{product} x{gpus}",
                region=get("region"),
                gpu_name_raw=product,
                gpu_count=gpus,
                pricing_model=model,
                price_per_hour=round(instance_price, 6),
                currency=currency,
                observed_at=valid_from,
                vcpus=vcpus,
                ram_gb=ram,
                gpu_memory_gb=memory,
                valid_until=valid_to,
            )
        )
    return ParseResult(records, errors)
