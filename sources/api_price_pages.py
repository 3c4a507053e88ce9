"""Model-API token prices read off pages and articles: any table of model | input | output price.

A second, dated observation beside the genai-prices catalog (sources.model_api_prices): a provider's
pricing page, or an article that quotes prices in another currency. Read through the generic
extractor, by header meaning in English and German ("Modell" | "Input (1M Token)" | "Output (1M
Token)"); the unit comes from the header ("1M", "1K", "per million"), the currency from the cells
("~2,50 €"), kept as quoted and converted to USD in the warehouse. The price holds from the day
the page was captured (`valid_from` = capture day), never before.

The provider is the table's provider column when it has one; otherwise the model name is looked up
in the genai-prices catalog ("GPT-4o" -> openai gpt-4o, "Claude 3.5 Sonnet" -> anthropic
claude-3-5-sonnet). A model the catalog cannot place ("Llama 3 70B (hosted)": hosted by whom?) is
a row error with that reason, not a guess.

Verified on the real capture in the project's reference articles (seeds/002: three models in euro,
a text capture whose table lost its blank lines and delimiter cells). No page is fetched by
default: set GPULEDGER_API_PRICE_PAGES_URLS (comma separated), or add captures with
`gpuledger import-snapshot --source api_price_pages`.
"""

from __future__ import annotations

import os
import re
from datetime import datetime

from sources._internal.http import fetch_page as fetch  # noqa: F401
from sources._internal.parsing import parse_money
from sources._internal.records import ApiPrice, ParseResult, RowError
from sources._internal.tables import extract_tables, find_tables

NAME = "api_price_pages"
KIND = "api_price"
PARSER_VERSION = "1"
EXPECTED_ROWS = (1, 5_000)
_PER = re.compile(r"(\d+(?:[.,]\d+)?)\s*(m|k|mio|million|thousand|tsd)\b", re.IGNORECASE)
_SCALE = {"m": 1.0, "mio": 1.0, "million": 1.0, "k": 1000.0, "thousand": 1000.0, "tsd": 1000.0}
_QUALIFIER = re.compile(r"\s*\((hosted|api|managed|self-hosted)\)\s*$", re.IGNORECASE)


def urls(as_of=None) -> tuple[str, ...]:
    configured = os.environ.get("GPULEDGER_API_PRICE_PAGES_URLS", "")
    return tuple(u.strip() for u in configured.split(",") if u.strip())


def per_million_factor(header: str) -> float:
    """What turns a price under this header into a price per million tokens. "Input (1M Token)"
    -> 1; "per 1K tokens" -> 1000. A header that names no unit is taken as per million (the
    industry's convention), which the suite's upper bound would catch if wrong by 1000x."""
    m = _PER.search(header)
    if not m:
        return 1.0
    return _SCALE[m.group(2).lower()] / float(m.group(1).replace(",", "."))


def catalog_model(name: str) -> tuple[str, str] | None:
    """(provider, model_id) of a model name in the genai-prices catalog, or None."""
    from genai_prices.data_snapshot import get_snapshot

    ref = _QUALIFIER.sub("", name).strip().lower().replace(" ", "-")
    try:
        provider, model = get_snapshot().find_provider_model(ref, None, None, None)
    except LookupError:
        return None
    return provider.id, model.id


def parse(content: bytes, url: str, fetched_at: datetime) -> ParseResult:
    tables = find_tables(extract_tables(content, url), url, ("gpu", "input_price", "output_price"))
    prices, errors = [], []
    for table in tables:
        name_i = table.column("gpu")
        in_i, out_i = table.column("input_price"), table.column("output_price")
        provider_i = next(
            (
                i
                for i, h in enumerate(table.headers)
                if h.strip().lower() in ("provider", "anbieter")
            ),
            None,
        )
        for r_idx, row in enumerate(table.rows, start=1):
            where = f"table {table.index} row {r_idx}"
            raw = " | ".join(row)
            name = row[name_i].strip() if name_i < len(row) else ""
            values, currencies, bad = {}, set(), None
            for key, i in (("input", in_i), ("output", out_i)):
                text = row[i] if i < len(row) else ""
                try:
                    amount, currency = parse_money(text, table.locale)
                    if amount < 0:
                        raise ValueError(f"negative price {text!r}")
                except ValueError as exc:
                    bad = RowError(url, where, table.headers[i], str(exc), raw)
                    break
                values[key] = amount * per_million_factor(table.headers[i])
                currencies.add(currency)
            if bad:
                errors.append(bad)
                continue
            if len(currencies) != 1:
                errors.append(RowError(url, where, "currency", f"mixed {sorted(currencies)}", raw))
                continue
            if provider_i is not None and provider_i < len(row) and row[provider_i].strip():
                provider = row[provider_i].strip().lower()
                model_id = _QUALIFIER.sub("", name).strip().lower().replace(" ", "-")
            else:
                found = catalog_model(name)
                if found is None:
                    errors.append(
                        RowError(
                            url,
                            where,
                            table.headers[name_i],
                            f"no provider named and the genai-prices catalog has no model "
                            f"matching {name!r}",
                            raw,
                        )
                    )
                    continue
                provider, model_id = found
            prices.append(
                ApiPrice(
                    provider=provider,
                    model_id=model_id,
                    model_name=name,
                    input_per_mtok=round(values["input"], 6),
                    output_per_mtok=round(values["output"], 6),
                    currency=currencies.pop(),
                    valid_from=fetched_at.date(),
                    is_tiered=False,
                    observed_at=fetched_at,
                )
            )
    return ParseResult([], errors, api_prices=prices)
