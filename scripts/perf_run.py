"""One size of the scale run (scripts/perf_scale.py): its history prepared from the base
warehouse, then, in a worker process of its own, its backfill and its daily refreshes (the day's
catalogs served over HTTP on 127.0.0.1 on the day's clock), and what it measured."""

import io
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from datetime import time as dtime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from perf_history import END, Market, MarketDays, add_benchmark_runs, catalog_url, load_history
from perf_measure import (
    TreeMemory,
    _loaded_on,
    _step_seconds,
    du,
    fresh_index_read,
    publish_method,
    query_latency,
    row_group_days,
)

# ------------------------------------------------------------------ serving day D+1


class Catalogs(BaseHTTPRequestHandler):
    pages: dict[str, bytes] = {}

    def do_GET(self):  # noqa: N802
        body = self.pages.get(self.path)
        if self.path == "/robots.txt" or body is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/csv")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def serve(port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", port), Catalogs)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


class OnTheDay(datetime):
    """The fetches' clock in the measuring process: day D+k's run fetches on day D+k (at 06:00
    UTC plus the time since the run began), so its pages are that day's snapshots. On the real
    clock they would be dated today, months after the as-of day, and ingest would rightly leave
    them unloaded (a page fetched after the as-of day is not known on that day): until
    2026-12-03 the scale run's daily refreshes fetched and archived the day's catalogs but loaded
    none of them (no GX, no raw rows, the day priced from the day before)."""

    shift = timedelta(0)

    @classmethod
    def now(cls, tz=None):
        return datetime.now(tz) + cls.shift

    @classmethod
    def begin(cls, day) -> None:
        cls.shift = datetime.combine(day, dtime(6), UTC) - datetime.now(UTC)


REFRESH_DAYS = 3


def market_for(days: int, args) -> Market:
    """The market of a size: its D days of history and the refresh days (the same in the
    preparing and the measuring process: the series depend on the number of days)."""
    history = [END - timedelta(days=days - 1 - i) for i in range(days)]
    refresh = [END + timedelta(days=k) for k in range(1, REFRESH_DAYS + 1)]
    return Market(args.providers, args.gpus, args.regions, [*history, *refresh])


def prepare_size(base_home: Path, work: Path, days: int, args) -> dict:
    """Copy the base warehouse and load D days of generated history into it (own process, so the
    generator's memory is not counted as the pipeline's)."""
    from warehouse.paths import Paths

    paths = Paths(work / f"d{days}")
    shutil.copytree(base_home, paths.home, dirs_exist_ok=True)
    # the same market as the measuring process's, history only
    market = market_for(days, args)
    loaded = load_history(paths, MarketDays(market, days), f"http://127.0.0.1:{args.port}")
    loaded["benchmark_runs"] = add_benchmark_runs(paths, args.runs)
    return loaded


