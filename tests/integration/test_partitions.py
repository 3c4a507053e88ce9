"""The day as Dagster sees it: daily partitions on the per-day assets, a range in one run, and a
failed day marked failed while the days before it stay built and published."""

from __future__ import annotations

import io
from datetime import timedelta

import dagster as dg
import pytest

from pipelines.backfill import backfill
from pipelines.definitions import defs
from pipelines.defs import dbt as dbt_defs
from pipelines.defs.partitions import DAILY
from pipelines.refresh import run_refresh
from tests.conftest import DEMO_DAY, copy_home, published_rows
from warehouse import publish

pytestmark = [pytest.mark.integration, pytest.mark.slow]

D1, D2, D3 = (DEMO_DAY + timedelta(days=n) for n in (1, 2, 3))
# the per-day mart that stores each day's options with their ranks (fct_gpu_rankings_daily, the
# rankings, is a view of its ranked rows)
RANKED = dg.AssetKey(["marts", "fct_workload_cost_inputs_daily"])


def partitioned_keys() -> set[dg.AssetKey]:
    graph = defs.resolve_asset_graph()
    return {k for k in graph.get_all_asset_keys() if graph.get(k).partitions_def is not None}


def materialized_partitions(paths, run_id) -> dict[dg.AssetKey, set[str]]:
    found: dict[dg.AssetKey, set[str]] = {}
    with dg.DagsterInstance.from_config(str(paths.dagster_home)) as instance:
        records = instance.get_records_for_run(
            run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION, limit=10_000
        ).records
    for record in records:
        event = record.event_log_entry.dagster_event
        found.setdefault(event.asset_key, set()).add(event.partition)
    return found


def checked_materializations(paths, run_id) -> tuple[int, list[str]]:
    """Every asset check Dagster's own storage recorded for the run: (how many, those of an
    asset the run did not materialize or that failed with severity ERROR; the sources'
    freshness checks warn on the demo's old captures)."""
    with dg.DagsterInstance.from_config(str(paths.dagster_home)) as instance:
        mats = instance.get_records_for_run(
            run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION, limit=10_000
        ).records
        checks = instance.get_records_for_run(
            run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION, limit=10_000
        ).records
    materialized = {r.event_log_entry.dagster_event.asset_key for r in mats}
    wrong = []
    for record in checks:
        evaluation = record.event_log_entry.dagster_event.event_specific_data
        failed = not evaluation.passed and evaluation.severity == dg.AssetCheckSeverity.ERROR
        if failed or evaluation.asset_key not in materialized:
            wrong.append(evaluation.check_name)
    return len(checks), wrong


def status(paths, key: dg.AssetKey, days) -> dict[str, object]:
    with dg.DagsterInstance.from_config(str(paths.dagster_home)) as instance:
        got = instance.get_status_by_partition(key, [d.isoformat() for d in days], DAILY)
    return {k: (v.value if v else None) for k, v in (got or {}).items()}


def test_which_assets_are_partitioned():
    keys = partitioned_keys()
    names = {k.path[-1] for k in keys}
    assert {"fct_gpu_offers_daily", "fct_workload_cost_inputs_daily", "fct_alert_candidates",
            "alerts"} <= names  # fmt: skip
    # the per-day marts that summarize those in the same dbt command over the same window are
    # one asset each (their days are those of the marts they are built from)
    assert names == {"fct_gpu_offers_daily", "fct_workload_cost_inputs_daily",
                     "fct_alert_candidates", "alerts"}  # fmt: skip
    assert not names & {"fct_coverage_daily", "fct_gpu_price_rankings_daily",
                        "fct_provider_spread_daily", "fct_api_break_even_daily",
                        "fct_class_leaders_daily", "fct_rank_changes",
                        "fct_price_disagreements"}  # fmt: skip
    # the views over the per-day marts hold no day of their own: one asset each; nor do the
    # published copy and the report (one file each, replaced whole by every run)
    assert not names & {"fct_gpu_rankings_daily", "fct_workload_costs_daily",
                        "workload_costs_daily", "cheapest_gpu_daily",
                        "published_warehouse", "report"}  # fmt: skip
    # ingest, raw tables, dimensions, evidence and seeds are not
    assert not names & {"skypilot", "price_observations", "dim_gpu", "fct_throughput_evidence",
                        "workload_classes", "stg_price_observations"}  # fmt: skip
    job = defs.resolve_job_def("daily_refresh")
    assert job.partitions_def == DAILY
    assert DAILY.get_first_partition_key() == "2021-04-28"  # the demo archive's first day
    schedule = defs.resolve_schedule_def("daily_refresh_schedule")
    assert schedule.cron_schedule == "0 6 * * *" and schedule.job_name == "daily_refresh"


