"""gpuledger's Dagster code location. Assembles only; each concern lives in pipelines/defs/."""

from __future__ import annotations

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipelines.defs.alerts import alerts, run_failure_alert
from pipelines.defs.dbt import gpuledger_dbt
from pipelines.defs.ingest import INGEST_ASSETS, raw_tables
from pipelines.defs.publish import daily_report, published_warehouse
from pipelines.defs.resources import GpuledgerResource, dbt_resource
from pipelines.defs.schedules import daily_refresh, daily_refresh_schedule
from pipelines.progress import progress_logger, run_log_logger
from warehouse.paths import prepare_environment

prepare_environment()

defs = dg.Definitions(
    assets=[
        *INGEST_ASSETS,
        raw_tables,
        gpuledger_dbt,
        alerts,
        published_warehouse,
        daily_report,
    ],
    jobs=[daily_refresh],
    schedules=[daily_refresh_schedule],
    sensors=[run_failure_alert],
    loggers={
        "console": dg.colored_console_logger,
        "progress": progress_logger,
        "run_log": run_log_logger,
    },
    resources={
        "gpuledger": GpuledgerResource.configure_at_launch(),
        "dbt": dbt_resource(),
        # the run's warehouse file: prepare_environment() points GPULEDGER_DB_PATH at it
        "duckdb": DuckDBResource(database=dg.EnvVar("GPULEDGER_DB_PATH")),
    },
)
