"""Reading any provider's GPU price page without provider code: the automatic reading.

A page is turned into *blocks*, each one candidate offer as a list of text cells with the label of
each cell where the page gives one, from whichever layout the page is made of:

- `data`: data embedded in the page: JSON-LD, Next.js (`__NEXT_DATA__`, `self.__next_f.push`
  payloads), Wix (`wix-warmup-data`) and any inline script's JavaScript object literals (read with
  chompjs). A block is an object naming a GPU and holding a price field (keys are the labels; a
  list of offers under a GPU-naming object inherits its name).
- `table`: HTML `<table>`s and markdown pipe tables whose header names a GPU and a price column
  (by header meaning: sources._internal.tables), read row by row as before.
- `rows`: table rows without their table (a capture that starts inside a `<table>`, or a table with
  no header), grouped by their parent; the labels come from a header row of `<th>` cells if any.
- `grid`: sibling elements of one tag and class that repeat the same structure, each naming one
  GPU and holding a price or a "Contact us": `<div>` price grids and marketing price cards alike.
  The innermost such group is taken (a card, not the section around the cards); a sibling
  without a GPU or a price is the grid's header row and labels the cells below it.

Each block is interpreted by what its cells say: the GPU by its name (NVIDIA, AMD, Intel parts),
the count from a count column, "8x"/"x8", "8 GPUs", or a "1-1016 GPUs" range (the price is then per
GPU), the GPU memory from a memory column or "80GB" beside the name, and every price a cell holds,
read with Zyte's price-parser ("$2.99 / GPU / hr", "from $0.90", "ab 0,44 $"). A price's pricing
model comes from its column's label, the cell's own words, or the nearest label before it in the
block ("On-demand", "Spot", "Reserved 1 year", the provider's own words from its configuration),
else the provider's default; it is per GPU when its text or label says "/GPU" or "per GPU", per
instance when it says "instance", "node" or "server", else as the provider is configured. "from",
"starting at", "ab" make it a lower bound (`price_qualifier = 'from'`). A price per month, week or
minute is a row error (not silently read as per hour); so is a GPU with only "Contact sales",
"Coming soon" or nothing where its price belongs.

Of the layouts that yield prices, the one with the most priced offers is taken (the same offers
often appear twice: as data and as rendered HTML). A page where no layout yields a GPU with a price
or a price-less GPU row raises a ParseError naming the page and what was looked for.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import chompjs
from bs4 import BeautifulSoup, NavigableString, Tag
from price_parser import Price

from sources._internal.parsing import decode_text
from sources._internal.price_page import NOT_A_PRICE, parse_price_tables, pricing_model_of
from sources._internal.records import ParseError, ParseResult, PriceObservation, RowError
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
_COUNT_PREFIX = re.compile(r"^\s*(\d{1,3})\s*[x×]\s*", re.IGNORECASE)
_COUNT_SUFFIX = re.compile(r"\s*[x×]\s*(\d{1,3})\s*$", re.IGNORECASE)
_COUNT_BEFORE = re.compile(r"(?<![\w.])(\d{1,3})\s*[x×]\s*(?:NVIDIA\s+|AMD\s+|Intel\s+)?$", re.I)
_COUNT_RANGE = re.compile(r"\b(\d{1,4})\s*(?:-|–|to|bis)\s*(\d{1,5})\s*(?:x\s*)?GPUs?\b", re.I)
_COUNT_WORDS = re.compile(r"\b(\d{1,3})\s*(?:x\s*)?GPUs?\b", re.IGNORECASE)
_GB = re.compile(r"(\d{1,3}(?:[.,]\d)?)\s*GB\b", re.IGNORECASE)
# Where a money amount stands: a currency sign or code next to a number. The amount and currency
# themselves are read by price-parser.
_MONEY = re.compile(
    r"(?:US\$|\$|€|£|\b(?:USD|EUR|GBP)\s?)\s?\d[\d.,\u00a0]*"
    r"|(?<![\w.])\d[\d.,\u00a0]*\s?(?:\$|€|£|\b(?:USD|EUR|GBP)\b)(?!\s?\d)"
)
_CURRENCY = {"$": "USD", "US$": "USD", "USD": "USD", "€": "EUR", "EUR": "EUR", "£": "GBP",
             "GBP": "GBP"}  # fmt: skip
_FROM = re.compile(r"\b(?:from|starting (?:at|from)|starts at|as low as|ab)\b\W*$", re.IGNORECASE)
_PER_GPU = re.compile(r"(?:/|per|pro|je)\s*gpu|gpu[- ]?(?:hr|hour|h\b|stunde|std)", re.IGNORECASE)
_PER_INSTANCE = re.compile(r"instance|instanz|\bnode\b|server|system|\bvm\b|machine", re.I)
_NOT_HOURLY = re.compile(
    r"^\s*(?:/|per\s+|a\s+|pro\s+)\s*(month|mo|monat|week|wk|woche|minute|min|second|sec|year|yr|"
    r"jahr)\b|^\s*(monthly|weekly|yearly|annually|monatlich)",
    re.IGNORECASE,
)
_SKIP_TAGS = ("script", "style", "noscript", "template", "s", "del", "strike", "svg", "head")
_MAX_SCRIPT = 3_000_000


@dataclass
class Block:
    where: str
    cells: list[str]
    labels: list[str | None] = field(default_factory=list)

    def label(self, i: int) -> str:
        return (self.labels[i] if i < len(self.labels) else None) or ""

    @property
    def raw(self) -> str:
        pairs = [f"{self.label(i)}: {c}" if self.label(i) else c for i, c in enumerate(self.cells)]
        return " | ".join(pairs)[:500]


@dataclass(frozen=True)
class Settings:
    """How one provider's page is read (see sources/price_pages.yaml)."""

    provider: str
    default_model: str = "on_demand"
    price_basis: str = "per_gpu"
    currency: str | None = "USD"
    pricing_words: tuple[tuple[str, str], ...] = ()
    name_suffixes: tuple[str, ...] = ()
    selectors: tuple[tuple[str, str], ...] = ()

    def selector(self, name: str) -> str | None:
        return dict(self.selectors).get(name)


