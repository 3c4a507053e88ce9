"""Crusoe Cloud's GPU pricing page (https://www.crusoe.ai/cloud/pricing), per GPU-hour on demand.

Two layouts are read, in this order:
1. Price cards: one `div.pricing_gpu-item` per GPU, its name in `h4.pricing-item-heading`, memory
   in a `.pricing-tag` ("141GB") and the price in the first `div.pricing-rich p` holding a dollar
   amount. These selectors are the ones becloudready/gpu-price's scraper used on the live page
   (its 2026-02-11 export of this page is in the project's data: H200 4.29, H100 3.90, A100 80 GB
   1.95/1.65, A100 40 GB 1.45, L40S 1.00, A40 0.90, MI300X 3.45; GB200/B200/MI355X without a price).
2. Any HTML or markdown price table, through the generic extractor (sources._internal.price_page).

No capture of the page's own markup exists in this project: the card fixture in tests is rebuilt
from those selectors and the export's values, and is labelled as rebuilt. A card without a dollar
price ("Contact sales") is a row error with its reason, never a price. A page with neither cards nor
a price table raises a ParseError naming the page. Set GPULEDGER_CRUSOE_URLS (comma separated) to
fetch other pages, or to an empty value to switch the source off.
"""

from __future__ import annotations

import re
from datetime import datetime

from bs4 import BeautifulSoup

from sources._internal.http import fetch_page as fetch  # noqa: F401
from sources._internal.parsing import decode_text, parse_money
from sources._internal.price_page import configured_urls, parse_price_tables
from sources._internal.records import ParseError, ParseResult, PriceObservation, RowError

NAME = "crusoe"
KIND = "price"
PARSER_VERSION = "1"
EXPECTED_ROWS = (3, 500)
DEFAULT_URLS = ("https://www.crusoe.ai/cloud/pricing",)
_GB = re.compile(r"(\d+(?:\.\d+)?)\s*GB", re.IGNORECASE)


def urls(as_of=None) -> tuple[str, ...]:
    return configured_urls("GPULEDGER_CRUSOE_URLS", DEFAULT_URLS)


def _text(element) -> str:
    return re.sub(r"\s+", " ", element.get_text(" ", strip=True)).strip() if element else ""


def parse_cards(soup: BeautifulSoup, url: str, fetched_at: datetime) -> ParseResult | None:
    cards = soup.select("div.pricing_gpu-item")
    if not cards:
        return None
    records, errors, seen = [], [], {}
    for i, card in enumerate(cards, start=1):
        name = _text(card.select_one("h4.pricing-item-heading"))
        raw = _text(card)[:300]
        if not name:
            errors.append(RowError(url, f"card {i}", "pricing-item-heading", "no GPU name", raw))
            continue
        memory = None
        for tag in card.select(".pricing-tag"):
            m = _GB.search(_text(tag))
            if m:
                memory = float(m.group(1))
                break
        price_texts = [_text(p) for p in card.select("div.pricing-rich p")]
        priced = [t for t in price_texts if "$" in t]
        if not priced:
            reason = f"no dollar price for {name}: {' / '.join(price_texts) or 'empty'}"
            errors.append(RowError(url, f"card {i}", "pricing-rich", reason, raw))
            continue
        try:
            amount, currency = parse_money(priced[0])
        except ValueError as exc:
            errors.append(RowError(url, f"card {i}", "pricing-rich", str(exc), raw))
            continue
        offer = f"{name} {memory:g}GB" if memory else name
        seen[offer] = seen.get(offer, 0) + 1
        if seen[offer] > 1:  # the page lists one GPU twice at two prices: keep both, apart
            offer = f"{offer} #{seen[offer]}"
        records.append(
            PriceObservation(
                provider=NAME,
                offer_id=offer,
                region="",
                gpu_name_raw=name,
                gpu_count=1,
                pricing_model="on_demand",
                price_per_hour=amount,
                currency=currency,
                observed_at=fetched_at,
                gpu_memory_gb=memory,
            )
        )
    return ParseResult(records, errors)


def parse(content: bytes, url: str, fetched_at: datetime) -> ParseResult:
    soup = BeautifulSoup(decode_text(content, url), "html.parser")
    result = parse_cards(soup, url, fetched_at)
    if result is not None:
        return result
    try:
        return parse_price_tables(content, url, fetched_at, NAME, price_basis="per_gpu")
    except ParseError as exc:
        raise ParseError(
            url, "pricing_gpu-item|table", f"no GPU price cards and {exc.reason}"
        ) from exc
