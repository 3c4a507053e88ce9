"""The daily partitions of gpuledger's per-day assets: one partition per day, from the first
archived day to today (UTC).

The day's records among the per-day marts (dbt/models/marts/daily, tagged day_record: the
day's offers, its workload options and ranks, its alert candidates) and the alerts are
partitioned by day; a run for partition D builds day D, a run over a range builds the range in
one dbt invocation (single-run backfill policy). The other per-day marts, which summarize those
in the same dbt command over the same window, are one asset each. Ingest stays unpartitioned (it
takes what arrived), and so do the dimension, evidence and reference models (rebuilt whole, they
are small), the views over the per-day marts, the published copy and the report (they hold no
day of their own).
"""

from __future__ import annotations

import json
import warnings
from datetime import UTC, date, datetime, timedelta

import dagster as dg

from warehouse import paths as wpaths


def _first_day(index) -> date | None:
    try:
        with index.open(encoding="utf-8") as fh:
            days = [json.loads(line)["fetched_at"][:10] for line in fh if line.strip()]
    except (OSError, ValueError, KeyError):
        return None
    return date.fromisoformat(min(days)) if days else None


def first_archived_day() -> date:
    """The first day of the shipped demo archive or of this home's archive, whichever is earlier
    (the home's archive is read when the code location loads)."""
    found = [
        d
        for d in (
            _first_day(wpaths.DEMO_ARCHIVE_DIR / "index.jsonl"),
            _first_day(wpaths.current().archive_dir / "index.jsonl"),
        )
        if d is not None
    ]
    return min(found) if found else datetime.now(UTC).date() - timedelta(days=30)


# end_offset=1: today's partition exists from 00:00 UTC, so the morning run builds today.
DAILY = dg.DailyPartitionsDefinition(
    start_date=first_archived_day().isoformat(), end_offset=1, timezone="UTC"
)
SINGLE_RUN = dg.BackfillPolicy.single_run()
# backfill_policy on @asset is marked beta in Dagster 1.13; it is what the per-day assets need.
warnings.filterwarnings("ignore", message=".*backfill_policy.*", category=dg.BetaWarning)


def window_of(context) -> tuple[date, date] | None:
    """The first and last day of the run's partition or partition range; None if unpartitioned."""
    if not context.has_partition_key_range and not context.has_partition_key:
        return None
    window = context.partition_time_window
    return window.start.date(), (window.end - timedelta(days=1)).date()
