"""One candidate offer of a price page (a *block*: text cells, each with its column label where the
page gives one) interpreted as GPU offers, or refused with the reason.

The rules (docs/price-pages.md):

- The GPU is the cell of a GPU column, else the first cell naming a GPU part.
- The GPU count is stated by a count column (or a second "GPU" column holding a number), "8x" or
  "x8" (also after a pricing model: "On-demand 8x NVIDIA Tesla V100"), "8 GPUs" or a cluster range
  ("8-1016 GPUs": its lower bound); an offer that states none is one GPU.
- Every price takes its pricing model from, in order: its column's label, the words around it in
  its cell, the nearest short cell before it naming a model (a card's "On-demand" heading), the
  words of the GPU's own cell ("Reserved 8x NVIDIA H100"), the row's pricing-model column. A price
  none of these name takes the provider's default model only when it is the offer's one price.
- Refused whole (a row error, none of its prices kept): an offer with two or more prices of which
  one names no model, or two of one model; an unlabelled price naming no model beside another
  price cell of the offer, even a refused one ("$4.76 Reserve Now", "Contact sales"): it is not
  the offer's one price (unless the entry names the model of such prices). Refused per price: a
  label naming a term no model stands for ("Reservation" without a term, "2-year", "6 months – 1
  year"), a price per month or week, "Contact sales" and the like.
- A price is per GPU when its label or text says so ("/ GPU / hr", "per GPU-hour", "GPU-hour"),
  per instance when it says "instance", "node", "server"; else the provider's entry says (its
  price_basis); else, in a row named by an "Instance" column, it is the instance's. For one GPU
  both are the same; for more, a price nothing gives the basis of is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sources._internal.page_text import (
    FROM,
    GB,
    NOT_HOURLY,
    Money,
    Settings,
    basis_in,
    gpu_count,
    gpu_mentions,
    gpu_name,
    label_meaning,
    label_words,
    model_in,
    money_in,
    several_gpus,
    unknown_term_in,
    whole,
)
from sources._internal.price_page import NOT_A_PRICE, per_gpu_memory, refuse_ambiguous
from sources._internal.records import RowError

_COLUMN_GB = re.compile(r"(?<![\d.,])(\d{1,4}(?:[.,]\d)?)\s*GB\b", re.IGNORECASE)  # "1440" too
_NOT_PRICES = ("memory", "ram", "count", "vcpus", "bandwidth", "fp8_tflops", "fp16_tflops",
               "input_price", "output_price", "currency")  # fmt: skip


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


@dataclass
class _Price:
    label: str
    text: str
    money: Money
    model: str
    named: bool  # a label or words named the model (not the provider's default)
    basis: str | None
    qualifier: str | None


def _gpu_index(block: Block, meanings: list[str | None]) -> int | None:
    for wanted in ("gpu", "offer"):
        i = next(
            (i for i, m in enumerate(meanings) if m == wanted and gpu_mentions(block.cells[i])),
            None,
        )
        if i is not None:
            return i
    return next(
        (
            i
            for i, c in enumerate(block.cells)
            if meanings[i] not in ("price", "memory", "ram", "count") and gpu_mentions(c)
        ),
        None,
    )


def _memory(block: Block, meanings: list[str | None], gpu_cell: str) -> float | None:
    gb = GB.search(gpu_cell)
    for i, m in enumerate(meanings):
        text = block.cells[i]
        if m == "memory" and _COLUMN_GB.search(text + " GB"):
            gb = _COLUMN_GB.search(text if "GB" in text.upper() else text + " GB")
            break
    if gb is None:
        lone = [c for c in block.cells if re.fullmatch(r"\s*\d{1,3}\s*GB\s*", c, re.I)]
        gb = GB.search(lone[0]) if lone else None
    if gb:
        value = float(gb.group(1).replace(",", "."))
        return value if 4 <= value <= 2560 else None  # up to 8 x 320 GB: an instance's total
    return None


def names_models(blocks: list[Block], settings: Settings) -> bool:
    """Whether a layout's labels or priced cells name pricing models anywhere: then its prices are
    told apart by those words, and a price that names none is refused, never given the default."""
    for block in blocks:
        for i, cell in enumerate(block.cells):
            label = label_words(block.label(i))
            if label and (model_in(label, settings) or unknown_term_in(label, settings)):
                return True
            if money_in(cell, None) and len(cell) < 80 and model_in(cell, settings):
                return True
            if gpu_mentions(cell) and len(cell) < 80 and model_in(cell, settings):
                return True
    return False


def interpret(
    block: Block, url: str, settings: Settings, allow_default: bool = True
) -> tuple[list[Offer], list[RowError]] | None:
    """A block's offers (one per pricing model priced) and the row errors of the prices it refused;
    None when it is not a GPU offer at all (a CPU row, a storage row, a spec row).
    `allow_default` False (the layout names models elsewhere, see names_models): a price whose
    model nothing names is refused even when it is the offer's only one."""
    meanings = [label_meaning(block.label(i)) for i in range(len(block.cells))]
    gpu_i = _gpu_index(block, meanings)
    if gpu_i is None:
        return None
    gpu_cell = block.cells[gpu_i]
    name = gpu_name(gpu_cell, settings)
    if not name:
        return None
    offer_id = next(
        (block.cells[i].strip() for i, m in enumerate(meanings) if m == "offer" and i != gpu_i),
        "",
    )

    def error(field_name: str, reason: str) -> RowError:
        return RowError(url, block.where, field_name, reason, block.raw)

    if several_gpus(gpu_cell):
        return [], [error(block.label(gpu_i) or "gpu", several_gpus(gpu_cell))]

    count = None
    for i, m in enumerate(meanings):
        # a count column, or a second "GPU" column holding a number (DataCrunch: "GPU model" B200,
        # "GPU" 8)
        numeric_gpu = m == "gpu" and i != gpu_i and re.fullmatch(r"\s*\d{1,4}\s*", block.cells[i])
        if (m == "count" or numeric_gpu) and block.cells[i].strip():
            count = whole(block.cells[i])
            if count is None or not 1 <= count <= 1024:
                return [], [
                    error(block.label(i) or "count", f"not a GPU count: {block.cells[i]!r}")
                ]
            break
    if count is None:
        count, _ = gpu_count(block.cells, gpu_cell)
    count = count or 1
    if not 1 <= count <= 1024:
        return [], [error("count", f"not a GPU count: {count}")]
    memory = per_gpu_memory(_memory(block, meanings, gpu_cell), count, gpu_cell)
    memory = memory if memory is None or memory <= 320 else None  # a total the name cannot split
    vcpus = next((whole(block.cells[i]) for i, m in enumerate(meanings) if m == "vcpus"), None)
    ram = next((whole(block.cells[i]) for i, m in enumerate(meanings) if m == "ram"), None)
    currency_cell = next((block.cells[i] for i, m in enumerate(meanings) if m == "currency"), None)
    default_currency = (currency_cell or "").strip().upper() or settings.currency
    row_model = next(
        (model_in(c, settings) for c, m in zip(block.cells, meanings, strict=False)
         if m == "pricing_model"),
        None,
    )  # fmt: skip
    # a row named by an "Instance" column prices its instance, where nothing else gives the basis
    row_basis = next(
        (basis_in(block.label(i)) for i, m in enumerate(meanings)
         if m == "offer" and basis_in(block.label(i)) == "per_instance"),
        None,
    )  # fmt: skip
    name_model = model_in(gpu_cell, settings) if not money_in(gpu_cell, None) else None
    name_term = unknown_term_in(gpu_cell, settings) if not money_in(gpu_cell, None) else None

    prices: list[_Price] = []
    problems: list[tuple[str, str]] = []
    refusals: list[tuple[str, str]] = []
    context_model = context_term = None
    priced_cells = 0  # the offer's price cells, refused ones too ("$4.76 Reserve Now", "Contact")
    # the GPU's own cell last, and only when no other cell priced the offer ("NVIDIA H100 80GB -
    # $2.49/hr" as one line of a card)
    order = [i for i in range(len(block.cells)) if i != gpu_i] + [gpu_i]
    for i in order:
        cell = block.cells[i]
        meaning = meanings[i]
        if i == gpu_i and meaning != "price" and (prices or not money_in(cell, None)):
            continue
        if meaning in _NOT_PRICES:
            continue
        label = label_words(block.label(i))
        found = money_in(cell, default_currency, bare_ok=meaning == "price")
        if not found:
            if meaning == "price" and (not cell.strip() or NOT_A_PRICE.search(cell)):
                problems.append((label or "price", f"no price for {name}: {cell.strip()!r}"))
                priced_cells += 1
            elif NOT_A_PRICE.search(cell) and len(cell) < 40:
                refusals.append((label or "price", f"no price for {name}: {cell.strip()!r}"))
                priced_cells += 1
            elif len(cell) < 40:
                context_model = model_in(cell, settings) or context_model
                context_term = unknown_term_in(cell, settings) or context_term
            continue
        money = found[0]
        priced_cells += 1
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
        field_name = label or "price"
        term = unknown_term_in(label, settings) or unknown_term_in(f"{before} {after}", settings)
        if (
            not term
            and not model_in(label, settings)
            and not model_in(f"{before} {after}", settings)
        ):
            # "Reserved 8x NVIDIA H100", a "2 weeks – 1 year" duration cell: a term no model has
            term = None if context_model else (context_term or name_term)
        if term:
            problems.append((field_name, f"{cell.strip()!r} is priced for {term!r}, a term no "
                             "pricing model stands for: refused"))  # fmt: skip
            continue
        if NOT_HOURLY.search(after) or re.search(r"\b(per month|monthly|/mo)\b", label, re.I):
            problems.append((field_name, f"{cell.strip()!r} is not an hourly price"))
            continue
        if money.amount <= 0:
            problems.append((field_name, f"price must be positive, got {cell.strip()!r}"))
            continue
        named = (
            model_in(label, settings)
            or model_in(f"{before} {after}", settings)
            or context_model
            or name_model
            or row_model
        )
        qualifier = "from" if FROM.search(before) or FROM.search(label) else None
        model = named or settings.default_model
        basis = basis_in(f"{label} {after[:30]}")
        prices.append(
            _Price(label, cell.strip(), money, model, named is not None, basis, qualifier)
        )
    refusal = NOT_A_PRICE.search(gpu_cell)
    if not prices and not problems and not refusals and refusal and len(gpu_cell) < 80:
        # "NVIDIA B200 - Contact us"
        refusals.append(("price", f"no price for {name}: {gpu_cell[refusal.start() :].strip()!r}"))
    ambiguous = refuse_ambiguous([(p.label, not p.named, p.model) for p in prices], name)
    unnamed = [p for p in prices if not p.named]
    if not ambiguous and unnamed and not allow_default:
        ambiguous = (unnamed[0].label or "price", f"{unnamed[0].text!r} for {name} names no "
                     "pricing model where the page's other prices name theirs: nothing tells "
                     "which offer it is; none is kept")  # fmt: skip
    bare = [p for p in unnamed if not p.label]
    if not ambiguous and bare and priced_cells > 1 and not settings.model_configured:
        # beside a price refused for its term or a "Contact sales": not the offer's one price
        ambiguous = ("price", f"{bare[0].text!r} for {name} has no label and names no pricing "
                     "model, beside another price cell of the offer: nothing tells which offer it "
                     "is; none is kept")  # fmt: skip
    if ambiguous:
        return [], [error(f, r) for f, r in problems] + [error(*ambiguous)]
    offers: dict[str, Offer] = {}
    for p in prices:
        basis = p.basis or (settings.price_basis if settings.basis_configured else row_basis)
        if basis is None and count > 1:
            problems.append((p.label or "price", f"nothing says whether {p.text!r} is per GPU or "
                             f"per instance of {count}x {name} (an entry's price_basis can): "
                             "refused"))  # fmt: skip
            continue
        price = p.money.amount * count if basis in ("per_gpu", None) else p.money.amount
        offers[p.model] = Offer(name, count, p.model, round(price, 6), p.money.currency, memory,
                                vcpus, ram, p.qualifier, offer_id)  # fmt: skip
    if not offers and not problems:
        problems = refusals
    errors = [error(f, r) for f, r in problems]
    if not offers and not errors:
        if not any(m == "price" for m in meanings):
            return None  # a GPU named without a price or a refusal: a spec row, not an offer
        rest = " / ".join(c for j, c in enumerate(block.cells) if j != gpu_i)[:200]
        errors.append(error("price", f"no price for {name}: {rest!r}"))
    return list(offers.values()), errors
