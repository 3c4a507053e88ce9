"""Backfill and demo: rebuild a range of days from the archive in one pass.

The dbt models compute every day's offers, evidence (by epoch) and ranking from what was known on
that day, so one build as of the range's last day yields the same rankings as running each day in
order; alerts for the range are then recorded and delivered once (`ops.alerts` keys make a second
backfill of the same days a no-op).
"""

from __future__ import annotations

import io
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from warehouse.paths import Paths


def backfill(
    start: date,
    end: date,
    paths: Paths | None = None,
    out=sys.stdout,
    deliver=True,
    progress: bool = False,
    verbose: bool = False,
):
    from pipelines import alerts
    from pipelines.refresh import run_refresh
    from warehouse.paths import prepare_environment

    if end < start:
        raise ValueError(f"--end {end} is before --start {start}")
    paths = prepare_environment(paths)
    began = time.perf_counter()
    before = _alert_count(paths)
    result = run_refresh(
        as_of=end,
        offline=True,
        paths=paths,
        out=out,
        extra_config={"deliver_alerts": deliver, "window_start": start.isoformat()},
        progress=progress,
        verbose=verbose,
    )
    if not result.success:
        return result, None
    import duckdb

    con = duckdb.connect(str(paths.db_path))
    try:
        # the job's own alert step covered its last few days; the whole range is recorded here
        alerts.sync(con, end, start=start)
        sinks = alerts.configured_sinks(paths.home, _PrintLog(out)) if deliver else []
        counts = alerts.deliver(con, sinks)
    finally:
        con.close()
    # the job published before the range's alerts were recorded: publish them too
    from warehouse import publish, report

    publish.publish(paths, end, result.run_id)
    report.build(paths)
    new = _alert_count(paths) - before
    print(
        f"backfill {start} .. {end}: rankings rebuilt in one pass, {new} new alerts, "
        f"deliveries {counts}, {time.perf_counter() - began:.1f} s",
        file=out,
    )
    return result, new


def _alert_count(paths: Paths) -> int:
    import duckdb

    if not paths.db_path.exists():
        return 0
    con = duckdb.connect(str(paths.db_path), read_only=True)
    try:
        has = con.execute(
            "select count(*) from information_schema.tables "
            "where table_schema = 'ops' and table_name = 'alerts'"
        ).fetchone()[0]
        return con.execute("select count(*) from ops.alerts").fetchone()[0] if has else 0
    finally:
        con.close()


class _PrintLog:
    def __init__(self, out):
        self.out = out

    def warning(self, msg):
        print(msg, file=self.out)

    info = error = warning


DEMO_START, DEMO_END = date(2026, 3, 13), date(2026, 8, 22)


def demo(
    home: Path | None = None, out=sys.stdout, progress: bool = False, verbose: bool = False
) -> int:
    """Replay the shipped demo archive into a fresh warehouse and show what gpuledger would have
    said over its capture dates: each class's leader now, and the alerts of the whole period."""
    from pipelines.alerts import list_alerts
    from warehouse.queries.coverage import describe
    from warehouse.queries.workloads import leaders, render_leaders

    home = home or Path(tempfile.mkdtemp(prefix="gpuledger-demo-"))
    paths = Paths(home)
    log = io.StringIO()
    print(f"gpuledger demo: replaying the demo archive into {home} (no network) ...", file=out)
    result, _ = backfill(
        DEMO_START,
        DEMO_END,
        paths=paths,
        out=log,
        deliver=False,
        progress=progress,
        verbose=verbose,
    )
    if not result.success:
        print(log.getvalue(), file=out)
        return 1
    import os

    os.environ["GPULEDGER_HOME"] = str(home)
    shown = leaders(DEMO_END)
    print(describe(shown["coverage"]), file=out)  # which day the leaders are of, and why
    print(render_leaders(shown), file=out)
    rows = list_alerts(paths.published_db_path)
    print(
        f"\nAlerts over {DEMO_START} .. {DEMO_END} ({len(rows)}; not delivered anywhere):", file=out
    )
    for r in rows:
        flag = " [marginal]" if r["is_marginal"] else ""
        print(f"  {r['day']} {r['alert_kind']}{flag}: {r['message']}", file=out)
    print(
        f"\nExplore: GPULEDGER_HOME={home} gpuledger rank --workload chat-70b --date {DEMO_END}",
        file=out,
    )
    return 0
