"""Backfill and demo: build a range of days from the archive in one run.

The dbt models compute every day's offers, evidence (by epoch) and ranking from what was known on
that day, so one run over the range's partitions (daily_refresh with a partition range: the
per-day marts' single-run backfill policy makes it one dbt invocation) yields the same rankings as
running each day in order; the run's alerts asset records the range's alerts and delivers them
once (`ops.alerts` keys make a second backfill of the same days a no-op).
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
    """Build the partitions start..end of daily_refresh in one run (the per-day assets' backfill
    policy is a single run: one dbt invocation for the range), alerts and publishing included."""
    from pipelines.refresh import run_refresh
    from warehouse.paths import prepare_environment

    if end < start:
        raise ValueError(f"--end {end} is before --start {start}")
    paths = prepare_environment(paths)
    began = time.perf_counter()
    before = _alert_count(paths)
    result = run_refresh(
        as_of=end,
        start=start,
        offline=True,
        paths=paths,
        out=out,
        extra_config={"deliver_alerts": deliver},
        progress=progress,
        verbose=verbose,
    )
    if not result.success:
        return result, None
    new = _alert_count(paths) - before
    counts = {}
    for event in result.get_asset_materialization_events():
        mat = event.event_specific_data.materialization
        if mat.asset_key.path == ["ops", "alerts"]:
            counts = mat.metadata["deliveries"].value
    print(
        f"backfill {start} .. {end}: one run over the range's partitions, {new} new alerts, "
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


DEMO_START, DEMO_END = date(2026, 3, 13), date(2026, 8, 22)


def demo(
    home: Path | None = None, out=sys.stdout, progress: bool = False, verbose: bool = False
) -> int:
    """Replay the shipped demo archive into a fresh warehouse and show what gpuledger would have
    said over its capture dates: each class's leader now, and the alerts of the whole period."""
    from pipelines.alerts import list_alerts
    from warehouse.queries.coverage import describe
    from warehouse.queries.leaders import leaders, render_leaders

    home = home or Path(tempfile.mkdtemp(prefix="gpuledger-demo-"))
    paths = Paths(home.resolve())  # dbt reads the path as given
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
