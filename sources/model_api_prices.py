"""Per-token prices of model APIs: the alternative to renting GPUs, ranked beside them later.

Data: the `genai-prices` catalog (about 47 providers and 2,300 models, USD per million tokens,
with the date each price started), in two forms that parse to the same rows:

1. Daily: the catalog its maintainers publish as JSON (`UPSTREAM`, the slim v2 file; override
   with GPULEDGER_GENAI_PRICES_URL, empty = off). A list of providers, each with `models`, each
   model with `prices` either one price set or a list of `{"constraint": {...}, "prices": {...}}`
   entries; a price is a number or `{"base": n, "tiers": [...]}`. Verified on a real excerpt of
   that file (tests/fixtures/model_api_prices, upstream commit 03c250d3).
2. Offline and first run: the catalog installed with the package (pinned in constraints.txt),
   written once into the archive as a JSON snapshot in gpuledger's own format, dated by its
   newest price in force (seed_snapshot):

    {"format": "gpuledger.api_prices.v1", "origin": "genai-prices==0.2.3",
     "prices": [{"provider", "model_id", "model_name", "input_usd_per_mtok",
                 "output_usd_per_mtok", "valid_from", "is_tiered"}, ...]}

A model's price history comes from the catalog's start-date constraints; a price with no start
date is `valid_from` null (in force as far back as known). Tiered prices (a higher rate past a
prompt size) keep their base rate and say `is_tiered`. Time-of-day prices (off-peak) and other
conditional prices are left out: they are not a price one can plan a daily workload on. Models
priced per request or per image only (no token price) are skipped.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, date, datetime

from sources._internal.http import fetch_page as fetch  # noqa: F401
from sources._internal.parsing import load_json
from sources._internal.records import ApiPrice, ParseError, ParseResult, RowError

NAME = "model_api_prices"
KIND = "api_price"
PARSER_VERSION = "1"
EXPECTED_ROWS = (1, 100_000)
FORMAT = "gpuledger.api_prices.v1"


UPSTREAM = (
    "https://raw.githubusercontent.com/pydantic/genai-prices/refs/heads/main/"
    "prices/new_data/v2/data_slim.json"
)


def urls(as_of=None) -> tuple[str, ...]:
    configured = os.environ.get("GPULEDGER_GENAI_PRICES_URL")
    if configured is None:
        return (UPSTREAM,)
    return tuple(u.strip() for u in configured.split(",") if u.strip())


def _upstream_number(value, where: str) -> tuple[float | None, bool]:
    if value is None:
        return None, False
    if isinstance(value, dict):  # {"base": 3, "tiers": [...]}
        if "base" not in value:
            raise ValueError(f"{where}: tiered price without a base")
        return float(value["base"]), True
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{where}: not a number: {value!r}")
    return float(value), False


def upstream_rows(doc: list, url: str) -> tuple[list[dict], list[RowError]]:
    """The published catalog JSON as plain rows, in the snapshot format's field names."""
    rows, errors = [], []
    for p_i, provider in enumerate(doc):
        if not isinstance(provider, dict) or not provider.get("id"):
            errors.append(
                RowError(url, f"[{p_i}]", "id", "provider without an id", str(provider)[:300])
            )
            continue
        models = provider.get("models")
        if not isinstance(models, list):
            errors.append(
                RowError(url, f"[{p_i}]", "models", "provider without a model list", provider["id"])
            )
            continue
        for m_i, model in enumerate(models):
            ref = f"{provider['id']}.models[{m_i}]"
            try:
                if not isinstance(model, dict) or not model.get("id"):
                    raise ValueError("model without an id")
                prices = model.get("prices")
                entries = prices if isinstance(prices, list) else [{"prices": prices}]
                for entry in entries:
                    constraint = entry.get("constraint") or {}
                    if set(constraint) - {"start_date"}:
                        continue  # time-of-day or other conditional prices
                    price = entry.get("prices") or {}
                    if not isinstance(price, dict):
                        raise ValueError(f"prices is not an object: {price!r}")
                    inp, tier_in = _upstream_number(price.get("input_mtok"), "input_mtok")
                    out, tier_out = _upstream_number(price.get("output_mtok"), "output_mtok")
                    if inp is None and out is None:
                        continue
                    rows.append(
                        {
                            "provider": provider["id"],
                            "model_id": model["id"],
                            "model_name": model.get("name") or model["id"],
                            "input_usd_per_mtok": inp,
                            "output_usd_per_mtok": out,
                            "valid_from": constraint.get("start_date"),
                            "is_tiered": tier_in or tier_out,
                        }
                    )
            except (ValueError, TypeError, AttributeError) as exc:
                errors.append(RowError(url, ref, "prices", str(exc), json.dumps(model)[:500]))
    return rows, errors


