"""Small helpers shared by parsers: number parsing and text decoding. Pure functions."""

from __future__ import annotations

import re

from sources.records import ParseError

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
