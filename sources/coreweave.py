"""CoreWeave instance prices, in the JSON format of the public coreweave-pricing-tracker.

The tracker scrapes coreweave.com/pricing daily into `data/YYYY-MM-DD.json`:
`{scrapeDate, scrapedAt, source, regions: [{name, gpu: [{model, gpuCount, vramGB, vcpus,
systemRAMGB, localStorageTB, onDemandPrice, spotPrice, inferencePrice}], ...}]}`.

Quirks of the real files (34 snapshots, 2026-03-13 .. 2026-08-22), all handled here:
- numbers arrive as numbers or as strings: "2,048" (thousands separator), "4^1" (a footnote marker
  on the GPU count of GB200/GB300 NVL72 nodes);
- from 2026-04-15 on, the footnote lost its caret: the count reads "41" for a 4-GPU node. A count
  outside the plausible per-node counts is reconciled with the page's own per-GPU price
  (`inferencePrice` = on-demand / GPUs, true in every snapshot where both exist); when that cannot
  settle it, the row is rejected with the reason, never guessed;
- prices may be null (no offer of that kind): no record.

`onDemandPrice` and `spotPrice` are instance prices (all GPUs of the node). `inferencePrice` is the
per-GPU on-demand equivalent, not a separate offer, so it is used for the check above only.
`observed_at` is the tracker's own `scrapedAt` (when the page was read), not our fetch time.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

from sources._internal.http import fetch_page as fetch  # noqa: F401
from sources._internal.parsing import load_json, parse_count, parse_number
from sources._internal.records import ParseError, ParseResult, PriceObservation, RowError

NAME = "coreweave"
KIND = "price"
PARSER_VERSION = "1"
EXPECTED_ROWS = (4, 400)
TRACKER_BASE = (
    "https://raw.githubusercontent.com/PrashantSedhain/coreweave-pricing-tracker/main/data"
)
PLAUSIBLE_GPU_COUNTS = {1, 2, 4, 8, 16}
_PER_GPU_TOLERANCE = 0.02


def urls(as_of: date | None = None) -> tuple[str, ...]:
    day = as_of or datetime.now(UTC).date()
    return (f"{TRACKER_BASE}/{day.isoformat()}.json",)


def _observed_at(doc: dict, url: str, fetched_at: datetime) -> datetime:
    raw = doc.get("scrapedAt")
    if raw in (None, ""):
        return fetched_at
    try:
        ts = datetime.fromisoformat(str(raw).replace("Z", "+00:00"))
    except ValueError as exc:
        raise ParseError(url, "scrapedAt", f"not an ISO timestamp: {raw!r}") from exc
    return ts if ts.tzinfo else ts.replace(tzinfo=UTC)


def _reconcile_count(count: int, on_demand: float | None, per_gpu: float | None) -> int:
    if count in PLAUSIBLE_GPU_COUNTS:
        return count
    if on_demand and per_gpu:
        implied = round(on_demand / per_gpu)
        close = abs(on_demand / per_gpu - implied) <= _PER_GPU_TOLERANCE * implied
        if close and implied in PLAUSIBLE_GPU_COUNTS and str(count).startswith(str(implied)):
            return implied
    raise ValueError(
        f"GPU count {count} is not a plausible per-node count {sorted(PLAUSIBLE_GPU_COUNTS)} "
        "and the page's per-GPU price cannot settle it (footnote marker merged into the number?)"
    )


def parse(content: bytes, url: str, fetched_at: datetime) -> ParseResult:
    doc = load_json(content, url)
    if not isinstance(doc, dict):
        raise ParseError(url, "<document>", "expected a JSON object")
    regions = doc.get("regions")
    if not isinstance(regions, list) or not regions:
        raise ParseError(url, "regions", "missing or empty: the tracker layout changed")
    observed_at = _observed_at(doc, url, fetched_at)

    records: list[PriceObservation] = []
    errors: list[RowError] = []
    for r_idx, region in enumerate(regions):
        if not isinstance(region, dict) or "gpu" not in region:
            raise ParseError(url, f"regions[{r_idx}].gpu", "missing: the tracker layout changed")
        region_name = str(region.get("name") or "").strip()
        for g_idx, item in enumerate(region.get("gpu") or []):
            ref = f"regions[{r_idx}].gpu[{g_idx}]"
            field = "model"
            try:
                model = str(item["model"]).strip()
                if not model:
                    raise ValueError("empty GPU model")
                field = "onDemandPrice"
                on_demand = parse_number(item.get("onDemandPrice"))
                field = "spotPrice"
                spot = parse_number(item.get("spotPrice"))
                field = "inferencePrice"
                per_gpu = parse_number(item.get("inferencePrice"))
                if on_demand is None and spot is None:
                    continue  # listed without a price ("contact sales"): no offer to record
                field = "gpuCount"
                count = parse_count(item.get("gpuCount"))
                if count is None or count < 1:
                    raise ValueError(f"GPU count must be >= 1, got {item.get('gpuCount')!r}")
                count = _reconcile_count(count, on_demand, per_gpu)
                field = "vramGB"
                vram = parse_number(item.get("vramGB"))
                field = "vcpus"
                vcpus = parse_number(item.get("vcpus"))
                field = "systemRAMGB"
                ram = parse_number(item.get("systemRAMGB"))
                for field, price in (("onDemandPrice", on_demand), ("spotPrice", spot)):  # noqa: B007
                    if price is not None and price < 0:
                        raise ValueError(f"negative price {price}")
            except (ValueError, KeyError, TypeError) as exc:
                errors.append(RowError(url, ref, field, str(exc), json.dumps(item, default=str)))
                continue
            for pricing_model, price in (("on_demand", on_demand), ("spot", spot)):
                if price is None or price == 0:
                    continue
                records.append(
                    PriceObservation(
                        provider="coreweave",
                        offer_id=model,
                        region=region_name,
                        gpu_name_raw=model,
                        gpu_count=count,
                        pricing_model=pricing_model,
                        price_per_hour=price,
                        currency="USD",
                        observed_at=observed_at,
                        vcpus=vcpus,
                        ram_gb=ram,
                        gpu_memory_gb=vram,
                    )
                )
    return ParseResult(records, errors)
