"""After a successful build: publish the read-only copy for readers, then the day's report.

Both are one asset each, not partitioned by day: the published copy is one file, replaced whole
by every run, and the report one page, rebuilt from it; neither keeps a day of its own (as the
views over the per-day marts do not). A run over a range of days publishes once, as of its last
day. (Partitioned, each cost a planned and a done event per day of a backfill: 1,460 of the
4,822 of a 365-day backfill, written one by one into Dagster's storage.)"""

import dagster as dg

from pipelines.defs.alerts import ALERTS_KEY
from pipelines.defs.dbt import gpuledger_dbt, run_window
from pipelines.defs.resources import GpuledgerResource
from warehouse import publish, report

PUBLISHED_KEY = dg.AssetKey(["ops", "published_warehouse"])
REPORT_KEY = dg.AssetKey(["ops", "report"])
# The marts (tables, built on every run). Not the analytics views: they read the marts.
MART_KEYS = [k for k in gpuledger_dbt.keys if k.path[0] == "marts"]


@dg.asset(
    key=PUBLISHED_KEY,
    deps=[ALERTS_KEY, *MART_KEYS],
    group_name="publish",
    kinds={"duckdb"},
    description="The read-only copy of the warehouse analysts connect to "
    "($GPULEDGER_HOME/published/gpuledger.duckdb), replaced atomically once every model built",
)
def published_warehouse(context: dg.AssetExecutionContext, gpuledger: GpuledgerResource):
    start, as_of = run_window(context, gpuledger)  # the run's day, or its range's first and last
    # a backfill (a range of days) also makes the next day's spare (warehouse/publish.py)
    done = publish.publish(gpuledger.paths, as_of, context.run_id, spare_now=start < as_of)
    parts = ", ".join(f"{name} {seconds} s" for name, seconds in done.phases.items())
    context.log.info(
        f"published {done.path} ({done.size_bytes:,} bytes) in {done.seconds} s ({parts})"
    )
    return dg.MaterializeResult(
        metadata={
            "path": dg.MetadataValue.path(done.path),
            "size_bytes": done.size_bytes,
            "seconds": done.seconds,
            "view_rows": dg.MetadataValue.json(done.views),
            "phase_seconds": dg.MetadataValue.json(done.phases),
        }
    )


@dg.asset(
    key=REPORT_KEY,
    deps=[PUBLISHED_KEY],
    group_name="publish",
    kinds={"html"},
    description="The day's static HTML report ($GPULEDGER_HOME/site/report.html): leaders over "
    "time, cost per accepted output per GPU, price history, provider spread, alerts, source health",
)
def daily_report(context: dg.AssetExecutionContext, gpuledger: GpuledgerResource):
    done = report.build(gpuledger.paths)
    context.log.info(f"report {done.path} ({done.size_bytes:,} bytes) in {done.seconds} s")
    return dg.MaterializeResult(
        metadata={
            "path": dg.MetadataValue.path(str(done.path)),
            "size_bytes": done.size_bytes,
            "seconds": done.seconds,
            "day": str(done.day),
            "chart_rows": dg.MetadataValue.json(done.chart_rows),
        }
    )
