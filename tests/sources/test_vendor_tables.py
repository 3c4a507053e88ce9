"""Vendors' published serving-performance tables, on the real files gpuledger ships
(warehouse/demo_benchmarks/<publisher>/, each folder's README names repository, path, commit and
licence): NVIDIA's TensorRT-LLM performance overview (two releases, two layouts) and AMD's ROCm
vLLM tables. Failure cases are the real files with one cell or one header changed."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pipelines.benchmarks import collect
from sources import benchmark_files
from sources._internal.records import ParseError

T = datetime(2026, 12, 4, tzinfo=UTC)
ROOT = Path(__file__).parents[2] / "warehouse" / "demo_benchmarks"
TRT_017 = ROOT / "nvidia_trtllm_perf_overview" / "perf-overview@258c7540.md"
TRT_100 = ROOT / "nvidia_trtllm_perf_overview" / "perf-overview@00f37686.md"
ROCM = ROOT / "amd_rocm_vllm" / "dev-docker@040de12d.md"
ROCM_066 = ROOT / "amd_rocm_vllm" / "dev-docker@46476bdd.md"
ROCM_073 = ROOT / "amd_rocm_vllm" / "dev-docker@c43debd4.md"


def parse(path: Path, text: str | None = None):
    content = path.read_bytes() if text is None else text.encode()
    display = f"{path.parent.name}/{path.name}"
    return benchmark_files.parse(content, benchmark_files.file_url(display), T)


def by_ref(result) -> dict:
    return {r.run_ref: r for r in result.benchmark_runs}


@pytest.fixture(scope="module")
def trt017():
    return parse(TRT_017)


@pytest.fixture(scope="module")
def trt100():
    return parse(TRT_100)


@pytest.fixture(scope="module")
def rocm():
    return parse(ROCM)


def test_format_detected_from_content():
    for path, fmt in ((TRT_017, "trtllm_perf_overview"), (TRT_100, "trtllm_perf_overview"),
                      (ROCM, "rocm_vllm_tables")):  # fmt: skip
        assert benchmark_files.detect_format(path.read_bytes(), path.name) == fmt


def test_trtllm_017_wide_table(trt017):
    assert not trt017.row_errors
    # 5 GPU columns x 12 model/TP blocks x 9 lengths, less the blank (not measured) cells
    assert len(trt017.benchmark_runs) == 373
    runs = by_ref(trt017)
    # "LLaMA v3.1 8B | 1 | 1000, 1000 | ... | 15244.78 (H100 80GB HBM3)"
    h100 = runs["line 57: H100 80GB HBM3"]
    assert (h100.model_id, h100.model_params_b, h100.precision) == ("LLaMA-3.1-8B", 8.0, "fp8")
    assert (h100.gpu_name_raw, h100.gpu_count, h100.tensor_parallel) == ("H100 80GB HBM3", 1, 1)
    assert (h100.input_len, h100.output_len, h100.output_tokens_per_s) == (1000, 1000, 15244.78)
    assert (h100.scenario, h100.concurrency) == ("max_throughput", None)  # no batch published
    assert (h100.serving_stack, h100.serving_stack_version, h100.tool) == (
        "tensorrt-llm", "0.17", "trtllm-bench")  # fmt: skip
    assert (h100.organization, h100.hardware_source) == ("NVIDIA", "file")
    # a blank model / TP cell means "as above": LLaMA v3.1 70B at TP 8 on A100 in FP16
    a100 = runs["line 90: A100-SXM4-80GB"]
    assert (a100.model_id, a100.gpu_count, a100.precision) == ("LLaMA-3.1-70B", 8, "fp16")
    assert (a100.input_len, a100.output_len, a100.output_tokens_per_s) == (128, 2048, 5241.5)
    l40s = runs["line 135: L40S"]  # Mixtral 8x7B, TP 4, 128/2048 on 4 x L40S
    assert (l40s.model_id, l40s.gpu_count, l40s.output_tokens_per_s) == ("Mixtral-8x7B", 4, 7996.93)


def test_trtllm_017_blank_cells_are_not_runs(trt017):
    runs = by_ref(trt017)
    # LLaMA v3.1 70B, TP 1, 2048/2048: H200 1913.8, H100 blank, GH200 1086.93
    assert "line 68: H200 141GB HBM3" in runs and "line 68: GH200 480GB" in runs
    assert "line 68: H100 80GB HBM3" not in runs and "line 68: L40S" not in runs


def test_trtllm_10_sections_per_model(trt100):
    assert not trt100.row_errors
    assert len(trt100.benchmark_runs) == 328
    runs = by_ref(trt100)
    b200 = runs["line 96: B200<br/>TP1 (FP4)"]  # Llama 3.3 70B, 1000/1000
    assert (b200.model_id, b200.precision) == ("nvidia/Llama-3.3-70B-Instruct-FP4", "fp4")
    # the hardware list names the part: "B200 180GB (DGX B200)"
    assert (b200.gpu_name_raw, b200.gpu_count, b200.tensor_parallel) == ("B200 180GB", 1, 1)
    assert (b200.input_len, b200.output_len, b200.output_tokens_per_s) == (1000, 1000, 7007)
    assert (b200.serving_stack_version, b200.organization) == ("1.0", "NVIDIA")
    h100 = runs["line 96: H100<br/>TP2 (FP8)"]
    assert (h100.model_id, h100.gpu_name_raw, h100.gpu_count, h100.output_tokens_per_s) == (
        "nvidia/Llama-3.3-70B-Instruct-FP8", "H100 SXM 80GB", 2, 4205)  # fmt: skip
    # "**8 GPUs**<br/>TP1,PP8 (FP4)" under the caption "RTX 6000 Pro Blackwell Server Edition"
    rtx = runs["line 106: **8 GPUs**<br/>TP1,PP8 (FP4)"]
    assert (rtx.gpu_name_raw, rtx.gpu_count, rtx.tensor_parallel) == (
        "RTX 6000 Pro Blackwell Server Edition", 8, 1)  # fmt: skip
    assert (rtx.input_len, rtx.output_len, rtx.output_tokens_per_s) == (128, 128, 11881)
    # a model missing from the checkpoint lists keeps the section's title
    assert runs["line 65: B200<br/>TP1 (FP4)"].model_id == "Llama-4-Scout"


def test_rocm_throughput_table(rocm):
    assert not rocm.row_errors
    runs = by_ref(rocm)
    assert len(runs) == 40  # 8 throughput rows, 32 latency rows
    first = runs["line 43"]
    assert (first.model_id, first.precision) == ("amd/Llama-3.1-70B-Instruct-FP8-KV", "fp8")
    assert (first.gpu_name_raw, first.gpu_count, first.tensor_parallel) == (
        "AMD Instinct MI300X", 8, 8)  # fmt: skip
    assert (first.input_len, first.output_len) == (128, 2048)
    # max-throughput: the published --max-num-seqs is the concurrency
    assert (first.scenario, first.concurrency, first.attempted) == ("max_throughput", 3200, 3200)
    assert first.output_tokens_per_s == 13383.3
    assert (first.serving_stack, first.serving_stack_version, first.organization) == (
        "vllm", "0.10.0", "AMD")  # fmt: skip
    # a blank model cell is the model above: 405B, 2048/2048, 500 prompts and sequences
    last = runs["line 50"]
    assert (last.model_id, last.concurrency, last.output_tokens_per_s) == (
        "amd/Llama-3.1-405B-Instruct-FP8-KV", 500, 2174.1)  # fmt: skip


def test_rocm_latency_table(rocm):
    runs = by_ref(rocm)
    single = runs["line 62"]  # 70B, batch 1, 128 in, 2048 out, 17.236 s
    assert (single.scenario, single.concurrency, single.e2e_mean_ms) == ("offline", 1, 17236.0)
    assert single.output_tokens_per_s == pytest.approx(2048 / 17.236)
    big = runs["line 93"]  # 405B, batch 128, 2048 in, 2048 out, 125.471 s
    assert (big.model_id, big.input_len, big.concurrency) == (
        "amd/Llama-3.1-405B-Instruct-FP8-KV", 2048, 128)  # fmt: skip
    assert big.output_tokens_per_s == pytest.approx(128 * 2048 / 125.471)


def test_rocm_066_latency_in_ms_and_the_gpu_from_the_title():
    result = parse(ROCM_066)
    runs = by_ref(result)
    # "MI300X Latency (ms)": 19088.59 ms for one request of 128 in, 2048 out
    single = runs["line 63"]
    assert (single.e2e_mean_ms, single.concurrency, single.serving_stack_version) == (
        19088.59, 1, "0.6.6")  # fmt: skip
    assert single.output_tokens_per_s == pytest.approx(2048 / 19.08859)
    # no system line in this version: the title names the GPU ("... on the AMD Instinct MI300X
    # accelerator"); a run uses TP Size of them
    assert {(r.gpu_name_raw, r.gpu_count) for r in result.benchmark_runs} == {
        ("AMD Instinct MI300X", 8)}  # fmt: skip


def test_rocm_a_model_whose_name_and_checkpoint_disagree_is_not_guessed():
    # AMD's 0.7.3 table labels its 405B latency rows "Llama 3.1 405B
    # (amd/Llama-3.1-70B-Instruct-FP8-KV)": that row and the 15 carrying it are quarantined
    result = parse(ROCM_073)
    assert len(result.benchmark_runs) == 24 and len(result.row_errors) == 16
    assert result.row_errors[0].row_ref == "line 73"
    assert all("disagree on its size" in e.reason for e in result.row_errors)
    assert not any(
        r.model_id.endswith("70B-Instruct-FP8-KV") and r.e2e_mean_ms == 46601.0
        for r in result.benchmark_runs
    )


def test_a_cell_that_is_no_number_is_quarantined_alone():
    text = TRT_017.read_text().replace("| 15244.78         |", "| fast             |")
    result = parse(TRT_017, text)
    assert len(result.benchmark_runs) == 372
    [error] = result.row_errors
    assert (error.where, error.row_ref, error.field) == (
        "nvidia_trtllm_perf_overview/perf-overview@258c7540.md",
        "line 57: H100 80GB HBM3",
        "row",
    )
    assert "column 'H100 80GB HBM3'" in error.reason and "'fast'" in error.reason


def test_a_rocm_row_without_lengths_is_quarantined():
    # the first "128 / 4096" row (Llama 3.1 70B) loses its output length
    text = ROCM.read_text().replace("| 128   | 4096   | 1500 ", "| 128   |        | 1500 ", 1)
    result = parse(ROCM, text)
    [error] = result.row_errors
    assert error.row_ref == "line 44" and "Output" in error.reason
    assert len(result.benchmark_runs) == 39


@pytest.mark.parametrize(
    ("path", "old", "new", "field"),
    [
        (TRT_100, "B200<br/>TP1 (FP4)", "B200 TP1", "B200 TP1"),
        (TRT_017, "Runtime Input/Output Lengths", "Lengths", "runtime input/output lengths"),
        (TRT_100, "Sequence Length (ISL/OSL)", "ISL/OSL", "Throughput Measurements"),
        (ROCM, "Max Num Seqs", "Max Seqs", "Max Num Seqs"),
        (ROCM, "MI300X Latency (sec)", "MI300X Time (sec)", "<GPU> Latency (sec)"),
    ],
)
def test_a_renamed_column_fails_the_file_with_its_name(path, old, new, field):
    text = path.read_text().replace(old, new)
    with pytest.raises(ParseError) as err:
        parse(path, text)
    assert field in err.value.field
    assert path.name in str(err.value)


def test_ingest_takes_the_tables_and_skips_the_readmes(tmp_path):
    for folder in ("nvidia_trtllm_perf_overview", "amd_rocm_vllm"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    (tmp_path / "amd_rocm_vllm" / "notes.md").write_text("# notes\nnot a table\n")
    files, skipped = collect([tmp_path / "nvidia_trtllm_perf_overview", tmp_path / "amd_rocm_vllm"])
    assert sorted(d for _, d in files) == [
        *(
            f"amd_rocm_vllm/dev-docker@{c}.md"
            for c in ("040de12d", "46476bdd", "68af0558", "7545048a", "7bb0618b", "c43debd4")
        ),
        "nvidia_trtllm_perf_overview/perf-overview@00f37686.md",
        "nvidia_trtllm_perf_overview/perf-overview@258c7540.md",
        "nvidia_trtllm_perf_overview/perf-overview@ab4143e1.md",
    ]
    assert sorted(s.display for s in skipped) == [
        "amd_rocm_vllm/README.md",
        "amd_rocm_vllm/notes.md",
        "nvidia_trtllm_perf_overview/README.md",
    ]


MLC = ROOT / "mlc_llm_perf_bench" / "llm-perf-bench@d401356f.md"


def test_mlc_single_stream_tables():
    result = parse(MLC)
    assert not result.row_errors
    assert len(result.benchmark_runs) == 47
    runs = by_ref(result)
    # "| Llama2-7B  | RTX 4090    | **204.8** | 177.46 | 151.1 |": three stacks, one sequence
    mlc = runs["line 32: MLC LLM (tok/sec)"]
    assert (mlc.model_id, mlc.model_params_b, mlc.precision) == ("Llama2-7B", 7.0, "int4")
    assert (mlc.gpu_name_raw, mlc.gpu_count, mlc.output_tokens_per_s) == ("RTX 4090", 1, 204.8)
    assert (mlc.scenario, mlc.concurrency, mlc.input_len, mlc.output_len) == (
        "single_stream", 1, 8, 256)  # fmt: skip
    # the stack's version: the commit of the page's setup list, with its date
    assert (mlc.serving_stack, mlc.serving_stack_version) == ("mlc-llm", "8e94910 (2023-10-04)")
    cpp = runs["line 32: Llama.cpp (tok/sec)"]
    assert (cpp.serving_stack, cpp.serving_stack_version, cpp.output_tokens_per_s) == (
        "llama.cpp", "9476b01 (2023-10-02)", 151.1)  # fmt: skip
    assert mlc.organization == cpp.organization == "MLC"
    # "Llama2-70B | A100 x 2 | **17.0** | N/A | 10.46 | 15.27" (FP16, GPUs on PCIe): vLLM on
    # two A100 PCIe; N/A is no run, llama.cpp's layer split across GPUs is left out
    vllm = runs["line 39: vLLM (tok/sec)"]
    assert (vllm.gpu_name_raw, vllm.gpu_count, vllm.tensor_parallel, vllm.precision) == (
        "A100 PCIe", 2, 2, "fp16")  # fmt: skip
    assert (vllm.serving_stack_version, vllm.output_tokens_per_s) == ("acbed3e (2023-10-06)", 15.27)
    assert "line 39: Exllama V2 (tok/sec)" not in runs
    assert "line 39: Llama.cpp (tok/sec)" not in runs
    # a blank model cell is the model above: CodeLlama-34B on 8 x A10G in 4-bit, MLC
    assert runs["line 61: MLC-LLM"].model_id == "CodeLlama-34B"
    assert runs["line 61: MLC-LLM"].output_tokens_per_s == 84.2


def test_mlc_a_column_of_an_unknown_stack_fails_the_file():
    text = MLC.read_text().replace("| vLLM (tok/sec) |", "| TGI (tok/sec) |")
    with pytest.raises(ParseError) as err:
        parse(MLC, text)
    assert err.value.field == "TGI (tok/sec)" and "names no known stack" in str(err.value)


def test_the_operator_names_the_publisher_of_files_that_do_not_say():
    # `gpuledger ingest --organization XiongjieDai ...`: the hint travels in the archive URL
    path = ROOT / "llamacpp_xiongjiedai" / "llama3_may2024" / "single_gpu_decode.csv"
    url = benchmark_files.file_url("llama3_may2024/single_gpu_decode.csv",
                                   {"organization": "XiongjieDai"})  # fmt: skip
    assert url.endswith("#organization=XiongjieDai")
    runs = benchmark_files.parse(path.read_bytes(), url, T).benchmark_runs
    assert runs and {r.organization for r in runs} == {"XiongjieDai"}
    # a reader's own publisher is not overridden: the table's organization stands
    ours = benchmark_files.parse(TRT_100.read_bytes(), benchmark_files.file_url(
        "perf-overview@00f37686.md", {"organization": "someone"}), T).benchmark_runs  # fmt: skip
    assert {r.organization for r in ours} == {"NVIDIA"}


TRT_020 = ROOT / "nvidia_trtllm_perf_overview" / "perf-overview@ab4143e1.md"


def test_trtllm_020_gpu_over_columns_and_a_tp_row():
    result = parse(TRT_020)
    assert not result.row_errors
    assert len(result.benchmark_runs) == 180
    runs = by_ref(result)
    # "#### Llama 3.3 70B FP4": B200 over four columns, TP 1/2/4/8; "1000, 1000" at TP 8
    tp8 = runs["line 41: B200 TP8"]
    assert (tp8.model_id, tp8.precision, tp8.gpu_name_raw, tp8.gpu_count) == (
        "nvidia/Llama-3.3-70B-Instruct-FP4", "fp4", "B200", 8)  # fmt: skip
    assert (tp8.input_len, tp8.output_len, tp8.output_tokens_per_s) == (1000, 1000, 20060.66)
    # the release from the page: "The data collected for the v0.20 benchmarks ..."
    assert (tp8.serving_stack_version, tp8.scenario, tp8.concurrency) == (
        "0.20", "max_throughput", None)  # fmt: skip
    # the FP8 table's H100 columns after its H200 ones; a blank cell is no run
    h100 = [r for r in result.benchmark_runs if r.run_ref.endswith("H100 80GB HBM3 TP1")
            and r.model_id == "nvidia/Llama-3.3-70B-Instruct-FP8"]  # fmt: skip
    assert sorted(r.output_tokens_per_s for r in h100) == [
        204.94, 530.16, 533.74, 742.14, 756.42, 3128.33]  # fmt: skip


def test_trtllm_020_a_table_without_its_tp_row_fails_the_file():
    text = TRT_020.read_text().replace("| TP Size | 4        | 8         |",
                                       "| TP Size |          | 8         |")  # fmt: skip
    with pytest.raises(ParseError) as err:
        parse(TRT_020, text)
    assert err.value.field == "TP Size" and "has no GPU or TP size" in str(err.value)
