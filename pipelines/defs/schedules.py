"""The daily refresh job and its schedule."""

from __future__ import annotations

import os

import dagster as dg

from pipelines.defs.partitions import DAILY

DAILY_REFRESH_CRON = os.environ.get("GPULEDGER_SCHEDULE_CRON", "0 6 * * *")

daily_refresh = dg.define_asset_job(
    "daily_refresh",
    selection=dg.AssetSelection.all(),
    partitions_def=DAILY,
    description="Fetch every source, archive, validate, load raw, and build the dbt models; the "
    "per-day marts, alerts, the published copy and the report for the run's day (partition).",
    executor_def=dg.in_process_executor,  # one writer to the DuckDB file at a time
)


def _daily_time(cron: str) -> tuple[int, int]:
    """(minute, hour) of a daily cron "M H * * *" (UTC); anything else is refused by name."""
    fields = cron.split()
    if (
        len(fields) != 5
        or fields[2:] != ["*", "*", "*"]
        or not all(f.isdigit() for f in fields[:2])
    ):
        raise ValueError(
            f"GPULEDGER_SCHEDULE_CRON={cron!r}: the refresh runs once a day, give 'M H * * *'"
        )
    return int(fields[0]), int(fields[1])


_MINUTE, _HOUR = _daily_time(DAILY_REFRESH_CRON)
# Each tick runs the newest partition: today's (UTC), at the time of day the cron gives.
daily_refresh_schedule = dg.build_schedule_from_partitioned_job(
    daily_refresh,
    name="daily_refresh_schedule",
    minute_of_hour=_MINUTE,
    hour_of_day=_HOUR,
    default_status=dg.DefaultScheduleStatus.RUNNING,
)