# ---------------------------------------------------------------------------------- GPU names


def gpu_mentions(text: str) -> list[re.Match]:
    return list(_GPU.finditer(text))


def _family(match: re.Match) -> str:
    return re.sub(r"[\s-]", "", match.group(0)).upper()


def without_suffixes(text: str, settings: Settings) -> str:
    """A name without the words the provider's captures glue to it ("L4Ada Lovelace" -> "L4")."""
    text = re.sub(r"\s+", " ", text).strip()
    for suffix in sorted(settings.name_suffixes, key=len, reverse=True):
        if text.endswith(suffix) and len(text) > len(suffix):
            return text[: -len(suffix)].strip()
    return text


def gpu_name(text: str, settings: Settings) -> str | None:
    """The GPU a cell names, as the page writes it: a short cell whole (less counts and prices),
    else the first GPU mention with its vendor before it and its variant words after it."""
    text = without_suffixes(text, settings)
    found = gpu_mentions(text)
    if not found:
        return None
    short = _MONEY.sub("", _COUNT_SUFFIX.sub("", _COUNT_PREFIX.sub("", text))).strip(" -–:|,")
    short = _GENERIC_TAIL.sub("", short).strip()
    plain = not _MONEY.search(text) and not NOT_A_PRICE.search(text)  # no price text in it
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
    for m in _MONEY.finditer(text):
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


def _model_in(text: str, settings: Settings) -> str | None:
    low = text.lower()
    for words, model in settings.pricing_words:
        if words.lower() in low:
            return model
    return pricing_model_of(text)


# ---------------------------------------------------------------------------------- interpretation


def _labels_meaning(label: str) -> str | None:
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
    if compact in ("memory", "ram", "systemram", "systemmemory", "ramgb"):
        return "ram"
    words = re.sub(r"([a-z])([A-Z])", r"\1 \2", label).replace("_", " ")
    meaning = classify_header(words)
    if meaning is None and (
        re.search(r"price|cost|rate|hourly", compact) or pricing_model_of(words)
    ):
        meaning = "price"  # "Spot", "On-Demand", "onDemandPrice": a column of prices
    return meaning


def _words(label: str) -> str:
    """A data key or header as words: "onDemandPrice" -> "on Demand Price"."""
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", label or "")
    return re.sub(r"[_.]+", " ", text).strip()


