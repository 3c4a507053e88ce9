"""The Great Expectations price suite on real parsed snapshots and on broken ones."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pipelines.ingest import records_frame
from pipelines.quality import validate_prices
from sources import coreweave, skypilot
from tests.conftest import COREWEAVE, SKYPILOT

T = datetime(2026, 8, 20, tzinfo=UTC)


@pytest.fixture(scope="module")
def lambda_frame():
    path = SKYPILOT / "v7_lambda_vms@11580132.csv"
    return records_frame(
        skypilot.parse(path.read_bytes(), "https://x/catalogs/v7/lambda/vms.csv", T).records
    )


def test_real_snapshots_pass(lambda_frame):
    outcome = validate_prices(lambda_frame, skypilot.EXPECTED_ROWS)
    assert outcome.success, outcome.failed_expectations
    assert outcome.row_count == 306
    cw = coreweave.parse((COREWEAVE / "2026-08-22.json").read_bytes(), "u", T).records
    assert validate_prices(records_frame(cw), coreweave.EXPECTED_ROWS).success


def test_implausible_per_gpu_price_fails_with_samples(lambda_frame):
    broken = lambda_frame.copy()
    broken.loc[3, "price_per_hour"] = 2400.0  # 8 GPUs at 300 USD/GPU-hour: a misplaced decimal
    outcome = validate_prices(broken, skypilot.EXPECTED_ROWS)
    assert not outcome.success
    assert [f["expectation"] for f in outcome.failed_expectations] == [
        "expect_column_values_to_be_between"
    ]
    assert outcome.failed_expectations[0]["kwargs"]["column"] == "price_per_gpu_hour"
    assert outcome.sample_rows[0]["offer_id"] == broken.loc[3, "offer_id"]


def test_unknown_pricing_model_and_missing_field_fail(lambda_frame):
    broken = lambda_frame.copy()
    broken.loc[0, "pricing_model"] = "weekly"
    broken.loc[1, "offer_id"] = None
    failed = {
        (f["expectation"], f["kwargs"].get("column"))
        for f in validate_prices(broken, skypilot.EXPECTED_ROWS).failed_expectations
    }
    assert failed == {
        ("expect_column_values_to_be_in_set", "pricing_model"),
        ("expect_column_values_to_not_be_null", "offer_id"),
    }


def test_row_count_outside_the_expected_range_fails(lambda_frame):
    outcome = validate_prices(lambda_frame.head(2), coreweave.EXPECTED_ROWS)
    assert [f["expectation"] for f in outcome.failed_expectations] == [
        "expect_table_row_count_to_be_between"
    ]
    assert outcome.failed_expectations[0]["observed_value"] == 2


def test_empty_snapshot_fails_on_row_count():
    outcome = validate_prices(records_frame([]), skypilot.EXPECTED_ROWS)
    assert not outcome.success and outcome.row_count == 0
