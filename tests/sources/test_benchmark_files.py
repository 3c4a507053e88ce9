"""Benchmark result files of every tool, read from the real files in tests/fixtures/benchmarks.

Each test asserts figures taken from the file itself (or computed from its per-request arrays),
the hardware and where it came from, and that statistics a format lacks stay empty.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import numpy as np
import pytest

from sources import benchmark_files, benchmarks
from sources._internal.records import ParseError
from tests.conftest import FIXTURES

T = datetime(2026, 11, 30, tzinfo=UTC)
B = FIXTURES / "benchmarks"
DSTACK = B / "vllm_dstack" / "h100sxm5_vs_mi300x_llama3.1-405b-fp8"


def runs(rel: str, hints: dict | None = None, content: bytes | None = None):
    path = FIXTURES / rel
    data = content if content is not None else path.read_bytes()
    result = benchmark_files.parse(data, benchmark_files.file_url(rel, hints), T)
    return result


def one(rel: str, hints: dict | None = None):
    result = runs(rel, hints)
    assert len(result.benchmark_runs) == 1, result.row_errors
    return result.benchmark_runs[0]


def test_vllm_serving_old_layout_percentiles_from_per_request_arrays():
    rel = "benchmarks/vllm_dstack/h100sxm5_vs_mi300x_llama3.1-405b-fp8/serving/8xH100SXM5_nvidia-vllm-16.0qps-Llama-3.1-405B-FP8-20241109-150547.json"  # noqa: E501
    run = one(rel)
    doc = json.loads((FIXTURES / rel).read_text())
    assert run.format == "vllm_serving" and run.percentile_source == "per_request"
    assert (run.gpu_name_raw, run.gpu_count, run.hardware_source) == ("H100SXM5", 8, "file_name")
    assert (run.model_id, run.model_params_b, run.precision) == (
        "meta-llama/Llama-3.1-405B-FP8", 405.0, "fp8")  # fmt: skip
    assert run.output_tokens_per_s == pytest.approx(1198.8884495761356)
    assert (run.attempted, run.completed, run.failed, run.request_rate) == (1000, 1000, 0, 16.0)
    # p99 TTFT computed from the 1000 per-request TTFTs equals the tool's own figure
    assert run.ttft_p99_ms == pytest.approx(9912.536467760054, rel=1e-9)
    assert run.ttft_p99_ms == pytest.approx(np.percentile(doc["ttfts"], 99) * 1000)
    assert run.ttft_p95_ms == pytest.approx(np.percentile(doc["ttfts"], 95) * 1000)
    assert run.itl_p99_ms == pytest.approx(doc["p99_itl_ms"], rel=1e-9)
    assert run.tpot_p99_ms == pytest.approx(153.47066919841095)  # the tool's (needs latencies)
    assert run.tpot_p95_ms is None and run.e2e_p99_ms is None  # not in the file: not invented
    assert run.measured_at == datetime(2024, 11, 9, 15, 5, 47, tzinfo=UTC)


def test_vllm_serving_new_layout_summary_only():
    run = one(
        "benchmarks/vllm_dstack/pd_ratio_8xH200_sglang_gpt-oss-120b/raw_data/1p3d_conc128_in128_out2048_20250914_020816.json"
    )  # noqa: E501
    assert run.percentile_source == "tool_summary"
    assert (run.concurrency, run.request_rate, run.goodput_rps) == (128.0, None, None)
    assert run.output_tokens_per_s == pytest.approx(8706.430638022452)
    assert run.ttft_p50_ms == pytest.approx(227.45685300014884)
    assert run.ttft_p95_ms is None  # vLLM prints mean, median, p99 only
    assert (run.gpu_name_raw, run.gpu_count, run.serving_stack) == ("H200", 8, "sglang")


def test_vllm_throughput_and_latency_scripts_take_their_shape_from_the_file_name():
    run = one(
        "benchmarks/vllm_dstack/h100sxm5_vs_mi300x_llama3.1-405b-fp8/throughput_8xMI300x/Meta-Llama-3.1-405B-Instruct-FP8-KV_throughput_req128_in128_out2048_.json"
    )  # noqa: E501
    assert (run.gpu_name_raw, run.gpu_count, run.input_len, run.output_len) == (
        "MI300x", 8, 128, 2048)  # fmt: skip
    assert run.total_tokens_per_s == pytest.approx(2115.9014137871013)
    assert run.output_tokens_per_s == pytest.approx(0.9723811644242194 * 2048)
    assert run.completed is None  # the script does not count failures
    lat = one(
        "benchmarks/vllm_dstack/h100sxm5_vs_mi300x_llama3.1-405b-fp8/throughput_latency_8xH100SXM5/nvidia-latency_test_ip2048_op2048_np128.json"
    )  # noqa: E501
    assert (lat.concurrency, lat.model_id, lat.model_source) == (
        128,
        "llama3.1-405b-fp8",
        "file_name",
    )
    assert lat.e2e_mean_ms == pytest.approx(474873.29929399993)
    assert lat.output_tokens_per_s == pytest.approx(128 * 2048 / 474.87329929399993)


def test_console_blocks_of_vllm_and_tgi():
    tgi = runs("benchmarks/vllm_dstack/amd_tgi_vs_vllm_MI300X/raw_data__tgi_raw.txt").benchmark_runs
    first = tgi[0]
    assert (first.serving_stack, first.attempted, first.completed, first.input_len) == (
        "tgi",
        1,
        1,
        80,
    )
    assert (first.ttft_mean_ms, first.ttft_p99_ms, first.output_tokens_per_s) == (
        123.48,
        123.48,
        22.27,
    )
    assert (first.gpu_name_raw, first.gpu_count) == ("MI300X", None)  # folder names no count
    vllm = runs(
        "benchmarks/vllm_dstack/amd_tgi_vs_vllm_MI300X/raw_data__vllm_raw.txt"
    ).benchmark_runs
    assert {r.serving_stack for r in vllm} == {"vllm"} and len(vllm) + len(tgi) == 50
    assert vllm[0].ttft_mean_ms == 314.58 and vllm[0].itl_p99_ms == 94.22


def test_sglang_jsonl_with_infinity():
    result = runs("benchmarks/sglang_datacrunch/outputs__llama_3_3_70b_offline_output.jsonl")
    first = result.benchmark_runs[0]
    assert len(result.benchmark_runs) == 7
    assert first.request_rate is None and first.scenario == "offline"  # "Infinity"
    assert (first.completed, first.output_tokens_per_s) == (3000, 4520.698730654741)
    assert first.e2e_p50_ms == 243517.67949794885 and first.ttft_p99_ms is None
    online = runs("benchmarks/sglang_datacrunch/outputs__llama_3_3_70b_online_output.jsonl")
    assert online.benchmark_runs[0].request_rate == 1.0
    assert first.hardware_source == "none"  # the file names no GPU; the operator can
    hinted = runs(
        "benchmarks/sglang_datacrunch/outputs__llama_3_3_70b_offline_output.jsonl",
        {"gpu": "H200 SXM", "gpu_count": "4", "model": "meta-llama/Llama-3.3-70B-Instruct"},
    ).benchmark_runs[0]
    assert (hinted.gpu_name_raw, hinted.gpu_count, hinted.hardware_source) == (
        "H200 SXM",
        4,
        "operator",
    )
    assert (hinted.model_params_b, hinted.model_source) == (70.0, "operator")


def test_mlperf_summary_results_records():
    result = runs("benchmarks/mlperf/v4.1_summary_results.FIRST11.json")
    # the 8 LLM records; 3d-unet and bert are skipped with the reason (not quarantined)
    assert len(result.benchmark_runs) == 8 and not result.row_errors
    assert [s.reason for s in result.skipped] == [
        "3d-unet-99: not an LLM benchmark (no token throughput)",
        "3d-unet-99.9: not an LLM benchmark (no token throughput)",
        "bert-99: not an LLM benchmark (no token throughput)",
    ]
    mi300 = result.benchmark_runs[0]
    assert (mi300.gpu_name_raw, mi300.gpu_count, mi300.hardware_source) == (
        "AMD Instinct MI300X-NPS1-SPX-192GB-750W", 1, "file")  # fmt: skip
    assert (mi300.scenario, mi300.output_tokens_per_s, mi300.precision) == (
        "Offline",
        3062.72,
        "fp8",
    )
    assert (mi300.serving_stack, mi300.serving_stack_version) == ("vllm", "0.4.3+rocm614")
    assert (mi300.organization, mi300.system, mi300.round) == (
        "AMD",
        "1xMI300X_2xEPYC-9374F",
        "v4.1",
    )
    assert result.benchmark_runs[4].gpu_count == 8
    assert result.benchmark_runs[4].output_tokens_per_s == 23514.8


def test_mlperf_result_dir_with_its_system_description():
    system = json.loads(
        (
            B
            / "mlperf"
            / "v4.1_NVIDIA_H200-SXM-141GBx8_TRT_llama2-70b-99"
            / "systems_H200-SXM-141GBx8_TRT.json"
        ).read_text()
    )  # noqa: E501
    hints = benchmarks.mlperf_system_hints(system)
    folder = "benchmarks/mlperf/v4.1_NVIDIA_H200-SXM-141GBx8_TRT_llama2-70b-99"
    offline = one(f"{folder}/Offline_mlperf_log_summary.txt", hints)
    assert (offline.gpu_name_raw, offline.gpu_count, offline.hardware_source) == (
        "NVIDIA H200-SXM-141GB", 8, "system_description")  # fmt: skip
    assert (offline.serving_stack, offline.serving_stack_version) == ("tensorrt", "10.2.0")
    # v4.1 (the folder's name) of NVIDIA's TensorRT harness on Hopper: served in FP8, as the
    # round's summary record of the same measurement says (mlperf_summary.served_precision)
    assert (offline.round, offline.precision, offline.precision_source) == (
        "v4.1", "fp8", "submitter_documentation")  # fmt: skip
    assert offline.output_tokens_per_s == 31302.7 and offline.request_throughput_rps == 107.477
    server = one(f"{folder}/Server_mlperf_log_summary.txt", hints)
    assert server.scenario == "Server" and server.output_tokens_per_s == 29228.22
    assert server.ttft_p50_ms == pytest.approx(180.758928)
    assert server.ttft_p99_ms == pytest.approx(452.744202)
    assert server.tpot_p50_ms == pytest.approx(124.285539)
    # without the description, the folder name is the documented fallback
    bare = one(f"{folder}/Offline_mlperf_log_summary.txt")
    assert (bare.gpu_name_raw, bare.gpu_count, bare.hardware_source) == (
        "H200-SXM-141GB",
        8,
        "file_name",
    )
    # nor a stack named: nothing says it ran NVIDIA's harness, the precision stays unnamed
    assert (bare.serving_stack, bare.precision) == (None, None)


def test_mlperf_log_detail_lines():
    # Built for this test from the real Offline summary's figures in MLLOG form (no detail log
    # of this result is in the data).
    lines = [
        ':::MLLOG {"key": "loadgen_version", "value": "4.1", "time_ms": 1}',
        ':::MLLOG {"key": "effective_scenario", "value": "Offline", "time_ms": 2}',
        ':::MLLOG {"key": "result_validity", "value": "VALID", "time_ms": 3}',
        ':::MLLOG {"key": "result_samples_per_second", "value": 107.477, "time_ms": 4}',
        ':::MLLOG {"key": "result_tokens_per_second", "value": 31302.7, "time_ms": 5}',
        ':::MLLOG {"key": "result_99.00_percentile_latency_ns", "value": 2710282756038}',
    ]
    result = benchmark_files.parse("\n".join(lines).encode(), "file:x/mlperf_log_detail.txt", T)
    (run,) = result.benchmark_runs
    assert (run.format, run.scenario, run.output_tokens_per_s) == (
        "mlperf_log_detail",
        "Offline",
        31302.7,
    )
    assert run.e2e_p99_ms == pytest.approx(2710282.756038)
    invalid = "\n".join(lines).replace('"VALID"', '"INVALID"').encode()
    with pytest.raises(ParseError, match="INVALID"):
        benchmark_files.parse(invalid, "file:x/mlperf_log_detail.txt", T)


def test_genai_perf_and_aiperf_exports():
    g = one("benchmarks/genai_perf_aiperf/profile_export_genai_perf@e3e57ba_2025-09-16.json")
    assert (g.format, g.model_id, g.completed, g.concurrency) == (
        "genai_perf",
        "openai/gpt-oss-20b",
        66,
        1.0,
    )
    assert g.ttft_p99_ms == pytest.approx(4323.045905799997)
    assert g.output_tokens_per_s == pytest.approx(25.824770552328115)
    assert g.hardware_source == "none"
    a = one("benchmarks/genai_perf_aiperf/profile_export_aiperf@7250ddd_2026-01-15.json")
    # GPU from AIPerf's telemetry; of the node's 8 GPUs only one held the model
    assert (a.gpu_name_raw, a.gpu_count, a.hardware_source) == ("NVIDIA A100-SXM4-80GB", 1, "file")
    assert (a.attempted, a.completed, a.failed) == (100, 100, 0)
    doc = json.loads(
        (B / "genai_perf_aiperf" / "profile_export_aiperf@7250ddd_2026-01-15.json").read_text()
    )  # noqa: E501
    assert a.tpot_p50_ms == doc["inter_token_latency"]["p50"]  # AIPerf's ITL is per-request TPOT
    assert a.ttft_p95_ms == pytest.approx(86.99166514999999)


def test_aiperf_csv_matches_its_json():
    folder = "benchmarks/inferencex/aiperf_artifacts_glm5.1_conc16_hicache"
    c = one(f"{folder}/profile_export_aiperf.csv")
    j = one(f"{folder}/profile_export_aiperf.json")
    assert c.format == "aiperf_csv" and j.format == "aiperf"
    assert c.output_tokens_per_s == pytest.approx(j.output_tokens_per_s, abs=0.01)
    assert c.ttft_p99_ms == pytest.approx(j.ttft_p99_ms, abs=0.01)
    assert c.completed == j.completed == 57 and c.concurrency == 16
    assert j.tool_version == "0.8.0"


def test_inferencex_per_run_and_aggregate():
    rel = "benchmarks/inferencex/per_run_bmk_results_0603_sa/glm5.1_tp2_conc16_offloadhicache_fp4_sglang_tp2-ep1-dpafalse_disagg-false_spec-none_conc16_mi355x-amds_08.json"  # noqa: E501
    run = one(rel)
    assert (run.gpu_name_raw, run.gpu_count, run.tensor_parallel) == ("mi355x", 2, 2)
    assert (run.serving_stack, run.serving_stack_version, run.precision) == (
        "sglang",
        "0.5.12.post1",
        "fp4",
    )  # noqa: E501
    assert run.ttft_p95_ms == pytest.approx(95279.87406899999)
    assert run.ttft_p50_ms is None and run.ttft_p99_ms is None  # InferenceX has p75/p90/p95
    assert run.output_tokens_per_s == pytest.approx(110.78219360185643)
    agg = runs("benchmarks/inferencex/agg_bmk/0601_results_bmk_1_agg_bmk.json").benchmark_runs
    assert len(agg) == 20 and {r.gpu_name_raw for r in agg} == {"mi355x"}
    failed = runs(
        "benchmarks/inferencex/per_run_bmk_results_0603_sa/kimik2.5_tp8_conc32_offloadlmcache_fp4_vllm_tp8-ep1-dpafalse_disagg-false_spec-none_conc32_b200-dgxc_05.json"
    )  # noqa: E501
    assert failed.benchmark_runs == []
    assert "0 of 0 requests completed" in failed.row_errors[0].reason


def test_inferencex_seconds_variant_of_vllm_results():
    run = one(
        "benchmarks/inferencex/token_position_decode_slo_glm5_fp8_vllm_tp8/glm5_fp8_vllm_tp8_isl1024_osl128_conc16.json"
    )  # noqa: E501
    assert (run.model_id, run.tensor_parallel, run.concurrency) == ("zai-org/GLM-5-FP8", 8, 16)
    assert run.ttft_p50_ms == pytest.approx(291.39942955225706)
    assert run.e2e_p99_ms == pytest.approx(9590.554047282783)


def test_llmperf_api_measurements_and_per_request_percentiles():
    s = one("benchmarks/llmperf/summary/groq_70b.json")
    assert (s.hardware_source, s.api_provider, s.gpu_name_raw) == ("api", "groq", None)
    assert (s.concurrency, s.output_tokens_per_s) == (5.0, 441.84737788500206)
    assert s.ttft_p99_ms == pytest.approx(350.0269545800982)
    i = one("benchmarks/llmperf/individual/groq_70b.json")
    assert i.percentile_source == "per_request" and (i.attempted, i.failed) == (150, 0)
    # the leaderboard's summary was computed from these same requests
    assert i.ttft_p99_ms == pytest.approx(s.ttft_p99_ms, rel=1e-9)
    assert i.e2e_p95_ms == pytest.approx(s.e2e_p95_ms, rel=1e-9)


def test_optimum_benchmark_run_on_cpu_names_no_gpu():
    run = one("benchmarks/optimum_benchmark/benchmark@83c4c9f5.json")
    assert (run.run_kind, run.output_unit, run.output_units_per_s) == (
        "embedding",
        "samples",
        5.648934083819028,
    )
    # the machine had a T4, but the backend ran on the CPU: no GPU is claimed
    assert (run.gpu_name_raw, run.hardware_source) == (None, "none")
    assert run.e2e_p50_ms == pytest.approx(11300.766840518918)


def test_results_csv_flattenings():
    result = runs(
        "benchmarks/vllm_dstack/h100sxm5_vs_mi300x_llama3.1-405b-fp8/csv_data/qps_comparison.csv"
    )
    first = result.benchmark_runs[0]
    assert (first.gpu_name_raw, first.gpu_count, first.hardware_source) == ("H100", 8, "file")
    assert first.output_tokens_per_s == 1198.88845 and first.ttft_p50_ms == 403.3162765
    assert len(result.benchmark_runs) == 15


def test_results_csv_rows_projected_from_another_row_are_not_runs():
    """dstack's "8xMi300x 2FP8-amd" rows are its "4xMi300x 1FP8-amd" rows doubled (two copies of
    the 4-GPU run: the same elapsed time, twice the tokens): row errors naming their source."""
    result = runs(
        "benchmarks/vllm_dstack/h100sxm5_vs_mi300x_llama3.1-405b-fp8/csv_data/"
        "throughput_comparsion.csv"
    )
    assert (len(result.benchmark_runs), len(result.row_errors)) == (74, 19)
    first = result.row_errors[0]
    assert first.row_ref == "line 76" and json.loads(first.raw)["gpu"] == "8xMi300x 2FP8-amd"
    assert first.reason == (
        "derived, not measured: 2 copies of line 57's 4-GPU run "
        "(2x its tokens in the same 94.17381532 s)"
    )
    source = next(r for r in result.benchmark_runs if r.run_ref == "line 57")
    assert (source.gpu_name_raw, source.gpu_count, source.output_len) == ("Mi300x", 4, 2048.0)
    # the table's own name for each setup is kept: the same 8 GPUs serve two checkpoints
    assert source.setup == "4xMi300x 1FP8-amd"
    setups = {r.setup for r in result.benchmark_runs}
    assert setups == {"8xH100 1FP8-meta", "8xMi300x 1FP8-meta", "8xMi300 1FP8-amd",
                      "4xMi300x 1FP8-amd"}  # fmt: skip
    assert source.total_tokens_per_s == pytest.approx(92.42484198)
    # every 8-GPU row of the table is a projection; the 8-GPU "1FP8" rows are measurements
    assert {json.loads(e.raw)["gpu"] for e in result.row_errors} == {"8xMi300x 2FP8-amd"}
    assert sum(r.gpu_count == 8 and r.gpu_name_raw.lower().startswith("mi300") for r in
               result.benchmark_runs) == 38  # fmt: skip
    # the curve table holds the same projection, found by its end-to-end latency
    curve = runs(
        "benchmarks/vllm_dstack/h100sxm5_vs_mi300x_llama3.1-405b-fp8/csv_data/"
        "throughput_latency_curve.csv"
    )
    assert (len(curve.benchmark_runs), len(curve.row_errors)) == (74, 19)


def test_results_csv_lengths_are_what_the_completed_requests_had():
    """`isl`/`osl` are what was asked for; the server may stop replies early. The row of
    results.csv asking 32,784 output tokens completed 380 of 500 requests with 13,680 output
    tokens in all (36 a request), and the 2,048-token row got 269,296 over 500 (538.6)."""
    result = runs("benchmarks/vllm_dstack/pd_ratio_8xH200_sglang_gpt-oss-120b/results.csv")
    by_ref = {r.run_ref: r for r in result.benchmark_runs}
    long_ask = by_ref["line 5"]
    assert (long_ask.attempted, long_ask.completed, long_ask.failed) == (500, 380, 120)
    assert long_ask.output_len == pytest.approx(13680 / 380)
    assert long_ask.input_len == pytest.approx(777966 / 380)
    assert long_ask.output_tokens_per_s == pytest.approx(7.549799359779454)
    asked_2048 = by_ref["line 4"]
    assert asked_2048.output_len == pytest.approx(269296 / 500)
    assert asked_2048.input_len == pytest.approx(1023101 / 500)
    # a run also exported as its JSON in raw_data/ (1 prefill, 3 decode workers, 2048 in, 128
    # asked out, 33,584 given): the same lengths as the JSON's, so the warehouse keeps it once
    csv_run = by_ref["line 18"]
    json_run = one(
        "benchmarks/vllm_dstack/pd_ratio_8xH200_sglang_gpt-oss-120b/raw_data/"
        "1p3d_conc128_in2048_out128_20250923_033738.json"
    )
    assert csv_run.output_len == pytest.approx(33584 / 500)
    assert (json_run.input_len, json_run.output_len) == pytest.approx(
        (csv_run.input_len, csv_run.output_len)
    )
    assert json_run.output_tokens_per_s == pytest.approx(csv_run.output_tokens_per_s)


GPULEDGER_CSV = (
    (
        "measured_at,run_kind,model,params_b,precision,gpu,gpu_count,output_unit,"
        "output_units_per_s,time_to_complete_s,output_tokens_per_s,ttft_p95_ms,attempted,completed\n"
    )
    + """2026-11-02,fine_tuning,meta-llama/Llama-3.1-8B,8,bf16,H100 SXM,8,samples,41.5,5400,,,,