def _whole(text: str) -> int | None:
    m = re.search(r"\d+", text or "")
    return int(m.group(0)) if m else None


@dataclass(frozen=True)
class Offer:
    name: str
    count: int
    model: str
    price_per_hour: float
    currency: str
    memory: float | None
    vcpus: int | None
    ram: int | None
    qualifier: str | None
    offer_id: str = ""


def interpret(
    block: Block, url: str, settings: Settings
) -> tuple[list[Offer], list[RowError]] | None:
    """A block's offers (one per pricing model priced) and the row errors of the prices it could
    not read; None when it is not a GPU offer at all (a CPU row, a storage row, a spec row)."""
    meanings = [_labels_meaning(block.label(i)) for i in range(len(block.cells))]
    gpu_i = next(
        (i for i, m in enumerate(meanings) if m == "gpu" and gpu_mentions(block.cells[i])), None
    )
    if gpu_i is None:
        gpu_i = next(
            (i for i, m in enumerate(meanings) if m == "offer" and gpu_mentions(block.cells[i])),
            None,
        )
    if gpu_i is None:
        gpu_i = next(
            (
                i
                for i, c in enumerate(block.cells)
                if meanings[i] not in ("price", "memory", "ram", "count") and gpu_mentions(c)
            ),
            None,
        )
    if gpu_i is None:
        return None
    gpu_cell = block.cells[gpu_i]
    name = gpu_name(gpu_cell, settings)
    offer_id = next(
        (block.cells[i].strip() for i, m in enumerate(meanings) if m == "offer" and i != gpu_i),
        "",
    )
    if not name:
        return None
    # count
    count, per_gpu_range = None, False
    for i, m in enumerate(meanings):
        if m == "count" and block.cells[i].strip():
            count = _whole(block.cells[i])
            if count is None or not 1 <= count <= 1024:
                reason = f"not a GPU count: {block.cells[i]!r}"
                return [], [
                    RowError(url, block.where, block.label(i) or "count", reason, block.raw)
                ]
            break
    if count is None:
        for text in [gpu_cell, *block.cells]:
            rng = _COUNT_RANGE.search(text)
            if rng:
                count, per_gpu_range = int(rng.group(1)), True
                break
            m = _COUNT_PREFIX.match(text) or _COUNT_SUFFIX.search(text)
            if m and gpu_mentions(text):
                count = int(m.group(1))
                break
            m = _COUNT_WORDS.search(text)
            if m and not money_in(text, None):
                count = int(m.group(1))
                break
            first = gpu_mentions(text)
            m = _COUNT_BEFORE.search(text[: first[0].start()]) if first else None
            if m:  # "nodes with 8x NVIDIA H100"
                count = int(m.group(1))
                break
    count = count or 1
    if not 1 <= count <= 1024:
        return [], [RowError(url, block.where, "count", f"not a GPU count: {count}", block.raw)]
    # memory, vCPUs, RAM
    memory = None
    gb = _GB.search(gpu_cell)
    for i, m in enumerate(meanings):
        text = block.cells[i]
        if m == "memory" and _GB.search(text + " GB"):
            gb = _GB.search(text if "GB" in text.upper() else text + " GB")
            break
    if gb is None:
        lone = [c for c in block.cells if re.fullmatch(r"\s*\d{1,3}\s*GB\s*", c, re.I)]
        gb = _GB.search(lone[0]) if lone else None
    if gb:
        value = float(gb.group(1).replace(",", "."))
        memory = value if 4 <= value <= 320 else None
    vcpus = next((_whole(block.cells[i]) for i, m in enumerate(meanings) if m == "vcpus"), None)
    ram = next((_whole(block.cells[i]) for i, m in enumerate(meanings) if m == "ram"), None)
    currency_cell = next((block.cells[i] for i, m in enumerate(meanings) if m == "currency"), None)
    default_currency = (currency_cell or "").strip().upper() or settings.currency
    row_model = next(
        (
            _model_in(c, settings)
            for c, m in zip(block.cells, meanings, strict=False)
            if m == "pricing_model"
        ),  # fmt: skip
        None,
    )
    # prices
    offers: dict[str, PriceObservation] = {}
    problems: list[tuple[str, str]] = []
    refusals: list[tuple[str, str]] = []
    context_model = None
    # the GPU's own cell last, and only when no other cell priced the offer ("NVIDIA H100 80GB -
    # $2.49/hr" as one line of a card)
    order = [i for i in range(len(block.cells)) if i != gpu_i] + [gpu_i]
    for i in order:
        cell = block.cells[i]
        meaning = meanings[i]
        if i == gpu_i and meaning != "price" and (offers or not money_in(cell, None)):
            continue
        if meaning in ("memory", "ram", "count", "vcpus", "bandwidth", "fp8_tflops", "fp16_tflops",
                       "input_price", "output_price", "currency"):  # fmt: skip
            continue
        label = _words(block.label(i))
        found = money_in(cell, default_currency, bare_ok=meaning == "price")
        if not found:
            if meaning == "price" and (not cell.strip() or NOT_A_PRICE.search(cell)):
                problems.append((label or "price", cell.strip()))
            elif NOT_A_PRICE.search(cell) and len(cell) < 40:
                refusals.append((label or "price", cell.strip()))  # counts if nothing is priced
            elif len(cell) < 40:
                context_model = _model_in(cell, settings) or context_model
            continue
        money = found[0]
        before, after = cell[: money.start], cell[money.end :]
        between = cell[money.end : found[1].start] if len(found) > 1 else ""
        if len(found) > 1 and re.fullmatch(r"\s*(?:-|–|to|bis)\s*", between):
            before = "from " + before  # "$0.90 - $1.50": a range, kept as its lower bound
            after = cell[found[1].end :]
        preceding = block.cells[i - 1] if i > 0 and i - 1 != gpu_i else ""
        if len(preceding) < 30 and not money_in(preceding, None):
            before = f"{preceding} {before}"  # "Starting at" then "$0.86"
        following = block.cells[i + 1] if i + 1 < len(block.cells) else ""
        if len(following) < 30 and not money_in(following, None) and not gpu_mentions(following):
            after = f"{after} {following}"  # "$2.49" then "/GPU/hr" in the next element
        model = (
            _model_in(label, settings)
            or _model_in(before + " " + after, settings)
            or context_model
            or row_model
            or settings.default_model
        )
        if _NOT_HOURLY.search(after) or re.search(r"\b(per month|monthly|/mo)\b", label, re.I):
            problems.append((label or "price", f"{cell.strip()!r} is not an hourly price"))
            continue
        if money.amount <= 0:
            problems.append((label or "price", f"price must be positive, got {cell.strip()!r}"))
            continue
        basis_text = f"{label} {after[:30]}"
        basis = (
            "per_gpu"
            if per_gpu_range or _PER_GPU.search(basis_text)
            else "per_instance"
            if _PER_INSTANCE.search(basis_text)
            else settings.price_basis
        )
        qualifier = "from" if _FROM.search(before) or _FROM.search(label) else None
        if model in offers:
            problems.append((label or "price", f"a second {model} price {cell.strip()!r} "
                             f"(kept {offers[model].price_per_hour:g} {offers[model].currency}): "
                             "nothing tells which offer it is"))  # fmt: skip
            continue
        price = money.amount * count if basis == "per_gpu" else money.amount
        offers[model] = Offer(name, count, model, round(price, 6), money.currency, memory,
                              vcpus, ram, qualifier, offer_id)  # fmt: skip
    refusal = NOT_A_PRICE.search(gpu_cell)
    if not offers and not problems and not refusals and refusal and len(gpu_cell) < 80:
        refusals.append(
            ("price", gpu_cell[refusal.start() :].strip())
        )  # "NVIDIA B200 - Contact us"
    if not offers and not problems:
        problems = refusals
    errors = [
        RowError(url, block.where, field_name,
                 text if text.startswith(("a second", "price must")) or text.endswith(
                     "hourly price") else f"no price for {name}: {text!r}", block.raw)
        for field_name, text in problems
    ]  # fmt: skip
    if not offers and not errors:
        if not any(m == "price" for m in meanings):
            return None  # a GPU named without a price or a refusal: a spec row, not an offer
        rest = " / ".join(c for j, c in enumerate(block.cells) if j != gpu_i)[:200]
        errors.append(RowError(url, block.where, "price", f"no price for {name}: {rest!r}",
                               block.raw))  # fmt: skip
    return list(offers.values()), errors