def _usd(value) -> tuple[float | None, bool]:
    if value is None:
        return None, False
    base = getattr(value, "base", None)
    if base is not None:  # TieredPrices
        return float(base), True
    return float(value), False


def catalog_rows() -> list[dict]:
    """The installed genai-prices catalog as plain rows (no code kept, only values)."""
    from genai_prices.data import providers
    from genai_prices.types import StartDateConstraint

    rows = []
    for provider in providers:
        for model in provider.models:
            prices = model.prices if isinstance(model.prices, list) else [model.prices]
            for entry in prices:
                constraint = getattr(entry, "constraint", None)
                if constraint is not None and not isinstance(constraint, StartDateConstraint):
                    continue  # time-of-day prices
                price = getattr(entry, "prices", entry)
                input_usd, tiered_in = _usd(getattr(price, "input_mtok", None))
                output_usd, tiered_out = _usd(getattr(price, "output_mtok", None))
                if input_usd is None and output_usd is None:
                    continue  # priced per request or per image only
                start = getattr(constraint, "start_date", None)
                if isinstance(start, datetime):
                    start = start.date()
                rows.append(
                    {
                        "provider": provider.id,
                        "model_id": model.id,
                        "model_name": model.name or model.id,
                        "input_usd_per_mtok": input_usd,
                        "output_usd_per_mtok": output_usd,
                        "valid_from": start.isoformat() if start else None,
                        "is_tiered": tiered_in or tiered_out,
                    }
                )
    return rows


def seed_snapshot(now: datetime | None = None) -> tuple[str, datetime, bytes]:
    """The installed catalog as a snapshot, stamped with the start of its newest price already
    in force at `now` (default: the clock).

    The catalog carries no publication time, and it lists announced prices that start later.
    It was made no earlier than its newest price in force, so that day is its stamp: the
    earliest it can have been observed. Stamped with the time it was copied, a catalog months old
    read as fresh in `gpuledger sources`. With no dated price in force, the copy's own time."""
    from importlib.metadata import version

    now = now or datetime.now(UTC)
    origin = f"genai-prices=={version('genai-prices')}"
    rows = catalog_rows()
    doc = {"format": FORMAT, "origin": origin, "prices": rows}
    content = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    started = [
        date.fromisoformat(r["valid_from"])
        for r in rows
        if r["valid_from"] and date.fromisoformat(r["valid_from"]) <= now.date()
    ]
    stamp = datetime.combine(max(started), datetime.min.time(), UTC) if started else now
    return f"package:{origin}", stamp, content


def parse(content: bytes, url: str, fetched_at: datetime) -> ParseResult:
    doc = load_json(content, url)
    if isinstance(doc, list):  # the catalog as its maintainers publish it
        rows, errors = upstream_rows(doc, url)
    elif isinstance(doc, dict) and doc.get("format") == FORMAT:
        if not isinstance(doc.get("prices"), list):
            raise ParseError(url, "prices", "missing: the snapshot layout changed")
        rows, errors = doc["prices"], []
    else:
        raise ParseError(url, "format", f"expected the genai-prices provider list or {FORMAT!r}")
    prices = []
    for i, row in enumerate(rows):
        field = "model_id"
        try:
            if not row.get("provider") or not row.get(field):
                raise ValueError("provider and model_id are required")
            values = {}
            for field in ("input_usd_per_mtok", "output_usd_per_mtok"):
                value = row.get(field)
                if value is not None and (not isinstance(value, int | float) or value < 0):
                    raise ValueError(f"must be a non-negative number, got {value!r}")
                values[field] = None if value is None else float(value)
            field = "valid_from"
            valid_from = date.fromisoformat(row[field]) if row.get(field) else None
        except (ValueError, TypeError, AttributeError) as exc:
            errors.append(RowError(url, f"prices[{i}]", field, str(exc), json.dumps(row)))
            continue
        prices.append(
            ApiPrice(
                provider=str(row["provider"]),
                model_id=str(row["model_id"]),
                model_name=str(row.get("model_name") or row["model_id"]),
                input_per_mtok=values["input_usd_per_mtok"],
                output_per_mtok=values["output_usd_per_mtok"],
                currency="USD",
                valid_from=valid_from,
                is_tiered=bool(row.get("is_tiered")),
                observed_at=fetched_at,
            )
        )
    if not prices:
        raise ParseError(url, "prices", "no usable price in the snapshot")
    return ParseResult([], errors, api_prices=prices)
