"""Scale run: how gpuledger's cost grows with providers, offers and days. `make perf`.

    .venv/bin/python scripts/perf_scale.py [--providers 50] [--gpus 8] [--regions 3]
        [--days 30,90,365,1095] [--runs 5000] [--out perf/scale.md]

What it builds, per history length D (each in a fresh warehouse and its own process, so peak
memory is per size):
- the shipped demo archive (real pages, specs, rates, API prices, 221 real benchmark files), loaded
  by a real offline refresh once and copied for each D;
- K benchmark runs: the real runs, replicated with their throughputs jittered by up to 5 %;
- N synthetic providers in SkyPilot's catalog format (the real columns, GpuInfo included), each
  with M of 12 real GPU models at their real median price, R regions, on-demand and (for every
  other provider) spot prices, prices moving by -10..+8 % on 3 % of days. D days of history are
  written to the archive, parsed by the real parser, checked by the real Great Expectations suite
  (in one pass over the whole history) and loaded into raw.* in bulk, as the daily runs would have
  left them.

Then it measures: `gpuledger backfill` over the D days (one dbt pass, alerts, publish, report); the
daily refresh of day D+1 with the N providers fetched from a real HTTP server on 127.0.0.1 on day
D+1's clock (fetch, archive, GX, load of the N snapshots, dbt, alerts, publish, report; the run
fails if a provider's snapshot of the day is not in raw), once the backfill's writes are on disk
(os.sync: a real day's run does not share the disk with them), and of days D+2 and D+3 after it (a
day after a day, as every morning: D+1 follows a backfill that rebuilt the marts whole); the p95
latency of every example query of the analysts' README on the published copy; archive and DuckDB
sizes; peak memory (this process and its children, dbt's worker among them: proportional set size,
so that pages a forked child shares with this process count once). The floor is a minimal Dagster
job on the same machine: one asset validating one snapshot's rows with the same GX suite and one
`dbt build` of a one-model project, run the same way (in-process), with dagster-dbt's stock dbt
resource (dbt a child process for each command); beside it the same job with dbt run as gpuledger
runs it (a worker process forked at the first command and kept: pipelines/defs/dbt_worker.py). The
floor is measured at the start and again after each round of refreshes (its own process): this
machine's speed changes by up to half within an hour, so the sizes are measured together: every
size is prepared and backfilled first, each in its own worker process that then waits (its memory
sampling paused); then every size's D+1 runs, one after the other, then the floor, then every
size's D+2 (the largest first) and the floor, then D+3 and the floor. A day's refreshes of all
sizes fall within the same few minutes, each is set against the floor measured right after them,
and the growth from the smallest size to the largest is not the machine's drift between sizes
measured a quarter of an hour apart (until 2026-12-03 each size was measured alone, its floor
right after it: perf/HISTORY.md). The table is printed and written to --out.
"""