# ---------------------------------------------------------------------------------- layouts


def _texts(element: Tag) -> list[str]:
    """The element's visible text pieces in order, without struck-through prices and scripts."""
    out: list[str] = []

    def walk(node) -> None:
        for child in node.children:
            if isinstance(child, NavigableString):
                if type(child) is NavigableString:
                    text = re.sub(r"\s+", " ", str(child)).strip()
                    if text:
                        out.append(text)
            elif isinstance(child, Tag) and child.name not in _SKIP_TAGS:
                walk(child)

    walk(element)
    return out


def _cell_text(cell: Tag) -> str:
    return " ".join(_texts(cell))


def _table_blocks(soup: BeautifulSoup) -> list[Block]:
    """Rows of tables without a usable header and rows without their `<table>`."""
    groups: dict[int, list[Tag]] = defaultdict(list)
    parents: dict[int, Tag] = {}
    for tr in soup.find_all("tr"):
        parent = tr.parent
        if parent is not None and parent.name in ("thead", "tbody", "tfoot") and parent.parent:
            parent = parent.parent  # a header in <thead> labels the rows in <tbody>
        groups[id(parent)].append(tr)
        parents[id(parent)] = parent
    blocks = []
    for n, rows in enumerate(groups.values(), start=1):
        labels: list[str | None] = []
        for r_idx, tr in enumerate(rows, start=1):
            cells = tr.find_all(["td", "th"], recursive=False)
            texts = [_cell_text(c) for c in cells]
            if cells and all(c.name == "th" for c in cells) and not any(map(gpu_mentions, texts)):
                labels = list(texts)
                continue
            if any(texts):
                blocks.append(Block(f"rows {n} row {r_idx}", texts, labels))
    # a capture cut in the middle of a row leaves its cells without a <tr>
    loose: dict[int, list[Tag]] = defaultdict(list)
    for td in soup.find_all("td"):
        if td.parent is not None and td.parent.name not in ("tr",):
            loose[id(td.parent)].append(td)
    for n, cells in enumerate(loose.values(), start=1):
        texts = [_cell_text(c) for c in cells]
        if any(texts):
            blocks.append(Block(f"cut row {n}", texts))
    return blocks


