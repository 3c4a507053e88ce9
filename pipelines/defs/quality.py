"""Great Expectations 1.x suites for raw price observations, run on pandas frames.

One suite per snapshot of a price source: required fields present, positive and plausible per-GPU
prices, known pricing models, gpu_count >= 1, row count within the source's expected range. GX's
SQL path over DuckDB is not used (broken in current releases); the frame is what will be loaded.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from sources.records import PRICING_MODELS

os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")

SUITE_NAME = "price_observations"
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

    def as_record(self) -> dict[str, Any]:
        return {
            "suite": SUITE_NAME,
            "success": self.success,
            "row_count": self.row_count,
            "failed_expectations": self.failed_expectations,
            "sample_rows": self.sample_rows,
        }


def _context():
    import great_expectations as gx

    logging.getLogger("great_expectations").setLevel(logging.WARNING)
    return gx.get_context(mode="ephemeral")


_CONTEXT = None


def _batch(frame: pd.DataFrame):
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = _context()
        source = _CONTEXT.data_sources.add_pandas("gpuledger_frames")
        asset = source.add_dataframe_asset("price_observations")
        asset.add_batch_definition_whole_dataframe("whole")
    batch_def = (
        _CONTEXT.data_sources.get("gpuledger_frames")
        .get_asset("price_observations")
        .get_batch_definition("whole")
    )
    return batch_def.get_batch(batch_parameters={"dataframe": frame})


def build_suite(expected_rows: tuple[int, int]):
    import great_expectations as gx
    import great_expectations.expectations as gxe

    suite = gx.ExpectationSuite(name=SUITE_NAME)
    lo, hi = expected_rows
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


def validate_prices(frame: pd.DataFrame, expected_rows: tuple[int, int]) -> ValidationOutcome:
    """Run the price suite on one snapshot's parsed rows."""
    checked = frame.copy()
    for column in REQUIRED_FIELDS:
        if column not in checked.columns:
            checked[column] = pd.Series([None] * len(checked), dtype="object")
    checked["price_per_gpu_hour"] = checked["price_per_hour"] / checked["gpu_count"]
    result = _batch(checked).validate(build_suite(expected_rows))
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
    return ValidationOutcome(bool(result.success), len(checked), failed, samples)
