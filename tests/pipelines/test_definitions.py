"""The Dagster code location loads and has what the daily operation needs."""

from __future__ import annotations

import dagster as dg

from pipelines.definitions import defs


def test_job_schedule_and_assets():
    job = defs.resolve_job_def("daily_refresh")
    assert job.name == "daily_refresh"
    schedule = defs.resolve_schedule_def("daily_refresh_schedule")
    assert (schedule.cron_schedule, schedule.execution_timezone) == ("0 6 * * *", "UTC")
    keys = {k.to_user_string() for k in defs.resolve_asset_graph().get_all_asset_keys()}
    # Asset keys are the warehouse's schema/table names.
    assert {
        "ingest/skypilot",
        "ingest/coreweave",
        "raw/price_observations",
        "raw/snapshot_validations",
        "staging/stg_price_observations",
        "intermediate/int_gpu_names_resolved",
        "reference/gpu_catalog",
        "marts/fct_gpu_offers_daily",
        "marts/fct_gpu_rankings_daily",
        "marts/fct_gpu_price_rankings_daily",
        "marts/fct_workload_costs_daily",
        "marts/fct_workload_cost_inputs_daily",
        "marts/fct_throughput_evidence",
        "marts/fct_benchmark_runs",
        "marts/fct_rank_changes",
        "marts/gpu_names_unresolved",
        "marts/dim_gpu",
    } <= keys


def test_lineage_runs_from_sources_through_raw_to_the_marts():
    graph = defs.resolve_asset_graph()

    def parents(key: str) -> set[str]:
        node = graph.get(dg.AssetKey.from_user_string(key))
        return {k.to_user_string() for k in node.parent_keys}

    assert {"ingest/skypilot", "ingest/coreweave"} <= parents("raw/price_observations")
    assert "raw/price_observations" in parents("staging/stg_price_observations")
    assert "marts/fct_gpu_offers_daily" in parents("marts/fct_gpu_price_rankings_daily")
    assert {"marts/fct_gpu_offers_daily", "marts/fct_throughput_evidence"} <= parents(
        "marts/fct_workload_cost_inputs_daily"
    )
    assert parents("marts/fct_workload_costs_daily") == {"marts/fct_workload_cost_inputs_daily"}
    assert parents("marts/fct_gpu_rankings_daily") == {"marts/fct_workload_costs_daily"}
    assert "raw/benchmark_runs" in parents("staging/stg_benchmark_runs")


def test_every_price_source_has_its_validation_check():
    graph = defs.resolve_asset_graph()
    checks = {(k.asset_key.to_user_string(), k.name) for k in graph.asset_check_keys}
    assert {
        ("ingest/skypilot", "snapshots_valid"),
        ("ingest/coreweave", "snapshots_valid"),
        ("ingest/ecb_fx", "snapshots_valid"),
    } <= checks


def test_dbt_assets_are_grouped_by_layer_with_dbt_descriptions():
    graph = defs.resolve_asset_graph()

    def node(key: str):
        return graph.get(dg.AssetKey.from_user_string(key))

    assert node("staging/stg_price_observations").group_name == "staging"
    assert node("intermediate/int_workload_classes_joined").group_name == "intermediate"
    assert node("marts/fct_coverage_daily").group_name == "marts"
    assert node("analytics/coverage_daily").group_name == "analytics"
    assert node("reference/workload_classes").group_name == "reference"
    assert node("ingest/skypilot").group_name == "ingest"
    # the description shown in the UI is the model's own in its _<folder>__models.yml
    assert node("marts/fct_coverage_daily").description.startswith(
        "Per day, how much of the market the day's prices cover"
    )
    groups = {graph.get(k).group_name for k in graph.get_all_asset_keys()}
    assert "default" not in groups