def _signature(tag: Tag) -> tuple[str, str]:
    """Siblings of one kind: the same tag and first class ("plan-card featured" is a plan-card)."""
    classes = tag.get("class") or []
    return tag.name, classes[0] if classes else ""


def _has_price_or_refusal(texts: list[str]) -> bool:
    joined = " ".join(texts)
    return bool(_MONEY.search(joined) or NOT_A_PRICE.search(joined))


def _grid_blocks(soup: BeautifulSoup) -> list[Block]:
    """Repeated siblings each naming one GPU with a price or a refusal: grids and cards."""
    candidates: list[tuple[Tag, list[Tag], list[Tag]]] = []
    for parent in soup.find_all(True):
        if parent.name in _SKIP_TAGS or parent.name in ("table", "thead", "tbody", "tr"):
            continue
        by_sig: dict[tuple, list[Tag]] = defaultdict(list)
        for child in parent.find_all(True, recursive=False):
            if child.name not in _SKIP_TAGS and child.name not in ("tr", "td", "th", "br"):
                by_sig[_signature(child)].append(child)
        for members in by_sig.values():
            if len(members) < 2:
                continue
            offers, others = [], []
            for m in members:
                texts = _texts(m)
                families = {_family(g) for g in gpu_mentions(" ".join(texts))}
                if len(families) >= 1 and _has_price_or_refusal(texts):
                    offers.append(m)
                else:
                    others.append(m)
            if len(offers) >= 2:
                candidates.append((parent, offers, others))
    # the innermost groups: drop a group whose members contain another group's members
    chosen = []
    for parent, offers, others in candidates:
        inner = any(
            other is not parent and any(p is parent or p in offers for p in other.parents)
            for other, _, _ in candidates
        )
        if not inner:
            chosen.append((parent, offers, others))
    blocks = []
    for g, (parent, offers, _others) in enumerate(chosen, start=1):
        siblings = [c for c in parent.find_all(True, recursive=False) if c not in offers]
        header = _grid_header(siblings, offers)
        name = ".".join([parent.name, *(parent.get("class") or [])[:2]])
        for i, member in enumerate(offers, start=1):
            texts = _texts(member)
            labels = list(header) if header and len(header) == len(texts) else []
            blocks.append(Block(f"grid {g} ({name}) item {i}", texts, labels))
    return blocks


