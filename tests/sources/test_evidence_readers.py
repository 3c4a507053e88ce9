"""The readers issue 14 added or changed, on real files: MLCommons' results tree as published
(warehouse/demo_benchmarks/mlperf_inference_v4.1, copied unchanged from
mlcommons/inference_results_v4.1), trtllm-bench reports (TensorRT-LLM's published examples), SGLang
lines with a server_info block, and text files that start with a bracket."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pipelines.benchmarks import _hints_for, _system_hints, collect
from sources import benchmark_files
from sources._internal.records import ParseError
from tests.conftest import FIXTURES

T = datetime(2026, 11, 30, tzinfo=UTC)
ROOT = Path(__file__).parents[2]
TREE = ROOT / "warehouse" / "demo_benchmarks" / "mlperf_inference_v4.1"
TRT = FIXTURES / "benchmarks" / "trtllm_bench"


def parse_tree(paths: list[Path]) -> dict[str, list]:
    """Files as `gpuledger ingest` archives them (hints included), parsed as the pipeline does."""
    files, skipped = collect(paths)
    found = _system_hints(files)
    out = {}
    for path, display in files:
        url = benchmark_files.file_url(display, _hints_for(path, display, found))
        out[display] = benchmark_files.parse(path.read_bytes(), url, T).benchmark_runs
    return out | {"_skipped": [(s.display, s.reason) for s in skipped]}


def test_a_whole_mlperf_results_tree():
    parsed = parse_tree([TREE])
    runs = {d: r[0] for d, r in parsed.items() if d != "_skipped" and r}
    assert len(runs) == 7  # 5 stable-diffusion-xl Offline, llama2-70b-99 Offline and Server
    l40s = runs[
        "mlperf_inference_v4.1/closed/Fujitsu/results/CDI_L40Sx8_TRT/llama2-70b-99/Offline/"
        "performance/run_1/mlperf_log_summary.txt"
    ]
    # the model from the benchmark folder ("llama2-70b-Offline-SUT-LoadGen" names the harness),
    # the GPU and its count from closed/Fujitsu/systems/CDI_L40Sx8_TRT.json, the precision from
    # closed/Fujitsu/measurements/.../CDI_L40Sx8_TRT_Offline.json ("weight_data_types": "fp16",
    # the checkpoint's): a v4.1 result of NVIDIA's TensorRT harness on an Ada GPU, served in FP8
    # (sources/benchmarks/mlperf_summary.py, served_precision)
    assert (l40s.model_id, l40s.model_source) == ("llama2-70b-99", "folder_layout")
    assert (l40s.gpu_name_raw, l40s.gpu_count, l40s.hardware_source) == (
        "NVIDIA L40S", 8, "system_description")  # fmt: skip
    assert (l40s.round, l40s.serving_stack) == ("v4.1", "tensorrt")
    assert (l40s.precision, l40s.precision_source) == ("fp8", "submitter_documentation")
    assert l40s.scenario == "Offline"
    assert (l40s.output_tokens_per_s, l40s.request_throughput_rps) == (3717.74, 12.6843)
    # the mean output length is the run's own: tokens per second over samples per second
    assert l40s.output_len == pytest.approx(3717.74 / 12.6843)
    assert l40s.input_len is None  # MLCommons documents no mean input length: none invented
    server = runs[
        "mlperf_inference_v4.1/closed/Fujitsu/results/CDI_L40Sx8_TRT/llama2-70b-99/Server/"
        "performance/run_1/mlperf_log_summary.txt"
    ]
    assert server.output_tokens_per_s == 3218.55 and server.request_rate == 11.0  # target_qps
    # p99 first-token latency 664.223026 ms, under the benchmark's 2,000 ms limit
    assert (server.ttft_p99_ms, server.ttft_p95_ms) == (664.223026, 514.430542)
    sdxl = runs[
        "mlperf_inference_v4.1/closed/Cisco/results/C240M7_L40Sx2_TRT/stable-diffusion-xl/"
        "Offline/performance/run_1/mlperf_log_summary.txt"
    ]
    # "SUT name : PySUT": the folder names the benchmark; 1.36759 images per second on 2 L40S
    assert (sdxl.model_id, sdxl.run_kind, sdxl.output_unit) == (
        "stable-diffusion-xl", "image_generation", "images")  # fmt: skip
    assert (sdxl.output_units_per_s, sdxl.gpu_name_raw, sdxl.gpu_count, sdxl.precision) == (
        1.36759, "NVIDIA L40S", 2, "int8")  # fmt: skip
    gh200 = runs[
        "mlperf_inference_v4.1/closed/Quanta_Cloud_Technology/results/GH200-GraceHopper-"
        "Superchip_GH200-96GB_aarch64x1_TRT/stable-diffusion-xl/Offline/performance/run_1/"
        "mlperf_log_summary.txt"
    ]
    assert (gh200.gpu_name_raw, gh200.gpu_count, gh200.output_units_per_s) == (
        "NVIDIA GH200 Grace Hopper Superchip 96GB", 1, 2.08805)  # fmt: skip
    skipped = dict(parsed["_skipped"])
    acc = "mlperf_inference_v4.1/closed/Fujitsu/results/CDI_L40Sx8_TRT/llama2-70b-99/Offline/"
    assert "accuracy" in skipped[acc + "accuracy/mlperf_log_summary.txt"]
    detail = ("mlperf_inference_v4.1/closed/Cisco/results/C240M7_L40Sx2_TRT/stable-diffusion-xl/"
              "Offline/performance/run_1/mlperf_log_detail.txt")  # fmt: skip
    assert "summary" in skipped[detail]  # the same run once, not twice


def test_one_result_folder_with_its_system_file_given(tmp_path):
    """A user copies one run folder and the system JSON out of the tree: the system file named
    after the result's system still names the hardware."""
    src = TREE / "closed" / "Cisco"
    run = tmp_path / "closed" / "Cisco" / "results" / "C245M8_H100_PCIe_80GBx2_TRT"
    shutil.copytree(src / "results" / "C245M8_H100_PCIe_80GBx2_TRT", run)
    given = tmp_path / "C245M8_H100_PCIe_80GBx2_TRT.json"
    shutil.copy(src / "systems" / "C245M8_H100_PCIe_80GBx2_TRT.json", given)
    parsed = parse_tree([run, given])
    [(display, found)] = [(d, r) for d, r in parsed.items() if d != "_skipped" and r]
    assert (found[0].gpu_name_raw, found[0].gpu_count) == ("NVIDIA H100-PCIe-80GB", 2)
    assert found[0].output_units_per_s == 2.4685 and found[0].model_id == "stable-diffusion-xl"
    # without the measurements folder the precision is unknown, not guessed
    assert found[0].precision is None


