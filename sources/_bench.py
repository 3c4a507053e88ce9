"""Readers for the native result files of LLM-serving benchmarks, one function per format.

`detect(content, where)` names the format from the content alone (never the file name);
`PARSERS[format](content, ctx)` turns the file into `BenchmarkRun`s. The shared rules:

- Units are made explicit: every latency in milliseconds, every throughput per second for the
  whole system under test. A tool's seconds or nanoseconds are converted; its own numbers are
  otherwise copied, never rescaled.
- A statistic the file does not have stays None (InferenceX has p95 but no p99; SGLang's JSONL only
  medians): a p95 is never made up from a mean. Where the file keeps per-request arrays (vLLM's
  old `--save-result`, LLMPerf's per-request file, vLLM's latency script, optimum-benchmark's
  iteration latencies) the percentiles are computed from them (linear interpolation, as numpy and
  the tools themselves do) and `percentile_source` says `per_request`.
- Hardware, in order: the file's hardware fields (AIPerf GPU telemetry, MLPerf records,
  InferenceX `hw`, optimum-benchmark's environment, a `gpu` column) -> `file`; an MLPerf system
  description beside the result -> `system_description`; what the operator passed to
  `gpuledger ingest --gpu/--gpu-count` -> `operator`; only when nothing else names it, the
  file-name convention below -> `file_name`. Hosted-API measurements (LLMPerf) -> `api`.
- File-name convention (documented, used last): in the file's path as ingested, a token
  `<N>x<GPU>` ("8xH100SXM5", "throughput_8xMI300x", "pd_ratio_8xH200") or `<GPU>x<N>` after a
  vendor word ("NVIDIA_H200-SXM-141GBx8") names the GPU and its count; `in<N>`/`ip<N>`/`isl<N>`
  and `out<N>`/`op<N>`/`osl<N>` the input/output lengths; `np<N>` the batch, `req<N>` the
  requests, `conc<N>` the concurrency, `tp<N>` the tensor parallelism. A model name in the path
  ("llama3.1-405b-fp8", "Meta-Llama-3.1-405B-Instruct-FP8-KV") is used when the file has none.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import numpy as np

from sources._parsing import decode_text
from sources.records import BenchmarkRun, ParseError

# ---------------------------------------------------------------- context and shared helpers


@dataclass
class Context:
    where: str  # the file as ingested (path text, used for naming and the file-name convention)
    path: str
    hints: dict[str, str] = field(default_factory=dict)  # operator / system-description hints


GPU_TOKEN = (
    r"(?:H100|H200|H20|B200|B300|GB200|GB300|GH200|A100|A10G?|A40|A30|L40S?|L4|T4|V100|P100|"
    r"MI300X|MI325X|MI355X|MI300A|MI250X?|MI210|RTX[A-Z0-9]*|GAUDI\d)"
)
# what may follow a GPU name and still belong to it: form factor and memory ("SXM5", "-NVL",
# "-141GB"); anything else ("-meta-Llama-...") is not part of the GPU's name
GPU_SUFFIX = r"(?:[-_ ]?(?:SXM\d?|PCIE|NVL|NVLINK|HGX|\d{2,3}GB))*"
_N_X_GPU = re.compile(
    rf"(?<![A-Za-z0-9])(\d{{1,3}})\s*[xX]\s*({GPU_TOKEN}{GPU_SUFFIX})(?![A-Za-z0-9])", re.I
)
_GPU_X_N = re.compile(rf"({GPU_TOKEN}{GPU_SUFFIX})[xX](\d{{1,3}})(?![A-Za-z0-9])", re.I)
_BARE_GPU = re.compile(rf"(?<![A-Za-z0-9])({GPU_TOKEN}{GPU_SUFFIX})(?![A-Za-z0-9])", re.I)
_SHAPE = {
    "input_len": re.compile(r"(?:^|[_\-/])(?:in|ip|isl)(\d+)(?=[_\-./]|$)", re.I),
    "output_len": re.compile(r"(?:^|[_\-/])(?:out|op|osl)(\d+)(?=[_\-./]|$)", re.I),
    "batch": re.compile(r"(?:^|[_\-/])np(\d+)(?=[_\-./]|$)", re.I),
    "requests": re.compile(r"(?:^|[_\-/])req(\d+)(?=[_\-./]|$)", re.I),
    "concurrency": re.compile(r"(?:^|[_\-/])conc(\d+)(?=[_\-./]|$)", re.I),
    "tensor_parallel": re.compile(r"(?:^|[_\-/])tp(\d+)(?=[_\-./]|$)", re.I),
}
_MODEL_IN_PATH = re.compile(
    r"((?:meta-)?llama[-_.]?\d(?:[.\-]\d)?[-_.]?\d+b[\w.\-]*?|gpt-oss-\d+b|deepseek[\w.\-]*|"
    r"qwen[\d.]+[\w.\-]*?|mixtral[\w.\-]*?)(?=[/_]|\.json|$)",
    re.I,
)
_PARAMS = re.compile(r"(?<![\dx])(\d+(?:\.\d+)?)\s*b(?![a-z])", re.I)
_PRECISION = re.compile(r"(mxfp4|nvfp4|fp4|fp8|int8|int4|w4a16|w8a8|awq|gptq|bf16|fp16)", re.I)
STACKS = ("vllm", "sglang", "tgi", "trtllm", "tensorrt-llm", "tensorrt", "lmdeploy", "llama.cpp")


def params_b(model: str | None) -> float | None:
    """Parameters in billions from a model name: "Llama-3.1-405B-FP8" -> 405, "llama2-70b-99" ->
    70, "gpt-oss-20b" -> 20. None when the name does not say (a model reference table may)."""
    if not model:
        return None
    m = _PARAMS.search(model.replace("_", "-"))
    return float(m.group(1)) if m else None


def precision_of(*texts: str | None) -> str | None:
    for text in texts:
        if text:
            m = _PRECISION.search(text)
            if m:
                p = m.group(1).lower()
                return {"mxfp4": "fp4", "nvfp4": "fp4", "w4a16": "int4", "w8a8": "int8"}.get(p, p)
    return None


def path_gpu(path: str) -> tuple[str, int | None] | None:
    """GPU name and count from the path convention, nearest component first; a component that
    names a GPU without a count ("amd_tgi_vs_vllm_MI300X") gives the GPU and no count."""
    parts = list(reversed(re.split(r"[/\\]", path)))
    for part in parts:
        m = _N_X_GPU.search(part)
        if m:
            return m.group(2), int(m.group(1))
        m = _GPU_X_N.search(part)
        if m:
            return m.group(1), int(m.group(2))
    for part in parts:
        found = {g.upper() for g in _BARE_GPU.findall(part.replace("_vs_", " "))}
        if len(found) == 1:  # "h100sxm5_vs_mi300x" names two: no guess
            return _BARE_GPU.search(part).group(1), None
    return None


def path_shape(path: str) -> dict[str, int]:
    name = path.replace("\\", "/")
    out = {}
    for key, pattern in _SHAPE.items():
        found = pattern.findall(name)
        if found:
            out[key] = int(found[-1])
    return out


def path_model(path: str) -> str | None:
    for part in reversed(path.replace("\\", "/").split("/")):
        m = _MODEL_IN_PATH.search(part)
        if m:
            return m.group(1).strip("-_.")
    return None


def path_stack(path: str) -> str | None:
    """The serving stack named in the path, nearest component first."""
    for part in reversed(re.split(r"[/\\]", path.lower())):
        tokens = re.split(r"[_\-.]", part)
        for stack in STACKS:
            if stack in tokens:
                return stack
    return None


def split_stack(text: str | None) -> tuple[str | None, str | None]:
    """ "vLLM 0.4.3+rocm614, PyTorch 2.3.0" -> ("vllm", "0.4.3+rocm614"); "TensorRT 10.2.0" ->
    ("tensorrt", "10.2.0"). The first component of a software list is the serving stack."""
    first = str(text or "").split(",")[0].strip()
    if not first:
        return None, None
    m = re.match(r"^(.*?)[\s:]+v?(\d[\w.+\-]*)$", first)
    if m:
        return m.group(1).strip().lower(), m.group(2)
    return first.lower(), None


def num(value: Any) -> float | None:
    """A finite number or None ("inf", None, "", NaN -> None)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def whole(value: Any) -> int | None:
    out = num(value)
    return int(round(out)) if out is not None else None


