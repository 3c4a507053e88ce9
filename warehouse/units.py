"""Costs in a unit that fits their size: 0.000994 USD per request reads as 0.994 USD per 1,000
requests. One scale per table (chosen from its smallest figure), named in the header, so the
numbers in a column stay comparable; the warehouse keeps the exact figure per output."""

from __future__ import annotations

from collections.abc import Iterable

# output_unit -> (singular, plural) as a reader says it
_WORDS = {
    "request": ("request", "requests"),
    "image": ("image", "images"),
    "sample": ("sample", "samples"),
    "1m_tokens": ("1M tokens", "1M tokens"),
}
_SCALES = ((1, ""), (1_000, "1,000 "), (1_000_000, "1,000,000 "))


def outputs_word(output_unit: str) -> str:
    """What a count of outputs counts: "requests", "millions of tokens", "images", "samples"."""
    if output_unit == "1m_tokens":
        return "millions of tokens"
    return _WORDS.get(output_unit, (output_unit, output_unit))[1]


def cost_scale(values: Iterable[float | None], output_unit: str) -> tuple[int, str]:
    """(factor, label): the smallest of 1, 1,000, 1,000,000 outputs at which the cheapest figure
    is at least 0.1 USD, and the label "USD per 1,000 requests" (per 1M tokens: as it is)."""
    singular, plural = _WORDS.get(output_unit, (output_unit, output_unit))
    if output_unit == "1m_tokens":
        return 1, "USD per 1M tokens"
    positive = [float(v) for v in values if v is not None and v > 0]
    smallest = min(positive) if positive else 1.0
    for factor, words in _SCALES:
        if smallest * factor >= 0.1 or factor == _SCALES[-1][0]:
            return factor, f"USD per {words}{plural if factor > 1 else singular}"
    raise AssertionError("unreachable")


def money(value: float | None, width: int = 0) -> str:
    """A cost for a reader: four significant figures, thousands separated, no exponent."""
    if value is None:
        return f"{'-':>{width}}"
    value = float(value)  # DECIMAL columns arrive as Decimal
    text = f"{value:,.2f}" if abs(value) >= 100 else f"{value:.4g}" if value else "0"
    if "e" in text:  # below 1e-4 even after scaling: say it in fixed notation
        text = f"{value:.6f}"
    return f"{text:>{width}}"


def scaled(value: float | None, output_unit: str) -> str:
    """One cost with its own unit: "0.994 USD per 1,000 requests"."""
    factor, label = cost_scale([value], output_unit)
    return f"{money(None if value is None else value * factor)} {label}"


def catalog_age(days: int | None, day) -> str:
    """How old a model API's price catalog is on the day it prices ("" when taken that day):
    "price from a catalog 6 days old on 2026-12-07", or, before the source's first catalog,
    "price from a catalog taken 102 days after 2026-08-21" (int_model_api_prices_daily: a price
    that catalog dates from the day or earlier, or gives no start date and is assumed in force)."""
    if not days:
        return ""
    n = abs(days)
    span = f"{n} day{'s' if n > 1 else ''}"
    if days < 0:
        return f"price from a catalog taken {span} after {day}"
    return f"price from a catalog {span} old on {day}"
