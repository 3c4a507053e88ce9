"""Benchmark result files: the measurements behind every throughput and latency gpuledger uses.

Files arrive through `gpuledger ingest PATH...` (files or folders) or the inbox folder
($GPULEDGER_HOME/inbox) the daily refresh picks up. Each file is archived by content hash under
the URL `file:<path as ingested>` (plus `#hints` when the operator named the hardware), so the
same file ingested twice changes nothing and the warehouse can be rebuilt from the archive.

The format is detected from the content, never the file name (sources/benchmarks/ has one module
per tool, the detection and the shared rules for units, percentiles and hardware):

- vllm_serving: vLLM `benchmark_serving --save-result` / `vllm bench serve` JSON, the old layout
  (per-request arrays) and the new one (request_goodput, max_concurrency)
- vllm_throughput, vllm_latency: vLLM `benchmark_throughput` / `benchmark_latency` JSON
- vllm_console: the "Serving Benchmark Result" text block(s) benchmark_serving prints
- sglang_bench_serving: SGLang `bench_serving --output-file` JSONL (`Infinity` allowed; a
  `server_info` object, where newer versions write one, names the model path, TP size and
  quantization)
- mlperf_summary_results: an MLPerf Inference round's summary (`summary_results.json`, an array,
  or v6.1's `summary.json`, a pandas index-layout object): closed-division LLM token-throughput
  records become runs with their submitter, round, system, scenario, division and suite; other
  benchmarks and units are skipped with the reason (sources/benchmarks/mlperf_summary.py)
- mlperf_log_summary, mlperf_log_detail: MLPerf Inference results. In
  MLCommons' results tree (closed/<submitter>/results/<system>/<benchmark>/<scenario>/
  performance/run_1/) the benchmark folder names the model, closed/<submitter>/systems/
  <system>.json the GPU and its count (accelerators_per_node x number_of_nodes) and
  closed/<submitter>/measurements/<system>/<benchmark>/<scenario>/*.json the precision
  (weight_data_types); outside a tree, a `systems/*.json` beside a summary names its hardware
  (mlperf_system, mlperf_measurements: no run of their own). Accuracy and compliance runs are
  skipped, and a run's mlperf_log_detail.txt when its mlperf_log_summary.txt is beside it.
- trtllm_bench_console, trtllm_bench_json: TensorRT-LLM `trtllm-bench` (throughput, latency):
  the printed report (PERFORMANCE OVERVIEW) and `--report_json`
- genai_perf, aiperf, aiperf_csv: NVIDIA GenAI-Perf / AIPerf `profile_export*.json`, AIPerf CSV
- inferencex_run, inferencex_agg: InferenceX per-run JSON and aggregated arrays
- llmperf_summary, llmperf_individual: Anyscale LLMPerf (hosted APIs: no GPU, `api_provider`)
- optimum_benchmark: Hugging Face optimum-benchmark report
- results_csv: CSV tables of vLLM results (dstack's flattenings, results.csv, console tables)
- trtllm_perf_overview, rocm_vllm_tables, mlc_perf_bench: published performance tables in
  Markdown (TensorRT-LLM's performance overview; the ROCm vLLM container README's throughput and
  latency tables; MLC's llm-perf-bench README), one run per table cell, with `organization` set
  (NVIDIA, AMD, MLC); a Markdown file that is such a table is a result, any other is
  documentation (docs/evidence.md)
- gpuledger_csv: the documented CSV below, for in-house runs

The gpuledger CSV (one run a row; header names, any order; required: run_kind, model, gpu,
gpu_count):

    measured_at, run_kind (inference | training | fine_tuning | image_generation | embedding),
    model, params_b, precision, serving_stack, serving_stack_version, gpu, gpu_count,
    tensor_parallel, input_len, output_len, concurrency, request_rate, attempted, completed,
    failed, output_tokens_per_s, total_tokens_per_s, output_unit (tokens | samples | images),
    output_units_per_s (samples or images per second), ttft_p50_ms, ttft_p95_ms, ttft_p99_ms,
    tpot_p50_ms, tpot_p95_ms, tpot_p99_ms, e2e_p50_ms, e2e_p95_ms, e2e_p99_ms,
    time_to_complete_s (a training or fine-tuning run), notes

Operator hints (`gpuledger ingest --gpu "H200 SXM" --gpu-count 4 --model ... --precision ...`)
name what a file does not; they never override the file's own hardware fields.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from urllib.parse import parse_qsl, urlencode

from sources import benchmarks
from sources._internal.http import fetch_page as fetch  # noqa: F401 (files are ingested, not fetched)
from sources._internal.records import ParseError, ParseResult, RowError

NAME = "benchmark_files"
KIND = "benchmark"
PARSER_VERSION = "1"
EXPECTED_ROWS = (0, 1_000_000)  # an MLPerf system description carries no run of its own
HINT_KEYS = ("gpu", "gpu_count", "model", "precision", "stack", "stack_version",
             "tensor_parallel", "hardware_source", "organization",
             "precision_source")  # fmt: skip
MAX_FILE_BYTES = int(float(os.environ.get("GPULEDGER_MAX_BENCHMARK_MB", "64")) * 1024 * 1024)


def urls(as_of=None) -> tuple[str, ...]:
    return ()  # files come from `gpuledger ingest` and the inbox


def file_url(display_path: str, hints: dict[str, str] | None = None) -> str:
    """The archive URL of an ingested file: its path as ingested, plus the operator's hints."""
    clean = {k: str(v) for k, v in (hints or {}).items() if k in HINT_KEYS and v not in (None, "")}
    fragment = f"#{urlencode(sorted(clean.items()))}" if clean else ""
    return f"file:{display_path.replace(os.sep, '/')}{fragment}"


