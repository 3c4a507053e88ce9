"""Source adapters. Each module here has NAME, KIND (price | spec | fx | api_price | benchmark),
PARSER_VERSION, EXPECTED_ROWS, urls(as_of), fetch(client, url, previous) and a pure
parse(content, url, fetched_at); a module whose real data ships in a registry package also has
seed_snapshot().

Adding a source is one module here plus its fixture and test: REGISTRY discovers every module that
defines NAME and parse, and the pipeline builds an ingest asset and its validation check for it.
What the adapters stand on lives apart from them: `_internal/` (records, HTTP client, archive,
number and table parsing) and `benchmarks/` (one reader per benchmark tool's result format).
Packages are not adapters, so discovery reads plain modules only. A provider whose only source is
its pricing page needs no module: an entry in `price_pages.yaml` (see `price_page.py`) is a source.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def _discover() -> dict[str, ModuleType]:
    found: dict[str, ModuleType] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.ispkg or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "parse"):
            found[module.NAME] = module
    # Provider price pages configured in price_pages.yaml: one source per provider, no module.
    from sources import price_page

    for name, source in price_page.configured_sources().items():
        if name in found:
            raise ValueError(f"{price_page.config_path()}: provider {name!r} is also a module")
        found[name] = source
    return dict(sorted(found.items()))


REGISTRY: dict[str, ModuleType] = _discover()
