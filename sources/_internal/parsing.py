"""Small helpers shared by parsers: number parsing and text decoding. Pure functions."""

from __future__ import annotations

import json
import re

from sources._internal.records import ParseError

_FOOTNOTE = re.compile(r"^\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s*\^\s*[0-9]+\s*$")
_PLAIN = re.compile(r"^\s*[-+]?[0-9][0-9,]*(?:\.[0-9]+)?\s*$")


def decode_text(content: bytes, where: str) -> str:
    """Decode UTF-8 (with or without BOM); a document that is not text is a ParseError."""
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(
            where, "<document>", f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from exc


def load_json(content: bytes, where: str):
    """A JSON document; one that is not text or not JSON is a ParseError naming it."""
    text = decode_text(content, where)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(
            where, "<document>", f"invalid JSON: {exc.msg} at line {exc.lineno}"
        ) from exc


def parse_number(value: object) -> float | None:
    """A number from a JSON/CSV cell: 2.5, "2.5", "2,048" (thousands), "4^1" (footnote).

    Empty -> None.

    Raises ValueError for anything else, so the caller can name the field in its error.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(f"not a number: {value!r}")
    if isinstance(value, int | float):
        return float(value)
    text = str(value).strip()
    if text == "":
        return None
    m = _FOOTNOTE.match(text)
    if m:
        text = m.group(1)
    if not _PLAIN.match(text):
        raise ValueError(f"not a number: {value!r}")
    return float(text.replace(",", ""))


def parse_count(value: object) -> int | None:
    """A whole count (GPUs per instance). "8", 8.0, "4^1" -> int. 2.5 -> ValueError."""
    number = parse_number(value)
    if number is None:
        return None
    if number != int(number):
        raise ValueError(f"not a whole number: {value!r}")
    return int(number)


# --- locale-aware numbers, money and quantities from web pages -------------------------------

_CURRENCY_SIGNS = {"$": "USD", "US$": "USD", "USD": "USD", "€": "EUR", "EUR": "EUR", "£": "GBP",
                   "GBP": "GBP"}  # fmt: skip
_CURRENCY = re.compile(r"US\$|\$|€|£|\bUSD\b|\bEUR\b|\bGBP\b", re.IGNORECASE)
_NUMBER = re.compile(r"[-+]?\d[\d.,' \u00a0\u202f]*")
_PREFIX_WORDS = re.compile(r"^\s*(ab|from|starting at|bis zu|up to|ca\.?|≈|~)\s*", re.IGNORECASE)


def parse_locale_number(text: str, locale: str = "en") -> float:
    """A number as a page prints it. locale "de": "1.008" = 1008, "0,44" = 0.44; "en": "2,048" =
    2048, "4.78" = 4.78. A number with both separators is read by whichever comes last.

    Raises ValueError when the text holds no number.
    """
    m = _NUMBER.search(text)
    if not m:
        raise ValueError(f"no number in {text!r}")
    raw = re.sub(r"[' \u00a0\u202f]", "", m.group(0)).rstrip(".,")
    if "." in raw and "," in raw:
        decimal = "." if raw.rfind(".") > raw.rfind(",") else ","
    elif locale == "de":
        decimal = ","
    else:
        decimal = "."
    thousands = "," if decimal == "." else "."
    raw = raw.replace(thousands, "")
    if decimal == ",":
        raw = raw.replace(",", ".")
    return float(raw)


def parse_money(text: str, locale: str = "en", default_currency: str | None = None):
    """Price text -> (amount, currency). "$4.78", "0,44 $", "ab 2,88 $", "€2.50/hr", "USD 3.10".

    Raises ValueError when there is no number or no currency (and no default).
    """
    cleaned = _PREFIX_WORDS.sub("", text.strip())
    sign = _CURRENCY.search(cleaned)
    currency = _CURRENCY_SIGNS[sign.group(0).upper()] if sign else default_currency
    if currency is None:
        raise ValueError(f"no currency in {text!r}")
    return parse_locale_number(_CURRENCY.sub(" ", cleaned), locale), currency


def parse_quantity(text: str, locale: str = "en") -> float:
    """A quantity with its unit: "1.008 GB/s" (de) = 1008.0, "80GB" = 80.0, "733 TFLOPS"."""
    return parse_locale_number(text, locale)
