"""Alert delivery after the rankings, and an operational alert when a run fails."""

from datetime import timedelta

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipelines.alerts import configured_sinks, deliver, record_operational, sync
from pipelines.defs.partitions import DAILY, SINGLE_RUN, window_of
from pipelines.defs.resources import GpuledgerResource, warehouse_connection
from warehouse import db
from warehouse import paths as wpaths

ALERTS_KEY = dg.AssetKey(["ops", "alerts"])


@dg.asset(
    key=ALERTS_KEY,
    deps=[dg.AssetKey(["marts", "fct_alert_candidates"])],
    partitions_def=DAILY,
    backfill_policy=SINGLE_RUN,
    group_name="alerts",
    kinds={"python", "duckdb"},
    description="Record new rank-change and data-quality alerts and deliver pending ones to the "
    "configured sinks (log, JSONL file, webhook)",
    freshness_policy=dg.FreshnessPolicy.time_window(
        fail_window=timedelta(hours=26), warn_window=timedelta(hours=25)
    ),
)
def alerts(context: dg.AssetExecutionContext, gpuledger: GpuledgerResource, duckdb: DuckDBResource):
    start, as_of = window_of(context)
    with warehouse_connection(duckdb) as con:
        # a day's run records its day's alerts (and a few days before, in case one was missed);
        # a range's run records the range's
        new = sync(con, as_of, start if start < as_of else None)
        counts = (
            deliver(con, configured_sinks(gpuledger.paths.home, context.log))
            if gpuledger.deliver_alerts
            else {}
        )
    failed = sum(c["failed"] for c in counts.values())
    if failed:
        context.log.error(f"{failed} alert deliveries failed; they stay pending for the next run")
    return dg.MaterializeResult(
        metadata={"new_alerts": new, "deliveries": dg.MetadataValue.json(counts)}
    )


@dg.run_failure_sensor(
    name="gpuledger_run_failure",
    description="A failed gpuledger run raises an operational alert to the configured sinks",
    default_status=dg.DefaultSensorStatus.RUNNING,
)
def run_failure_alert(context: dg.RunFailureSensorContext):
    paths = wpaths.current()
    run = context.dagster_run
    message = (
        f"gpuledger run {run.run_id} of job {run.job_name} failed: {context.failure_event.message}"
    )
    con = db.connect(paths.db_path)
    try:
        record_operational(
            con, f"run-failed|{run.run_id}", message, {"run_id": run.run_id, "job": run.job_name}
        )
        deliver(con, configured_sinks(paths.home, context.log))
    finally:
        con.close()
