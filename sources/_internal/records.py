"""The typed records parsers return, and the errors they raise.

These are the only shapes a parser may produce. Field names are the column names of the raw tables.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

# reserved_6m / _1y / _3y: a commitment of 6, 12, 36 months. dynamic: a price the provider resets
# by demand (daily, say) that holds while the instance runs; not interruptible, unlike spot.
PRICING_MODELS = (
    "on_demand",
    "spot",
    "reserved_6m",
    "reserved_1y",
    "reserved_3y",
    "dynamic",
    "marketplace",
    "inference",
)


class ParseError(Exception):
    """The whole document cannot be read: wrong format, missing columns, changed layout.

    The message names the document (URL or file), the field and the reason.
    """

    def __init__(self, where: str, field: str, reason: str):
        self.where = where
        self.field = field
        self.reason = reason
        super().__init__(f"{where}: field {field!r}: {reason}")


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def _fields_of(record: Any) -> dict[str, Any]:
    """A record's fields by name, as dataclasses.asdict gives them. Every record here holds
    scalars only (text, numbers, dates, flags), so the values are taken as they are: asdict copies
    each one deeply (4.7 s of a profiled first load went to the 221,702 ECB rates)."""
    return {name: getattr(record, name) for name in _field_names(type(record))}


@dataclass(frozen=True)
class RowError:
    """One row of an otherwise readable document that cannot become a record.

    The row is kept (as text) so that it can be stored in quarantine and nothing is lost.
    """

    where: str
    row_ref: str
    field: str
    reason: str
    raw: str

    def as_dict(self) -> dict[str, Any]:
        return _fields_of(self)


@dataclass(frozen=True)
class PriceObservation:
    """One price of one offer (instance type, region, pricing model) at one point in time.

    `price_per_hour` is the price of the whole offer (all `gpu_count` GPUs) in `currency`.
    """

    provider: str
    offer_id: str
    region: str
    gpu_name_raw: str
    gpu_count: int | float  # whole GPUs; a fraction only for GPU slices (see sources.skypilot)
    pricing_model: str
    price_per_hour: float
    currency: str
    observed_at: datetime
    vcpus: float | None = None
    ram_gb: float | None = None
    gpu_memory_gb: float | None = None
    zone: str | None = None
    # Last moment the price holds (a quote or contract); until then it is never stale.
    valid_until: datetime | None = None
    # "from": the page gives a lower bound ("from $0.90", "ab 0,44 $"), not a fixed price.
    price_qualifier: str | None = None

    def __post_init__(self) -> None:
        if self.price_qualifier not in (None, "from"):
            raise ValueError(f"unknown price_qualifier {self.price_qualifier!r}")
        if self.pricing_model not in PRICING_MODELS:
            raise ValueError(f"unknown pricing_model {self.pricing_model!r}")
        if self.observed_at.tzinfo is None:
            raise ValueError("observed_at must be timezone-aware (UTC)")

    def as_dict(self) -> dict[str, Any]:
        return _fields_of(self)


@dataclass(frozen=True)
class GpuSpecObservation:
    """What one source says about one GPU model: memory, bandwidth, dense TFLOPS, power, form.

    TFLOPS are dense (without sparsity); a source that prints sparse figures is halved by its parser
    and says so. Fields a source does not give stay None.
    """

    gpu_name_raw: str
    observed_at: datetime
    offer_id: str = ""  # a provider's label for the GPU, when the spec table has one
    memory_gb: float | None = None
    memory_bandwidth_gb_s: float | None = None
    fp16_tflops: float | None = None
    fp8_tflops: float | None = None
    tdp_w: float | None = None
    form_factor: str | None = None

    def __post_init__(self) -> None:
        if self.observed_at.tzinfo is None:
            raise ValueError("observed_at must be timezone-aware (UTC)")

    def as_dict(self) -> dict[str, Any]:
        return _fields_of(self)


@dataclass(frozen=True)
class FxRate:
    """A reference rate: 1 EUR = `per_eur` units of `currency` on `rate_date` (ECB convention)."""

    rate_date: date
    currency: str
    per_eur: float

    def as_dict(self) -> dict[str, Any]:
        return _fields_of(self)


@dataclass(frozen=True)
class ApiPrice:
    """A model API's price per million input and output tokens in `currency`, from `valid_from`
    on. Converted to USD in the warehouse, like every other price."""

    provider: str
    model_id: str
    model_name: str
    input_per_mtok: float | None
    output_per_mtok: float | None
    currency: str
    valid_from: date | None
    is_tiered: bool
    observed_at: datetime

    def as_dict(self) -> dict[str, Any]:
        return _fields_of(self)


HARDWARE_SOURCES = ("file", "system_description", "operator", "file_name", "api", "none")
RUN_KINDS = ("inference", "training", "fine_tuning", "image_generation", "embedding")
OUTPUT_UNITS = ("tokens", "samples", "images", "requests")


@dataclass(frozen=True)
class BenchmarkRun:
    """One measured run from a benchmark result file, units in the field names.

    Latencies are milliseconds; throughputs are per second for the whole system under test (all
    `gpu_count` GPUs); per-GPU figures are derived in the warehouse. A figure the file does not
    have stays None: a p95 is never made up from a mean. `percentile_source` says whether the
    percentiles were computed from per-request arrays in the file or copied from its summary.
    `hardware_source` says where gpu_name_raw / gpu_count came from (the file's hardware fields, a
    system description, the operator, a documented file-name convention, an API with no GPU).
    """

    run_ref: str  # where in the file: "records[3]", "line 2", "block 4"
    format: str
    tool: str
    tool_version: str | None
    model_id: str | None
    model_params_b: float | None
    precision: str | None
    serving_stack: str | None
    serving_stack_version: str | None
    gpu_name_raw: str | None
    gpu_count: int | None
    hardware_source: str
    api_provider: str | None
    tensor_parallel: int | None
    run_kind: str
    scenario: str | None
    input_len: float | None
    output_len: float | None
    concurrency: float | None
    request_rate: float | None  # requests/s offered; None = as fast as possible / closed loop
    attempted: int | None
    completed: int | None
    failed: int | None
    goodput_rps: float | None
    duration_s: float | None
    request_throughput_rps: float | None
    output_tokens_per_s: float | None
    total_tokens_per_s: float | None
    output_unit: str  # tokens | samples | images | requests
    output_units_per_s: float | None  # in output_unit; a tokens run repeats output_tokens_per_s
    ttft_mean_ms: float | None = None
    ttft_p50_ms: float | None = None
    ttft_p95_ms: float | None = None
    ttft_p99_ms: float | None = None
    tpot_mean_ms: float | None = None
    tpot_p50_ms: float | None = None
    tpot_p95_ms: float | None = None
    tpot_p99_ms: float | None = None
    itl_mean_ms: float | None = None
    itl_p50_ms: float | None = None
    itl_p95_ms: float | None = None
    itl_p99_ms: float | None = None
    e2e_mean_ms: float | None = None
    e2e_p50_ms: float | None = None
    e2e_p95_ms: float | None = None
    e2e_p99_ms: float | None = None
    time_to_complete_s: float | None = None
    percentile_source: str | None = None  # per_request | tool_summary
    model_source: str | None = None  # file | file_name | operator
    measured_at: datetime | None = None
    # the file's own name for the setup measured, where one file compares several setups on the
    # same hardware (dstack's tables: "8xMi300x 1FP8-meta" beside "8xMi300 1FP8-amd", the same
    # GPUs serving two checkpoints); the warehouse compares setups only within a file
    setup: str | None = None
    # the organisation that published the result (a vendor's performance table, a benchmark
    # repository's owner, an MLPerf submitter); None when the file does not say and nobody named it
    organization: str | None = None
    # MLPerf's round ("v5.1"), system name, division (closed | open) and suite (datacenter | edge)
    round: str | None = None
    system: str | None = None
    division: str | None = None
    suite: str | None = None
    # where the precision came from when not the run's own record: other_scenario (an MLPerf
    # system's precision published for another scenario of the same benchmark)
    precision_source: str | None = None

    def __post_init__(self) -> None:
        if self.hardware_source not in HARDWARE_SOURCES:
            raise ValueError(f"unknown hardware_source {self.hardware_source!r}")
        if self.run_kind not in RUN_KINDS:
            raise ValueError(f"unknown run_kind {self.run_kind!r}")
        if self.output_unit not in OUTPUT_UNITS:
            raise ValueError(f"unknown output_unit {self.output_unit!r}")

    def as_dict(self) -> dict[str, Any]:
        return _fields_of(self)


@dataclass
class ParseResult:
    """What a parser returns: the good records and the rows it had to reject.

    `records` are price observations; `specs` are GPU spec observations (a page may carry both).
    """

    records: list[PriceObservation]
    row_errors: list[RowError] = dataclasses.field(default_factory=list)
    specs: list[GpuSpecObservation] = dataclasses.field(default_factory=list)
    rates: list[FxRate] = dataclasses.field(default_factory=list)
    api_prices: list[ApiPrice] = dataclasses.field(default_factory=list)
    benchmark_runs: list[BenchmarkRun] = dataclasses.field(default_factory=list)
    # records a reader passed over by design (another benchmark, another unit), with the reason:
    # not errors, not quarantined
    skipped: list[RowError] = dataclasses.field(default_factory=list)