def pct(values: list[float], q: float) -> float | None:
    vals = [v for v in values if v is not None and math.isfinite(v)]
    return float(np.percentile(vals, q)) if vals else None


def stats_ms(values: list[float], scale: float = 1.0) -> dict[str, float | None]:
    """mean/p50/p95/p99 of per-request values, scaled to milliseconds."""
    vals = [v * scale for v in values if v is not None and math.isfinite(v)]
    if not vals:
        return {"mean": None, "p50": None, "p95": None, "p99": None}
    return {
        "mean": float(np.mean(vals)),
        "p50": pct(vals, 50),
        "p95": pct(vals, 95),
        "p99": pct(vals, 99),
    }


def _latency_fields(prefix: str, s: dict[str, float | None]) -> dict[str, float | None]:
    return {f"{prefix}_{k}_ms": v for k, v in s.items()}


def summary_latencies(d: dict, *, seconds: bool = False) -> dict[str, float | None]:
    """vLLM/SGLang-style summary keys: mean_ttft_ms, median_tpot_ms, p99_itl_ms, p95_e2el_ms ...
    (or without _ms, in seconds, as InferenceX's vLLM fork writes them)."""
    out: dict[str, float | None] = {}
    names = {"ttft": ("ttft",), "tpot": ("tpot",), "itl": ("itl",), "e2e": ("e2el", "e2e_latency")}
    stats = {"mean": "mean", "median": "p50", "p50": "p50", "p95": "p95", "p99": "p99"}
    for target, sources in names.items():
        for src in sources:
            for stat, label in stats.items():
                key = f"{stat}_{src}" + ("" if seconds else "_ms")
                value = num(d.get(key))
                if value is not None and out.get(f"{target}_{label}_ms") is None:
                    out[f"{target}_{label}_ms"] = value * 1000 if seconds else value
    return out


