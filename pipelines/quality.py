"""Great Expectations 1.x suites for raw rows, run on pandas frames before they are loaded.

Per snapshot of a price source: required fields present, positive and plausible per-GPU prices,
known pricing models, gpu_count >= 1, row count within the source's expected range. Per snapshot
with GPU spec rows: a name on every row, plausible memory, bandwidth and TFLOPS where given. GX's
SQL path over DuckDB is not used (broken in current releases); the frame is what will be loaded.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from sources._internal.records import PRICING_MODELS

os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")

SUITE_NAME = "price_observations"
SPEC_SUITE_NAME = "gpu_specs"
RATE_SUITE_NAME = "fx_rates"
API_PRICE_SUITE_NAME = "api_prices"
REQUIRED_FIELDS = (
    "provider",
    "offer_id",
    "gpu_name_raw",
    "gpu_count",
    "pricing_model",
    "price_per_hour",
    "currency",
    "observed_at",
)
# USD per GPU-hour. The cheapest real offers are a few cents (old consumer cards on marketplaces);
# the dearest list prices are well under 100 per GPU-hour. Outside this range a row is a parse
# error.
MIN_PRICE_PER_GPU_HOUR = 0.01
MAX_PRICE_PER_GPU_HOUR = 100.0
MAX_GPU_COUNT = 16
SAMPLE_ROWS = 5


@dataclass
class ValidationOutcome:
    success: bool
    row_count: int
    failed_expectations: list[dict[str, Any]] = field(default_factory=list)
    sample_rows: list[dict[str, Any]] = field(default_factory=list)
    suite: str = SUITE_NAME

    def as_record(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "success": self.success,
            "row_count": self.row_count,
            "failed_expectations": self.failed_expectations,
            "sample_rows": self.sample_rows,
        }


def _context():
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    logging.getLogger("great_expectations").setLevel(logging.WARNING)
    context = gx.get_context(mode="ephemeral")
    # GX draws a progress bar per validation; the run's own progress lines say what is happening.
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    return context


_CONTEXT = None


def _ensure_context():
    """GX wants its (ephemeral) context before suites are built; one per process."""
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = _context()
        _CONTEXT.data_sources.add_pandas("gpuledger_frames")
    return _CONTEXT


def _batch(frame: pd.DataFrame, asset_name: str):
    source = _ensure_context().data_sources.get("gpuledger_frames")
    try:
        asset = source.get_asset(asset_name)
    except LookupError:
        asset = source.add_dataframe_asset(asset_name)
        asset.add_batch_definition_whole_dataframe("whole")
    return asset.get_batch_definition("whole").get_batch(batch_parameters={"dataframe": frame})


# In a batch of several snapshots' rows, each row carries its snapshot's row count here.
SNAPSHOT_ROWS = "_snapshot_rows"


def build_suite(expected_rows: tuple[int, int], batched: bool = False):
    """The price suite of one snapshot; `batched`: of several snapshots' rows together, each
    snapshot's row count checked on its rows (SNAPSHOT_ROWS) instead of the table's."""
    import great_expectations as gx
    import great_expectations.expectations as gxe

    _ensure_context()
    suite = gx.ExpectationSuite(name=SUITE_NAME)
    lo, hi = expected_rows
    if batched:
        suite.add_expectation(
            gxe.ExpectColumnValuesToBeBetween(column=SNAPSHOT_ROWS, min_value=lo, max_value=hi)
        )
    else:
        suite.add_expectation(gxe.ExpectTableRowCountToBeBetween(min_value=lo, max_value=hi))
    for column in REQUIRED_FIELDS:
        suite.add_expectation(gxe.ExpectColumnValuesToNotBeNull(column=column))
    suite.add_expectation(
        gxe.ExpectColumnValuesToBeInSet(column="pricing_model", value_set=list(PRICING_MODELS))
    )
    suite.add_expectation(
        gxe.ExpectColumnValuesToBeBetween(column="gpu_count", min_value=1, max_value=MAX_GPU_COUNT)
    )
    suite.add_expectation(
        gxe.ExpectColumnValuesToBeBetween(column="price_per_hour", min_value=0, strict_min=True)
    )
    suite.add_expectation(
        gxe.ExpectColumnValuesToBeBetween(
            column="price_per_gpu_hour",
            min_value=MIN_PRICE_PER_GPU_HOUR,
            max_value=MAX_PRICE_PER_GPU_HOUR,
        )
    )
    suite.add_expectation(
        gxe.ExpectColumnValuesToMatchRegex(column="currency", regex=r"^[A-Z]{3}$")
    )
    return suite


def build_spec_suite():
    import great_expectations as gx
    import great_expectations.expectations as gxe

    _ensure_context()
    suite = gx.ExpectationSuite(name=SPEC_SUITE_NAME)
    suite.add_expectation(gxe.ExpectColumnValuesToNotBeNull(column="gpu_name_raw"))
    for column, low, high in SPEC_RANGES:
        suite.add_expectation(
            gxe.ExpectColumnValuesToBeBetween(column=column, min_value=low, max_value=high)
        )
    return suite


# Plausible ranges of one GPU's specs (dense TFLOPS); outside them a value is a parse error.
SPEC_RANGES = (
    ("memory_gb", 1, 1024),
    ("memory_bandwidth_gb_s", 50, 20_000),
    ("fp16_tflops", 1, 10_000),
    ("fp8_tflops", 1, 20_000),
    ("tdp_w", 10, 3_000),
)


def _run(checked: pd.DataFrame, suite, asset_name: str) -> ValidationOutcome:
    result = _batch(checked, asset_name).validate(suite)
    failed: list[dict[str, Any]] = []
    bad_index: set[int] = set()
    for res in result.results:
        if res.success:
            continue
        cfg = res.expectation_config
        details = res.result or {}
        failed.append(
            {
                "expectation": cfg.type,
                "kwargs": {k: v for k, v in cfg.kwargs.items() if k != "batch_id"},
                "observed_value": details.get("observed_value"),
                "unexpected_count": details.get("unexpected_count"),
                "partial_unexpected_list": details.get("partial_unexpected_list"),
            }
        )
        bad_index.update(details.get("partial_unexpected_index_list") or [])
    samples_frame = (
        checked.loc[sorted(i for i in bad_index if i in checked.index)]
        if bad_index
        else checked.head(0)
    )
    if failed and samples_frame.empty:
        samples_frame = checked.head(SAMPLE_ROWS)
    samples = samples_frame.head(SAMPLE_ROWS).astype(str).to_dict(orient="records")
    return ValidationOutcome(bool(result.success), len(checked), failed, samples, suite.name)


def _price_rows(frame: pd.DataFrame) -> pd.DataFrame:
    checked = frame.copy()
    for column in REQUIRED_FIELDS:
        if column not in checked.columns:
            checked[column] = pd.Series([None] * len(checked), dtype="object")
    checked["price_per_gpu_hour"] = checked["price_per_hour"] / checked["gpu_count"]
    return checked


def validate_prices(frame: pd.DataFrame, expected_rows: tuple[int, int]) -> ValidationOutcome:
    """Run the price suite on one snapshot's parsed price rows."""
    return _run(_price_rows(frame), build_suite(expected_rows), "price_observations")


