"""Which format a file is, from its content alone (never its name), and the table of readers."""

from __future__ import annotations

import csv
import json
from typing import Any

from sources._internal.parsing import decode_text
from sources._internal.records import ParseError
from sources.benchmarks.common import Context, check_numbers, json_document
from sources.benchmarks.csv_tables import gpuledger_csv, results_csv
from sources.benchmarks.genai_perf import aiperf_csv, genai_perf
from sources.benchmarks.inferencex import inferencex_run
from sources.benchmarks.llmperf import llmperf_individual, llmperf_summary
from sources.benchmarks.mlc_perf_bench import is_mlc_perf_bench, mlc_perf_bench
from sources.benchmarks.mlperf import mlperf_log_detail, mlperf_log_summary
from sources.benchmarks.mlperf_summary import mlperf_summary
from sources.benchmarks.optimum_benchmark import optimum_benchmark
from sources.benchmarks.rocm_vllm_tables import is_rocm_vllm_tables, rocm_vllm_tables
from sources.benchmarks.sglang import sglang_jsonl
from sources.benchmarks.trtllm import trtllm_console, trtllm_report_json
from sources.benchmarks.trtllm_perf_overview import is_perf_overview, trtllm_perf_overview
from sources.benchmarks.vllm import vllm_console, vllm_latency, vllm_serving, vllm_throughput


def is_published_table(text: str) -> bool:
    """A vendor's performance document gpuledger reads as results (Markdown tables)."""
    return is_perf_overview(text) or is_rocm_vllm_tables(text) or is_mlc_perf_bench(text)


def _csv_header(text: str) -> list[str]:
    first = text.lstrip("\ufeff").splitlines()[0] if text.strip() else ""
    return [h.strip().lower() for h in next(csv.reader([first]), [])]


def detect(content: bytes, where: str) -> tuple[str, Any]:
    """(format, decoded document) from the content. Raises ParseError for an empty file or one
    that is no benchmark result format gpuledger knows."""
    if not content.strip():
        raise ParseError(where, "<document>", "empty file")
    text = decode_text(content, where)
    stripped = text.lstrip("\ufeff").lstrip()
    if stripped.startswith(("{", "[")):
        lines = [ln for ln in stripped.splitlines() if ln.strip()]
        if (
            stripped.startswith("{")
            and len(lines) > 1
            and all(ln.lstrip().startswith("{") for ln in lines)
        ):
            try:
                first = json.loads(lines[0])
            except json.JSONDecodeError:
                first = None
            if isinstance(first, dict) and ("backend" in first or "output_throughput" in first):
                return "sglang_bench_serving", text
        try:
            doc = json.loads(stripped)
        except json.JSONDecodeError as exc:
            # a JSON document cut short fails late; a text that merely starts with a bracket
            # (trtllm-bench's log lines "[01/18/2025-01:01:42] [TRT-LLM] ...") fails at once
            if exc.pos >= len(stripped) // 2:
                json_document(content, where)  # raises: not valid JSON (truncated?)
        else:
            return _detect_json(doc, where), doc
    # vendors' published tables (Markdown) first: their documents quote tools' printed reports
    if is_perf_overview(text):
        return "trtllm_perf_overview", text
    if is_rocm_vllm_tables(text):
        return "rocm_vllm_tables", text
    if is_mlc_perf_bench(text):
        return "mlc_perf_bench", text
    if "Serving Benchmark Result" in text:
        return "vllm_console", text
    if "MLPerf Results Summary" in text:
        return "mlperf_log_summary", text
    if ":::MLLOG" in text:
        return "mlperf_log_detail", text
    if "= PERFORMANCE OVERVIEW" in text:
        return "trtllm_bench_console", text
    header = _csv_header(text)
    if header[:2] == ["metric", "avg"] or header[:2] == ["metric", "value"]:
        return "aiperf_csv", text
    if "run_kind" in header and "gpu" in header:
        return "gpuledger_csv", text
    if set(header) & {"output_throughput", "tokens_per_second", "output token throughput (tok/s)",
                      "mean_ttft_ms"}:  # fmt: skip
        return "results_csv", text
    raise ParseError(
        where,
        "<document>",
        "not a benchmark result format gpuledger knows (vLLM, SGLang, MLPerf, GenAI-Perf/AIPerf, "
        "InferenceX, LLMPerf, optimum-benchmark, trtllm-bench, gpuledger CSV, TensorRT-LLM's "
        "performance overview, the ROCm vLLM performance tables, MLC's llm-perf-bench)",
    )


