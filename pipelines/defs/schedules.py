"""The daily refresh job and its schedule."""

from __future__ import annotations

import os

import dagster as dg

DAILY_REFRESH_CRON = os.environ.get("GPULEDGER_SCHEDULE_CRON", "0 6 * * *")

daily_refresh = dg.define_asset_job(
    "daily_refresh",
    selection=dg.AssetSelection.all(),
    description="Fetch every source, archive, validate, load raw, and build the dbt models.",
    executor_def=dg.in_process_executor,  # one writer to the DuckDB file at a time
)

daily_refresh_schedule = dg.ScheduleDefinition(
    name="daily_refresh_schedule",
    job=daily_refresh,
    cron_schedule=DAILY_REFRESH_CRON,
    execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.RUNNING,
)
