"""A provider's pricing page read through the generic extractor: tables by header meaning.

Used by the provider modules that have no machine-readable price feed. A table counts when it has
a GPU column and at least one price column. Per row:

- GPU name from the GPU column; the GPU count from a count column (or a second GPU column of whole
  numbers: "GPU model" | "GPU"), else from an "8x H100" prefix in the name or offer, else 1.
- One record per price column. A price column whose header names a pricing model ("On-Demand",
  "Spot", "Reserved 1 year", "1-Year", "Spot-Preis") gives that model; a plain price column takes
  the row's pricing-model column if there is one, else the module's default. A header naming a
  commitment no model stands for ("2-year", "Reserved" without a term) refuses its prices.
  A row with two or more prices is refused whole (a row error, none of its prices kept) when one of
  its columns names no pricing model or two name the same: never the first with a default label.
- Per GPU or per instance: a price header saying "per GPU" / "/GPU" / "pro GPU" is per GPU and is
  multiplied by the count; one saying "instance", "node", "server" or "system" is for the whole
  offer; otherwise the module says which its page uses (`price_basis`); with none, a table whose
  rows are named by an "Instance" column prices instances, and elsewhere a price for more than one
  GPU is refused (for one GPU both are the same).
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

# The pricing models a page names in words. The reserved ones are told by their term (see _terms);
# "dynamic" is a price the provider resets by demand (DataCrunch's "Dynamic price", reset daily and
# held while the instance runs): neither on-demand nor spot, never interrupted.
_DYNAMIC = re.compile(r"\bdynamic(?:ally)?\b|\bdynamisch", re.IGNORECASE)
_MODEL_WORDS: list[tuple[str, re.Pattern]] = [
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
    r"contact|kontakt|sales|vertrieb|coming soon|demnächst|sold out|ausverkauft|\bn/?a\b|^[-–—]+$|"
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


# A commitment's term: "6-month", "6 Month", "six-month", "1-year", "36 months", "3 Jahre". The
# reserved models stand for 6, 12 and 36 months; any other term, a term in weeks or days, or two
# different terms in one label ("6 months – 1 year") is a commitment no model stands for, and so is
# "Reserved" without its term. A price under such a label is refused, never read as the nearest
# model.
_TERM = re.compile(
    r"(?<![\w.,])(\d+|one|two|three|six|twelve)[- ]?"
    r"(month|monat|mo\b|year|yr|jahr|week|woche|day|tag)",
    re.IGNORECASE,
)
# "6-12 months", "1 to 3 years": a range of terms, no one term
_TERM_RANGE = re.compile(
    r"(?<![\w.,])\d+\s*(?:-|–|to|bis)\s*\d+[- ]?(?:month|monat|mo\b|year|yr|jahr)", re.IGNORECASE
)
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "six": 6, "twelve": 12}
RESERVED_TERMS = {6: "reserved_6m", 12: "reserved_1y", 36: "reserved_3y"}  # months -> model
_COMMITMENT = re.compile(r"reserv(?:ed?|ation)|commit|reserviert|laufzeit", re.IGNORECASE)


def _terms(text: str) -> list[tuple[str, int | None]]:
    """Each term the text names, as (its words, months); months None for weeks and days."""
    found = []
    for m in _TERM.finditer(text):
        number, unit = m.group(1).lower(), m.group(2).lower()
        n = int(number) if number.isdigit() else _NUMBER_WORDS[number]
        if unit.startswith(("week", "woche", "day", "tag")):
            found.append((m.group(0), None))
        else:
            found.append((m.group(0), n if unit.startswith(("month", "monat", "mo")) else 12 * n))
    return found


def unknown_commitment(text: str) -> str | None:
    """The words of a commitment term (or a way of pricing) gpuledger has no pricing model for,
    else None: a term other than 6, 12 or 36 months, two terms or a range of them ("6-12
    months"), "Reserved" without a term, or "Dynamic" beside another model's words ("dynamic
    spot": which one is not told)."""
    terms = _terms(text)
    dynamic = _DYNAMIC.search(text)
    if dynamic:
        others = [w for w, _ in terms] + [
            m.group(0) for _, p in _MODEL_WORDS if (m := p.search(text.lower()))
        ]
        return f"{dynamic.group(0)} with {others[0]}" if others else None
    term_range = _TERM_RANGE.search(text)
    if term_range:
        return term_range.group(0)  # "6-12 months"
    for words, months in terms:
        if months not in RESERVED_TERMS:
            return words  # "2 weeks – 1 year", "2-year": a term no model stands for
    if len({months for _, months in terms}) > 1:
        return " and ".join(words for words, _ in terms)  # "6 months – 1 year"
    commitment = _COMMITMENT.search(text)
    if commitment and not terms:
        return commitment.group(0) + " (no term)"
    return None


def pricing_model_of(text: str) -> str | None:
    """The pricing model a header or label names; None for none or for a commitment no model
    stands for (see unknown_commitment). A term names a reserved model whatever else the text
    says ("6-month" is reserved_6m, never reserved_1y); "Dynamic" names dynamic, never on-demand
    or spot."""
    if unknown_commitment(text):
        return None
    if _DYNAMIC.search(text):
        return "dynamic"
    terms = _terms(text)
    if terms:
        return RESERVED_TERMS[terms[0][1]]
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


def _count(text: str, name: str, offer: str, locale: str, panel: int | None = None) -> int:
    if text.strip():
        value = parse_locale_number(text, locale)
        if value != int(value) or not 1 <= value <= 72:
            raise ValueError(f"GPU count must be a whole number 1..72, got {text!r}")
        return int(value)
    for source in (name, offer):
        m = _COUNT_PREFIX.match(source)
        if m:
            return int(m.group(1))
    return panel or 1  # the count the table's tab names ("8x"), else one GPU


def _gpu_and_count_columns(table: Table, gpu_i: int | None) -> tuple[int | None, int | None]:
    """(GPU column, count column) of a table with two GPU columns, one of whole numbers in every
    row (DataCrunch: "GPU model" | "GPU"): that one is the count; else (gpu_i, None)."""
    columns = [i for i, m in enumerate(table.meanings) if m == "gpu"]
    numbers = [
        i
        for i in columns
        if table.rows
        and all(i < len(r) and re.fullmatch(r"\s*\d{1,4}\s*", r[i]) for r in table.rows)
    ]
    names = [i for i in columns if i not in numbers]
    if numbers and names:
        return names[0], numbers[0]
    return gpu_i, None


_NAMED_GB = re.compile(r"(\d{1,3})\s*GB\b", re.IGNORECASE)


def per_gpu_memory(memory: float | None, count: int, name: str) -> float | None:
    """One GPU's memory from a memory column that may give the instance's total (DataCrunch's
    "VRAM" 1440 for 8x "B200 SXM6 180GB"): the name's GB where the column is count x it."""
    named = _NAMED_GB.search(name)
    if memory is not None and named and count > 1 and memory == count * int(named.group(1)):
        return float(named.group(1))
    return memory


def refuse_ambiguous(prices: list[tuple[str, bool, str]], name: str) -> tuple[str, str] | None:
    """(field, reason) when one offer's prices cannot be told apart: two or more prices of which
    one names no pricing model (only the default would label it), or two of one model. Such an
    offer is refused whole; None when every price's model is known and distinct.
    `prices` holds (label, named no model, model) per price."""
    if len(prices) < 2:
        return None
    unnamed = [label or "(no label)" for label, no_model, _ in prices if no_model]
    models = [model for _, _, model in prices]
    shown = "; ".join(f"{label or '(no label)'}" for label, _, _ in prices)
    if unnamed:
        return unnamed[0], (f"{len(prices)} prices for {name} ({shown}) and {len(unnamed)} of them "
                            "name no pricing model: nothing tells which offer each is; none is "
                            "kept")  # fmt: skip
    dup = next((m for m in models if models.count(m) > 1), None)
    if dup:
        reason = (f"{models.count(dup)} {dup} prices for {name} ({shown}): nothing tells which "
                  "offer each is; none is kept")  # fmt: skip
        return prices[0][0] or "price", reason
    return None


def parse_price_tables(
    content: bytes,
    url: str,
    fetched_at: datetime,
    provider: str,
    *,
    default_model: str = "on_demand",
    price_basis: str | None = "per_gpu",
    default_currency: str | None = "USD",
    clean_name=None,
    is_gpu=None,
) -> ParseResult:
    """The price rows of a page's price tables. `clean_name` tidies a GPU name; with `is_gpu`, a
    row whose name is no GPU (a CPU or storage row of the same table) is passed over.
    `price_basis` None: a price for more than one GPU whose column does not say per GPU or per
    instance is refused. A row with two or more prices is refused whole when any of its columns
    names no pricing model or two name the same (refuse_ambiguous)."""
    from sources._internal.page_text import several_gpus  # page_text reads this module's words

    tables = extract_tables(content, url)
    for table in tables:  # "On-Demand" / "Spot" headers over price cells are price columns
        for i, header in enumerate(table.headers):
            if table.meanings[i] is None and (
                pricing_model_of(header) or unknown_commitment(header)
            ):
                table.meanings[i] = "price"
    tables = find_tables(tables, url, ("gpu", "price"))
    records, errors = [], []
    for table in tables:
        prices = _price_columns(table)
        gpu_i, count_i = table.column("gpu"), table.column("count")
        if count_i is None:  # "GPU model" B200 beside "GPU" 8: the column of numbers is the count
            gpu_i, count_i = _gpu_and_count_columns(table, gpu_i)
        model_i, memory_i, offer_i = (
            table.column("pricing_model"),
            table.column("memory"),
            table.column("offer"),
        )
        # a table of instances ("Instance name" column) prices each row's instance, where neither
        # the price's header nor an entry says per GPU or per instance
        instance_rows = offer_i is not None and _PER_INSTANCE.search(table.headers[offer_i].lower())
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
            if is_gpu is not None and (several := several_gpus(name)):
                errors.append(RowError(url, where, table.headers[gpu_i], several, raw))
                continue
            try:
                count = _count(cell(count_i), cell(gpu_i), offer, table.locale, table.panel_count)
                memory_text = cell(memory_i).strip()
                memory = (
                    parse_locale_number(memory_text, table.locale)
                    if memory_text and not NOT_A_PRICE.fullmatch(memory_text)
                    else None
                )
                memory = per_gpu_memory(memory, count, name)
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
            row_records, row_errors = [], []
            for col, named_model, basis in prices:
                text = cell(col).strip()
                header = table.headers[col]
                if not text or NOT_A_PRICE.search(text):
                    row_errors.append(
                        RowError(url, where, header, f"no price for {name}: {text!r}", raw)
                    )
                    continue
                try:
                    amount, currency = parse_money(text, table.locale, default_currency)
                    if amount <= 0:
                        raise ValueError(f"price must be positive, got {text!r}")
                except ValueError as exc:
                    row_errors.append(RowError(url, where, header, str(exc), raw))
                    continue
                term = unknown_commitment(header)
                if term:
                    row_errors.append(RowError(url, where, header, f"{text!r} is priced for "
                                               f"{term!r}, a term no pricing model stands for: "
                                               "refused", raw))  # fmt: skip
                    continue
                basis = basis or price_basis or ("per_instance" if instance_rows else None)
                if basis is None and count > 1:
                    reason = (f"nothing says whether {text!r} is per GPU or per instance of "
                              f"{count}x {name} (an entry's price_basis can): refused")  # fmt: skip
                    row_errors.append(RowError(url, where, header, reason, raw))
                    continue
                per_gpu = basis in ("per_gpu", None)  # None: one GPU, the same either way
                qualifier = "from" if FROM_WORDS.search(text) else None
                row_records.append(
                    (
                        header,
                        named_model is None and row_model is None,
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
                        ),
                    )
                )
            refusal = refuse_ambiguous(
                [(h, unnamed, r.pricing_model) for h, unnamed, r in row_records], name
            )
            if refusal:
                errors += row_errors + [RowError(url, where, refusal[0], refusal[1], raw)]
                continue
            records += [r for _, _, r in row_records]
            errors += row_errors
    return ParseResult(records, errors)