def parse_stamp(text: Any) -> datetime | None:
    """Timestamps as tools write them; a zone-less one is taken as UTC."""
    if text is None or text == "":
        return None
    if isinstance(text, int | float) and not isinstance(text, bool):
        return datetime.fromtimestamp(float(text), UTC)
    for fmt in ("%Y%m%d-%H%M%S", "%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S",
                "%Y-%m-%d"):  # fmt: skip
        try:
            return datetime.strptime(str(text), fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    try:
        stamp = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


def base_run(ctx: Context, run_ref: str, fmt: str, tool: str, **fields) -> BenchmarkRun:
    """A run with the shared rules applied: model, precision, stack and hardware by priority."""
    hints = ctx.hints
    shape = path_shape(ctx.path)
    model = fields.pop("model_id", None)
    model_source = "file" if model else None
    if not model and hints.get("model"):
        model, model_source = hints["model"], "operator"
    if not model:
        model = path_model(ctx.path)
        model_source = "file_name" if model else None
    gpu, count = fields.pop("gpu_name_raw", None), fields.pop("gpu_count", None)
    hw = fields.pop("hardware_source", None)
    if gpu:
        hw = hw or "file"
    elif hw == "api":
        pass
    elif hints.get("gpu"):
        gpu = hints["gpu"]
        count = count or whole(hints.get("gpu_count"))
        hw = hints.get("hardware_source", "operator")
    else:
        found = path_gpu(ctx.path)
        if found:
            gpu, count = found[0], count or found[1]
            hw = "file_name"
        else:
            hw = "none"
    if (
        gpu
        and count is None
        and hints.get("gpu_count")
        and hw in ("operator", "system_description")
    ):
        count = whole(hints["gpu_count"])
    defaults: dict[str, Any] = {
        "tool_version": None,
        "precision": precision_of(hints.get("precision"), model, ctx.path),
        "serving_stack": hints.get("stack") or path_stack(ctx.path),
        "serving_stack_version": hints.get("stack_version"),
        "api_provider": None,
        "tensor_parallel": whole(hints.get("tensor_parallel")) or shape.get("tensor_parallel"),
        "run_kind": "inference",
        "scenario": None,
        "input_len": shape.get("input_len"),
        "output_len": shape.get("output_len"),
        "concurrency": shape.get("concurrency"),
        "request_rate": None,
        "attempted": None,
        "completed": None,
        "failed": None,
        "goodput_rps": None,
        "duration_s": None,
        "request_throughput_rps": None,
        "output_tokens_per_s": None,
        "total_tokens_per_s": None,
        "output_unit": "tokens",
        "output_units_per_s": None,
    }
    for key, value in fields.items():
        if value is not None or key not in defaults:
            defaults[key] = value
    if defaults["precision"] is None:
        defaults["precision"] = precision_of(hints.get("precision"), model, ctx.path)
    if defaults["output_unit"] == "tokens" and defaults["output_units_per_s"] is None:
        defaults["output_units_per_s"] = defaults["output_tokens_per_s"]
    return BenchmarkRun(
        run_ref=run_ref,
        format=fmt,
        tool=tool,
        model_id=model,
        model_params_b=params_b(model) if model else None,
        gpu_name_raw=gpu,
        gpu_count=count,
        hardware_source=hw,
        model_source=model_source,
        **defaults,
    )


def _json(content: bytes, where: str, *, allow_nonfinite: bool = True):
    text = decode_text(content, where)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(
            where,
            f"line {exc.lineno} column {exc.colno}",
            f"not valid JSON (truncated?): {exc.msg}",
        ) from exc


def _rate(value: Any) -> float | None:
    """A request rate; "inf" (send everything at once) -> None."""
    return num(value)


# ---------------------------------------------------------------- vLLM


def vllm_serving(doc: dict, ctx: Context, run_ref: str = "document") -> BenchmarkRun:
    """`benchmark_serving.py --save-result` / `vllm bench serve --save-result` JSON, old layout
    (per-request arrays ttfts/itls/input_lens/output_lens/errors) and new (summary only,
    request_goodput, max_concurrency), and the seconds-based variant without `_ms` keys."""
    seconds = "median_ttft" in doc and "median_ttft_ms" not in doc
    completed = whole(doc.get("completed"))
    attempted = whole(doc.get("num_prompts"))
    source = "tool_summary"
    ttfts = doc.get("ttfts")
    if isinstance(ttfts, list) and ttfts:
        # TTFT and ITL from the per-request arrays. TPOT and end-to-end latency need each
        # request's total latency, which this layout does not keep (TTFT + the ITLs stops at the
        # last chunk): TPOT comes from the tool's own summary, end-to-end stays unknown.
        errors = doc.get("errors") or [""] * len(ttfts)
        itls = doc.get("itls") or [[] for _ in ttfts]
        ok = [i for i in range(len(ttfts)) if not errors[i] and num(ttfts[i]) is not None]
        all_itls = [g for i in ok for g in (itls[i] or []) if num(g) is not None]
        lat = {k: v for k, v in summary_latencies(doc).items() if k.startswith("tpot_")}
        lat.update(_latency_fields("ttft", stats_ms([ttfts[i] for i in ok], 1000)))
        lat.update(_latency_fields("itl", stats_ms(all_itls, 1000)))
        source = "per_request"
        failed = sum(1 for e in errors if e)
        attempted = attempted or len(ttfts)
    else:
        lat = summary_latencies(doc, seconds=seconds)
        failed = attempted - completed if attempted is not None and completed is not None else None
    in_tok, out_tok = num(doc.get("total_input_tokens")), num(doc.get("total_output_tokens"))
    return base_run(
        ctx,
        run_ref,
        "vllm_serving",
        "vllm benchmark_serving",
        model_id=doc.get("model_id"),
        serving_stack=(doc.get("backend") if doc.get("backend") in STACKS else None),
        scenario="online",
        input_len=in_tok / completed if in_tok and completed else None,
        output_len=out_tok / completed if out_tok and completed else None,
        concurrency=num(doc.get("max_concurrency")),
        request_rate=_rate(doc.get("request_rate")),
        attempted=attempted,
        completed=completed,
        failed=failed,
        goodput_rps=num(doc.get("request_goodput")),
        duration_s=num(doc.get("duration")),
        request_throughput_rps=num(doc.get("request_throughput")),
        output_tokens_per_s=num(doc.get("output_throughput")),
        total_tokens_per_s=num(doc.get("total_token_throughput")),
        percentile_source=source,
        measured_at=parse_stamp(doc.get("date")),
        **lat,
    )


def vllm_throughput(doc: dict, ctx: Context) -> BenchmarkRun:
    """`benchmark_throughput.py --output-json`: offline batch; lengths only in the file name."""
    shape = path_shape(ctx.path)
    n = whole(doc.get("num_requests"))
    rps = num(doc.get("requests_per_second"))
    out_len = shape.get("output_len")
    return base_run(
        ctx,
        "document",
        "vllm_throughput",
        "vllm benchmark_throughput",
        scenario="offline",
        attempted=n,
        duration_s=num(doc.get("elapsed_time")),
        request_throughput_rps=rps,
        # each request generates exactly output_len tokens in this script (ignore_eos)
        output_tokens_per_s=rps * out_len if rps is not None and out_len else None,
        total_tokens_per_s=num(doc.get("tokens_per_second")),
        concurrency=shape.get("batch") or shape.get("requests") or n,
    )


def vllm_latency(doc: dict, ctx: Context) -> BenchmarkRun:
    """`benchmark_latency.py --output-json`: seconds per batch iteration (`latencies`)."""
    shape = path_shape(ctx.path)
    lats = [num(v) for v in doc.get("latencies") or []]
    lat = _latency_fields("e2e", stats_ms([v for v in lats if v is not None], 1000))
    batch, out_len = shape.get("batch"), shape.get("output_len")
    mean_s = num(doc.get("avg_latency"))
    return base_run(
        ctx,
        "document",
        "vllm_latency",
        "vllm benchmark_latency",
        scenario="offline",
        concurrency=batch,
        output_tokens_per_s=batch * out_len / mean_s if batch and out_len and mean_s else None,
        percentile_source="per_request" if lats else None,
        **lat,
    )


_CONSOLE = {
    "successful requests": "completed",
    "benchmark duration (s)": "duration_s",
    "total input tokens": "total_input",
    "total generated tokens": "total_output",
    "request throughput (req/s)": "request_throughput_rps",
    "request goodput (req/s)": "goodput_rps",
    "output token throughput (tok/s)": "output_tokens_per_s",
    "total token throughput (tok/s)": "total_tokens_per_s",
    "maximum request concurrency": "concurrency",
    "traffic request rate": "request_rate",
    "failed requests": "failed",
}
_CONSOLE_LAT = re.compile(r"^(mean|median|p(\d+(?:\.\d+)?)) (ttft|tpot|itl|e2el) \(ms\)$")


def vllm_console(text: str, ctx: Context) -> list[BenchmarkRun]:
    """The text block benchmark_serving prints ("==== Serving Benchmark Result ===="), one or
    many per file. Lines before the blocks may name the backend ("vllm", "tgi") and list the
    prompt counts ("num_prompts: 1, 2, 4") and input length ("seq_length: 80") of the blocks."""
    runs, stack, prompts, block, seq_len = [], None, [], None, None
    index = 0
    for raw_line in text.splitlines():
        line = raw_line.strip()
        low = line.lower()
        if "serving benchmark result" in low:
            block = {}
            continue
        if block is None:
            if low.rstrip() in STACKS:
                stack = low.rstrip()
            elif low.startswith("num_prompt"):
                prompts = [whole(x) for x in re.findall(r"\d+", line.split(":", 1)[-1])]
                index = 0
            elif low.startswith("seq_length"):
                seq_len = whole(line.split(":", 1)[-1])
            continue
        if line.startswith("====") and block is not None:
            runs.append(_console_run(block, ctx, len(runs) + 1, stack, prompts, index, seq_len))
            index += 1
            block = None
            continue
        if ":" in line:
            label, _, value = line.partition(":")
            label = label.strip().lower()
            if label in _CONSOLE:
                block[_CONSOLE[label]] = num(value.strip())
            else:
                m = _CONSOLE_LAT.match(label)
                if m:
                    stat = (
                        "mean"
                        if m.group(1) == "mean"
                        else "p50"
                        if m.group(1) == "median"
                        else f"p{m.group(2)}"
                    )
                    metric = "e2e" if m.group(3) == "e2el" else m.group(3)
                    if stat in ("mean", "p50", "p95", "p99"):
                        block[f"{metric}_{stat}_ms"] = num(value.strip())
    if block:  # a block cut off at the end of the file
        raise ParseError(
            ctx.where, f"block {len(runs) + 1}", "result block not closed (truncated?)"
        )
    return runs


def _printed(value: float | None) -> float | None:
    """A throughput printed with two decimals: 0.00 means below 0.005, not zero -> unknown."""
    return None if value == 0 else value


def _console_run(block, ctx, n, stack, prompts, index, seq_len) -> BenchmarkRun:
    for key in (
        "request_throughput_rps",
        "goodput_rps",
        "output_tokens_per_s",
        "total_tokens_per_s",
    ):
        if key in block:
            block[key] = _printed(block[key])
    completed = whole(block.pop("completed", None))
    total_in, total_out = block.pop("total_input", None), block.pop("total_output", None)
    attempted = prompts[index] if index < len(prompts) else None
    failed = whole(block.pop("failed", None))
    if failed is None and attempted is not None and completed is not None:
        failed = attempted - completed
    return base_run(
        ctx,
        f"block {n}",
        "vllm_console",
        "vllm benchmark_serving (console)",
        serving_stack=stack,
        scenario="online",
        attempted=attempted,
        completed=completed,
        failed=failed,
        input_len=(total_in / completed if total_in and completed else seq_len),
        output_len=total_out / completed if total_out and completed else None,
        percentile_source="tool_summary",
        **block,
    )


# ---------------------------------------------------------------- SGLang


def sglang_jsonl(text: str, ctx: Context) -> list[BenchmarkRun]:
    """`python -m sglang.bench_serving --output-file`: one JSON object a line, appended per run;
    `Infinity` (request_rate of an offline run) is read as no rate."""
    runs = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ParseError(ctx.where, f"line {n}", f"not valid JSON: {exc.msg}") from exc
        if not isinstance(doc, dict):
            raise ParseError(ctx.where, f"line {n}", "not a JSON object")
        check_numbers(doc, ctx.where, f"line {n}: ")
        completed = whole(doc.get("completed"))
        duration = num(doc.get("duration"))
        in_tok, out_tok = num(doc.get("total_input_tokens")), num(doc.get("total_output_tokens"))
        attempted = whole(doc.get("num_prompts"))
        rps = num(doc.get("request_throughput"))
        if rps is None and completed and duration:
            rps = completed / duration
        total = num(doc.get("total_throughput"))
        if total is None and duration and in_tok is not None and out_tok is not None:
            total = (in_tok + out_tok) / duration
        runs.append(
            base_run(
                ctx,
                f"line {n}",
                "sglang_bench_serving",
                "sglang bench_serving",
                model_id=doc.get("model_id") or doc.get("model"),
                serving_stack=doc.get("backend") if doc.get("backend") in STACKS else None,
                scenario="offline" if num(doc.get("request_rate")) is None else "online",
                input_len=in_tok / completed if in_tok and completed else None,
                output_len=out_tok / completed if out_tok and completed else None,
                concurrency=num(doc.get("max_concurrency")),
                request_rate=_rate(doc.get("request_rate")),
                attempted=attempted,
                completed=completed,
                failed=attempted - completed if attempted and completed is not None else None,
                duration_s=duration,
                request_throughput_rps=rps,
                output_tokens_per_s=num(doc.get("output_throughput")),
                total_tokens_per_s=total,
                percentile_source="tool_summary",
                **summary_latencies(doc),
            )
        )
    return runs


# ---------------------------------------------------------------- MLPerf


def mlperf_summary_results(doc: list, ctx: Context) -> list[BenchmarkRun]:
    """MLPerf Inference `summary_results.json`: one record per (system, model, scenario)."""
    runs = []
    for i, rec in enumerate(doc):
        if not isinstance(rec, dict):
            raise ParseError(ctx.where, f"[{i}]", "not a result record")
        units = str(rec.get("Performance_Units") or "")
        value = num(rec.get("Performance_Result"))
        unit = (
            "tokens"
            if "token" in units.lower()
            else "samples"
            if "sample" in units.lower()
            else "requests"
        )
        stack, version = split_stack(rec.get("Software"))
        runs.append(
            base_run(
                ctx,
                f"[{i}] {rec.get('ID', '')}".strip(),
                "mlperf_summary_results",
                "mlperf inference",
                tool_version=rec.get("version"),
                model_id=rec.get("Model") or rec.get("UsedModel"),
                precision=precision_of(rec.get("weight_data_types")),
                serving_stack=stack,
                serving_stack_version=version,
                gpu_name_raw=rec.get("Accelerator"),
                gpu_count=whole(rec.get("a#")),
                scenario=rec.get("Scenario"),
                output_tokens_per_s=value if unit == "tokens" else None,
                output_unit=unit,
                output_units_per_s=value,
            )
        )
    return runs


_NS_PCT = re.compile(
    r"^(\d+(?:\.\d+)?) percentile (first token latency|latency|time to output token) \(ns\)$"
)


def mlperf_log_summary(text: str, ctx: Context) -> BenchmarkRun:
    """`mlperf_log_summary.txt` of a result directory (Offline or Server scenario)."""
    kv: dict[str, str] = {}
    for line in text.splitlines():
        if ":" in line:
            key, _, value = line.partition(":")
            kv.setdefault(key.strip().lower(), value.strip())
    scenario = kv.get("scenario")
    if not scenario:
        raise ParseError(ctx.where, "Scenario", "MLPerf summary without a scenario line")
    lat: dict[str, float | None] = {}
    metric_of = {"latency": "e2e", "first token latency": "ttft", "time to output token": "tpot"}
    for key, value in kv.items():
        m = _NS_PCT.match(key)
        if m and m.group(1) in ("50.00", "95.00", "99.00"):
            lat[f"{metric_of[m.group(2)]}_p{int(float(m.group(1)))}_ms"] = num(value) / 1e6
    for key, metric in (("mean latency (ns)", "e2e"), ("mean first token latency (ns)", "ttft"),
                        ("mean time to output token (ns)", "tpot")):  # fmt: skip
        if num(kv.get(key)) is not None:
            lat[f"{metric}_mean_ms"] = num(kv[key]) / 1e6
    tokens = num(kv.get("tokens per second") or kv.get("completed tokens per second"))
    samples = num(kv.get("samples per second") or kv.get("completed samples per second"))
    sut = kv.get("sut name", "")
    model = re.sub(r"-(Offline|Server|SingleStream|MultiStream)-SUT$", "", sut) or None
    valid = kv.get("result is", "").upper()
    if valid not in ("VALID", ""):
        _invalid(ctx, valid)
    return base_run(
        ctx,
        "document",
        "mlperf_log_summary",
        "mlperf loadgen",
        model_id=model,
        scenario=scenario,
        request_rate=num(kv.get("target_qps")) if scenario == "Server" else None,
        request_throughput_rps=samples,
        output_tokens_per_s=tokens,
        output_unit="tokens" if tokens is not None else "samples",
        output_units_per_s=tokens if tokens is not None else samples,
        percentile_source="tool_summary",
        **lat,
    )


def _invalid(ctx: Context, valid: str):
    raise ParseError(
        ctx.where, "Result is", f"MLPerf marks this result {valid}: not a measurement to use"
    )


def mlperf_log_detail(text: str, ctx: Context) -> BenchmarkRun:
    """`mlperf_log_detail.txt`: `:::MLLOG {json}` lines; the result_* keys carry the figures."""
    values: dict[str, Any] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.startswith(":::MLLOG"):
            continue
        try:
            entry = json.loads(line[len(":::MLLOG") :].strip())
        except json.JSONDecodeError as exc:
            raise ParseError(ctx.where, f"line {n}", f"MLLOG entry is not JSON: {exc.msg}") from exc
        if isinstance(entry, dict) and "key" in entry:
            values[entry["key"]] = entry.get("value")
    scenario = values.get("effective_scenario") or values.get("requested_scenario")
    if scenario is None:
        raise ParseError(ctx.where, "effective_scenario", "no MLLOG scenario entry")
    validity = str(values.get("result_validity", "VALID")).upper()
    if validity != "VALID":
        _invalid(ctx, validity)
    lat: dict[str, float | None] = {}
    for key, value in values.items():
        m = re.match(r"result_(first_token_)?(\d+\.\d+)_percentile_latency_ns$", key)
        if m and m.group(2) in ("50.00", "95.00", "99.00"):
            metric = "ttft" if m.group(1) else "e2e"
            lat[f"{metric}_p{int(float(m.group(2)))}_ms"] = num(value) / 1e6
    if num(values.get("result_mean_latency_ns")) is not None:
        lat["e2e_mean_ms"] = num(values["result_mean_latency_ns"]) / 1e6
    tokens = num(
        values.get("result_tokens_per_second") or values.get("result_completed_tokens_per_second")
    )
    samples = num(
        values.get("result_samples_per_second") or values.get("result_completed_samples_per_sec")
    )
    return base_run(
        ctx,
        "document",
        "mlperf_log_detail",
        "mlperf loadgen",
        tool_version=values.get("loadgen_version"),
        model_id=values.get("test_model") or values.get("model"),
        scenario=scenario,
        request_throughput_rps=samples,
        output_tokens_per_s=tokens,
        output_unit="tokens" if tokens is not None else "samples",
        output_units_per_s=tokens if tokens is not None else samples,
        percentile_source="tool_summary",
        **lat,
    )


def mlperf_system_hints(doc: dict) -> dict[str, str]:
    """An MLPerf `systems/<name>.json` as hints for the result files beside it."""
    per_node = whole(doc.get("accelerators_per_node")) or 0
    nodes = whole(doc.get("number_of_nodes")) or 1
    hints = {
        "gpu": str(doc.get("accelerator_model_name") or ""),
        "gpu_count": str(per_node * nodes) if per_node else "",
        "stack": split_stack(doc.get("framework"))[0] or "",
        "stack_version": split_stack(doc.get("framework"))[1] or "",
        "hardware_source": "system_description",
    }
    return {k: v for k, v in hints.items() if v}


# ---------------------------------------------------------------- GenAI-Perf / AIPerf


def _metric(doc: dict, key: str) -> dict:
    value = doc.get(key)
    return value if isinstance(value, dict) else {}


def _metric_ms(doc: dict, key: str, prefix: str) -> dict[str, float | None]:
    m = _metric(doc, key)
    unit = str(m.get("unit", "ms")).lower()
    scale = {"ms": 1.0, "s": 1000.0, "sec": 1000.0, "ns": 1e-6, "us": 1e-3}.get(unit)
    if scale is None:
        raise ParseError("", key, f"unknown latency unit {unit!r}")
    out: dict[str, float | None] = {}
    for stat, src in (("mean", "avg"), ("p50", "p50"), ("p95", "p95"), ("p99", "p99")):
        value = num(m.get(src))
        out[f"{prefix}_{stat}_ms"] = value * scale if value is not None else None
    return out


def genai_perf(doc: dict, ctx: Context) -> BenchmarkRun:
    """NVIDIA GenAI-Perf `profile_export_genai_perf.json` and AIPerf `profile_export_aiperf.json`.
    Their "inter_token_latency" is per request (latency - TTFT) / (output tokens - 1): TPOT."""
    cfg = doc.get("input_config") or {}
    aiperf = (
        "aiperf_version" in doc or isinstance(cfg.get("endpoint"), dict) or "telemetry_data" in doc
    )
    lat = {}
    try:
        lat.update(_metric_ms(doc, "time_to_first_token", "ttft"))
        lat.update(_metric_ms(doc, "inter_token_latency", "tpot"))
        lat.update(_metric_ms(doc, "request_latency", "e2e"))
    except ParseError as exc:
        raise ParseError(ctx.where, exc.field, exc.reason) from exc
    if aiperf:
        endpoint, loadgen = cfg.get("endpoint") or {}, cfg.get("loadgen") or {}
        prompt = (cfg.get("input") or {}).get("prompt") or {}
        models = endpoint.get("model_names") or []
        concurrency, rate = num(loadgen.get("concurrency")), _rate(loadgen.get("request_rate"))
        input_mean = num((prompt.get("input_tokens") or {}).get("mean"))
    else:
        models = cfg.get("model") or []
        concurrency, rate = num(cfg.get("concurrency")), _rate(cfg.get("request_rate"))
        input_mean = num(cfg.get("synthetic_input_tokens_mean"))
    completed = whole(_metric(doc, "request_count").get("avg"))
    errors = doc.get("error_request_count")
    error_count = whole(errors.get("avg")) if isinstance(errors, dict) else whole(errors)
    if error_count is None and doc.get("error_summary") == []:
        error_count = 0  # AIPerf lists every error kind; an empty list is no errors
    gpu, count = _telemetry_gpu(doc)
    isl = num(_metric(doc, "input_sequence_length").get("avg"))
    return base_run(
        ctx,
        "document",
        "aiperf" if aiperf else "genai_perf",
        "aiperf" if aiperf else "genai-perf",
        tool_version=doc.get("aiperf_version"),
        model_id=models[0] if models else None,
        gpu_name_raw=gpu,
        gpu_count=count,
        scenario="online",
        input_len=isl if isl is not None else input_mean,
        output_len=num(_metric(doc, "output_sequence_length").get("avg")),
        concurrency=concurrency,
        request_rate=rate,
        attempted=completed + error_count
        if completed is not None and error_count is not None
        else None,
        completed=completed,
        failed=error_count,
        goodput_rps=num(_metric(doc, "goodput").get("avg")),
        duration_s=num(_metric(doc, "benchmark_duration").get("avg")),
        request_throughput_rps=num(_metric(doc, "request_throughput").get("avg")),
        output_tokens_per_s=num(_metric(doc, "output_token_throughput").get("avg")),
        total_tokens_per_s=num(_metric(doc, "total_token_throughput").get("avg")),
        percentile_source="tool_summary",
        measured_at=parse_stamp(doc.get("start_time")),
        **lat,
    )


def _telemetry_gpu(doc: dict) -> tuple[str | None, int | None]:
    """The GPU named by AIPerf's GPU telemetry, and how many were in use: DCGM reports every GPU
    of the node, so a GPU counts when it had memory in use or was busy during the run (all of
    them when the telemetry has no such metric)."""
    seen, busy = [], []
    endpoints = ((doc.get("telemetry_data") or {}).get("endpoints")) or {}
    for endpoint in endpoints.values():
        for gpu in ((endpoint or {}).get("gpus") or {}).values():
            if not isinstance(gpu, dict) or not gpu.get("gpu_name"):
                continue
            seen.append(gpu["gpu_name"])
            metrics = gpu.get("metrics") or {}
            used = num((metrics.get("gpu_memory_used") or {}).get("avg"))
            util = num((metrics.get("gpu_utilization") or {}).get("avg"))
            if (used or 0) > 0 or (util or 0) > 0:
                busy.append(gpu["gpu_name"])
    names = busy or seen
    if not names:
        return None, None
    return " + ".join(sorted(set(names))), len(names)


_AIPERF_CSV = {
    "time to first token (ms)": "ttft",
    "inter token latency (ms)": "tpot",
    "request latency (ms)": "e2e",
}


def aiperf_csv(text: str, ctx: Context) -> BenchmarkRun:
    """AIPerf's `profile_export_aiperf.csv`: a per-request metric section (avg/p50/p95/p99 ...),
    a single-value section (Metric,Value), and a GPU telemetry section."""
    lat: dict[str, float | None] = {}
    single: dict[str, float | None] = {}
    gpus: dict[str, str] = {}
    header: list[str] = []
    for row in csv.reader(io.StringIO(text)):
        if not row or not any(row):
            header = []
            continue
        if row[0] in ("Metric", "Endpoint"):
            header = [h.strip().lower() for h in row]
            continue
        if not header:
            continue
        rec = dict(zip(header, row, strict=False))
        if header[0] == "endpoint":
            if rec.get("gpu_name"):
                gpus[f"{rec.get('endpoint')}/{rec.get('gpu_index')}"] = rec["gpu_name"]
            continue
        name = rec.get("metric", "").strip().lower()
        if "value" in rec:
            single[name] = num(rec["value"])
        elif name in _AIPERF_CSV:
            prefix = _AIPERF_CSV[name]
            for stat, src in (("mean", "avg"), ("p50", "p50"), ("p95", "p95"), ("p99", "p99")):
                lat[f"{prefix}_{stat}_ms"] = num(rec.get(src))
        elif name.startswith("input sequence length"):
            single["isl"] = num(rec.get("avg"))
        elif name.startswith("output sequence length"):
            single["osl"] = num(rec.get("avg"))
    if not single and not lat:
        raise ParseError(ctx.where, "Metric", "no AIPerf metrics found")
    names = sorted(set(gpus.values()))
    return base_run(
        ctx,
        "document",
        "aiperf_csv",
        "aiperf",
        gpu_name_raw=" + ".join(names) if names else None,
        gpu_count=len(gpus) if gpus else None,
        scenario="online",
        input_len=single.get("isl"),
        output_len=single.get("osl"),
        completed=whole(single.get("request count")),
        duration_s=single.get("benchmark duration (sec)"),
        request_throughput_rps=single.get("request throughput (requests/sec)"),
        output_tokens_per_s=single.get("output token throughput (tokens/sec)"),
        total_tokens_per_s=single.get("total token throughput (tokens/sec)"),
        percentile_source="tool_summary",
        **lat,
    )


# ---------------------------------------------------------------- InferenceX


def inferencex_run(rec: dict, ctx: Context, run_ref: str = "document") -> BenchmarkRun:
    """InferenceX per-run result (seconds; mean/p75/p90/p95/std, no median and no p99)."""
    lat: dict[str, float | None] = {}
    for src, metric in (("ttft", "ttft"), ("tpot", "tpot"), ("itl", "itl"), ("e2el", "e2e")):
        for stat, label in (("mean", "mean"), ("p95", "p95"), ("median", "p50"), ("p50", "p50"),
                            ("p99", "p99")):  # fmt: skip
            value = num(rec.get(f"{stat}_{src}"))
            if value is not None:
                lat[f"{metric}_{label}_ms"] = value * 1000
    total, per_gpu = num(rec.get("total_tput_tps")), num(rec.get("tput_per_gpu"))
    count = round(total / per_gpu) if total and per_gpu else whole(rec.get("tp"))
    attempted, ok = whole(rec.get("num_requests_total")), whole(rec.get("num_requests_successful"))
    image = str(rec.get("image") or "")
    version = re.search(r":v?(\d[\w.]*)", image)
    return base_run(
        ctx,
        run_ref,
        "inferencex_run",
        "inferencex",
        model_id=str(rec.get("model") or "").rstrip("/").rsplit("/", 1)[-1]
        if str(rec.get("model") or "").startswith("/")
        else rec.get("model"),  # a filesystem path to the weights: its last part names the model
        precision=(str(rec.get("precision")).lower() or None) if rec.get("precision") else None,
        serving_stack=rec.get("framework"),
        serving_stack_version=version.group(1) if version else None,
        gpu_name_raw=str(rec.get("hw") or "") or None,
        gpu_count=count,
        tensor_parallel=whole(rec.get("tp")),
        scenario=rec.get("scenario_type"),
        input_len=num(rec.get("mean_input_tokens")),
        output_len=num(rec.get("mean_output_tokens_actual")),
        concurrency=num(rec.get("conc")),
        attempted=attempted,
        completed=ok,
        failed=attempted - ok if attempted is not None and ok is not None else None,
        duration_s=num(rec.get("duration_seconds")),
        request_throughput_rps=(
            ok / num(rec.get("duration_seconds"))
            if ok and num(rec.get("duration_seconds"))
            else None
        ),
        output_tokens_per_s=num(rec.get("output_tput_tps")),
        total_tokens_per_s=total,
        percentile_source="tool_summary",
        **lat,
    )


# ---------------------------------------------------------------- LLMPerf


def llmperf_summary(doc: dict, ctx: Context) -> BenchmarkRun:
    """Anyscale LLMPerf `*_summary.json`: a hosted API measured from outside; no GPU to name."""
    lat: dict[str, float | None] = {}
    for src, metric in (("ttft_s", "ttft"), ("end_to_end_latency_s", "e2e"),
                        ("inter_token_latency_s", "tpot")):  # fmt: skip
        lat[f"{metric}_mean_ms"] = _s_to_ms(doc.get(f"results_{src}_mean"))
        for q in ("50", "95", "99"):
            lat[f"{metric}_p{q}_ms"] = _s_to_ms(doc.get(f"results_{src}_quantiles_p{q}"))
    started = whole(doc.get("results_num_requests_started"))
    done = whole(doc.get("results_num_completed_requests"))
    errors = whole(doc.get("results_number_errors"))
    return base_run(
        ctx,
        "document",
        "llmperf_summary",
        "llmperf",
        tool_version=doc.get("version"),
        model_id=doc.get("model"),
        hardware_source="api",
        api_provider=doc.get("framework"),
        scenario="online",
        input_len=num(doc.get("mean_input_tokens")),
        output_len=num(doc.get("mean_output_tokens")),
        concurrency=num(doc.get("num_concurrent_requests")),
        attempted=started,
        completed=done,
        failed=errors,
        request_throughput_rps=(
            num(doc.get("results_num_completed_requests_per_min")) / 60
            if num(doc.get("results_num_completed_requests_per_min")) is not None
            else None
        ),
        output_tokens_per_s=num(doc.get("results_mean_output_throughput_token_per_s")),
        percentile_source="tool_summary",
        measured_at=parse_stamp(doc.get("timestamp")),
        **lat,
    )


def _s_to_ms(value: Any) -> float | None:
    v = num(value)
    return v * 1000 if v is not None else None


def llmperf_individual(doc: list, ctx: Context) -> BenchmarkRun:
    """LLMPerf's per-request file: percentiles computed from the requests themselves."""
    ok = [r for r in doc if isinstance(r, dict) and not r.get("error_code")]
    provider = re.match(r"([a-z]+)_\d+b", ctx.path.replace("\\", "/").rsplit("/", 1)[-1])
    lat: dict[str, float | None] = {}
    lat.update(_latency_fields("ttft", stats_ms([num(r.get("ttft_s")) for r in ok], 1000)))
    lat.update(
        _latency_fields("e2e", stats_ms([num(r.get("end_to_end_latency_s")) for r in ok], 1000))
    )
    lat.update(
        _latency_fields("tpot", stats_ms([num(r.get("inter_token_latency_s")) for r in ok], 1000))
    )
    ins = [num(r.get("number_input_tokens")) for r in ok]
    outs = [num(r.get("number_output_tokens")) for r in ok]
    return base_run(
        ctx,
        "document",
        "llmperf_individual",
        "llmperf",
        hardware_source="api",
        api_provider=provider.group(1) if provider else None,
        scenario="online",
        input_len=float(np.mean([v for v in ins if v is not None])) if any(ins) else None,
        output_len=float(np.mean([v for v in outs if v is not None])) if any(outs) else None,
        attempted=len(doc),
        completed=len(ok),
        failed=len(doc) - len(ok),
        percentile_source="per_request",
        **lat,
    )


# ---------------------------------------------------------------- optimum-benchmark


def optimum_benchmark(doc: dict, ctx: Context) -> list[BenchmarkRun]:
    """Hugging Face optimum-benchmark report (config + report). The environment lists the
    machine's GPUs; the run used one only when the backend's device is a GPU."""
    config, report = doc.get("config") or {}, doc.get("report") or {}
    backend, env = config.get("backend") or {}, config.get("environment") or {}
    scenario = config.get("scenario") or {}
    device = str(backend.get("device") or "").lower()
    on_gpu = device.startswith(("cuda", "rocm", "gpu", "xpu")) or bool(backend.get("gpus"))
    gpus = env.get("gpu") or []
    shapes = scenario.get("input_shapes") or {}
    task = str(backend.get("task") or "")
    if "feature-extraction" in task or "sentence" in task:
        kind = "embedding"
    elif "image" in task and "generation" in task:
        kind = "image_generation"
    else:
        kind = "inference"
    runs = []
    for phase in ("forward", "per_token", "decode", "prefill", "call"):
        part = report.get(phase)
        if not isinstance(part, dict):
            continue
        latency = part.get("latency") or {}
        values = [num(v) for v in latency.get("values") or []]
        scale = {"s": 1000.0, "ms": 1.0}.get(str(latency.get("unit", "s")), 1000.0)
        lat = _latency_fields("e2e", stats_ms([v for v in values if v is not None], scale))
        tput = part.get("throughput") or {}
        unit = str(tput.get("unit") or "")
        value = num(tput.get("value"))
        out_unit = "tokens" if "token" in unit else "images" if "image" in unit else "samples"
        runs.append(
            base_run(
                ctx,
                phase,
                "optimum_benchmark",
                "optimum-benchmark",
                tool_version=env.get("optimum_benchmark_version"),
                model_id=backend.get("model"),
                serving_stack=backend.get("name"),
                serving_stack_version=backend.get("version"),
                gpu_name_raw=(gpus[0] if on_gpu and gpus else None),
                gpu_count=(whole(env.get("gpu_count")) if on_gpu and gpus else None),
                hardware_source=None if on_gpu and gpus else "none",
                run_kind=kind,
                scenario=f"{scenario.get('name', 'inference')}:{phase} on {device or 'unknown'}",
                input_len=num(shapes.get("sequence_length")),
                concurrency=num(shapes.get("batch_size")),
                output_tokens_per_s=value if out_unit == "tokens" else None,
                output_unit=out_unit,
                output_units_per_s=value,
                percentile_source="per_request" if values else None,
                **lat,
            )
        )
    if not runs:
        raise ParseError(
            ctx.where, "report", "no measured phase (forward, decode, ...) in the report"
        )
    return runs


# ---------------------------------------------------------------- CSVs

# The documented gpuledger CSV for in-house results (see sources/benchmark_files.py).
GPULEDGER_CSV_COLUMNS = (
    "measured_at", "run_kind", "model", "params_b", "precision", "serving_stack",
    "serving_stack_version", "gpu", "gpu_count", "tensor_parallel", "input_len", "output_len",
    "concurrency", "request_rate", "attempted", "completed", "failed", "output_tokens_per_s",
    "total_tokens_per_s", "output_unit", "output_units_per_s", "ttft_p50_ms", "ttft_p95_ms",
    "ttft_p99_ms", "tpot_p50_ms", "tpot_p95_ms", "tpot_p99_ms", "e2e_p50_ms", "e2e_p95_ms",
    "e2e_p99_ms", "time_to_complete_s", "notes",
)  # fmt: skip
GPULEDGER_CSV_REQUIRED = ("run_kind", "model", "gpu", "gpu_count")


def gpuledger_csv(text: str, ctx: Context) -> list[BenchmarkRun]:
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in reader.fieldnames or []]
    missing = [c for c in GPULEDGER_CSV_REQUIRED if c not in header]
    if missing:
        raise ParseError(ctx.where, ",".join(missing), "required gpuledger CSV column(s) missing")
    unknown = [h for h in header if h not in GPULEDGER_CSV_COLUMNS]
    if unknown:  # a misspelt column would otherwise be dropped without a word
        raise ParseError(
            ctx.where,
            ",".join(unknown),
            "not a gpuledger CSV column (see sources/benchmark_files.py)",
        )
    runs = []
    for n, row in enumerate(reader, start=2):
        row = {k.strip(): (v or "").strip() for k, v in row.items() if k}
        try:
            kind = row["run_kind"] or "inference"
            unit = row.get("output_unit") or ("tokens" if kind == "inference" else "samples")
            count = whole(row["gpu_count"])
            if not row["gpu"] or count is None:
                raise ValueError("gpu and gpu_count are required")
            fields = {k: num(row.get(k)) for k in (
                "input_len", "output_len", "concurrency", "request_rate", "output_tokens_per_s",
                "total_tokens_per_s", "output_units_per_s", "ttft_p50_ms", "ttft_p95_ms",
                "ttft_p99_ms", "tpot_p50_ms", "tpot_p95_ms", "tpot_p99_ms", "e2e_p50_ms",
                "e2e_p95_ms", "e2e_p99_ms", "time_to_complete_s")}  # fmt: skip
            for k in ("attempted", "completed", "failed", "tensor_parallel"):
                fields[k] = whole(row.get(k))
            for k, v in list(fields.items()):
                raw_value = row.get(k, "")
                if raw_value and v is None:
                    raise ValueError(f"{k}: not a number: {raw_value!r}")
            run = base_run(
                ctx,
                f"line {n}",
                "gpuledger_csv",
                "gpuledger csv",
                model_id=row["model"] or None,
                precision=row.get("precision") or None,
                serving_stack=row.get("serving_stack") or None,
                serving_stack_version=row.get("serving_stack_version") or None,
                gpu_name_raw=row["gpu"],
                gpu_count=count,
                hardware_source="operator",
                run_kind=kind,
                output_unit=unit,
                percentile_source="tool_summary",
                measured_at=parse_stamp(row.get("measured_at")),
                **fields,
            )
            if num(row.get("params_b")) is not None:
                run = replace(run, model_params_b=num(row["params_b"]))
            runs.append(run)
        except (ValueError, TypeError) as exc:
            runs.append(_RowProblem(f"line {n}", str(exc), json.dumps(row)))
    return runs


