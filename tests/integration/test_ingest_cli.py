"""`gpuledger ingest` end to end: files in, warehouse rebuilt, fct_benchmark_runs queryable."""

from __future__ import annotations

import shutil

import duckdb
import pytest

from tests.conftest import FIXTURES, gpuledger

pytestmark = [pytest.mark.integration, pytest.mark.slow]
B = FIXTURES / "benchmarks"


INHOUSE = "\n".join(
    [
        "measured_at,run_kind,model,params_b,precision,gpu,gpu_count,input_len,output_len,"
        "concurrency,attempted,completed,output_tokens_per_s,ttft_p95_ms,e2e_p99_ms",
        "2026-11-20,inference,meta-llama/Llama-3.1-70B-Instruct,70.6,fp8,NVIDIA H200-SXM-141GB,"
        "2,1024,256,32,2000,1990,3100.5,640,9800",
        "2026-11-21,inference,meta-llama/Llama-3.1-70B-Instruct,70.6,fp8,NVIDIA H200-SXM-141GB,"
        "2,1024,256,32,2000,-5,3100.5,640,9800",
    ]
)  # an in-house run; its second line is broken (negative count): that run alone is quarantined


def test_ingest_files_and_folders_then_again(tmp_path):
    batch = tmp_path / "batch"
    shutil.copytree(B / "mlperf", batch / "mlperf")  # also in the demo archive: already there
    (batch / "inhouse.csv").write_text(INHOUSE)
    (batch / "notes.txt").write_text("not a result\n")  # understood by no reader: quarantined
    home = tmp_path / "home"
    first = gpuledger(home, "ingest", str(batch))
    assert first.returncode == 1, first.stderr[-2000:]  # refused items, the rest landed
    out = first.stdout
    assert "quarantined batch/notes.txt" in out
    assert "archived    batch/inhouse.csv  1 runs (gpuledger_csv), 1 quarantined" in out
    assert "unchanged   batch/mlperf/v4.1_summary_results.FIRST11.json  8 runs" in out
    con = duckdb.connect(str(home / "gpuledger.duckdb"), read_only=True)
    try:
        got = con.execute(
            """select gpu_id, gpu_count, hardware_source, output_tokens_per_s,
                      output_tokens_per_s_per_gpu, success_rate
               from marts.fct_benchmark_runs
               where format = 'mlperf_log_summary' and scenario = 'Offline'
                 and file_path like '%v4.1_NVIDIA_H200-SXM-141GBx8_TRT_llama2-70b-99%'"""
        ).fetchall()
        assert got == [
            ("nvidia-h200-sxm-141gb", 8, "system_description", 31302.7, 31302.7 / 8, None)
        ]
        inhouse = con.execute(
            "select gpu_id, gpu_count, success_rate, output_tokens_per_s_per_gpu "
            "from marts.fct_benchmark_runs where file_path = 'batch/inhouse.csv'"
        ).fetchall()
        assert inhouse == [("nvidia-h200-sxm-141gb", 2, 0.995, 3100.5 / 2)]
        # the in-house run matches chat-70b on the H200: measured evidence now
        evidence = con.execute(
            "select evidence, n_runs_used from marts.fct_throughput_evidence "
            "where workload_class = 'chat-70b' and gpu_id = 'nvidia-h200-sxm-141gb' "
            "and evidence_until is null"
        ).fetchall()
        assert evidence == [("measured", 1)]
    finally:
        con.close()
    second = gpuledger(home, "ingest", "--no-build", str(batch))
    assert "6 files: 0 archived, 6 already archived" in second.stdout