def test_an_mlperf_accuracy_summary_is_refused_by_the_reader_too():
    """Skipped when a folder is ingested; given on its own it holds no result and is refused."""
    path = TREE / "closed/Fujitsu/results/CDI_L40Sx8_TRT/llama2-70b-99/Offline/accuracy"
    with pytest.raises(ParseError, match="not a benchmark result format"):
        benchmark_files.parse((path / "mlperf_log_summary.txt").read_bytes(), "file:x.txt", T)
    accuracy_mode = (TREE / "closed/Cisco/results/C240M7_L40Sx2_TRT/stable-diffusion-xl/Offline/"
                     "performance/run_1/mlperf_log_summary.txt").read_text().replace(
        "Mode     : PerformanceOnly", "Mode     : AccuracyOnly")  # fmt: skip
    with pytest.raises(ParseError, match="accuracy run"):
        benchmark_files.parse(accuracy_mode.encode(), "file:x.txt", T)


def test_trtllm_bench_console_report_engine_flow():
    text = (TRT / "throughput_llama31_8b_fp8_engine.log").read_bytes()
    [run] = benchmark_files.parse(text, "file:trt/llama.log#gpu=H100+SXM", T).benchmark_runs
    assert run.format == "trtllm_bench_console" and run.tool_version == "0.17.0"
    assert (run.model_id, run.precision, run.serving_stack) == (
        "meta-llama/Llama-3.1-8B", "fp8", "tensorrt-llm")  # fmt: skip
    assert (run.gpu_name_raw, run.gpu_count, run.hardware_source) == ("H100 SXM", 1, "operator")
    assert (run.input_len, run.output_len, run.attempted) == (128.0, 128.0, 3000)
    assert (run.output_tokens_per_s, run.request_throughput_rps) == (28390.4265, 221.8002)
    assert run.duration_s == pytest.approx(13.5256862)