def validate_price_snapshots(
    frames: list[pd.DataFrame], expected_rows: tuple[int, int]
) -> list[ValidationOutcome]:
    """The price suite's verdict on each of several snapshots' rows, in one Great Expectations
    run over all of them while they pass. A day's run loads a snapshot per provider page (50 in
    the scale run), and one validation costs the same at 50 rows as at 2,500 (0.2-0.3 s on 2
    cores): one run per snapshot was most of a day's ingest. The suite's row-level expectations
    hold for every snapshot exactly when they hold for all rows together, and each snapshot's row
    count is checked on its rows. When the batch fails, every snapshot is validated on its own,
    so each verdict, failed expectation and sample row is the snapshot's own, as before."""
    passed: set[int] = set()
    rows = [i for i, f in enumerate(frames) if len(f)]  # a snapshot of no rows fails on its own
    if len(rows) > 1:
        together = pd.concat(
            [_price_rows(frames[i]).assign(**{SNAPSHOT_ROWS: len(frames[i])}) for i in rows],
            ignore_index=True,
        )
        if _run(together, build_suite(expected_rows, batched=True), "price_observations").success:
            passed = set(rows)
    return [
        ValidationOutcome(True, len(f), [], [], SUITE_NAME)
        if i in passed
        else validate_prices(f, expected_rows)
        for i, f in enumerate(frames)
    ]


