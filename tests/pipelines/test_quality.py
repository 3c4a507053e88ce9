"""The Great Expectations price suite on real parsed snapshots and on broken ones."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pipelines.ingest import records_frame
from pipelines.quality import validate_price_snapshots, validate_prices
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


# ---------------------------------------------------------------- several snapshots in one run

CATALOGS = ("v7_lambda_vms@11580132.csv", "v7_nebius_vms@22fd1fea.csv",
            "v6_runpod_vms@098741e7.csv", "v6_paperspace_vms@e5200541.csv")  # fmt: skip


@pytest.fixture(scope="module")
def catalog_frames():
    frames = []
    for name in CATALOGS:
        version, cloud = name.split("_")[:2]
        url = f"https://x/catalogs/{version}/{cloud}/vms.csv"
        frames.append(records_frame(skypilot.parse((SKYPILOT / name).read_bytes(), url, T).records))
    return frames


@pytest.fixture
def gx_runs(monkeypatch):
    """The Great Expectations runs made: the row count of each frame validated."""
    from pipelines import quality

    runs, run = [], quality._run
    monkeypatch.setattr(
        quality, "_run", lambda frame, *a: runs.append(len(frame)) or run(frame, *a)
    )
    return runs


def test_snapshots_validated_together_get_the_verdicts_they_get_alone(catalog_frames, gx_runs):
    together = validate_price_snapshots(catalog_frames, skypilot.EXPECTED_ROWS)
    assert gx_runs == [sum(len(f) for f in catalog_frames)]  # one run over the four
    alone = [validate_prices(f, skypilot.EXPECTED_ROWS) for f in catalog_frames]
    assert [o.as_record() for o in together] == [o.as_record() for o in alone]
    assert [o.row_count for o in together] == [len(f) for f in catalog_frames]
    assert together[0].row_count == 306 and all(o.success for o in together)


def test_a_failing_snapshot_among_several_fails_alone_with_its_own_samples(catalog_frames, gx_runs):
    broken = catalog_frames[1].copy()
    broken.loc[2, "price_per_hour"] = broken.loc[2, "gpu_count"] * 250.0  # past 100 USD/GPU-hour
    frames = [catalog_frames[0], broken, catalog_frames[2]]
    together = validate_price_snapshots(frames, skypilot.EXPECTED_ROWS)
    # the run over the three failed: each is validated on its own
    assert gx_runs == [sum(len(f) for f in frames), *(len(f) for f in frames)]
    assert [o.success for o in together] == [True, False, True]
    assert together[1].as_record() == validate_prices(broken, skypilot.EXPECTED_ROWS).as_record()
    assert together[1].failed_expectations[0]["kwargs"]["column"] == "price_per_gpu_hour"
    assert together[1].sample_rows[0]["offer_id"] == broken.loc[2, "offer_id"]


def test_each_snapshots_row_count_is_checked_in_a_batch(lambda_frame):
    # 2 and 10 rows pass the table's row count together (12), not alone: CoreWeave wants 4-400
    frames = [lambda_frame.head(2), lambda_frame.head(10)]
    together = validate_price_snapshots(frames, coreweave.EXPECTED_ROWS)
    assert [o.success for o in together] == [False, True]
    assert together[0].failed_expectations[0]["expectation"] == (
        "expect_table_row_count_to_be_between"
    )
    assert together[0].failed_expectations[0]["observed_value"] == 2
    # an empty snapshot among others fails on its row count, the others pass
    empty = validate_price_snapshots(
        [records_frame([]), lambda_frame, lambda_frame.head(5)], skypilot.EXPECTED_ROWS
    )
    assert [(o.success, o.row_count) for o in empty] == [(False, 0), (True, 306), (True, 5)]
