"""Azure GPU virtual machine prices from the public Azure Retail Prices API.

Endpoint: https://prices.azure.com/api/retail/prices (no key), JSON, paginated: each page has
`Items` (up to 1,000) and `NextPageLink` (null on the last page). An OData `$filter` narrows it to
virtual machines of the GPU series. `fetch` follows the pages and archives them together as one
page set, `{"pages": [<page>, ...]}`, each page exactly as served, so one snapshot is one
complete price list (a single page parses too).

Each item: armSkuName (the VM size, e.g. Standard_ND96isr_H100_v5), armRegionName, retailPrice
per unitOfMeasure "1 Hour", currencyCode, type (Consumption, Reservation, DevTestConsumption),
skuName ("... Spot", "... Low Priority"), productName (" ... Windows" for Windows licences) and
reservationTerm ("1 Year", "3 Years"). Kept: Linux, consumption (on_demand, or spot when the sku
name says Spot) and reservations (reserved_1y / reserved_3y, whose retailPrice is the whole term's
price and is turned into an hourly one). Low-priority, Dev/Test and Windows prices are left out.

The VM size does not name its GPU count (and older sizes not even the GPU). Azure's documented
size naming is [family][vCPUs][features](_[extra])_[accelerator]_[version], e.g.
ND128isr_NDR_GB200_v6 or NC80adis_H100_v5, and within one series (family, accelerator, version)
every size has the same vCPUs per GPU. So a size of a known series is read from its name with
SERIES below (the series' GPU and vCPUs per GPU, from each series' documentation page): a new size
of a known series is priced the day it appears. SIZES is the override for sizes the rule does not
cover (older names without an accelerator, the T4 sizes whose vCPUs do not scale with GPUs). A GPU
size of an unknown series is rejected with its name so the table can be extended, never guessed.

Verified against the API's documented schema (learn.microsoft.com, "Azure Retail Prices REST
API"); no live capture of the endpoint exists in this project.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from urllib.parse import quote

from sources._internal.http import FetchError, FetchResult, HttpClient
from sources._internal.parsing import load_json
from sources._internal.records import ParseError, ParseResult, PriceObservation, RowError

NAME = "azure_retail"
KIND = "price"
PARSER_VERSION = "1"
EXPECTED_ROWS = (1, 100_000)
API = "https://prices.azure.com/api/retail/prices"
MAX_PAGES = 50
HOURS = {"1 Year": 365 * 24, "3 Years": 3 * 365 * 24}

# VM size (lower case, without "standard_") -> (GPU as Azure documents it, GPUs per VM).
SIZES: dict[str, tuple[str, int]] = {
    "nc24ads_a100_v4": ("A100 PCIe 80GB", 1),
    "nc48ads_a100_v4": ("A100 PCIe 80GB", 2),
    "nc96ads_a100_v4": ("A100 PCIe 80GB", 4),
    "nd96asr_v4": ("A100 SXM 40GB", 8),
    "nd96amsr_a100_v4": ("A100 SXM 80GB", 8),
    "nd96isr_h100_v5": ("H100 SXM 80GB", 8),
    "nc40ads_h100_v5": ("H100 NVL 94GB", 1),
    "nc80adis_h100_v5": ("H100 NVL 94GB", 2),
    "nd96isr_h200_v5": ("H200 SXM 141GB", 8),
    "nd96isr_mi300x_v5": ("AMD MI300X 192GB", 8),
    "nc4as_t4_v3": ("T4 16GB", 1),
    "nc8as_t4_v3": ("T4 16GB", 1),
    "nc16as_t4_v3": ("T4 16GB", 1),
    "nc64as_t4_v3": ("T4 16GB", 4),
    "nc6s_v3": ("V100 PCIe 16GB", 1),
    "nc12s_v3": ("V100 PCIe 16GB", 2),
    "nc24s_v3": ("V100 PCIe 16GB", 4),
    "nc24rs_v3": ("V100 PCIe 16GB", 4),
    "nd40rs_v2": ("V100 SXM 32GB", 8),
}
GPU_SERIES = ("NC", "ND", "NV")

# (family, accelerator, version) -> (GPU as Azure documents it, vCPUs per GPU), from the series
# pages of Azure's VM size documentation (learn.microsoft.com/azure/virtual-machines/sizes/gpu-
# accelerated/...): ND H100 v5 / ND H200 v5 / ND MI300X v5: 96 vCPUs, 8 GPUs; ND GB200 v6: 128
# vCPUs, 4 GPUs; NCads H100 v5: 40 vCPUs per H100 NVL; NC A100 v4: 24 vCPUs per A100 PCIe;
# ND A100 v4 (80 GB, "m"): 96 vCPUs, 8 GPUs.
SERIES: dict[tuple[str, str, str], tuple[str, int]] = {
    ("nd", "h100", "v5"): ("H100 SXM 80GB", 12),
    ("nd", "h200", "v5"): ("H200 SXM 141GB", 12),
    ("nd", "mi300x", "v5"): ("AMD MI300X 192GB", 12),
    ("nd", "gb200", "v6"): ("NVIDIA GB200 NVL72", 32),
    ("nc", "h100", "v5"): ("H100 NVL 94GB", 40),
    ("nc", "a100", "v4"): ("A100 PCIe 80GB", 24),
    ("nd", "a100", "v4"): ("A100 SXM 80GB", 12),
}
_SIZE_NAME = re.compile(r"^(n[cdv])(\d+)([a-z]*)((?:_[a-z0-9]+)*)_(v\d+)$")


def gpu_of_size(size: str, name: str | None = None) -> tuple[str, int] | None:
    """(GPU, count) of a VM size (lower case, without "standard_"): the override table first,
    then the size's name read by its series' documented vCPUs per GPU. None: not a GPU size.
    Raises ValueError for a GPU size neither covers, naming it."""
    if size in SIZES:
        return SIZES[size]
    m = _SIZE_NAME.match(size)
    if m:
        family, vcpus, _features, middle, version = m.groups()
        accelerator = middle.rsplit("_", 1)[-1] if middle else ""
        series = SERIES.get((family, accelerator, version))
        if series:
            gpu, per_gpu = series
            if int(vcpus) % per_gpu or int(vcpus) < per_gpu:
                raise ValueError(
                    f"GPU VM size {name or size!r}: {vcpus} vCPUs is not a whole number of GPUs "
                    f"of its series ({per_gpu} vCPUs per GPU)"
                )
            return gpu, int(vcpus) // per_gpu
    if size[:2].upper() in GPU_SERIES:
        raise ValueError(
            f"GPU VM size {name or size!r} not in the size table and of no known series"
        )
    return None


def urls(as_of=None) -> tuple[str, ...]:
    query = (
        "serviceName eq 'Virtual Machines' and priceType ne 'DevTestConsumption' and "
        "(contains(armSkuName, '_NC') or contains(armSkuName, '_ND'))"
    )
    return (f"{API}?$filter={quote(query)}",)


def fetch(client: HttpClient, url: str, previous=None) -> FetchResult:
    """All pages of one query as one page set; a failed page fails the whole fetch."""
    pages, next_url, first = [], url, None
    while next_url:
        if len(pages) >= MAX_PAGES:
            raise FetchError(url, f"more than {MAX_PAGES} pages: narrow the filter")
        result = client.get(next_url)
        first = first or result
        try:
            page = json.loads(result.content)
        except json.JSONDecodeError as exc:
            raise FetchError(next_url, f"page is not JSON: {exc.msg}") from exc
        pages.append(page)
        next_url = page.get("NextPageLink") if isinstance(page, dict) else None
    content = json.dumps({"pages": pages}, sort_keys=True).encode()
    return FetchResult(url, 200, content, "application/json", first.fetched_at)


def _pages(doc, url: str) -> list[dict]:
    if isinstance(doc, dict) and isinstance(doc.get("pages"), list):
        return doc["pages"]
    if isinstance(doc, dict) and "Items" in doc:
        return [doc]
    raise ParseError(url, "Items", "neither an API page nor a page set: the API layout changed")


def parse(content: bytes, url: str, fetched_at: datetime) -> ParseResult:
    doc = load_json(content, url)
    records, errors = [], []
    for p_idx, page in enumerate(_pages(doc, url)):
        items = page.get("Items")
        if not isinstance(items, list):
            raise ParseError(url, f"pages[{p_idx}].Items", "missing: the API layout changed")
        for i_idx, item in enumerate(items):
            ref = f"pages[{p_idx}].Items[{i_idx}]"
            sku = str(item.get("armSkuName") or "")
            size = sku.lower().removeprefix("standard_")
            sku_name = str(item.get("skuName") or "")
            product = str(item.get("productName") or "")
            kind = str(item.get("type") or "")
            if "windows" in product.lower() or "low priority" in sku_name.lower():
                continue
            if kind not in ("Consumption", "Reservation"):
                continue
            field = "armSkuName"
            try:
                found = gpu_of_size(size, sku)
                if found is None:
                    continue  # not a GPU size
                gpu, count = found
                field = "unitOfMeasure"
                if kind == "Consumption" and item.get("unitOfMeasure") != "1 Hour":
                    raise ValueError(f"unit {item.get('unitOfMeasure')!r}, expected '1 Hour'")
                field = "retailPrice"
                price = float(item["retailPrice"])
                if price <= 0:
                    continue  # a zero price is not a price
                if kind == "Reservation":
                    field = "reservationTerm"
                    term = item.get("reservationTerm")
                    if term not in HOURS:
                        raise ValueError(f"unknown reservation term {term!r}")
                    model = "reserved_1y" if term == "1 Year" else "reserved_3y"
                    price = price / HOURS[term]
                else:
                    model = "spot" if "spot" in sku_name.lower() else "on_demand"
                field = "currencyCode"
                currency = str(item["currencyCode"]).upper()
            except (ValueError, KeyError, TypeError) as exc:
                errors.append(RowError(url, ref, field, str(exc), json.dumps(item)))
                continue
            records.append(
                PriceObservation(
                    provider="azure",
                    offer_id=sku,
                    region=str(item.get("armRegionName") or ""),
                    gpu_name_raw=gpu,
                    gpu_count=count,
                    pricing_model=model,
                    price_per_hour=round(price, 6),
                    currency=currency,
                    observed_at=fetched_at,
                )
            )
    return ParseResult(records, errors)
