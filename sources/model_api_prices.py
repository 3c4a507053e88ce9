"""Per-token prices of model APIs: the alternative to renting GPUs, ranked beside them later.

Data: the `genai-prices` package's maintained catalog (about 47 providers and 2,300 models, USD
per million tokens, with the date each price started). The package holds it as Python objects; the
archive holds bytes, so the installed catalog is written out once as a JSON snapshot in
gpuledger's own format and that snapshot is what is parsed:

    {"format": "gpuledger.api_prices.v1", "origin": "genai-prices==0.2.3",
     "prices": [{"provider", "model_id", "model_name", "input_usd_per_mtok",
                 "output_usd_per_mtok", "valid_from", "is_tiered"}, ...]}

A model's price history comes from the catalog's start-date constraints; a price with no start
date is `valid_from` null (in force as far back as known). Tiered prices (a higher rate past a
prompt size) keep their base rate and say `is_tiered`. Time-of-day prices (off-peak) are left out:
they are not a price one can plan a daily workload on.

The package's upstream also publishes this catalog as JSON for daily refresh; reading that needs
its schema parser, which the package keeps private, so gpuledger follows the installed package
(pinned in constraints.txt) until that parser is public.

Verified on genai-prices 0.2.3 (bundled catalog).
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

from sources._http import fetch_page as fetch  # noqa: F401 (no URLs: never called)
from sources._parsing import load_json
from sources.records import ApiPrice, ParseError, ParseResult, RowError

NAME = "model_api_prices"
KIND = "api_price"
PARSER_VERSION = "1"
EXPECTED_ROWS = (1, 100_000)
FORMAT = "gpuledger.api_prices.v1"


def urls(as_of=None) -> tuple[str, ...]:
    return ()  # package data: seeded into the archive, refreshed by upgrading the package


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


def seed_snapshot() -> tuple[str, datetime, bytes]:
    from importlib.metadata import version

    origin = f"genai-prices=={version('genai-prices')}"
    doc = {"format": FORMAT, "origin": origin, "prices": catalog_rows()}
    content = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    # The catalog carries no publication time (it even lists announced future prices): the
    # snapshot is stamped with when it was taken; each price's own valid_from dates it.
    return f"package:{origin}", datetime.now(UTC), content


def parse(content: bytes, url: str, fetched_at: datetime) -> ParseResult:
    doc = load_json(content, url)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ParseError(url, "format", f"expected {FORMAT!r}")
    if not isinstance(doc.get("prices"), list):
        raise ParseError(url, "prices", "missing: the snapshot layout changed")
    prices, errors = [], []
    for i, row in enumerate(doc["prices"]):
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