def test_trtllm_bench_console_report_pytorch_flow_with_percentiles():
    text = (TRT / "throughput_qwen2_vl_2b_pytorch.log").read_bytes()
    url = "file:trt/qwen.log#gpu=H100+SXM&model=Qwen%2FQwen2-VL-2B-Instruct"
    [run] = benchmark_files.parse(text, url, T).benchmark_runs
    assert run.model_id == "Qwen/Qwen2-VL-2B-Instruct" and run.model_source == "operator"
    assert (run.output_tokens_per_s, run.total_tokens_per_s) == (185.8351, 780.1607)
    assert (run.input_len, run.output_len, run.concurrency) == (411.6, 128.7, 5.3019)
    assert (run.e2e_p50_ms, run.e2e_p95_ms, run.e2e_p99_ms, run.e2e_mean_ms) == (
        3936.3022, 5514.4701, 5514.4701, 3671.8441)  # fmt: skip
    assert run.ttft_p95_ms is None  # not streamed: no TTFT in the report, none made up


def test_trtllm_bench_json_report_fields():
    doc = json.loads((TRT / "report_fields_from_reporting_py.json").read_text())
    [run] = benchmark_files.parse(json.dumps(doc).encode(), "file:trt/r.json", T).benchmark_runs
    assert run.format == "trtllm_bench_json"
    assert (run.gpu_name_raw, run.gpu_count, run.hardware_source) == (
        "NVIDIA H100 80GB HBM3", 1, "file")  # fmt: skip
    assert (run.precision, run.tensor_parallel, run.concurrency) == ("fp8", 1, 2994.2)
    assert (run.ttft_p95_ms, run.tpot_p50_ms, run.e2e_p99_ms) == (1810.7, 45.1, 13371.0)
    broken = {**doc, "performance": {**doc["performance"], "system_output_throughput_tok_s": None}}
    with pytest.raises(ParseError, match="system_output_throughput_tok_s"):
        benchmark_files.parse(json.dumps(broken).encode(), "file:trt/r.json", T)


def test_sglang_line_with_server_info_names_model_precision_and_tp():
    """One real line of DataCrunch's SGLang output, with the server_info block newer
    bench_serving versions add (field names of SGLang's ServerArgs)."""
    path = FIXTURES / "benchmarks/sglang_datacrunch/outputs__llama_3_3_70b_online_output.jsonl"
    line = json.loads(path.read_text().splitlines()[0])
    line["server_info"] = {"model_path": "meta-llama/Llama-3.3-70B-Instruct", "tp_size": 4,
                           "dp_size": 1, "dtype": "bfloat16", "quantization": None}  # fmt: skip
    [run] = benchmark_files.parse(
        (json.dumps(line) + "\n").encode(), "file:s.jsonl#gpu=H200", T
    ).benchmark_runs
    assert (run.model_id, run.precision, run.tensor_parallel, run.gpu_count) == (
        "meta-llama/Llama-3.3-70B-Instruct", "bf16", 4, 4)  # fmt: skip
    assert run.output_tokens_per_s == pytest.approx(537.4142851849319)
    line["server_info"] = {"decode": [{"model_path": "x/Llama-3.1-405B-FP8", "tp_size": 8,
                                       "quantization": "fp8"}]}  # fmt: skip
    [run] = benchmark_files.parse(
        (json.dumps(line) + "\n").encode(), "file:s.jsonl", T
    ).benchmark_runs
    assert (run.precision, run.gpu_count) == ("fp8", 8)


def test_a_text_starting_with_a_bracket_is_an_unknown_format_not_truncated_json():
    log = b"[01/18/2025-00:55:14] [TRT-LLM] [I] Found dataset.\nnothing else here\n"
    with pytest.raises(ParseError, match="not a benchmark result format gpuledger knows"):
        benchmark_files.parse(log, "file:build.log", T)
    cut = (TRT / "report_fields_from_reporting_py.json").read_bytes()[:-40]
    with pytest.raises(ParseError, match="truncated"):
        benchmark_files.parse(cut, "file:r.json", T)