def _detect_json(doc: Any, where: str) -> str:
    if isinstance(doc, dict):
        keys = set(doc)
        if "backend" in keys and keys & {"dataset_name", "median_e2e_latency_ms"}:
            return "sglang_bench_serving"  # a JSONL file of one run
        if "ttfts" in keys or (
            {"request_throughput", "completed"} <= keys and "mean_ttft_ms" in keys
        ):
            return "vllm_serving"
        if {"median_ttft", "request_throughput"} <= keys:
            return "vllm_serving"
        if {"elapsed_time", "num_requests", "tokens_per_second"} <= keys:
            return "vllm_throughput"
        if {"avg_latency", "latencies"} <= keys:
            return "vllm_latency"
        if "time_to_first_token" in keys and "request_throughput" in keys:
            return "genai_perf"
        if "hw" in keys and keys & {"tput_per_gpu", "total_tput_tps", "infmax_model_prefix"}:
            return "inferencex_run"
        if any(k.startswith("results_ttft_s") for k in keys):
            return "llmperf_summary"
        if {"config", "report"} <= keys:
            return "optimum_benchmark"
        if "accelerator_model_name" in keys and "accelerators_per_node" in keys:
            return "mlperf_system"
        if {"weight_data_types", "starting_weights_filename"} <= keys:
            return "mlperf_measurements"
        if {"engine", "performance", "request_info"} <= keys:
            return "trtllm_bench_json"
        # v6.1's summary.json: pandas' index layout, {"0": {record}, "1": ...}
        first = doc.get("0")
        if isinstance(first, dict) and {"Organization", "Result", "Units"} <= set(first):
            return "mlperf_summary_results"
    if isinstance(doc, list) and doc and all(isinstance(r, dict) for r in doc):
        first = doc[0]
        if "Performance_Result" in first and ("Accelerator" in first or "Platform" in first):
            return "mlperf_summary_results"
        if "hw" in first and set(first) & {"tput_per_gpu", "total_tput_tps", "infmax_model_prefix"}:
            return "inferencex_agg"
        if "ttft_s" in first and "end_to_end_latency_s" in first:
            return "llmperf_individual"
    kind = "object with keys " + ", ".join(sorted(doc)[:12]) if isinstance(doc, dict) else (
        f"array of {len(doc)}" if isinstance(doc, list) else type(doc).__name__)  # fmt: skip
    raise ParseError(
        where, "<document>", f"JSON is no benchmark result format gpuledger knows ({kind})"
    )


def parse_document(fmt: str, doc: Any, ctx: Context) -> list:
    if isinstance(doc, dict):
        check_numbers(doc, ctx.where)
    elif isinstance(doc, list) and fmt in ("inferencex_agg", "mlperf_summary_results"):
        for i, rec in enumerate(doc):
            check_numbers(rec, ctx.where, f"[{i}].")
    reader = READERS.get(fmt)
    if reader is None:
        raise ParseError(ctx.where, "<document>", f"no reader for format {fmt!r}")
    out = reader(doc, ctx)
    return out if isinstance(out, list) else [out]


def _sglang(doc, ctx):
    return sglang_jsonl(doc if isinstance(doc, str) else json.dumps(doc), ctx)


def _inferencex_agg(doc, ctx):
    return [inferencex_run(r, ctx, f"[{i}]") for i, r in enumerate(doc)]


# format -> reader; a reader returns one run or a list of runs
READERS = {
    "vllm_serving": vllm_serving,
    "vllm_throughput": vllm_throughput,
    "vllm_latency": vllm_latency,
    "vllm_console": vllm_console,
    "sglang_bench_serving": _sglang,
    "mlperf_summary_results": mlperf_summary,
    "mlperf_log_summary": mlperf_log_summary,
    "mlperf_log_detail": mlperf_log_detail,
    "mlperf_system": lambda doc, ctx: [],  # hardware for the results beside it, no run of its own
    "mlperf_measurements": lambda doc, ctx: [],  # precision of the results of its system
    "trtllm_bench_console": trtllm_console,
    "trtllm_bench_json": trtllm_report_json,
    "genai_perf": genai_perf,
    "aiperf_csv": aiperf_csv,
    "inferencex_run": inferencex_run,
    "inferencex_agg": _inferencex_agg,
    "llmperf_summary": llmperf_summary,
    "llmperf_individual": llmperf_individual,
    "optimum_benchmark": optimum_benchmark,
    "gpuledger_csv": gpuledger_csv,
    "results_csv": results_csv,
    "trtllm_perf_overview": trtllm_perf_overview,
    "rocm_vllm_tables": rocm_vllm_tables,
    "mlc_perf_bench": mlc_perf_bench,
}