def build_rate_suite(expected_rows: tuple[int, int]):
    import great_expectations as gx
    import great_expectations.expectations as gxe

    _ensure_context()
    suite = gx.ExpectationSuite(name=RATE_SUITE_NAME)
    lo, hi = expected_rows
    suite.add_expectation(gxe.ExpectTableRowCountToBeBetween(min_value=lo, max_value=hi))
    for column in ("rate_date", "currency", "per_eur"):
        suite.add_expectation(gxe.ExpectColumnValuesToNotBeNull(column=column))
    suite.add_expectation(
        gxe.ExpectColumnValuesToMatchRegex(column="currency", regex=r"^[A-Z]{3}$")
    )
    suite.add_expectation(
        gxe.ExpectColumnValuesToBeBetween(column="per_eur", min_value=0, strict_min=True)
    )
    suite.add_expectation(
        gxe.ExpectCompoundColumnsToBeUnique(column_list=["rate_date", "currency"])
    )
    return suite


def validate_rates(frame: pd.DataFrame, expected_rows: tuple[int, int]) -> ValidationOutcome:
    """Run the FX suite on one snapshot's reference rates."""
    return _run(frame.copy(), build_rate_suite(expected_rows), "fx_rates")


def build_api_price_suite(expected_rows: tuple[int, int]):
    import great_expectations as gx
    import great_expectations.expectations as gxe

    _ensure_context()
    suite = gx.ExpectationSuite(name=API_PRICE_SUITE_NAME)
    lo, hi = expected_rows
    suite.add_expectation(gxe.ExpectTableRowCountToBeBetween(min_value=lo, max_value=hi))
    for column in ("provider", "model_id", "currency"):
        suite.add_expectation(gxe.ExpectColumnValuesToNotBeNull(column=column))
    suite.add_expectation(
        gxe.ExpectColumnValuesToMatchRegex(column="currency", regex=r"^[A-Z]{3}$")
    )
    for column in ("input_per_mtok", "output_per_mtok"):
        # Per million tokens: free models are 0; the dearest list prices are in the hundreds.
        suite.add_expectation(
            gxe.ExpectColumnValuesToBeBetween(
                column=column, min_value=0, max_value=MAX_USD_PER_MTOK
            )
        )
    return suite


MAX_USD_PER_MTOK = 2_000  # also the bound for EUR/GBP prices: same order of magnitude


def validate_api_prices(frame: pd.DataFrame, expected_rows: tuple[int, int]) -> ValidationOutcome:
    """Run the API price suite on one snapshot's per-token prices."""
    return _run(frame.copy(), build_api_price_suite(expected_rows), "api_prices")


def validate_specs(frame: pd.DataFrame) -> ValidationOutcome:
    """Run the spec suite on one snapshot's GPU spec rows."""
    checked = frame.copy()
    for column, _, _ in SPEC_RANGES:
        checked[column] = pd.to_numeric(checked[column], errors="coerce")
    return _run(checked, build_spec_suite(), "gpu_specs")


# --- benchmark runs: a failing run is quarantined, the rest of its file lands ----------------

