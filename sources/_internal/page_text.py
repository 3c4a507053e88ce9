"""What one piece of a price page says: a GPU's name, a GPU count, an amount of money, a pricing
model, a price basis. Pure functions over text, used by the automatic page reading
(sources._internal.page_reader) for every layout alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from price_parser import Price

from sources._internal.price_page import NOT_A_PRICE, pricing_model_of, unknown_commitment
from sources._internal.tables import classify_header

# GPU parts as pages name them. Each alternative is one family; spaces and hyphens inside a name
# are optional ("RTX 4090", "RTX4090", "MI-300X"). The names resolve to gpuledger's catalog later
# (int_gpu_names_resolved); here they only tell a GPU offer from anything else on the page.
_GPU = re.compile(
    r"(?<![\w.])(?:"
    r"G[BH][ -]?\d{3}"  # GB200, GB300, GH200
    r"|[BH][ -]?\d{3}[A-Z]?"  # B200, B300, H100, H200, H800, H20 is below
    r"|H20"
    r"|A[ -]?(?:100|800|30|40|16|10G?|2)"  # A100, A40, A10G, A2
    r"|L[ -]?(?:40S?|4|20)"  # L4, L40, L40S
    r"|[VPT][ -]?100|T4|K80|P[ -]?40"
    # RTX 4090, RTX A6000, RTX PRO 6000, RTX 6000 Ada, Quadro RTX 6000
    r"|(?:Quadro[ -])?RTX[ -]?(?:PRO[ -]?)?(?:A[ -]?)?\d{4}(?:[ -]?Ada)?"
    r"|A[ -]?[456]\d{3}"  # A4000, A5000, A6000
    r"|(?:Instinct[ -])?MI[ -]?\d{3}[XA]?"  # MI300X, MI250, MI355X
    r"|Gaudi[ -]?\d"
    r")(?![\w])",
    re.IGNORECASE,
)
_VENDOR = re.compile(
    r"(?:NVIDIA|AMD|Intel|Habana)\s+(?:Instinct\s+|Tesla\s+|HGX\s+|DGX\s+)?$", re.IGNORECASE
)
# Words that belong to a GPU's name after the family: form factor, memory, generation.
_VARIANT = re.compile(
    r"^(?:\s+(?:SXM\d?|PCIe|NVL(?:72|\d+)?|NVLink|HGX|OAM|Blackwell|Hopper|Ada|Superchip|"
    r"Server Edition|\d{2,3}\s?GB(?:\s?HBM\d?e?)?))+",
    re.IGNORECASE,
)
# Words after a GPU's name that say what is sold, not which GPU: "H200 SXM 141GB cloud GPU".
_GENERIC_TAIL = re.compile(
    r"(?:\s+(?:cloud|gpus?|instances?|servers?|nodes?|rental|hosting|virtual machines?|vms?))+$",
    re.IGNORECASE,
)
# A pricing model written before the GPU's name: "On-demand 8x NVIDIA H100 SXM".
_LEADING_MODEL = re.compile(
    r"^\s*(?:on[- ]?demand|reserved|spot|preemptible|interruptible)\b[\s:,-]*", re.IGNORECASE
)
_COUNT_PREFIX = re.compile(r"^\s*(\d{1,3})\s*[x×]\s*", re.IGNORECASE)
_COUNT_SUFFIX = re.compile(r"\s*[x×]\s*(\d{1,3})\s*$", re.IGNORECASE)
# "8x NVIDIA Tesla V100", "nodes with 8x NVIDIA H100": the count right before the vendor and series
_COUNT_BEFORE = re.compile(
    r"(?<![\w.])(\d{1,3})\s*[x×]\s*(?:(?:NVIDIA|AMD|Intel|Habana)\s+)?"
    r"(?:(?:Tesla|GeForce|HGX|DGX|Instinct|Radeon)\s+)?$",
    re.IGNORECASE,
)
# "1-1016 GPUs", "8-1016 HGX H100 GPUs": a cluster size; its lower bound is the offer's count
_COUNT_RANGE = re.compile(
    r"\b(\d{1,4})\s*(?:-|–|to|bis)\s*(\d{1,5})\s*(?:x\s*)?(?:[A-Za-z][\w-]*\s+){0,3}GPUs?\b", re.I
)
_COUNT_WORDS = re.compile(r"\b(\d{1,3})\s*(?:x\s*)?GPUs?\b", re.IGNORECASE)
GB = re.compile(r"(\d{1,3}(?:[.,]\d)?)\s*GB\b", re.IGNORECASE)
# Where a money amount stands: a currency sign or code next to a number. The amount and currency
# themselves are read by price-parser.
MONEY = re.compile(
    r"(?:US\$|\$|€|£|\b(?:USD|EUR|GBP)\s?)\s?\d[\d.,\u00a0]*"
    r"|(?<![\w.])\d[\d.,\u00a0]*\s?(?:\$|€|£|\b(?:USD|EUR|GBP)\b)(?!\s?\d)"
)
_CURRENCY = {"$": "USD", "US$": "USD", "USD": "USD", "€": "EUR", "EUR": "EUR", "£": "GBP",
             "GBP": "GBP"}  # fmt: skip
FROM = re.compile(r"\b(?:from|starting (?:at|from)|starts at|as low as|ab)\b\W*$", re.IGNORECASE)
PER_GPU = re.compile(r"(?:/|per|pro|je)\s*gpu|gpu[- ]?(?:hr|hour|h\b|stunde|std)", re.IGNORECASE)
PER_INSTANCE = re.compile(r"instance|instanz|\bnode\b|server|system|\bvm\b|machine", re.I)
NOT_HOURLY = re.compile(
    r"^\s*(?:/|per\s+|a\s+|pro\s+)\s*(month|mo|monat|week|wk|woche|minute|min|second|sec|year|yr|"
    r"jahr)\b|^\s*(monthly|weekly|yearly|annually|monatlich)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Settings:
    """How one provider's page is read (see sources/price_pages.yaml). `basis_configured` says
    whether the provider's entry names the price basis: without it, a price for more than one GPU
    must say itself whether it is per GPU or per instance. `model_configured`: the entry names the
    model of prices the page names none for; without it, such a price is read as on-demand only on
    a page that names no pricing model anywhere (and only as an offer's one price)."""

    provider: str
    default_model: str = "on_demand"
    price_basis: str = "per_gpu"
    currency: str | None = "USD"
    pricing_words: tuple[tuple[str, str], ...] = ()
    name_suffixes: tuple[str, ...] = ()
    selectors: tuple[tuple[str, str], ...] = ()
    basis_configured: bool = False
    model_configured: bool = False

    def selector(self, name: str) -> str | None:
        return dict(self.selectors).get(name)


# ---------------------------------------------------------------------------------- GPU names


def gpu_mentions(text: str) -> list[re.Match]:
    return list(_GPU.finditer(text))


def family(match: re.Match) -> str:
    return re.sub(r"[\s-]", "", match.group(0)).upper()


def several_gpus(name: str) -> str | None:
    """The refusal of a GPU name that names two or more GPU parts ("NVIDIA RTX A6000/A40"): one
    price cannot be told to be either's; None for a name of one part."""
    parts = list(dict.fromkeys(m.group(0) for m in gpu_mentions(name)))
    if len({re.sub(r"[\s-]", "", p).upper() for p in parts}) < 2:
        return None
    return (f"{name!r} names {len(parts)} GPUs ({', '.join(parts)}): nothing tells which one a "
            "price is for; refused")  # fmt: skip


def without_suffixes(text: str, settings: Settings) -> str:
    """A name without the words the provider's captures glue to it ("L4Ada Lovelace" -> "L4")."""
    text = re.sub(r"\s+", " ", text).strip()
    for suffix in sorted(settings.name_suffixes, key=len, reverse=True):
        if text.endswith(suffix) and len(text) > len(suffix):
            return text[: -len(suffix)].strip()
    return text


def gpu_name(text: str, settings: Settings) -> str | None:
    """The GPU a cell names, as the page writes it: a short cell whole (less a leading pricing
    model, counts and prices), else the first GPU mention with its vendor before it and its variant
    words after it."""
    text = without_suffixes(text, settings)
    found = gpu_mentions(text)
    if not found:
        return None
    short = _COUNT_PREFIX.sub("", _LEADING_MODEL.sub("", text))
    short = MONEY.sub("", _COUNT_SUFFIX.sub("", short)).strip(" -–:|,")
    short = _GENERIC_TAIL.sub("", short).strip()
    plain = not MONEY.search(text) and not NOT_A_PRICE.search(text)  # no price text in it
    if plain and len(short.split()) <= 6 and not _COUNT_WORDS.search(short) and gpu_mentions(short):
        return short
    m = found[0]
    start = m.start()
    vendor = _VENDOR.search(text[:start])
    if vendor:
        start = vendor.start()
    end = m.end()
    variant = _VARIANT.match(text[end:])
    if variant:
        end += variant.end()
    return text[start:end].strip()


def gpu_count(cells: list[str], gpu_cell: str) -> tuple[int | None, bool]:
    """(count, from a cluster range) as the offer's text states it, None when nothing states one:
    "8x H100", "H100 x8", "8 GPUs", "8x NVIDIA Tesla V100" and "1-1016 GPUs" (the lower bound)."""
    for text in [gpu_cell, *cells]:
        rng = _COUNT_RANGE.search(text)
        if rng:
            return int(rng.group(1)), True
        stripped = _LEADING_MODEL.sub("", text)
        m = _COUNT_PREFIX.match(stripped) or _COUNT_SUFFIX.search(stripped)
        if m and gpu_mentions(text):
            return int(m.group(1)), False
        m = _COUNT_WORDS.search(text)
        if m and not money_in(text, None):
            return int(m.group(1)), False
        first = gpu_mentions(text)
        m = _COUNT_BEFORE.search(text[: first[0].start()]) if first else None
        if m:
            return int(m.group(1)), False
    return None, False


# ---------------------------------------------------------------------------------- prices


@dataclass
class Money:
    amount: float
    currency: str
    start: int
    end: int


def money_in(text: str, default_currency: str | None, bare_ok: bool = False) -> list[Money]:
    """Every amount of money in a cell, read by price-parser. A bare number counts only where
    the cell's label says it is a price (`bare_ok`), in the provider's currency."""
    found = []
    for m in MONEY.finditer(text):
        price = Price.fromstring(m.group(0))
        if price.amount is None:
            continue
        sign = (price.currency or "").strip().upper()
        currency = _CURRENCY.get(sign) or _CURRENCY.get(price.currency or "")
        if currency:
            found.append(Money(float(price.amount), currency, m.start(), m.end()))
    if not found and bare_ok and default_currency:
        price = Price.fromstring(text)
        if price.amount is not None and not re.search(r"[a-z]{3,}", text, re.I):
            found.append(Money(float(price.amount), default_currency, 0, len(text)))
    return found


def model_in(text: str, settings: Settings) -> str | None:
    """The pricing model a piece of text names: the provider's own words first, then the common
    ones ("On-demand", "Spot", "Preemptible", "6-month reserved", "1-year", "Dynamic price")."""
    low = text.lower()
    for words, model in settings.pricing_words:
        if words.lower() in low:
            return model
    return pricing_model_of(text)


def unknown_term_in(text: str, settings: Settings) -> str | None:
    """A commitment the text names that no pricing model stands for ("Reservation" without a term,
    "2-year"), unless the provider's own words map it."""
    low = text.lower()
    if any(words.lower() in low for words, _ in settings.pricing_words):
        return None
    return unknown_commitment(text)


def basis_in(text: str) -> str | None:
    """per_gpu / per_instance when the text says which, else None."""
    if PER_GPU.search(text):
        return "per_gpu"
    if PER_INSTANCE.search(text):
        return "per_instance"
    return None


# ---------------------------------------------------------------------------------- labels


def label_meaning(label: str) -> str | None:
    """What a column label or data key means: gpu, count, memory, ram, vcpus, price, ..."""
    if not label:
        return None
    compact = re.sub(r"[^a-z0-9]", "", label.lower())
    if "currency" in compact:
        return "currency"
    if "vcpu" in compact or compact in ("cpus", "cpu", "cores", "cpucores"):
        return "vcpus"
    if "vram" in compact or "gpumem" in compact:
        return "memory"
    if "gpucount" in compact or compact in ("gpus", "numgpus", "count", "gpunum", "quantity"):
        return "count"
    if compact in ("memory", "ram", "systemram", "systemmemory", "ramgb") or re.search(
        r"\bram\b", label, re.IGNORECASE
    ):
        return "ram"  # also "Max RAM (GB) per GPU ($0.005/hr)": the RAM, not a price
    words = label_words(label)
    meaning = classify_header(words)
    if meaning is None and (
        re.search(r"price|cost|rate|hourly", compact)
        or pricing_model_of(words)
        or unknown_commitment(words)
    ):
        meaning = "price"  # "Spot", "On-Demand", "onDemandPrice", "Reservation Pricing": prices
    return meaning


def label_words(label: str) -> str:
    """A data key or header as words: "onDemandPrice" -> "on Demand Price"."""
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", label or "")
    return re.sub(r"[_.]+", " ", text).strip()


def whole(text: str) -> int | None:
    m = re.search(r"\d+", text or "")
    return int(m.group(0)) if m else None
