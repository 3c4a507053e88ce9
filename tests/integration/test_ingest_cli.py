"""`gpuledger ingest` end to end: files in, warehouse rebuilt, fct_benchmark_runs queryable."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import duckdb
import pytest

from tests.conftest import FIXTURES

pytestmark = pytest.mark.integration
B = FIXTURES / "benchmarks"


def gpuledger(home, *args):
    env = {**os.environ, "GPULEDGER_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_ingest_files_and_folders_then_again(tmp_path):
    batch = tmp_path / "batch"
    shutil.copytree(B / "mlperf", batch / "mlperf")
    shutil.copy(B / "genai_perf_aiperf" / "profile_export_aiperf@7250ddd_2026-01-15.json", batch)
    (batch / "notes.txt").write_text("not a result\n")  # understood by no reader: quarantined
    home = tmp_path / "home"
    first = gpuledger(home, "ingest", str(batch))
    assert first.returncode == 1, first.stderr[-2000:]  # one file quarantined, the rest landed
    out = first.stdout
    assert "quarantined batch/notes.txt" in out
    assert "archived    batch/mlperf/v4.1_summary_results.FIRST11.json  11 runs" in out
    con = duckdb.connect(str(home / "gpuledger.duckdb"), read_only=True)
    try:
        got = con.execute(
            """select gpu_id, gpu_count, hardware_source, output_tokens_per_s,
                      output_tokens_per_s_per_gpu, success_rate
               from marts.fct_benchmark_runs
               where format = 'mlperf_log_summary' and scenario = 'Offline'"""
        ).fetchall()
        assert got == [
            ("nvidia-h200-sxm-141gb", 8, "system_description", 31302.7, 31302.7 / 8, None)
        ]
        aiperf = con.execute(
            "select gpu_id, gpu_count, success_rate from marts.fct_benchmark_runs "
            "where format = 'aiperf'"
        ).fetchall()
        assert aiperf == [("nvidia-a100-sxm-80gb", 1, 1.0)]
        total = con.execute("select count(*) from marts.fct_benchmark_runs").fetchone()[0]
    finally:
        con.close()
    assert total == 11 + 2 + 1
    second = gpuledger(home, "ingest", "--no-build", str(batch))
    assert "6 files: 0 archived, 6 already archived" in second.stdout