BENCHMARK_SUITE_NAME = "benchmark_runs"
THROUGHPUT_COLUMNS = (
    "request_throughput_rps",
    "output_tokens_per_s",
    "total_tokens_per_s",
    "output_units_per_s",
    "goodput_rps",
)
LATENCY_METRICS = ("ttft", "tpot", "itl", "e2e")


def build_benchmark_suite():
    import great_expectations as gx
    import great_expectations.expectations as gxe

    from sources._internal.records import HARDWARE_SOURCES, OUTPUT_UNITS, RUN_KINDS

    _ensure_context()
    suite = gx.ExpectationSuite(name=BENCHMARK_SUITE_NAME)
    for column in ("format", "tool", "hardware_source", "run_kind", "output_unit"):
        suite.add_expectation(gxe.ExpectColumnValuesToNotBeNull(column=column))
    suite.add_expectation(
        gxe.ExpectColumnValuesToBeInSet(column="output_unit", value_set=list(OUTPUT_UNITS))
    )
    suite.add_expectation(
        gxe.ExpectColumnValuesToBeInSet(column="run_kind", value_set=list(RUN_KINDS))
    )
    suite.add_expectation(
        gxe.ExpectColumnValuesToBeInSet(column="hardware_source", value_set=list(HARDWARE_SOURCES))
    )
    for column in THROUGHPUT_COLUMNS:  # nulls are not checked: a format may not have the figure
        suite.add_expectation(
            gxe.ExpectColumnValuesToBeBetween(column=column, min_value=0, strict_min=True)
        )
    suite.add_expectation(
        gxe.ExpectColumnValuesToBeBetween(column="gpu_count", min_value=1, max_value=4096)
    )
    for column in ("attempted", "completed", "failed"):
        suite.add_expectation(gxe.ExpectColumnValuesToBeBetween(column=column, min_value=0))
    suite.add_expectation(
        gxe.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="attempted",
            column_B="completed",
            or_equal=True,
            ignore_row_if="either_value_is_missing",
        )
    )
    for metric in LATENCY_METRICS:
        for stat in ("mean", "p50", "p95", "p99"):
            suite.add_expectation(
                gxe.ExpectColumnValuesToBeBetween(column=f"{metric}_{stat}_ms", min_value=0)
            )
        for high, low in (("p95", "p50"), ("p99", "p95"), ("p99", "p50")):
            suite.add_expectation(
                gxe.ExpectColumnPairValuesAToBeGreaterThanB(
                    column_A=f"{metric}_{high}_ms",
                    column_B=f"{metric}_{low}_ms",
                    or_equal=True,
                    ignore_row_if="either_value_is_missing",
                )
            )
    return suite


def validate_benchmarks(frame: pd.DataFrame) -> dict[int, list[str]]:
    """Run the benchmark suite over runs (of one or many files). Returns, per failing row
    position, the expectations it breaks: those runs are quarantined, the others loaded."""
    checked = frame.reset_index(drop=True).copy()
    numeric = [c for c in checked.columns if c.endswith(("_ms", "_s", "_rps")) or c in (
        "gpu_count", "attempted", "completed", "failed")]  # fmt: skip
    for column in numeric:
        checked[column] = pd.to_numeric(checked[column], errors="coerce")
    suite = build_benchmark_suite()
    result = _batch(checked, BENCHMARK_SUITE_NAME).validate(
        suite, result_format={"result_format": "COMPLETE"}
    )
    bad: dict[int, list[str]] = {}
    for res in result.results:
        if res.success:
            continue
        cfg = res.expectation_config
        kwargs = {k: v for k, v in cfg.kwargs.items() if k != "batch_id"}
        what = kwargs.get("column") or f"{kwargs.get('column_A')} >= {kwargs.get('column_B')}"
        indexes = (res.result or {}).get("unexpected_index_list") or []
        for i in indexes:
            row = int(i if not isinstance(i, dict) else i.get("index", -1))
            bad.setdefault(row, []).append(f"{cfg.type}: {what}")
    return bad
