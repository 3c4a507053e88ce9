"""Backfill in one pass against running each day in order, on the demo archive.

    .venv/bin/python scripts/perf_backfill.py [DAYS] [END]     (default 90 days to 2026-08-22)

Two fresh warehouses from the shipped demo archive: one runs the daily job for each of the DAYS
days in order (as the schedule would have), the other runs `gpuledger backfill` over the same
range once. Prints both times and whether every day's ranking (as its own daily run published
it) and the set of alerts are identical. Exit 1 if they differ.
"""

from __future__ import annotations

import io
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402

from pipelines.backfill import backfill  # noqa: E402
from pipelines.refresh import run_refresh  # noqa: E402
from warehouse.paths import Paths  # noqa: E402

RANKING = """select day, workload_class, option_key, gpu_rank, round(cost_per_accepted_output, 12)
             from marts.fct_gpu_rankings_daily where day = ? order by all"""
ALERTS = "select alert_key, message from ops.alerts where day between ? and ? order by 1"


def rows(paths: Paths, sql: str, params) -> list:
    con = duckdb.connect(str(paths.db_path), read_only=True)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 90
    end = date.fromisoformat(sys.argv[2]) if len(sys.argv) > 2 else date(2026, 8, 22)
    start = end - timedelta(days=n - 1)
    days = [start + timedelta(days=i) for i in range(n)]
    config = {"deliver_alerts": False}
    with tempfile.TemporaryDirectory() as tmp:
        daily = Paths(Path(tmp) / "daily")
        published = {}
        t0 = time.perf_counter()
        for i, day in enumerate(days, 1):
            ok = run_refresh(day, offline=True, paths=daily, extra_config=config, out=io.StringIO())
            if not ok.success:
                print(f"daily run for {day} failed")
                return 1
            published[day] = rows(daily, RANKING, [day])
            if i % 10 == 0:
                print(f"  {i}/{n} daily runs, {time.perf_counter() - t0:.0f} s", flush=True)
        t_daily = time.perf_counter() - t0
        one = Paths(Path(tmp) / "backfill")
        t0 = time.perf_counter()
        result, _ = backfill(start, end, paths=one, out=io.StringIO(), deliver=False)
        t_backfill = time.perf_counter() - t0
        if not result.success:
            print("backfill failed")
            return 1
        same_rankings = all(rows(one, RANKING, [d]) == published[d] for d in days)
        same_alerts = rows(one, ALERTS, [start, end]) == rows(daily, ALERTS, [start, end])
        n_alerts = len(rows(one, ALERTS, [start, end]))
    print(f"{n} days {start} .. {end} on the demo archive (2 cores)")
    print(f"  one daily run per day, in order: {t_daily:8.1f} s ({t_daily / n:.1f} s a day)")
    print(f"  gpuledger backfill, one pass:    {t_backfill:8.1f} s")
    print(f"  rankings identical for every day: {same_rankings}; alerts identical: {same_alerts} "
          f"({n_alerts} alerts)")  # fmt: skip
    return 0 if same_rankings and same_alerts else 1


if __name__ == "__main__":
    sys.exit(main())
