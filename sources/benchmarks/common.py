"""What every benchmark-result reader shares: the reading context, units and percentiles, the
GPU, model and shape hints taken from a file's path, and `base_run`, which turns a reader's fields
into one validated-shape `BenchmarkRun`. The rules are in the package's docstring."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from sources._internal.parsing import decode_text
from sources._internal.records import BenchmarkRun, ParseError


@dataclass
class Context:
    where: str  # the file as ingested (path text, used for naming and the file-name convention)
    path: str
    hints: dict[str, str] = field(default_factory=dict)  # operator / system-description hints


GPU_TOKEN = (
    r"(?:H100|H200|H20|B200|B300|GB200|GB300|GH200|A100|A10G?|A40|A30|L40S?|L4|T4|V100|P100|"
    r"MI300X|MI325X|MI355X|MI300A|MI300|MI250X?|MI210|RTX[A-Z0-9]*|GAUDI\d)"
)
# what may follow a GPU name and still belong to it: form factor and memory ("SXM5", "-NVL",
# "-141GB"); anything else ("-meta-Llama-...") is not part of the GPU's name
GPU_SUFFIX = r"(?:[-_ ]?(?:SXM\d?|PCIE|NVL|NVLINK|HGX|\d{2,3}GB))*"
N_X_GPU = re.compile(
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
        m = N_X_GPU.search(part)
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


def latency_fields(prefix: str, s: dict[str, float | None]) -> dict[str, float | None]:
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
    model_source = fields.pop("model_source", None) or ("file" if model else None)
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
    # a count the file does not give comes from the operator or the system description, also
    # when the file names the GPU itself (dstack's CSVs name "MI300X" but not the 8 of them)
    if gpu and count is None and hints.get("gpu_count") and hw != "api":
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
        "organization": hints.get("organization"),
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


def json_document(content: bytes, where: str, *, allow_nonfinite: bool = True):
    text = decode_text(content, where)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(
            where,
            f"line {exc.lineno} column {exc.colno}",
            f"not valid JSON (truncated?): {exc.msg}",
        ) from exc


def request_rate(value: Any) -> float | None:
    """A request rate; "inf" (send everything at once) -> None."""
    return num(value)


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