@dataclass
class _RowProblem:
    """A row of a CSV that could not become a run (kept for quarantine by the caller)."""

    run_ref: str
    reason: str
    raw: str


_RESULTS_CSV_ALIASES = {
    "successful requests": "completed",
    "benchmark duration (s)": "duration",
    "total input tokens": "total_input_tokens",
    "total generated tokens": "total_output_tokens",
    "request throughput (req/s)": "request_throughput",
    "output token throughput (tok/s)": "output_throughput",
    "total token throughput (tok/s)": "total_token_throughput",
    "mean ttft (ms)": "mean_ttft_ms", "median ttft (ms)": "median_ttft_ms",
    "p99 ttft (ms)": "p99_ttft_ms", "mean tpot (ms)": "mean_tpot_ms",
    "median tpot (ms)": "median_tpot_ms", "p99 tpot (ms)": "p99_tpot_ms",
    "mean itl (ms)": "mean_itl_ms", "median itl (ms)": "median_itl_ms",
    "p99 itl (ms)": "p99_itl_ms",
}  # fmt: skip


def results_csv(text: str, ctx: Context) -> list[BenchmarkRun]:
    """CSV tables of vLLM benchmark results, one run a row: columns named like the JSON keys
    (`output_throughput`, `median_ttft_ms` ...), the console labels ("Output token throughput
    (tok/s)"), or the throughput script's (`batch_size`, `tokens_per_second`), with an optional
    `gpu` column ("8xH100 ...") and `model_id`."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    runs = []
    for n, row in enumerate(reader, start=2):
        d = {}
        for key, value in row.items():
            if key is None:
                continue
            k = key.strip().lstrip("\ufeff")
            d[_RESULTS_CSV_ALIASES.get(k.lower(), k)] = (value or "").strip()
        gpu = _N_X_GPU.search(d.get("gpu", "")) if d.get("gpu") else None
        fields = {}
        if gpu:
            fields = {"gpu_name_raw": gpu.group(2), "gpu_count": int(gpu.group(1))}
        if "output_throughput" in d or "mean_ttft_ms" in d:
            completed = whole(d.get("completed"))
            in_tok, out_tok = num(d.get("total_input_tokens")), num(d.get("total_output_tokens"))
            run = base_run(
                ctx,
                f"line {n}",
                "results_csv",
                "vllm benchmark_serving (csv)",
                model_id=d.get("model_id") or None,
                scenario="online",
                input_len=num(d.get("isl"))
                or (in_tok / completed if in_tok and completed else None),
                output_len=num(d.get("osl"))
                or (out_tok / completed if out_tok and completed else None),
                concurrency=num(d.get("max_concurrency")) or num(d.get("conc")),
                request_rate=_rate(d.get("request_rate")),
                attempted=whole(d.get("num_prompts")),
                completed=completed,
                failed=(
                    whole(d.get("num_prompts")) - completed
                    if whole(d.get("num_prompts")) is not None and completed is not None
                    else None
                ),  # fmt: skip
                goodput_rps=num(d.get("request_goodput")),
                duration_s=num(d.get("duration")),
                request_throughput_rps=num(d.get("request_throughput")),
                output_tokens_per_s=num(d.get("output_throughput")),
                total_tokens_per_s=num(d.get("total_token_throughput")),
                percentile_source="tool_summary",
                measured_at=parse_stamp(d.get("date")),
                **fields,
                **summary_latencies(d),
            )
        elif "tokens_per_second" in d:
            batch = num(d.get("batch_size"))
            out_len = num(d.get("output_len"))
            rps = num(d.get("requests_per_second"))
            e2e = num(d.get("end_to_end_latency"))
            run = base_run(
                ctx,
                f"line {n}",
                "results_csv",
                "vllm benchmark_throughput (csv)",
                scenario="offline",
                input_len=num(d.get("input_len")),
                output_len=out_len,
                concurrency=batch,
                attempted=whole(d.get("num_requests")),
                duration_s=num(d.get("elapsed_time")),
                request_throughput_rps=rps,
                output_tokens_per_s=(rps * out_len if rps and out_len else None),
                total_tokens_per_s=num(d.get("tokens_per_second")),
                e2e_mean_ms=e2e * 1000 if e2e is not None else None,
                percentile_source="tool_summary",
                **fields,
            )
        else:
            raise ParseError(ctx.where, "header", "no throughput column in this results CSV")
        runs.append(run)
    if not runs:
        raise ParseError(ctx.where, "rows", "results CSV without rows")
    return runs


# ---------------------------------------------------------------- detection


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
        doc = _json(content, where)
        return _detect_json(doc, where), doc
    if "Serving Benchmark Result" in text:
        return "vllm_console", text
    if "MLPerf Results Summary" in text:
        return "mlperf_log_summary", text
    if ":::MLLOG" in text:
        return "mlperf_log_detail", text
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
        "InferenceX, LLMPerf, optimum-benchmark, gpuledger CSV)",
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


_NUMERIC_KEY = re.compile(
    r"(_ms|_s|_tps|_throughput|_tokens|_latency|_len|^completed|^duration|^num_prompts|"
    r"^num_requests\w*|^elapsed_time|^requests_per_second|^tokens_per_second|^request_rate|"
    r"^max_concurrency|^conc|^tp|^tput_per_gpu|^avg_latency)$"
)
_NUMERIC_TEXT = re.compile(
    r"^\s*([-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?|[-+]?inf(inity)?|nan)?\s*$", re.I
)


def check_numbers(doc: Any, where: str, ref: str = "") -> None:
    """A figure a tool writes as a number must be one: "fast" where a throughput belongs is a
    broken file, named with its field, not a silently missing value."""
    if not isinstance(doc, dict):
        return
    for key, value in doc.items():
        if not isinstance(key, str) or not _NUMERIC_KEY.search(key) or value is None:
            continue
        if isinstance(value, list | dict):
            continue  # per-request arrays and metric objects are read by their own code
        if isinstance(value, bool):
            raise ParseError(where, f"{ref}{key}", f"expected a number, got {value!r}")
        if isinstance(value, str) and not _NUMERIC_TEXT.match(value):
            raise ParseError(where, f"{ref}{key}", f"expected a number, got {value!r}")


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
    "mlperf_summary_results": mlperf_summary_results,
    "mlperf_log_summary": mlperf_log_summary,
    "mlperf_log_detail": mlperf_log_detail,
    "mlperf_system": lambda doc, ctx: [],  # hardware for the results beside it, no run of its own
    "genai_perf": genai_perf,
    "aiperf_csv": aiperf_csv,
    "inferencex_run": inferencex_run,
    "inferencex_agg": _inferencex_agg,
    "llmperf_summary": llmperf_summary,
    "llmperf_individual": llmperf_individual,
    "optimum_benchmark": optimum_benchmark,
    "gpuledger_csv": gpuledger_csv,
    "results_csv": results_csv,
}


RowProblem = _RowProblem
