"""Provider price pages read by configuration, not code: the `price_page` source.

Every entry of `sources/price_pages.yaml` (or the file $GPULEDGER_PRICE_PAGES names) becomes a
source of its own, named after the provider, with its ingest asset, validation and health like any
module's: its pages are fetched daily, archived and read by the automatic reading of
sources._internal.page_reader, steered by the entry (pricing-model words, per GPU or per instance,
currency, and CSS selectors where the automatic reading is not enough). A provider not configured
yet is read by the automatic reading alone (`gpuledger parse --source price_page --provider NAME`),
and `gpuledger providers add` writes its entry.

An entry with an unknown key or value is left out with an error naming the file, the provider,
the field and the reason (`gpuledger providers` lists them); the other entries run.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from sources._internal.http import fetch_page
from sources._internal.page_reader import Settings, gpu_name, read_page
from sources._internal.parsing import parse_quantity
from sources._internal.records import PRICING_MODELS, GpuSpecObservation, ParseResult
from sources._internal.tables import extract_tables

READER_VERSION = "2"
DEFAULT_FILE = Path(__file__).with_name("price_pages.yaml")
FIELDS = {
    "description": str,
    "urls": list,
    "pricing_model": str,
    "pricing_words": dict,
    "price_basis": str,
    "currency": str,
    "selectors": dict,
    "name_suffixes": list,
    "specs": bool,
    "expected_rows": list,
    "origin": str,
}
SELECTORS = ("row", "split", "gpu", "count", "memory", "price")
_NAME = re.compile(r"^[a-z][a-z0-9_]{1,39}$")
_UNPUBLISHED = re.compile(r"nicht veröffentlicht|not published|n/a|^-$|^—$", re.IGNORECASE)
log = logging.getLogger(__name__)


class ConfigError(ValueError):
    def __init__(self, where: str, provider: str, field: str, reason: str):
        self.where, self.provider, self.field, self.reason = where, provider, field, reason
        super().__init__(f"{where}: provider {provider!r}: field {field!r}: {reason}")


def config_path() -> Path:
    return Path(os.environ.get("GPULEDGER_PRICE_PAGES") or DEFAULT_FILE)


@dataclass(frozen=True)
class Entry:
    name: str
    description: str
    urls: tuple[str, ...]
    settings: Settings
    specs: bool
    expected_rows: tuple[int, int]
    origin: str
    fingerprint: str


def check_entry(name: str, body: Any, where: str) -> Entry:
    """One configuration entry, checked field by field (ConfigError on the first problem)."""
    if not _NAME.match(str(name)):
        raise ConfigError(where, str(name), "name", "must be lower case letters, digits, _")
    if not isinstance(body, dict):
        raise ConfigError(where, name, "entry", f"must be a mapping, got {type(body).__name__}")
    for key, value in body.items():
        if key not in FIELDS:
            raise ConfigError(where, name, key, f"unknown field (known: {', '.join(FIELDS)})")
        if not isinstance(value, FIELDS[key]):
            raise ConfigError(where, name, key, f"must be a {FIELDS[key].__name__}")
    model = body.get("pricing_model", "on_demand")
    if model not in PRICING_MODELS:
        raise ConfigError(where, name, "pricing_model", f"{model!r} is not one of {PRICING_MODELS}")
    words = body.get("pricing_words", {})
    for word, meant in words.items():
        if meant not in PRICING_MODELS:
            raise ConfigError(where, name, "pricing_words", f"{word!r}: {meant!r} is no model")
    basis = body.get("price_basis", "per_gpu")
    if basis not in ("per_gpu", "per_instance"):
        raise ConfigError(where, name, "price_basis", f"{basis!r}: per_gpu or per_instance")
    selectors = body.get("selectors", {})
    for key in selectors:
        if key not in SELECTORS:
            raise ConfigError(where, name, "selectors", f"unknown selector {key!r} ({SELECTORS})")
    if selectors and ("row" in selectors) == ("split" in selectors):
        raise ConfigError(
            where, name, "selectors", "selectors need a 'row' or a 'split' selector (one of them)"
        )
    urls = body.get("urls", [])
    if not all(isinstance(u, str) and u.startswith(("http://", "https://")) for u in urls):
        raise ConfigError(where, name, "urls", "every URL must start with http:// or https://")
    rows = body.get("expected_rows", [1, 500])
    if len(rows) != 2 or not all(isinstance(r, int) and r >= 0 for r in rows) or rows[0] > rows[1]:
        raise ConfigError(where, name, "expected_rows", f"[min, max] whole numbers, got {rows}")
    settings = Settings(
        provider=name,
        default_model=model,
        price_basis=basis,
        currency=body.get("currency", "USD"),
        pricing_words=tuple(words.items()),
        name_suffixes=tuple(body.get("name_suffixes", [])),
        selectors=tuple(selectors.items()),
        basis_configured="price_basis" in body,
        model_configured="pricing_model" in body,
    )
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:10]
    return Entry(
        name=name,
        description=body.get("description", f"{name}'s GPU price page"),
        urls=tuple(urls),
        settings=settings,
        specs=body.get("specs", False),
        expected_rows=(rows[0], rows[1]),
        origin=body.get("origin", ""),
        fingerprint=digest,
    )


def load(path: Path | None = None) -> tuple[dict[str, Entry], list[ConfigError]]:
    """The valid entries and the errors of the others."""
    path = path or config_path()
    if not path.exists():
        return {}, []
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        return {}, [ConfigError(str(path), "*", "file", f"not valid YAML: {exc}")]
    providers = document.get("providers") if isinstance(document, dict) else None
    if not isinstance(providers, dict):
        return {}, [ConfigError(str(path), "*", "providers", "the file needs a providers: mapping")]
    entries, errors = {}, []
    for name, body in providers.items():
        try:
            entries[str(name)] = check_entry(str(name), body, str(path))
        except ConfigError as exc:
            errors.append(exc)
    return entries, errors


class PricePageSource:
    """A configured provider as a source: the attributes every source module has."""

    KIND = "price"

    def __init__(self, entry: Entry):
        self.entry = entry
        self.NAME = entry.name
        # The reader's version and the entry's own settings: changing either re-reads the archive.
        self.PARSER_VERSION = f"page-{READER_VERSION}-{entry.fingerprint}"
        self.EXPECTED_ROWS = entry.expected_rows
        self.__doc__ = f"{entry.description} (price_page configuration)"

    def urls(self, as_of=None) -> tuple[str, ...]:
        variable = f"GPULEDGER_{self.NAME.upper()}_URLS"
        configured = os.environ.get(variable)
        if configured is None:
            return self.entry.urls
        return tuple(u.strip() for u in configured.split(",") if u.strip())

    @staticmethod
    def fetch(client, url, previous=None):
        return fetch_page(client, url, previous)

    def parse(self, content: bytes, url: str, fetched_at: datetime) -> ParseResult:
        return parse_with(self.entry, content, url, fetched_at)

    def __repr__(self) -> str:
        return f"<price_page source {self.NAME}>"


def parse_with(entry: Entry, content: bytes, url: str, fetched_at: datetime) -> ParseResult:
    result = read_page(content, url, fetched_at, entry.settings)
    if entry.specs:
        result.specs.extend(table_specs(content, url, fetched_at, entry.settings))
    return result


def automatic(provider: str) -> Entry:
    """An entry for a provider not configured yet: the automatic reading with its defaults."""
    return check_entry(provider, {}, "(not configured)")


def _optional(text: str, locale: str) -> float | None:
    if not text.strip() or _UNPUBLISHED.search(text.strip()):
        return None
    try:
        return parse_quantity(text, locale)
    except ValueError:
        return None


def table_specs(content: bytes, url: str, fetched_at: datetime, settings: Settings):
    """GPU spec observations from a price table's memory, bandwidth and TFLOPS columns."""
    specs = []
    for table in extract_tables(content, url):
        if table.column("gpu") is None:
            continue
        cols = {m: table.column(m) for m in ("memory", "bandwidth", "fp8_tflops", "fp16_tflops")}
        if all(c is None for c in cols.values()):
            continue
        for row in table.rows:
            gpu_i = table.column("gpu")
            name = gpu_name(row[gpu_i], settings) if gpu_i < len(row) else None
            if not name:
                continue
            values = {
                m: _optional(row[i], table.locale) if i is not None and i < len(row) else None
                for m, i in cols.items()
            }
            specs.append(
                GpuSpecObservation(
                    name,
                    fetched_at,
                    memory_gb=values["memory"],
                    memory_bandwidth_gb_s=values["bandwidth"],
                    fp8_tflops=values["fp8_tflops"],
                    fp16_tflops=values["fp16_tflops"],
                )
            )
    return specs


def configured_sources() -> dict[str, PricePageSource]:
    entries, errors = load()
    for error in errors:
        log.error("price_page configuration left out: %s", error)
    return {name: PricePageSource(entry) for name, entry in entries.items()}


def entry_text(name: str, body: dict) -> str:
    """The YAML of one entry, indented to sit under `providers:`."""
    dumped = yaml.safe_dump({name: body}, sort_keys=False, allow_unicode=True, width=100)
    return "".join(f"  {line}\n" for line in dumped.splitlines())


def add(name: str, body: dict, path: Path | None = None) -> Entry:
    """Append a checked entry to the configuration file (its comments stay)."""
    path = path or config_path()
    entry = check_entry(name, body, str(path))
    entries, _ = load(path)
    if name in entries:
        raise ConfigError(str(path), name, "name", "already configured")
    text = path.read_text(encoding="utf-8") if path.exists() else "providers:\n"
    if not text.endswith("\n"):
        text += "\n"
    path.write_text(text + entry_text(name, body), encoding="utf-8")
    return entry
