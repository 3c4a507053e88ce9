"""SkyPilot service catalogs: `catalogs/<schema>/<cloud>/vms.csv`, one file per cloud.

The catalogs are CSV files SkyPilot's fetchers rebuild from each cloud's pricing API. The cloud
(= provider) comes from the URL path. Columns are read by header name: their order differs between
clouds and schema versions (v5 lambda puts Price before Region, v6 runpod puts it last, v8 gcp has
AvailabilityZone). `GpuInfo` is a Python-repr dict in single quotes (or a bare name in older
runpod/paperspace files); it is read with `ast.literal_eval`, which accepts literals only and never
executes code.

Rules: rows without an accelerator are CPU instances and are skipped; `Price` is on-demand and
`SpotPrice` is spot, each a separate record; an empty or zero price is not a price (no record).
`AcceleratorCount` is kept as the catalog says: whole GPUs as an int, a GPU slice (Azure sells 1/6
or 1/2 of an A10) as a fraction; the pipeline sets slices aside, since a per-GPU price of a slice is
not comparable. GCP lists attachable GPUs as rows without an instance type, priced for the GPUs
alone; their offer_id is `gpu:<accelerator>:<count>`.

Verified on real catalog files: lambda (v5 twice, v7), runpod (v6, v8 excerpt), paperspace (v6),
nebius (v7), gcp (v8 excerpt).
"""

from __future__ import annotations

import ast
import csv
import io
import re
from datetime import datetime

from sources._internal.http import fetch_page as fetch  # noqa: F401
from sources._internal.parsing import decode_text, parse_number
from sources._internal.records import ParseError, ParseResult, PriceObservation, RowError

NAME = "skypilot"
KIND = "price"
PARSER_VERSION = "1"
# Rows per catalog file that carry a GPU and a price; a file outside this range fails validation.
EXPECTED_ROWS = (1, 50_000)
CATALOG_BASE = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs"
SCHEMA_VERSION = "v8"
# Clouds that carry GPUs, as listed in the catalog's own common/accelerators.csv (v8@001ca549).
CLOUDS = (
    "aws", "azure", "cudo", "do", "fluidstack", "gcp", "hyperbolic", "ibm", "lambda", "nebius",
    "oci", "paperspace", "primeintellect", "runpod", "scp", "seeweb", "vast",
)  # fmt: skip
URLS = tuple(f"{CATALOG_BASE}/{SCHEMA_VERSION}/{cloud}/vms.csv" for cloud in CLOUDS)

REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
MIN_GPU_MEMORY_GB, MAX_GPU_MEMORY_GB = 4.0, 1024.0
_BARE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._+-]{0,63}$")
_URL_PATH = re.compile(r"/catalogs/(v\d+)/([A-Za-z0-9_.-]+)/vms\.csv$")


def urls(as_of=None) -> tuple[str, ...]:
    return URLS


def provider_from_url(url: str) -> str:
    path = url.split("?", 1)[0]
    m = _URL_PATH.search(path)
    if not m:
        raise ParseError(url, "url", "expected a path ending in catalogs/<version>/<cloud>/vms.csv")
    return m.group(2).lower()


def _gpu_info(raw: str) -> tuple[str | None, float | None]:
    """Name and per-GPU memory (GB) from the GpuInfo cell; (None, None) when absent."""
    raw = raw.strip()
    if not raw:
        return None, None
    if not raw.startswith("{"):
        if not _BARE_NAME.match(raw):  # older files: a bare accelerator name, nothing else
            raise ValueError(f"GpuInfo is neither a dict nor a GPU name: {raw[:60]!r}")
        return raw, None
    info = ast.literal_eval(raw)
    if not isinstance(info, dict):
        raise ValueError("GpuInfo is not a dict")
    gpus = info.get("Gpus") or []
    if not gpus or not isinstance(gpus[0], dict):
        return None, None
    first = gpus[0]
    mem = (first.get("MemoryInfo") or {}).get("SizeInMiB")
    mem_gb = round(float(mem) / 1024.0, 1) if mem not in (None, "") else None
    if mem_gb is not None and not MIN_GPU_MEMORY_GB <= mem_gb <= MAX_GPU_MEMORY_GB:
        # Some catalogs write GB into the MiB field (runpod v8: 80 "MiB"); such a hint is dropped.
        mem_gb = None
    return (str(first["Name"]) if first.get("Name") else None), mem_gb


def parse(content: bytes, url: str, fetched_at: datetime) -> ParseResult:
    provider = provider_from_url(url)
    text = decode_text(content, url)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h.strip() for h in (reader.fieldnames or [])]
    if not header:
        raise ParseError(url, "<header>", "empty file: no CSV header")
    reader.fieldnames = header
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise ParseError(url, ", ".join(missing), f"column(s) missing from header {header}")

    try:
        return _parse_rows(reader, url, provider, fetched_at)
    except csv.Error as exc:
        raise ParseError(url, "<csv>", f"malformed CSV: {exc}") from exc


def _parse_rows(
    reader: csv.DictReader, url: str, provider: str, fetched_at: datetime
) -> ParseResult:
    records: list[PriceObservation] = []
    errors: list[RowError] = []
    for lineno, row in enumerate(reader, start=2):
        if None in row:  # more cells than header columns
            errors.append(
                RowError(url, f"line {lineno}", "<row>", "more cells than header columns", str(row))
            )
            continue
        accelerator = (row.get("AcceleratorName") or "").strip()
        if not accelerator:
            continue
        try:
            field = "AcceleratorCount"
            share = parse_number(row.get("AcceleratorCount"))
            if share is None or share <= 0:
                raise ValueError(f"GPU count must be > 0, got {row.get('AcceleratorCount')!r}")
            # Whole GPUs as int; a GPU slice (azure's 1/6 A10) stays a fraction, see the docstring.
            count = int(share) if share.is_integer() else share
            field = "GpuInfo"
            detail_name, gpu_mem = _gpu_info(row.get("GpuInfo") or "")
            field = "vCPUs"
            vcpus = parse_number(row.get("vCPUs"))
            field = "MemoryGiB"
            ram = parse_number(row.get("MemoryGiB"))
            prices = []
            for field, model in (("Price", "on_demand"), ("SpotPrice", "spot")):
                value = parse_number(row.get(field))
                if value is None or value == 0:
                    continue
                if value < 0:
                    raise ValueError(f"negative price {row.get(field)!r}")
                prices.append((model, value))
        except (ValueError, SyntaxError, KeyError, TypeError) as exc:
            errors.append(RowError(url, f"line {lineno}", field, str(exc), str(row)))
            continue
        gpu_name = accelerator
        if (
            detail_name
            and detail_name.replace(" ", "").lower() != accelerator.replace(" ", "").lower()
        ):
            gpu_name = f"{accelerator} ({detail_name})"
        zone = (row.get("AvailabilityZone") or "").strip() or None
        # GCP lists attachable GPUs as rows without an instance type, priced for the GPUs alone.
        offer_id = row["InstanceType"].strip() or f"gpu:{accelerator}:{share:g}"
        for model, price in prices:
            records.append(
                PriceObservation(
                    provider=provider,
                    offer_id=offer_id,
                    region=row["Region"].strip(),
                    zone=zone,
                    gpu_name_raw=gpu_name,
                    gpu_count=count,
                    pricing_model=model,
                    price_per_hour=price,
                    currency="USD",
                    observed_at=fetched_at,
                    vcpus=vcpus,
                    ram_gb=ram,
                    gpu_memory_gb=gpu_mem,
                )
            )
    return ParseResult(records, errors)
