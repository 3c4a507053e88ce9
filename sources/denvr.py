"""Denvr Dataworks' GPU pricing page (https://www.denvr.com/pricing).

The page is a Wix site: its GPU instances arrive as data inside `<script id="wix-warmup-data">`,
at appsWarmupData -> dataBinding -> dataStore -> recordsByCollectionId -> GPUInstances, one record
per instance with `title` ("NVIDIA H100 SXM"), `gpuCount`, `gpuVram` ("80 GB"), `vCpUs`,
`memory`, `localStorage` and `price` ("$2.10 / GPU", per GPU-hour on demand). That path and those
fields are the ones becloudready/gpu-price's scraper read from the live page; its 2026-02-11
export of this page is in the project's data (H100 SXM 8x 2.10, A100 SXM 80 GB 8x 1.30, A100 PCIe
4x 1.15, GH200 1x 3.87, Gaudi 2 8x 1.25; MI300X, B200, H200, GB200 without a price).

When the data island is missing, any HTML or markdown price table on the page is read through the
generic extractor (sources._internal.price_page). No capture of the page's own markup exists in this
project: the test fixture is rebuilt from the export's values and labelled as such. A record
without a dollar price ("Contact us") is a row error with its reason. A page with neither the data
island nor a price table raises a ParseError naming the page and what was missing. Set
GPULEDGER_DENVR_URLS (comma separated; empty switches the source off) to fetch other pages.
"""

from __future__ import annotations

import json
import re
from datetime import datetime

from bs4 import BeautifulSoup

from sources._internal.http import fetch_page as fetch  # noqa: F401
from sources._internal.parsing import decode_text, parse_money
from sources._internal.price_page import configured_urls, parse_price_tables
from sources._internal.records import ParseError, ParseResult, PriceObservation, RowError

NAME = "denvr"
KIND = "price"
PARSER_VERSION = "1"
EXPECTED_ROWS = (3, 500)
DEFAULT_URLS = ("https://www.denvr.com/pricing",)
PATH = ("appsWarmupData", "dataBinding", "dataStore", "recordsByCollectionId", "GPUInstances")
_PER_GPU = re.compile(r"/\s*gpu|per gpu", re.IGNORECASE)
_GB = re.compile(r"(\d+(?:[.,]\d+)?)\s*GB", re.IGNORECASE)


def urls(as_of=None) -> tuple[str, ...]:
    return configured_urls("GPULEDGER_DENVR_URLS", DEFAULT_URLS)


def _collection(soup: BeautifulSoup, url: str):
    tag = soup.find("script", id="wix-warmup-data")
    if tag is None or not tag.string:
        return None
    try:
        node = json.loads(tag.string)
    except json.JSONDecodeError as exc:
        raise ParseError(url, "wix-warmup-data", f"not valid JSON: {exc}") from exc
    for key in PATH:
        if not isinstance(node, dict) or key not in node:
            raise ParseError(url, ".".join(PATH), f"the page's data has no {key!r} any more")
        node = node[key]
    if not isinstance(node, dict) or not node:
        raise ParseError(url, ".".join(PATH), "the GPU instance collection is empty")
    return node


def _whole(value) -> int | None:
    """The first whole number in a field such as 8, "8", "224 vCPUs", "2048 GB"; None if none."""
    m = re.search(r"\d+", str(value if value is not None else ""))
    return int(m.group(0)) if m else None


def _record(rec: dict, url: str, key: str, fetched_at: datetime):
    title = str(rec.get("title") or "").strip()
    raw = json.dumps(rec, sort_keys=True, default=str)[:500]
    if not title:
        return RowError(url, key, "title", "no instance title", raw)
    price_text = str(rec.get("price") or "").strip()
    if "$" not in price_text:
        return RowError(url, key, "price", f"no dollar price for {title}: {price_text!r}", raw)
    try:
        amount, currency = parse_money(price_text)
    except ValueError as exc:
        return RowError(url, key, "price", str(exc), raw)
    count = _whole(rec.get("gpuCount"))
    if count is None or not 1 <= count <= 72:
        return RowError(url, key, "gpuCount", f"not a GPU count: {rec.get('gpuCount')!r}", raw)
    vram = _GB.search(str(rec.get("gpuVram") or ""))
    per_gpu = bool(_PER_GPU.search(price_text))
    return PriceObservation(
        provider=NAME,
        offer_id=f"{count}x {title}" + (f" {vram.group(1)}GB" if vram else ""),
        region="",
        gpu_name_raw=title,
        gpu_count=count,
        pricing_model="on_demand",
        price_per_hour=round(amount * count, 6) if per_gpu else amount,
        currency=currency,
        observed_at=fetched_at,
        vcpus=_whole(rec.get("vCpUs")),
        ram_gb=_whole(rec.get("memory")),
        gpu_memory_gb=float(vram.group(1).replace(",", ".")) if vram else None,
    )


def parse(content: bytes, url: str, fetched_at: datetime) -> ParseResult:
    soup = BeautifulSoup(decode_text(content, url), "html.parser")
    collection = _collection(soup, url)
    if collection is None:
        try:
            return parse_price_tables(content, url, fetched_at, NAME, price_basis="per_gpu")
        except ParseError as exc:
            raise ParseError(
                url, "wix-warmup-data|table", f"no GPU instance data and {exc.reason}"
            ) from exc
    records, errors = [], []
    for key, rec in sorted(collection.items()):
        if not isinstance(rec, dict):
            errors.append(RowError(url, key, "record", "not an object", repr(rec)[:200]))
            continue
        out = _record(rec, url, f"GPUInstances[{key}]", fetched_at)
        (errors if isinstance(out, RowError) else records).append(out)
    return ParseResult(records, errors)
