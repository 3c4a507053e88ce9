"""Benchmark-file ingest throughput: archive, parse, validate and load the real result files.

    .venv/bin/python scripts/perf_ingest.py [FOLDER] [ROUNDS]

Each round starts from an empty warehouse home and takes FOLDER (default: the real files in
tests/fixtures/benchmarks) through the same code the daily job uses (archive by content hash,
format detection, one Great Expectations pass over all runs, one transaction per file). dbt is not
part of it. Prints files, runs, seconds and files per second per round, and runs per format.
"""

from __future__ import annotations

import logging
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipelines import benchmarks  # noqa: E402
from pipelines.defs.resources import GpuledgerResource  # noqa: E402
from pipelines.ingest import ingest_source  # noqa: E402
from sources import benchmark_files  # noqa: E402


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests/fixtures/benchmarks"
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    logging.disable(logging.WARNING)
    for n in range(1, rounds + 1):
        with tempfile.TemporaryDirectory() as home:
            settings = GpuledgerResource(home=home, offline=True, seed_demo_archive=False)
            start = time.perf_counter()
            outcomes = benchmarks.archive_files(settings.archive(), [folder])
            archived = time.perf_counter()
            summary = ingest_source(benchmark_files, settings, f"perf-{n}", logging.getLogger())
            done = time.perf_counter()
            files = sum(o.status == "archived" for o in outcomes)
            print(
                f"round {n}: {files} files, {summary.rows_loaded} runs loaded, "
                f"{summary.rows_quarantined} quarantined items; archive {archived - start:.2f} s, "
                f"parse+validate+load {done - archived:.2f} s; "
                f"{files / (done - start):.1f} files/s"
            )
            if n == rounds:
                import duckdb

                con = duckdb.connect(str(Path(home) / "gpuledger.duckdb"), read_only=True)
                per_format = con.execute(
                    "select format, count(distinct snapshot_url), count(*) "
                    "from raw.benchmark_runs group by 1 order by 1"
                ).fetchall()
                con.close()
                print("format                      files  runs")
                for fmt, nfiles, nruns in per_format:
                    print(f"{fmt:27s} {nfiles:5d} {nruns:5d}")
                print(f"total runs per status: {Counter(o.status for o in outcomes)}")


if __name__ == "__main__":
    main()