def split_url(url: str) -> tuple[str, dict[str, str]]:
    path, _, fragment = url.partition("#")
    if path.startswith("file:"):
        path = path[len("file:") :]
    return path, dict(parse_qsl(fragment))


def parse(content: bytes, url: str, fetched_at: datetime) -> ParseResult:
    path, hints = split_url(url)
    ctx = benchmarks.Context(where=path, path=path, hints=hints)
    fmt, doc = benchmarks.detect(content, path)
    runs, errors, skipped = [], [], []
    for item in benchmarks.parse_document(fmt, doc, ctx):
        if isinstance(item, benchmarks.RowProblem):
            errors.append(RowError(path, item.run_ref, "row", item.reason, item.raw))
            continue
        if isinstance(item, benchmarks.Problem):
            errors.append(RowError(path, item.run_ref, item.field, item.reason, item.raw))
            continue
        if isinstance(item, benchmarks.Skipped):
            skipped.append(RowError(path, item.run_ref, "<record>", item.reason, ""))
            continue
        if all(
            getattr(item, f) is None
            for f in (
                "output_tokens_per_s",
                "output_units_per_s",
                "total_tokens_per_s",
                "request_throughput_rps",
                "ttft_p50_ms",
                "e2e_p50_ms",
                "e2e_mean_ms",
                "tpot_p50_ms",
                "time_to_complete_s",
            )  # fmt: skip
        ):
            counted = (
                f" ({item.completed} of {item.attempted} requests completed)"
                if item.attempted is not None
                else ""
            )
            errors.append(
                RowError(
                    path,
                    item.run_ref,
                    "measurements",
                    f"no throughput or latency in this run{counted}",
                    json.dumps(item.as_dict(), default=str),
                )
            )
            continue
        runs.append(item)
    if fmt not in ("mlperf_system", "mlperf_measurements") and not runs and not errors:
        why = f" ({len(skipped)} records skipped: {skipped[0].reason})" if skipped else ""
        raise ParseError(path, "<document>", f"{fmt}: the file holds no run{why}")
    return ParseResult([], errors, benchmark_runs=runs, skipped=skipped)


def detect_format(content: bytes, where: str) -> str:
    return benchmarks.detect(content, where)[0]