2026-11-03,image_generation,black-forest-labs/FLUX.1-dev,12,bf16,L40S,1,images,0.42,,,,,
2026-11-04,inference,meta-llama/Llama-3.1-70B-Instruct,70,fp8,H200 SXM,2,,,,2310.5,480,1000,996
2026-11-05,inference,broken,70,fp8,H200 SXM,two,,,,100,,,
"""
)


def test_gpuledger_csv_for_in_house_runs():
    result = benchmark_files.parse(GPULEDGER_CSV.encode(), "file:inhouse/runs.csv", T)
    ft, img, chat = result.benchmark_runs
    assert (ft.run_kind, ft.output_unit, ft.output_units_per_s, ft.time_to_complete_s) == (
        "fine_tuning", "samples", 41.5, 5400.0)  # fmt: skip
    assert (img.run_kind, img.output_unit, img.gpu_name_raw) == (
        "image_generation",
        "images",
        "L40S",
    )
    assert (chat.completed, chat.attempted, chat.ttft_p95_ms, chat.hardware_source) == (
        996,
        1000,
        480.0,
        "operator",
    )
    assert chat.measured_at == datetime(2026, 11, 4, tzinfo=UTC)
    (bad,) = result.row_errors
    assert bad.row_ref == "line 5" and "gpu and gpu_count are required" in bad.reason


def test_gpuledger_csv_with_a_misspelt_column_is_refused_by_name():
    bad = GPULEDGER_CSV.replace("ttft_p95_ms", "ttft_p95")
    with pytest.raises(ParseError) as err:
        benchmark_files.parse(bad.encode(), "file:inhouse/runs.csv", T)
    assert (err.value.where, err.value.field) == ("inhouse/runs.csv", "ttft_p95")


def test_format_comes_from_the_content_not_the_name():
    content = (
        DSTACK
        / "throughput_8xMI300x"
        / "Meta-Llama-3.1-405B-Instruct-FP8-KV_throughput_req4_in128_out2048_.json"
    ).read_bytes()  # noqa: E501
    assert benchmark_files.detect_format(content, "renamed.txt") == "vllm_throughput"
    summary = (
        B
        / "mlperf"
        / "v4.1_NVIDIA_H200-SXM-141GBx8_TRT_llama2-70b-99"
        / "Server_mlperf_log_summary.txt"
    ).read_bytes()  # noqa: E501
    assert benchmark_files.detect_format(summary, "results.json") == "mlperf_log_summary"


@pytest.mark.parametrize(
    ("content", "field", "reason"),
    [
        (b"", "<document>", "empty file"),
        (b"   \n", "<document>", "empty file"),
        (
            b'{"date": "20241109-150547", "backend": "vllm", "completed": 10',
            "line 1 column",
            "truncated",
        ),
        (
            b'{"request_throughput": "fast", "completed": 3, "mean_ttft_ms": 1}',
            "request_throughput",
            "expected a number",
        ),  # noqa: E501
        (b'{"hello": "world"}', "<document>", "JSON is no benchmark result format"),
        (b"col_a,col_b\n1,2\n", "<document>", "not a benchmark result format"),
        (b"\x89PNG\r\n\x1a\n\x00\x00binary", "<document>", ""),
    ],
)
def test_broken_inputs_name_the_file_and_the_field(content, field, reason):
    with pytest.raises(ParseError) as err:
        benchmark_files.parse(content, "file:inbox/bad.json", T)
    assert err.value.where == "inbox/bad.json"
    assert field in err.value.field
    assert reason in err.value.reason


def test_truncated_console_block_is_an_error():
    text = (B / "vllm_dstack" / "amd_tgi_vs_vllm_MI300X" / "raw_data__vllm_raw.txt").read_text()
    cut = text[: text.index("Mean TPOT (ms)")]
    with pytest.raises(ParseError, match="not closed"):
        benchmark_files.parse(cut.encode(), "file:x/raw.txt", T)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("a/8xH100SXM5_nvidia-vllm.json", ("H100SXM5", 8)),
        ("a/throughput_8xMI300x/x.json", ("MI300x", 8)),
        ("v4.1_NVIDIA_H200-SXM-141GBx8_TRT_llama2-70b-99/s.txt", ("H200-SXM-141GB", 8)),
        ("amd_tgi_vs_vllm_MI300X/raw.txt", ("MI300X", None)),
        ("h100sxm5_vs_mi300x_llama/csv/q.csv", None),  # names two GPUs: no guess
        ("results/run.json", None),
    ],
)
def test_documented_file_name_convention(path, expected):
    assert benchmarks.path_gpu(path) == expected


@pytest.mark.parametrize(
    ("name", "params"),
    [("meta-llama/Llama-3.1-405B-FP8", 405.0), ("llama2-70b-99", 70.0), ("gpt-oss-20b", 20.0),
     ("Mixtral-8x7B", None), ("amd/Kimi-K2.5-MXFP4", None), ("BAAI/bge-base-en-v1.5", None)],
)  # fmt: skip
def test_model_parameters_from_the_name(name, params):
    assert benchmarks.params_b(name) == params
