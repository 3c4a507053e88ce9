"""MLPerf Inference round summaries, read from the four real files gpuledger ships
(warehouse/demo_benchmarks/mlperf_summaries: v4.1, v5.1, v6.0 arrays; v6.1's pandas index object).

Each test asserts values taken from the files: submitter, system, benchmark, scenario, precision,
accelerator and total count (multi-node systems included), serving stack and version, tokens/s;
records that are no LLM token throughput are skipped with their reason, an unreadable LLM record
is quarantined with its field and reason while the rest of the file is read.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sources import benchmark_files, benchmarks
from sources.benchmarks.mlperf_summary import mlperf_stack, served_precision, weight_precision

T = datetime(2026, 12, 4, tzinfo=UTC)
SUMMARIES = (
    Path(__file__).resolve().parents[2] / "warehouse" / "demo_benchmarks" / "mlperf_summaries"
)


def parse(name: str, content: bytes | None = None):
    data = content if content is not None else (SUMMARIES / name).read_bytes()
    return benchmark_files.parse(data, benchmark_files.file_url(f"mlperf_summaries/{name}"), T)


@pytest.fixture(scope="module")
def rounds():
    return {r: parse(f"{r}_summary.json") for r in ("v4.1", "v5.1", "v6.0", "v6.1")}


def run(result, ref_start: str):
    found = [r for r in result.benchmark_runs if r.run_ref.startswith(ref_start)]
    assert len(found) == 1, [r.run_ref for r in result.benchmark_runs][:5]
    return found[0]


def test_both_layouts_are_detected_as_one_format():
    for name in ("v6.1_summary.json", "v5.1_summary.json"):
        fmt, _ = benchmarks.detect((SUMMARIES / name).read_bytes(), name)
        assert fmt == "mlperf_summary_results"


def test_every_round_reads_without_a_quarantined_record(rounds):
    counts = {
        r: (len(x.benchmark_runs), len(x.skipped), len(x.row_errors)) for r, x in rounds.items()
    }
    # runs + skipped = the file's records (937, 1,448, 520, 492)
    assert counts == {
        "v4.1": (301, 636, 0),
        "v5.1": (363, 1085, 0),
        "v6.0": (360, 160, 0),
        "v6.1": (327, 165, 0),
    }
    for result in rounds.values():
        assert {r.format for r in result.benchmark_runs} == {"mlperf_summary_results"}
        assert {r.division for r in result.benchmark_runs} == {"closed"}
        assert {r.output_unit for r in result.benchmark_runs} == {"tokens"}


def test_v41_multi_node_system_counts_every_accelerator(rounds):
    # JuniperNetworks' 2 nodes x 8 H100 SXM: `a#` is per node, the run has 16 GPUs
    r = run(rounds["v4.1"], "[411] JuniperNetworks")
    assert (r.system, r.model_id, r.scenario) == (
        "DGX-H100_H100-SXM-80GBx16_TRT", "llama2-70b-99", "Offline")  # fmt: skip
    assert (r.gpu_name_raw, r.gpu_count, r.hardware_source) == ("NVIDIA H100-SXM-80GB", 16, "file")
    # the record says fp16 (the checkpoint's); NVIDIA's harness serves FP8 on Hopper (below)
    assert (r.output_tokens_per_s, r.precision, r.precision_source) == (
        41672.4, "fp8", "submitter_documentation")  # fmt: skip
    assert (r.serving_stack, r.serving_stack_version) == ("tensorrt", "9.3.0")
    assert (r.organization, r.round, r.suite) == ("JuniperNetworks", "v4.1", "datacenter")
    assert run(rounds["v4.1"], "[415] JuniperNetworks").gpu_count == 32  # 4 x 8


def test_v51_records(rounds):
    # RedHat's H100 SXM with vLLM 0.10.0, FP8 Llama-3.1-8B
    h100 = run(rounds["v5.1"], "[536] RedHat")
    assert (h100.model_id, h100.scenario, h100.precision) == ("llama3.1-8b", "Offline", "fp8")
    assert (h100.gpu_name_raw, h100.gpu_count) == ("NVIDIA H100-SXM-80GB", 1)
    assert (h100.serving_stack, h100.serving_stack_version) == ("vllm", "0.10.0")
    assert h100.output_tokens_per_s == 5777.08 and h100.organization == "RedHat"
    # NVIDIA's GB200 NVL72: 18 nodes x 4 GPUs
    nvl72 = run(rounds["v5.1"], "[444] NVIDIA")
    assert (nvl72.model_id, nvl72.gpu_name_raw, nvl72.gpu_count) == (
        "deepseek-r1",
        "NVIDIA GB200",
        72,
    )
    assert (nvl72.precision, nvl72.output_tokens_per_s) == ("fp4", 289712.0)
    interactive = run(rounds["v5.1"], "[446] NVIDIA")
    assert (interactive.model_id, interactive.scenario) == ("llama3.1-405b", "Interactive")


def test_v60_total_accelerators(rounds):
    # v6.0 publishes `Total Accelerators`: CoreWeave's 64 GB200 of an NVL72 rack (16 nodes x 4)
    cw = run(rounds["v6.0"], "[65] CoreWeave")
    assert (cw.gpu_count, cw.model_id, cw.output_tokens_per_s) == (64, "deepseek-r1", 468665.0)
    assert (cw.serving_stack, cw.serving_stack_version) == ("tensorrt", "10.14")
    amd = run(rounds["v6.0"], "[1] AMD")  # 11 nodes x 8 MI355X
    assert (amd.gpu_count, amd.precision, amd.output_tokens_per_s) == (88, "fp4", 1042110.0)
    assert (amd.serving_stack, amd.serving_stack_version) == ("pytorch", "2.9.1+git8907517")


def test_v61_index_layout_and_its_field_names(rounds):
    azure = run(rounds["v6.1"], '["23"] Azure')
    assert (azure.system, azure.gpu_name_raw, azure.gpu_count) == (
        "Azure-GB200-NVL72_186GBx288", "NVIDIA GB200", 288)  # fmt: skip
    assert (azure.model_id, azure.scenario, azure.precision) == ("deepseek-r1", "Offline", "fp4")
    assert (azure.output_tokens_per_s, azure.serving_stack) == (2091190.0, "tensorrt-llm")
    assert (azure.organization, azure.round) == ("Azure", "v6.1")
    crusoe = run(rounds["v6.1"], '["107"] Crusoe')
    assert (crusoe.gpu_count, crusoe.serving_stack, crusoe.serving_stack_version) == (
        512, "sglang", "0.5.15.post1")  # fmt: skip
    assert crusoe.output_tokens_per_s == 2901950.0


def test_other_benchmarks_and_units_are_skipped_with_the_reason(rounds):
    reasons = {s.row_ref: s.reason for s in rounds["v6.1"].skipped}
    assert reasons['["0"] AMD | 8xMI350X_2xEPYC_9575F | dlrm-v3 | Offline'] == (
        "dlrm-v3: not an LLM benchmark (no token throughput)")  # fmt: skip
    qwen_vl = [r for k, r in reasons.items() if "qwen3-vl" in k]
    assert len(qwen_vl) == 47
    assert all("not tokens/s" in r or "open division" in r for r in qwen_vl)
    v51 = [s.reason for s in rounds["v5.1"].skipped]
    assert sum("open division" in r for r in v51) == 839
    assert sum(r == "no accelerator (a CPU-only system)" for r in v51) == 12
    # skipped records are not quarantined
    assert all(not e for e in (x.row_errors for x in rounds.values()))


def test_first_eleven_records_excerpt_keeps_its_llm_runs():
    from tests.conftest import FIXTURES

    rel = "benchmarks/mlperf/v4.1_summary_results.FIRST11.json"
    result = benchmark_files.parse((FIXTURES / rel).read_bytes(), benchmark_files.file_url(rel), T)
    assert len(result.benchmark_runs) == 8 and len(result.skipped) == 3
    assert {s.reason.split(":")[0] for s in result.skipped} == {
        "3d-unet-99",
        "3d-unet-99.9",
        "bert-99",
    }


def test_a_malformed_llm_record_is_quarantined_and_the_rest_goes_on():
    # constructed from the real v6.1 file: one LLM record's Result replaced by text
    doc = json.loads((SUMMARIES / "v6.1_summary.json").read_text())
    doc["23"]["Result"] = "n/a"
    doc["25"]["total_accelerators"] = "seventy-two"
    result = parse("v6.1_summary.json", json.dumps(doc).encode())
    errors = {e.row_ref: (e.field, e.reason) for e in result.row_errors}
    assert errors == {
        '["23"] Azure | Azure-GB200-NVL72_186GBx288 | deepseek-r1 | Offline': (
            "Result", "not a positive throughput: 'n/a'"),
        '["25"] Azure | Azure-GB200-NVL72_186GBx72 | deepseek-r1 | Offline': (
            "total_accelerators", "not a number: 'seventy-two'"),
    }  # fmt: skip
    assert len(result.benchmark_runs) == 325 and len(result.skipped) == 165


def test_precision_of_another_scenario_is_taken_and_marked():
    # constructed from the real v5.1 file: the Server record of RedHat's H100 loses its
    # weight_data_types; the Offline record of the same system and benchmark names fp8
    doc = json.loads((SUMMARIES / "v5.1_summary.json").read_text())
    assert doc[537]["Scenario"] == "Server" and doc[536]["weight_data_types"] == "fp8"
    doc[537]["weight_data_types"] = ""
    result = parse("v5.1_summary.json", json.dumps(doc).encode())
    server = run(result, "[537] RedHat")
    assert (server.precision, server.precision_source) == ("fp8", "other_scenario")
    assert run(result, "[536] RedHat").precision_source == "file"


def test_v41_tensorrt_records_take_the_precision_the_harness_serves(rounds):
    """v4.1 names the checkpoint's fp16 for every closed LLM record of NVIDIA's TensorRT harness;
    NVIDIA's calibration notes of the round say FP8, and FP4 where the GPU has it
    (mlcommons/inference_results_v4.1 @ a2f5d66d closed/NVIDIA/documentation/calibration.md)."""
    doc = json.loads((SUMMARIES / "v4.1_summary.json").read_text())
    assert (doc[530]["weight_data_types"], doc[859]["weight_data_types"]) == ("fp16", "fp16")
    result = rounds["v4.1"]
    served = {
        ref: (r.gpu_name_raw, r.serving_stack, r.precision, r.precision_source)
        for ref in ("[530] NVIDIA", "[859] NVIDIA", "[18] ASUSTeK", "[93] Cisco",
                    "[136] ConnectTechInc", "[261] Dell", "[680] RedHat", "[0] AMD")
        for r in [run(result, ref)]
    }  # fmt: skip
    assert served == {
        # Hopper (H200, H100 NVL) and Ada (L40S): FP8; Blackwell (B200): FP4
        "[530] NVIDIA": ("NVIDIA H200-SXM-141GB-CTS", "tensorrt", "fp8", "submitter_documentation"),
        "[859] NVIDIA": ("NVIDIA B200-SXM-180GB", "tensorrt", "fp4", "submitter_documentation"),
        "[18] ASUSTeK": ("NVIDIA H100-NVL-94GB", "tensorrt", "fp8", "submitter_documentation"),
        "[93] Cisco": ("NVIDIA L40S", "tensorrt", "fp8", "submitter_documentation"),
        # Jetson Orin (Ampere) has no FP8: fp16 as the record says
        "[136] ConnectTechInc": ("NVIDIA Jetson AGX Orin 64G", "tensorrt", "fp16", "file"),
        # not NVIDIA's harness: the record's own precision
        "[261] Dell": ("AMD MI300X-NPS1-SPX-192GB-750W", "vllm", "fp16", "file"),
        "[680] RedHat": ("NVIDIA L40S", "cuda", "fp16", "file"),
        "[0] AMD": ("AMD Instinct MI300X-NPS1-SPX-192GB-750W", "vllm", "fp8", "file"),
    }
    counts = Counter((r.precision, r.precision_source) for r in result.benchmark_runs)
    assert counts == {
        ("fp8", "submitter_documentation"): 275,
        ("fp4", "submitter_documentation"): 4,
        ("fp8", "file"): 14,
        ("fp16", "file"): 8,
    }
    # later rounds name what the harness serves: their records stand as written
    assert served_precision("v5.1", "TensorRT 10.11", "NVIDIA H200-SXM-141GB", "fp16") is None
    later = [r for rnd in ("v5.1", "v6.0", "v6.1") for r in rounds[rnd].benchmark_runs]
    assert not [r for r in later if r.precision_source == "submitter_documentation"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [  # weight_data_types as the v6.1 and v6.0 records write them
        ("bf16, fp8, fp4", "fp4"),
        ("NVFP4 weights and activations; FP8 KV cache", "fp4"),
        ("BF16/F32/F8_E4M3/U8", "fp8"),
        ("fp8 (static per-tensor PTQ, NVIDIA ModelOpt)", "fp8"),
        ("int8,bf16", "int8"),
        ("mxfp4 (LLMs), fp32 (embedding/reranker)", "fp4"),
        ("bfloat16", "bf16"),
        ("UNSET", None),
    ],
)
def test_weight_precision(text, expected):
    assert weight_precision(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [  # framework / Software as the records write them
        ("LLM-D v0.5.0 ,vLLM 0.14.1, RHEL 9.6", ("vllm", "0.14.1")),
        ("TensorRT 10.14.1.48; TensorRT-LLM 1.3.0rc0", ("tensorrt-llm", "1.3.0rc0")),
        ("TensorRT 10.2.0, CUDA 12.4", ("tensorrt", "10.2.0")),
        ("vLLM v0.20.2rc1.dev2091, CUDA 13.0.1, NVIDIA Dynamo", ("vllm", "0.20.2rc1.dev2091")),
        ("SGLang 0.5.15.post1 (ROCm 7.2.0)", ("sglang", "0.5.15.post1")),
        ("Mango LLMBoost AI Enterprise Platform", ("llmboost", None)),
        ("TODO", (None, None)),
    ],
)
def test_mlperf_stack(text, expected):
    assert mlperf_stack(text) == expected
