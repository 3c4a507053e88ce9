"""A provider's pricing page read through the generic extractor: tables by header meaning.

Used by the provider modules that have no machine-readable price feed. A table counts when it has
a GPU column and at least one price column. Per row:

- GPU name from the GPU column; the GPU count from a count column, else from an "8x H100" prefix
  in the name or offer, else 1.
- One record per price column. A price column whose header names a pricing model ("On-Demand",
  "Spot", "Reserved 1 year", "1-Year", "Spot-Preis") gives that model; a plain price column takes
  the row's pricing-model column if there is one, else the module's default.
- Per GPU or per instance: a price header saying "per GPU" / "/GPU" / "pro GPU" is per GPU and is
  multiplied by the count; one saying "instance", "node", "server" or "system" is for the whole
  offer; otherwise the module says which its page uses (`price_basis`).
- A memory column is kept as the offer's GPU memory (it tells a 40 GB A100 from an 80 GB one).
- "Contact sales", "Coming soon", "-" and empty cells are not prices: the row is kept as a row error
  with the reason, never as a zero price.

A page without such a table raises a ParseError naming the page and the headers it had.
"""

from __future__ import annotations

import os
import re
from datetime import datetime

from sources._internal.parsing import parse_locale_number, parse_money
from sources._internal.records import ParseResult, PriceObservation, RowError
from sources._internal.tables import Table, extract_tables, find_tables

_MODEL_WORDS: list[tuple[str, re.Pattern]] = [
    ("reserved_3y", re.compile(r"3[- ]?(year|yr|jahr)|36[- ]?(month|monat)|three[- ]year")),
    ("reserved_1y", re.compile(r"1[- ]?(year|yr|jahr)|12[- ]?(month|monat)|one[- ]year|reserved")),
    ("spot", re.compile(r"\bspot\b|preemptible|interruptible|unterbrechbar")),
    ("marketplace", re.compile(r"marketplace|community|marktplatz")),
    ("on_demand", re.compile(r"on[- ]?demand|pay[- ]as[- ]you[- ]go|\bpayg\b|standard|auf abruf")),
]
_PER_GPU = re.compile(r"per gpu|/ ?gpu\b|pro gpu|je gpu|gpu[- ]?(hour|hr|stunde|std)")
_PER_INSTANCE = re.compile(r"instance|instanz|\bnode\b|server|system|\bvm\b|per machine")
_COUNT_PREFIX = re.compile(r"^\s*(\d{1,2})\s*[x×]\s*", re.IGNORECASE)
# A price given as a lower bound: "from $0.90", "starting at $1.49", "ab 0,44 $".
FROM_WORDS = re.compile(r"^\W*(?:from|starting (?:at|from)|starts at|as low as|ab)\b", re.I)
NOT_A_PRICE = re.compile(
    r"contact|kontakt|sales|vertrieb|coming soon|demnächst|sold out|ausverkauft|\bn/?a\b|^[-–—]$|"
    r"request|anfrage|waitlist|reserve now",
    re.IGNORECASE,
)


def configured_urls(variable: str, defaults: tuple[str, ...]) -> tuple[str, ...]:
    """A provider page's URLs: the environment variable (comma separated; empty = switched off)
    or the module's defaults when it is unset."""
    configured = os.environ.get(variable)
    if configured is None:
        return defaults
    return tuple(u.strip() for u in configured.split(",") if u.strip())


def pricing_model_of(text: str) -> str | None:
    norm = text.lower()
    for model, pattern in _MODEL_WORDS:
        if pattern.search(norm):
            return model
    return None


def _price_columns(table: Table) -> list[tuple[int, str | None, str | None]]:
    """(column index, pricing model named by its header, basis named by its header)."""
    cols = []
    for i, (header, meaning) in enumerate(zip(table.headers, table.meanings, strict=False)):
        named_model = pricing_model_of(header)
        if meaning == "price":
            basis = (
                "per_gpu"
                if _PER_GPU.search(header.lower())
                else "per_instance"
                if _PER_INSTANCE.search(header.lower())
                else None
            )
            cols.append((i, named_model, basis))
    return cols