def _grid_header(siblings: list[Tag], offers: list[Tag]) -> list[str] | None:
    """A sibling of the offers that names no GPU and no price and has as many text pieces as
    they have: the grid's header row."""
    sizes = {len(_texts(o)) for o in offers}
    for sibling in siblings:
        texts = _texts(sibling)
        joined = " ".join(texts)
        if (
            len(texts) in sizes
            and len(texts) > 1
            and not gpu_mentions(joined)
            and not _MONEY.search(joined)
        ):
            return texts
    return None


def _script_objects(
    soup: BeautifulSoup, url: str, notes: list[str] | None = None
) -> Iterator[tuple[str, Any]]:
    """(where, object) for every data object embedded in the page's scripts; a data script that
    cannot be read is noted in `notes` (why a page yielded nothing)."""
    notes = notes if notes is not None else []
    next_chunks = []
    for n, script in enumerate(soup.find_all("script"), start=1):
        text = script.string or "".join(script.strings)
        if not text or len(text) > _MAX_SCRIPT or script.get("src"):
            continue
        kind = (script.get("type") or "").lower()
        ident = script.get("id") or ""
        where = f"script {n}" + (f" #{ident}" if ident else "") + (f" ({kind})" if kind else "")
        if "json" in kind:
            try:
                yield where, json.loads(text)
                continue
            except json.JSONDecodeError as exc:
                notes.append(f"{where}: not valid JSON ({exc})")
        if "self.__next_f.push" in text:
            for chunk in re.findall(r"self\.__next_f\.push\((\[.*?\])\)", text, re.S):
                try:
                    parts = json.loads(chunk)
                except json.JSONDecodeError:
                    continue
                next_chunks += [p for p in parts if isinstance(p, str)]
            continue
        if kind and "javascript" not in kind and "json" not in kind:
            continue
        try:
            for obj in chompjs.parse_js_objects(text):
                yield where, obj
        except Exception:  # noqa: BLE001 - not a data script (code chompjs cannot read)
            continue
    if next_chunks:
        payload = "".join(next_chunks)
        for line in payload.splitlines():
            body = line.split(":", 1)[1] if re.match(r"^[0-9a-f]+:", line) else line
            try:
                for obj in chompjs.parse_js_objects(body):
                    yield "Next.js flight data", obj
            except Exception:  # noqa: BLE001 - a line of markup, not data
                continue


def _scalars(obj: dict, prefix: str = "", depth: int = 0) -> list[tuple[str, str]]:
    out = []
    for key, value in obj.items():
        label = f"{prefix}{key}"
        if isinstance(value, dict) and depth < 2:
            out += _scalars(value, f"{label}.", depth + 1)
        elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
            out.append((label, str(value)))
    return out


def _data_blocks(objects: Iterable[tuple[str, Any]]) -> list[Block]:
    blocks: list[Block] = []

    def offer_like(pairs: list[tuple[str, str]]) -> bool:
        kinds = [(_labels_meaning(k.split(".")[-1]), v) for k, v in pairs]
        names = any(gpu_mentions(v) for kind, v in kinds if kind != "price")
        priced = any(kind == "price" for kind, _ in kinds)
        return names and priced

    def visit(node: Any, where: str, inherited: list[tuple[str, str]]) -> bool:
        if isinstance(node, list):
            found = False
            for i, item in enumerate(node):
                found |= visit(item, f"{where}[{i}]", inherited)
            return found
        if not isinstance(node, dict):
            return False
        pairs = _scalars(node)
        names = [(k, v) for k, v in pairs if gpu_mentions(v) and len(v) < 80]
        below = False
        for key, value in node.items():
            if isinstance(value, (list, dict)):
                below |= visit(value, f"{where}.{key}", names or inherited)
        if below:
            return True
        own = pairs if any(gpu_mentions(v) for _, v in pairs) else inherited + pairs
        if offer_like(own):
            blocks.append(Block(where, [v for _, v in own], [k for k, _ in own]))
            return True
        return False

    for where, obj in objects:
        visit(obj, where, [])
    return blocks


