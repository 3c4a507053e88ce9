"""Scale run: how gpuledger's cost grows with providers, offers and days. `make perf`.

    .venv/bin/python scripts/perf_scale.py [--providers 50] [--gpus 8] [--regions 3]
        [--days 30,90,365,1095] [--runs 5000] [--out perf/runs/scale-<time>.md]

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
sizes; peak memory (this process and its children, dbt's among them: proportional set size, so that
pages a child shares with this process count once). The floor, for information, is a minimal
Dagster job on the same machine: one asset validating one snapshot's rows with the same GX suite
and one `dbt build` of a one-model project, run the same way (in-process), with dagster-dbt's dbt
resource (dbt a child process for each command), as gpuledger runs dbt. The floor is measured at
the start and again after each round of refreshes (its own process): this machine's speed changes
by up to half within an hour, so the sizes are measured together: every size is prepared and
backfilled first, each in its own worker process that then waits (its memory sampling paused); then
every size's D+1 runs, one after the other, then the floor, then every size's D+2 (the largest
first) and the floor, then D+3 and the floor. A day's refreshes of all sizes fall within the same
few minutes, each is set against the floor measured right after them, and the growth from the
smallest size to the largest is not the machine's drift between sizes measured a quarter of an hour
apart (until 2026-12-03 each size was measured alone, its floor right after it: perf/HISTORY.md).

The table is printed and written to --out, by default perf/runs/scale-<UTC time>.md with its
figures beside it (.json), and copied to perf/runs/latest.md (and latest.json). perf/runs/ is not
committed: perf/README.md holds the latest table and the history of the runs.

The parts: scripts/perf_history.py generates the history, perf_run.py runs a size (prepare,
backfill, refreshes), perf_measure.py measures (memory, queries, sizes, step times), perf_table.py
writes the table; perf_floor.py is the floor.
"""

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from perf_floor import floor  # noqa: E402
from perf_run import DAY_KEYS, SizeRun, Worker, build_base, prepare_size, serve_steps  # noqa: E402
from perf_table import render  # noqa: E402

RUNS_DIR = ROOT / "perf" / "runs"  # each run's table and figures (git-ignored)


# ------------------------------------------------------------------ driver


def machine() -> str:
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    cpu = platform.processor() or platform.machine()
    return f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB, Python {platform.python_version()}"


def performance_model_check(home: Path) -> str:
    """The performance model's grouped cross-validation on the demo warehouse just loaded."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import duckdb
    from verify_estimates import summary_line, verify

    con = duckdb.connect(str(home / "gpuledger.duckdb"), read_only=True)
    try:
        return summary_line(verify(con))
    finally:
        con.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--providers", type=int, default=50)
    parser.add_argument("--gpus", type=int, default=8)
    parser.add_argument("--regions", type=int, default=3)
    parser.add_argument("--days", default="30,90,365,1095")
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--out", help="the table's file (default: perf/runs/scale-<time>.md)")
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
    print(f"floor (minimal Dagster + GX + dbt): {fl['floor_s']} s {fl['floor_runs_s']}", flush=True)
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
    figures = json.dumps({"meta": meta, "sizes": sizes}, indent=2)
    out = Path(args.out) if args.out else RUNS_DIR / f"scale-{datetime.now(UTC):%Y%m%d-%H%M}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(table, encoding="utf-8")
    out.with_suffix(".json").write_text(figures, encoding="utf-8")
    RUNS_DIR.mkdir(parents=True, exist_ok=True)
    (RUNS_DIR / "latest.md").write_text(table, encoding="utf-8")
    (RUNS_DIR / "latest.json").write_text(figures, encoding="utf-8")
    print("\n" + table)
    print(f"written to {out} and {RUNS_DIR / 'latest.md'}")
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