import argparse
import io
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from datetime import time as dtime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from perf_floor import floor  # noqa: E402
from perf_history import (  # noqa: E402
    END,
    Market,
    MarketDays,
    add_benchmark_runs,
    catalog_url,
    load_history,
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


# ------------------------------------------------------------------ measuring


class TreeMemory:
    """Samples the memory of this process and all its descendants (dbt's worker) every 0.1 s
    from /proc; `peak_mb` is the largest sum seen. Each process counts its proportional set size
    (Pss: a page shared by n processes counts 1/n in each), as the worker is forked from this
    process and shares its pages until either writes them: their resident sizes would count
    those pages twice. (ru_maxrss of the children would count the parent's pages too.)"""

    def __init__(self):
        self.peak_kb = 0
        self._stop = threading.Event()
        # sampling only while the process works: reading /proc ten times a second costs CPU,
        # and a worker waiting for its next step must not take it from the one being timed
        self.active = threading.Event()
        self.active.set()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def _tree_kb(root: int) -> int:
        parents = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/status") as fh:
                    fields = dict(line.split(":", 1) for line in fh if ":" in line)
                parents[int(entry)] = int(fields["PPid"])
            except (OSError, KeyError, ValueError):
                continue
        tree, grown = {root}, True
        while grown:
            grown = False
            for pid, ppid in parents.items():
                if ppid in tree and pid not in tree:
                    tree.add(pid)
                    grown = True
        return sum(_pss_kb(pid) for pid in tree)

    def _run(self):
        while not self._stop.is_set():
            self.active.wait()
            self.peak_kb = max(self.peak_kb, self._tree_kb(os.getpid()))
            self._stop.wait(0.1)

    def stop(self) -> int:
        self._stop.set()
        self.active.set()
        self._thread.join()
        return round(self.peak_kb / 1024)


def _pss_kb(pid: int) -> int:
    """A process's proportional set size in kB (0 once it has ended)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def publish_method(published: dict) -> str:
    """How a publication was made: a whole copy and why, or the spare updated: how many tables
    and groups of their rows (days, snapshots) it replaced (a sync has no `why`)."""
    if published.get("method") == "sync":
        synced = published.get("synced") or {}
        return (f"sync: {len(synced)} tables updated, "
                f"{sum(synced.values())} days or snapshots replaced")  # fmt: skip
    return f"{published.get('method')}: {published.get('why')}"


def query_latency(paths, reps: int = 30) -> dict:
    import duckdb

    from warehouse.analyst import documented_queries

    con = duckdb.connect(str(paths.published_db_path), read_only=True)
    per_query, everything = {}, []
    try:
        for view, sql in documented_queries():
            con.execute(sql).fetchall()  # warm
            times = []
            for _ in range(reps):
                t = time.perf_counter()
                con.execute(sql).fetchall()
                times.append((time.perf_counter() - t) * 1000)
            everything += times
            per_query[view] = round(statistics.quantiles(times, n=20)[18], 1)
    finally:
        con.close()
    return {
        "p95_ms": round(statistics.quantiles(everything, n=20)[18], 1),
        "worst_query_p95_ms": max(per_query.values()),
        "per_query_p95_ms": per_query,
    }


# The refreshes measured after the history: D+1, D+2, D+3.
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
    parse_in_place(paths)
    return loaded


def parse_in_place(paths) -> None:
    """dbt's parse state of the copied warehouse, made at its new place: the copy's state names
    the base warehouse's path, so dbt would parse the whole project again (~3.7 s) in the
    backfill, which a warehouse that has been run where it is does not."""
    from pipelines.defs.dbt import PARSE_STATE
    from warehouse.paths import DBT_PROJECT_DIR, prepare_environment

    prepare_environment(paths)
    dbt = str(Path(sys.executable).parent / "dbt")
    with tempfile.TemporaryDirectory(prefix="gpuledger-parse-") as scratch:
        subprocess.run(
            [dbt, "parse", "--project-dir", str(DBT_PROJECT_DIR), "--profiles-dir",
             str(DBT_PROJECT_DIR), "--target-path", scratch, "--log-path", scratch],
            check=True, capture_output=True, env=os.environ.copy(),
        )  # fmt: skip
        shutil.copyfile(Path(scratch) / PARSE_STATE, paths.home / PARSE_STATE)


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


def fresh_index_read(index: Path) -> float:
    """Seconds to read the archive's index as a run in a fresh process does (median of 3): the
    refreshes timed here find it parsed by the backfill and parse only the lines appended since,
    while each scheduled day's run, a process of its own, parses it whole."""
    from sources._internal import archive

    times = []
    for _ in range(3):
        archive._INDEX_CACHE.clear()
        t = time.perf_counter()
        archive._read_index(index)
        times.append(time.perf_counter() - t)
    return round(statistics.median(times), 3)


# D+1, D+2, D+3: the prefixes of their figures
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
LAYOUT_MARTS = ("fct_workload_cost_inputs_daily", "fct_gpu_offers_daily")


def row_group_days(db_path: Path) -> dict[str, dict[str, int]]:
    """How many row groups a day's read of the large per-day marts scans (median and max over
    their days, from DuckDB's zone maps: a row group whose day range leaves the day out is
    skipped), and how many they have: a whole build must write a day's rows together (DuckDB
    keeps no order through a join; the marts sort by day)."""
    import duckdb

    con = duckdb.connect(str(db_path), read_only=True)
    try:
        found = {}
        for mart in LAYOUT_MARTS:
            groups, median, most = con.execute(
                f"""with groups as (
                        select min(stats['min']::date) as first, max(stats['max']::date) as last
                        from pragma_storage_info('marts.{mart}')
                        where column_name = 'day' and segment_type = 'DATE'
                        group by row_group_id),
                    days as (select distinct day from marts.{mart}),
                    scanned as (
                        select d.day, count(*) as n from days as d
                        join groups as g on d.day between g.first and g.last group by d.day)
                    select (select count(*) from groups), median(n), max(n) from scanned"""  # noqa: S608
            ).fetchone()
            found[mart] = {"row_groups": groups, "median_per_day": int(median), "max_per_day": most}
        return found
    finally:
        con.close()


def _loaded_on(paths, day) -> int:
    """How many synthetic providers' snapshots fetched on `day` are in raw and passed GX."""
    import duckdb

    con = duckdb.connect(str(paths.db_path), read_only=True)
    try:
        return con.execute(
            """select count(*) from raw.page_snapshots as p
               join raw.snapshot_validations as v
                 on v.source = p.source and v.snapshot_url = p.url
                and v.snapshot_fetched_at = p.fetched_at and v.success
               where p.source = 'skypilot' and p.url like '%/perf-cloud-%'
                 and cast(p.fetched_at as date) = ?""",
            [day],
        ).fetchone()[0]
    finally:
        con.close()


def _step_seconds(run_id: str) -> dict[str, float]:
    """Seconds per step of a run, grouped: ingest (all sources), dbt, alerts, publish, report."""
    import dagster as dg

    grouped: dict[str, float] = {}
    with dg.DagsterInstance.get() as instance:
        for stat in instance.get_run_step_stats(run_id):
            if stat.start_time is None or stat.end_time is None:
                continue
            # (ingest was a step per source until 2026-12-02; one step since)
            key = "ingest" if stat.step_key.startswith("ingest") else stat.step_key
            grouped[key] = round(grouped.get(key, 0.0) + stat.end_time - stat.start_time, 1)
    return grouped


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


# ------------------------------------------------------------------ driver


def machine() -> str:
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    cpu = platform.processor() or platform.machine()
    return f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB, Python {platform.python_version()}"


def performance_model_check(home: Path) -> str:
    """The leave-one-out check of the performance model on the demo warehouse just loaded."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import duckdb
    from verify_estimates import summary_line, verify

    con = duckdb.connect(str(home / "gpuledger.duckdb"), read_only=True)
    try:
        return summary_line(verify(con))
    finally:
        con.close()


def beside(size: dict, meta: dict, key: str = "") -> dict:
    """The floor measured right after the round of refreshes of `key` (a figure's name,
    `daily_refresh_s`...; every size's refresh of that day ran in it), else right after this
    size's refreshes (runs before 2026-12-03 16:36 UTC measured each size alone), else the run's
    first floor."""
    rounds = size.get("floors_beside") or {}
    return rounds.get(key.split("_")[0]) or size.get("floor_beside") or meta["floor"]


def growth(sizes: list[dict], meta: dict) -> list[str]:
    """From the smallest size to the largest: each refresh's growth in seconds and as multiples
    of the floor measured beside it."""
    if len(sizes) < 2:
        return []
    small, large = sizes[0], sizes[-1]
    lines = [
        f"Growth from {small['days']} to {large['days']} days of history (seconds; in multiples "
        "of the floor measured after the round of each refresh):",
        "",
    ]
    for key, title in [("daily_refresh_s", "D+1"), ("next_refresh_s", "D+2"),
                       ("third_refresh_s", "D+3")]:  # fmt: skip
        if key not in small or key not in large:
            continue
        a, b = small[key], large[key]
        fa, fb = beside(small, meta, key)["floor_s"], beside(large, meta, key)["floor_s"]
        lines.append(
            f"- {title}: {a} -> {b} s ({(b / a - 1) * 100:+.0f} %); "
            f"{a / fa:.2f}x -> {b / fb:.2f}x the floor ({(b / fb) / (a / fa) * 100 - 100:+.0f} %)"
        )
    return lines + [""]


def render(meta: dict, sizes: list[dict]) -> str:
    floor_s = meta["floor"]["floor_s"]

    def times(s: dict, key: str) -> str:
        if key not in s:
            return "-"
        here = beside(s, meta, key)
        ip = here.get("floor_worker_s")
        worker = f"; {s[key] / ip:.1f}x with the worker" if ip else ""
        return f"{s[key]} ({s[key] / here['floor_s']:.1f}x{worker})"

    lines = [
        f"# gpuledger scale run ({meta['when']})",
        "",
        f"Machine: {meta['machine']}. {meta['providers']} providers x {meta['gpus']} GPUs x "
        f"{meta['regions']} regions x on-demand and spot (every other provider), plus the demo "
        f"archive's real sources; {meta['runs']} benchmark runs. Floor (minimal Dagster + GX + "
        f"dbt run, median of 3, dbt a child process as dagster-dbt runs it): {floor_s} s at the "
        f"start (with dbt in a worker process, as gpuledger runs it: "
        f"{meta['floor'].get('floor_worker_s', '-')} s), and again after each round of refreshes "
        f"(every size's D+1, then D+2, then D+3; the column `floor` is the one after D+1); "
        f"each refresh is set against the floor after its round. "
        f"Demo archive load: {meta['base']['demo_refresh_s']} s.",
        "",
        "| days | snapshots | price rows | offer-days | cost rows | backfill s | floor s | "
        "daily refresh D+1 s (x floor) | next day D+2 s (x floor) | D+3 s (x floor) | "
        "query p95 ms (worst) | archive MB | DuckDB MB | peak MB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in sizes:
        q = s["queries"]
        here = beside(s, meta)
        lines.append(
            f"| {s['days']} | {s['snapshots']:,} | {s['price_rows']:,} | "
            f"{s['offer_days']:,} | {s['cost_rows']:,} | {s['backfill_s']} | "
            f"{here['floor_s']} ({here.get('floor_worker_s', '-')}) | "
            f"{times(s, 'daily_refresh_s')} | {times(s, 'next_refresh_s')} | "
            f"{times(s, 'third_refresh_s')} | {q['p95_ms']} ({q['worst_query_p95_ms']}) | "
            f"{s['archive_mb']} | {s['duckdb_mb']} | {s['peak_mb']} |"
        )
    lines += ["", *growth(sizes, meta)]
    rounds = sizes[0].get("floors_beside") if sizes else None
    if rounds:
        lines.append(
            "Floors after each round of refreshes (every size's D+1, then D+2, then D+3; runs, "
            "seconds): "
            + "; ".join(
                f"D+{k} {fl['floor_s']} s {fl.get('floor_runs_s')} (with the worker "
                f"{fl.get('floor_worker_runs_s')})"
                for k, fl in enumerate(rounds.values(), start=1)
            )
        )
    measured = [s for s in sizes if s.get("floor_beside")] if not rounds else []
    if measured:
        lines.append(
            "Floors beside each size (runs, seconds): "
            + "; ".join(
                f"{s['days']} days {s['floor_beside'].get('floor_runs_s')} "
                f"(with the worker {s['floor_beside'].get('floor_worker_runs_s')})"
                for s in measured
            )
        )
    if meta.get("estimates"):
        lines += ["", f"On the demo archive's real runs, {meta['estimates']} "
                  "(scripts/verify_estimates.py)."]  # fmt: skip
    if all("fresh_index_s" in s for s in sizes):
        lines += [
            "",
            "Not in the refreshes above: a day's run in a process of its own (as the schedule and "
            "`gpuledger refresh` run it) first parses the archive's index, which the refreshes "
            "here find parsed by the backfill; seconds (median of 3): "
            + ", ".join(f"{s['days']} days {s['fresh_index_s']}" for s in sizes),
        ]
    lines += ["", "History load (setup, not part of the figures above), seconds:", ""]
    for s in sizes:
        lines.append(f"- {s['days']} days: {s['history_load']}")
    lines += ["", "The backfill, seconds per step (ingest = all sources together):", ""]
    for s in sizes:
        lines.append(f"- {s['days']} days: {s.get('backfill_steps_s', '-')}")
    lines += [
        "",
        "After the backfill, row groups a day's read scans in the largest per-day marts "
        "(median and max over their days; zone maps skip the rest), of how many:",
        "",
    ]
    for s in sizes:
        lines.append(f"- {s['days']} days: {s.get('backfill_row_group_days', '-')}")
    for key, title in [("daily", "Daily refresh of D+1"), ("next", "The next day, D+2"),
                       ("third", "The day after, D+3")]:  # fmt: skip
        lines += ["", f"{title}, seconds per step (ingest = all sources together):", ""]
        for s in sizes:
            lines.append(f"- {s['days']} days: {s.get(key + '_steps_s')}")
        parts = (
            f"{title}, the publish step's parts, seconds (the flush runs beside the check; "
            "`flush` is what it took beyond it), and how it published:"
        )
        lines += ["", parts, ""]
        for s in sizes:
            lines.append(f"- {s['days']} days: {s.get(key + '_publish_s')} "
                         f"({s.get(key + '_publish_method', '-')})")  # fmt: skip
    lines += ["", "Per-query p95 (ms) at the largest size:", ""]
    for view, ms in sizes[-1]["queries"]["per_query_p95_ms"].items():
        lines.append(f"- {view}: {ms}")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--providers", type=int, default=50)
    parser.add_argument("--gpus", type=int, default=8)
    parser.add_argument("--regions", type=int, default=3)
    parser.add_argument("--days", default="30,90,365,1095")
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--out", default=str(ROOT / "perf" / "scale.md"))
    parser.add_argument("--work", help="working folder (default: a temporary one, removed)")
    parser.add_argument("--keep", action="store_true", help="keep each size's warehouse")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # internal: one size
    parser.add_argument("--prepare", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--base", help=argparse.SUPPRESS)
    parser.add_argument("--floor-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("GPULEDGER_ALERT_SINKS", "log")

    from warehouse.paths import Paths, prepare_environment

    if args.floor_only:
        work = Path(args.work)
        print(json.dumps(floor(work)))
        return 0
    if args.prepare:
        work = Path(args.work)
        prepare_environment(Paths(work / f"d{args.prepare}"))
        loaded = prepare_size(Path(args.base), work, args.prepare, args)
        (work / f"d{args.prepare}.prepared.json").write_text(json.dumps(loaded))
        print(json.dumps(loaded))
        return 0
    if args.one:
        work = Path(args.work)
        prepare_environment(Paths(work / f"d{args.one}"))
        serve_steps(SizeRun(work, args.one, args))
        return 0

    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="gpuledger-perf-"))
    work.mkdir(parents=True, exist_ok=True)
    me = [sys.executable, str(Path(__file__).resolve())]
    common = ["--providers", str(args.providers), "--gpus", str(args.gpus), "--regions",
              str(args.regions), "--runs", str(args.runs), "--work", str(work)]  # fmt: skip
    print(f"gpuledger scale run in {work} ({machine()})", flush=True)
    floor_dir = work / "floor"
    floor_dir.mkdir(exist_ok=True)
    fl = json.loads(_child([*me, "--floor-only", "--work", str(floor_dir)]))
    print(f"floor (minimal Dagster + GX + dbt): {fl['floor_s']} s {fl['floor_runs_s']}; "
          f"dbt worker {fl['floor_worker_s']} s {fl['floor_worker_runs_s']}",
          flush=True)  # fmt: skip
    base_home = work / "base"
    prepare_environment(Paths(base_home))
    done_before = base_home / "base.json"  # a --work folder reused keeps its loaded base
    if done_before.exists():
        base = json.loads(done_before.read_text())
    else:
        base = build_base(base_home)
        done_before.write_text(json.dumps(base))
    print(f"demo archive loaded in {base['demo_refresh_s']} s", flush=True)
    estimates = performance_model_check(base_home)
    print(estimates, flush=True)
    wanted = [int(d) for d in args.days.split(",")]
    workers: dict[int, Worker] = {}
    try:
        for days in wanted:
            t = time.perf_counter()
            port = ["--port", str(_free_port())]
            _child([*me, *common, *port, "--prepare", str(days), "--base", str(base_home)])
            workers[days] = Worker(
                [*me, *common, *port, "--one", str(days)], work / f"d{days}.worker.log"
            )
            done = workers[days].step("backfill")
            print(f"{days} days: prepared, backfill {done['backfill_s']} s "
                  f"({time.perf_counter() - t:.0f} s in all)", flush=True)  # fmt: skip
        # Every size's D+1, then every size's D+2, then D+3, each round followed by the floor:
        # the sizes' refreshes are run within the same minutes, so that the growth from the
        # smallest size to the largest is not the machine's drift between them (its floor moved
        # by 12 % between the first size and the last of a run that measured them one after the
        # other, 2026-12-03 15:01-15:17 UTC).
        floors = []
        for k, key in enumerate(DAY_KEYS, start=1):
            # the smallest size first in the rounds of D+1 and D+3, the largest first in D+2:
            # each size runs early and late in a round
            for days in wanted if k % 2 else wanted[::-1]:
                done = workers[days].step(f"day {k}")
                print(f"{days} days: D+{k} {done[f'{key}_refresh_s']} s", flush=True)
            floors.append(json.loads(_child([*me, "--floor-only", "--work", str(floor_dir)])))
            print(f"floor after D+{k}: {floors[-1]['floor_s']} s", flush=True)
        sizes = []
        for days in wanted:
            found = workers.pop(days).step("finish")
            found["floors_beside"] = {key: fl_k for key, fl_k in zip(DAY_KEYS, floors, strict=True)}
            # the floor of the round of D+1 (the table's column), as for a size measured alone
            found["floor_beside"] = floors[0]
            sizes.append(found)
            if not args.keep:
                shutil.rmtree(work / f"d{days}", ignore_errors=True)
    finally:
        for worker in workers.values():
            worker.close()
    meta = {
        "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "providers": args.providers,
        "gpus": args.gpus,
        "regions": args.regions,
        "runs": args.runs,
        "floor": fl,
        "base": base,
        "estimates": estimates,
    }
    table = render(meta, sizes)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(table, encoding="utf-8")
    out.with_suffix(".json").write_text(json.dumps({"meta": meta, "sizes": sizes}, indent=2))
    print("\n" + table)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _child(cmd: list[str]) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(
            f"{' '.join(cmd[2:])} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
        )
    return done.stdout.strip().splitlines()[-1]


if __name__ == "__main__":
    sys.exit(main())