# ---------------------------------------------------------------------------------- reading


def _selector_blocks(soup: BeautifulSoup, url: str, settings: Settings) -> list[Block]:
    row_selector = settings.selector("row")
    rows = soup.select(row_selector)
    if not rows:
        reason = "matched nothing: the page's layout changed"
        raise ParseError(url, f"selector {row_selector!r}", reason)
    blocks = []
    for i, row in enumerate(rows, start=1):
        cells, labels = [], []
        for name in ("gpu", "count", "memory", "price"):
            selector = settings.selector(name)
            if not selector:
                continue
            for element in row.select(selector):
                cells.append(_cell_text(element))
                labels.append(name if name != "price" else "price")
        if not any(settings.selector(n) for n in ("gpu", "count", "memory", "price")):
            cells, labels = _texts(row), []
        blocks.append(Block(f"{row_selector} {i}", cells, labels))
    return blocks


def _results(blocks: list[Block], url: str, settings: Settings, fetched_at: datetime):
    records, errors, seen = [], [], defaultdict(int)
    for block in blocks:
        got = interpret(block, url, settings)
        if got is None:
            continue
        offers, row_errors = got
        errors += row_errors
        for o in offers:
            name, count, model, memory = o.name, o.count, o.model, o.memory
            base = f"{count}x {name}" if count > 1 else name
            if memory and f"{memory:g}" not in name:
                base = f"{base} {memory:g}GB"
            base = o.offer_id or base
            seen[(base, model)] += 1
            offer = base if seen[(base, model)] == 1 else f"{base} #{seen[(base, model)]}"
            records.append(
                PriceObservation(
                    provider=settings.provider,
                    offer_id=offer,
                    region="",
                    gpu_name_raw=name,
                    gpu_count=count,
                    pricing_model=model,
                    price_per_hour=o.price_per_hour,
                    currency=o.currency,
                    observed_at=fetched_at,
                    gpu_memory_gb=memory,
                    vcpus=o.vcpus,
                    ram_gb=o.ram,
                    price_qualifier=o.qualifier,
                )
            )
    return ParseResult(records, errors)


def read_page(content: bytes, url: str, fetched_at: datetime, settings: Settings) -> ParseResult:
    """The GPU prices of one captured page (see the module's docstring)."""
    text = decode_text(content, url)
    soup = BeautifulSoup(text, "html.parser")
    if settings.selector("row"):
        return _results(_selector_blocks(soup, url, settings), url, settings, fetched_at)
    attempts: list[tuple[str, ParseResult]] = []
    table_note = ""
    try:
        result = parse_price_tables(
            content, url, fetched_at, settings.provider,
            default_model=settings.default_model, price_basis=settings.price_basis,
            default_currency=settings.currency,
            clean_name=lambda name: without_suffixes(name, settings),
            is_gpu=lambda name: bool(gpu_mentions(name)),
        )  # fmt: skip
        attempts.append(("table", result))
    except ParseError as exc:
        table_note = exc.reason
    notes: list[str] = []
    data = _data_blocks(_script_objects(soup, url, notes))
    attempts.append(("data", _results(data, url, settings, fetched_at)))
    attempts.append(("rows", _results(_table_blocks(soup), url, settings, fetched_at)))
    attempts.append(("grid", _results(_grid_blocks(soup), url, settings, fetched_at)))
    useful = [(name, r) for name, r in attempts if r.records or r.row_errors]
    if not useful:
        raise ParseError(
            url,
            "page",
            "no GPU prices found: no price table ("
            + (table_note or "none")
            + "), no table rows, repeated rows or cards naming a GPU with a price, "
            "and no embedded data naming a GPU with a price" + "".join(f"; {n}" for n in notes),
        )
    useful.sort(key=lambda a: (len(a[1].records), -len(a[1].row_errors)), reverse=True)
    return useful[0][1]