def _count(text: str, name: str, offer: str, locale: str) -> int:
    if text.strip():
        value = parse_locale_number(text, locale)
        if value != int(value) or not 1 <= value <= 72:
            raise ValueError(f"GPU count must be a whole number 1..72, got {text!r}")
        return int(value)
    for source in (name, offer):
        m = _COUNT_PREFIX.match(source)
        if m:
            return int(m.group(1))
    return 1


def parse_price_tables(
    content: bytes,
    url: str,
    fetched_at: datetime,
    provider: str,
    *,
    default_model: str = "on_demand",
    price_basis: str = "per_gpu",
    default_currency: str | None = "USD",
    clean_name=None,
    is_gpu=None,
) -> ParseResult:
    """The price rows of a page's price tables. `clean_name` tidies a GPU name; with `is_gpu`, a
    row whose name is no GPU (a CPU or storage row of the same table) is passed over."""
    tables = extract_tables(content, url)
    for table in tables:  # "On-Demand" / "Spot" headers over price cells are price columns
        for i, header in enumerate(table.headers):
            if table.meanings[i] is None and pricing_model_of(header):
                table.meanings[i] = "price"
    tables = find_tables(tables, url, ("gpu", "price"))
    records, errors = [], []
    for table in tables:
        prices = _price_columns(table)
        gpu_i, count_i = table.column("gpu"), table.column("count")
        model_i, memory_i, offer_i = (
            table.column("pricing_model"),
            table.column("memory"),
            table.column("offer"),
        )
        for r_idx, row in enumerate(table.rows, start=1):

            def cell(i: int | None, row=row) -> str:
                return row[i] if i is not None and i < len(row) else ""

            where = f"table {table.index} row {r_idx}"
            raw = " | ".join(row)
            name = _COUNT_PREFIX.sub("", cell(gpu_i)).strip()
            name = clean_name(name) if clean_name and name else name
            if is_gpu is not None and not is_gpu(name):
                continue
            offer = cell(offer_i).strip()
            if not name:
                errors.append(RowError(url, where, table.headers[gpu_i], "no GPU name", raw))
                continue
            try:
                count = _count(cell(count_i), cell(gpu_i), offer, table.locale)
                memory_text = cell(memory_i).strip()
                memory = (
                    parse_locale_number(memory_text, table.locale)
                    if memory_text and not NOT_A_PRICE.fullmatch(memory_text)
                    else None
                )
            except ValueError as exc:
                field = table.headers[count_i] if count_i is not None else "memory"
                errors.append(RowError(url, where, field, str(exc), raw))
                continue
            row_model = pricing_model_of(cell(model_i)) if model_i is not None else None
            if model_i is not None and cell(model_i).strip() and row_model is None:
                errors.append(
                    RowError(
                        url,
                        where,
                        table.headers[model_i],
                        f"unknown pricing model {cell(model_i)!r}",
                        raw,
                    )
                )
                continue
            for col, named_model, basis in prices:
                text = cell(col).strip()
                header = table.headers[col]
                if not text or NOT_A_PRICE.search(text):
                    errors.append(
                        RowError(url, where, header, f"no price for {name}: {text!r}", raw)
                    )
                    continue
                try:
                    amount, currency = parse_money(text, table.locale, default_currency)
                    if amount <= 0:
                        raise ValueError(f"price must be positive, got {text!r}")
                except ValueError as exc:
                    errors.append(RowError(url, where, header, str(exc), raw))
                    continue
                per_gpu = (basis or price_basis) == "per_gpu"
                qualifier = "from" if FROM_WORDS.search(text) else None
                records.append(
                    PriceObservation(
                        provider=provider,
                        offer_id=offer or (f"{count}x {name}" if count > 1 else name),
                        region="",
                        gpu_name_raw=name,
                        gpu_count=count,
                        pricing_model=named_model or row_model or default_model,
                        price_per_hour=round(amount * count, 6) if per_gpu else amount,
                        currency=currency,
                        observed_at=fetched_at,
                        gpu_memory_gb=memory,
                        price_qualifier=qualifier,
                    )
                )
    return ParseResult(records, errors)