class SizeRun:
    """One size's backfill, daily refreshes, queries and sizes, in this process: `--one` runs
    it as a worker that takes its steps from the driver one at a time (`serve_steps`), so that
    the driver can run every size's day D+k within the same minutes."""

    def __init__(self, work: Path, days: int, args):
        from sources import REGISTRY
        from warehouse.paths import Paths

        self.days = days
        self.paths = Paths(work / f"d{days}")
        self.loaded = json.loads((work / f"d{days}.prepared.json").read_text())
        self.market = market_for(days, args)
        self.server, base_url = serve(args.port)
        self.memory = TreeMemory()
        self.log = io.StringIO()
        self.found: dict = {}
        self.overrides = {name: [] for name in REGISTRY}
        self.overrides["skypilot"] = [catalog_url(base_url, p) for p in self.market.providers()]

    def backfill(self) -> dict:
        from pipelines.backfill import backfill

        history = [END - timedelta(days=self.days - 1 - i) for i in range(self.days)]
        t = time.perf_counter()
        result, _ = backfill(history[0], END, paths=self.paths, out=self.log, deliver=False)
        backfill_s = time.perf_counter() - t
        if not result.success:
            raise SystemExit(f"backfill of {self.days} days failed:\n{self.log.getvalue()[-3000:]}")
        self.found.update(
            backfill_s=round(backfill_s, 1),
            backfill_steps_s=_step_seconds(result.run_id),
            backfill_row_group_days=row_group_days(self.paths.db_path),
        )
        # The backfill has just written the warehouse (1.5 GB at three years). A day's refresh
        # runs on a machine that wrote it to disk long ago: the kernel's writeback of the
        # backfill must not be timed as the refresh's (its publish step flushes a copy too).
        os.sync()
        from sources._internal import http as fetching

        fetching.datetime = OnTheDay
        # The floor is the median of three runs in one process, its imports done; so are the
        # refreshes measured here (the backfill imported Dagster and dbt), but for Great
        # Expectations, which the backfill did not use (nothing new to validate): imported here,
        # as the floor's later runs have it. (A day's run in a fresh process pays its import,
        # 2-4 s on this machine.)
        from pipelines.quality import _ensure_context

        _ensure_context()
        return {"backfill_s": self.found["backfill_s"]}

    def day(self, offset: int) -> dict:
        """The refresh of day END + offset, its catalogs served: D+1 is the first day after the
        backfill (which rebuilt the marts whole); D+2 and D+3 a day after a day, as every
        morning's run is."""
        from pipelines.refresh import run_refresh

        market, days = self.market, self.days
        Catalogs.pages = {
            catalog_url("", p): market.catalog(p, days - 1 + offset) for p in market.providers()
        }
        OnTheDay.begin(END + timedelta(days=offset))
        t = time.perf_counter()
        result = run_refresh(
            END + timedelta(days=offset), offline=False, paths=self.paths, out=self.log,
            extra_config={"url_overrides": self.overrides, "seed_demo_archive": False,
                          "http_min_interval_s": 0.0, "deliver_alerts": False},
        )  # fmt: skip
        seconds = time.perf_counter() - t
        if not result.success:
            raise SystemExit(
                f"daily refresh after {days} days failed:\n{self.log.getvalue()[-3000:]}"
            )
        published = json.loads((self.paths.published_dir / "PUBLISHED.json").read_text())
        loaded = _loaded_on(self.paths, END + timedelta(days=offset))
        if loaded != len(market.providers()):
            raise SystemExit(
                f"the refresh of day {END + timedelta(days=offset)} loaded {loaded} of "
                f"{len(market.providers())} providers' catalogs fetched that day"
            )
        key = DAY_KEYS[offset - 1]
        self.found.update(
            {
                f"{key}_refresh_s": round(seconds, 1),
                f"{key}_steps_s": _step_seconds(result.run_id),
                f"{key}_publish_s": published.get("phases", {}),
                f"{key}_publish_method": publish_method(published),
            }
        )
        return {f"{key}_refresh_s": round(seconds, 1)}

    def finish(self) -> dict:
        import duckdb

        self.server.shutdown()
        paths = self.paths
        index_s = fresh_index_read(paths.archive_dir / "index.jsonl")
        con = duckdb.connect(str(paths.published_db_path), read_only=True)
        facts = dict(
            zip(
                ["offer_days", "cost_rows", "ranked_days"],
                con.execute(
                    """select (select count(*) from marts.fct_gpu_offers_daily),
                              (select count(*) from marts.fct_workload_costs_daily),
                              (select count(distinct day) from marts.fct_gpu_rankings_daily)"""
                ).fetchone(),
                strict=True,
            )
        )
        fetched = con.execute(
            "select count(*) from raw.source_runs "
            "where source = 'skypilot' and fetch_status = 'fetched'"
        ).fetchone()[0]
        con.close()
        loaded = self.loaded
        return {
            "days": self.days,
            "snapshots": loaded["snapshots"] + len(self.market.providers()),
            "price_rows": loaded["price_rows"],
            "benchmark_runs": loaded["benchmark_runs"],
            "history_load": {k: round(v, 1) for k, v in loaded.items() if k.endswith("_s")},
            **self.found,
            "daily_fetched": fetched,
            "fresh_index_s": index_s,
            "queries": query_latency(paths),
            "archive_mb": round(du(paths.archive_dir) / 1e6, 1),
            "duckdb_mb": round(paths.db_path.stat().st_size / 1e6, 1),
            "published_mb": round(paths.published_db_path.stat().st_size / 1e6, 1),
            **facts,
            "peak_mb": self.memory.stop(),
        }


DAY_KEYS = ("daily", "next", "third")
_ANSWER = "@@perf-step "  # the line a worker answers a step with (its logs may share stdout)


def serve_steps(run: SizeRun) -> None:
    """The worker's loop: a step per line of stdin (`backfill`, `day K`, `finish`), each
    answered by one line of JSON."""
    run.memory.active.clear()  # waiting for the first step
    for line in sys.stdin:
        step = line.split()
        if not step:
            continue
        run.memory.active.set()
        if step[0] == "backfill":
            answer = run.backfill()
        elif step[0] == "day":
            answer = run.day(int(step[1]))
        elif step[0] == "finish":
            answer = run.finish()
        else:
            raise SystemExit(f"unknown step: {line.strip()}")
        if step[0] == "finish":
            print(_ANSWER + json.dumps(answer), flush=True)
            return
        run.memory.active.clear()
        print(_ANSWER + json.dumps(answer), flush=True)


class Worker:
    """The driver's handle on a size's worker process (`--one`)."""

    def __init__(self, cmd: list[str], errors: Path):
        self.errors = errors
        self._err = errors.open("w")
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, text=True
        )

    def step(self, line: str) -> dict:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        for out in self.proc.stdout:
            if out.startswith(_ANSWER):
                return json.loads(out[len(_ANSWER) :])
        self.proc.wait()
        self._err.close()
        raise SystemExit(f"the worker failed at `{line}`:\n{self.errors.read_text()[-4000:]}")

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()
        self._err.close()


# The per-day marts a day's build and publication read a few days of: the largest.


def build_base(home: Path) -> dict:
    """A warehouse with the demo archive loaded by a real offline refresh."""
    from pipelines.refresh import run_refresh
    from warehouse.paths import Paths

    log = io.StringIO()
    t = time.perf_counter()
    result = run_refresh(END, offline=True, paths=Paths(home), out=log)
    if not result.success:
        raise SystemExit(f"loading the demo archive failed:\n{log.getvalue()[-3000:]}")
    return {"demo_refresh_s": round(time.perf_counter() - t, 1)}