def test_a_day_materializes_exactly_its_partition_and_a_range_is_one_run(demo_next_day, tmp_path):
    # the day's run: D1 refreshed on the demo's copy, once for the session (demo_next_day); its
    # home copied here, with the run in its Dagster storage
    demo_copy = copy_home(demo_next_day.home, tmp_path / "home")
    got = materialized_partitions(demo_copy, demo_next_day.run_id)
    partitioned = partitioned_keys()
    built = {k for k in got if k in partitioned}
    assert {k.path[-1] for k in built} >= {"fct_gpu_offers_daily", "alerts"}
    assert all(got[k] == {D1.isoformat()} for k in built)
    # the unpartitioned assets of the same run carry no partition; the day's run published
    assert got[dg.AssetKey(["marts", "dim_gpu"])] == {None}
    assert got[dg.AssetKey(["ops", "published_warehouse"])] == {None}
    assert got[dg.AssetKey(["ops", "report"])] == {None}
    # Dagster's own storage records every check of the run, each of an asset the run built
    checks, wrong = checked_materializations(demo_copy, demo_next_day.run_id)
    assert checks > 80 and wrong == []

    with dg.DagsterInstance.from_config(str(demo_copy.dagster_home)) as instance:
        before = len(instance.get_run_records())
    out = io.StringIO()
    result, _ = backfill(D2, D3, paths=demo_copy, out=out, deliver=False)
    assert result.success, out.getvalue()
    with dg.DagsterInstance.from_config(str(demo_copy.dagster_home)) as instance:
        assert len(instance.get_run_records()) == before + 1  # single-run backfill policy
        run = instance.get_run_by_id(result.run_id)
    assert run.tags["dagster/asset_partition_range_start"] == D2.isoformat()
    assert run.tags["dagster/asset_partition_range_end"] == D3.isoformat()
    ranged = materialized_partitions(demo_copy, result.run_id)
    key = RANKED  # the per-day rows the rankings are read from
    assert ranged[key] == {D2.isoformat(), D3.isoformat()}
    # the range published once, as of its last day
    assert ranged[dg.AssetKey(["ops", "published_warehouse"])] == {None}
    assert publish.publication(demo_copy)["as_of"] == D3.isoformat()
    assert set(status(demo_copy, key, [D1, D2, D3]).values()) == {"MATERIALIZED"}


def test_a_failed_day_is_marked_failed_and_the_day_before_stays_published(
    demo_next_day, tmp_path, monkeypatch
):
    # D1 refreshed on the demo's copy (demo_next_day, once for the session), copied here
    demo_copy = copy_home(demo_next_day.home, tmp_path / "home")
    out = io.StringIO()
    published = publish.publication(demo_copy)
    assert published["as_of"] == D1.isoformat()
    real = dbt_defs.run_window

    def broken(context, gpuledger):
        start, as_of = real(context, gpuledger)
        if as_of == D2 and context.assets_def.partitions_def is not None:  # the per-day marts
            raise RuntimeError("disk full while building the per-day marts")
        return start, as_of

    monkeypatch.setattr(dbt_defs, "run_window", broken)
    failed = run_refresh(D2, offline=True, paths=demo_copy, out=out,
                         extra_config={"deliver_alerts": False})  # fmt: skip
    assert not failed.success
    key = RANKED  # the per-day rows the rankings are read from
    assert status(demo_copy, key, [D1, D2]) == {D1.isoformat(): "MATERIALIZED",
                                                D2.isoformat(): "FAILED"}  # fmt: skip
    assert publish.publication(demo_copy) == published  # readers keep D1's copy
    assert published_rows(demo_copy, "select max(day) from analytics.cheapest_gpu_daily") == [(D1,)]
