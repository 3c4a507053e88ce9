"""Alert delivery after the rankings, and an operational alert when a run fails."""

from datetime import timedelta

import dagster as dg

from pipelines.alerts import configured_sinks, deliver, record_operational, run_alerts
from pipelines.defs.resources import GpuledgerResource
from warehouse import db
from warehouse import paths as wpaths

ALERTS_KEY = dg.AssetKey(["ops", "alerts"])


@dg.asset(
    key=ALERTS_KEY,
    deps=[dg.AssetKey(["marts", "fct_alert_candidates"])],
    group_name="alerts",
    kinds={"python", "duckdb"},
    description="Record new rank-change and data-quality alerts and deliver pending ones to the "
    "configured sinks (log, JSONL file, webhook)",
    freshness_policy=dg.FreshnessPolicy.time_window(
        fail_window=timedelta(hours=26), warn_window=timedelta(hours=25)
    ),
)
def alerts(context: dg.AssetExecutionContext, gpuledger: GpuledgerResource):
    paths = gpuledger.paths
    new, counts = run_alerts(
        paths.db_path, paths.home, gpuledger.as_of_date(), context.log,
        deliver_now=gpuledger.deliver_alerts,
    )  # fmt: skip
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
