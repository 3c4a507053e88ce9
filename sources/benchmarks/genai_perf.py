"""NVIDIA GenAI-Perf / AIPerf: `profile_export*.json` (GPU from AIPerf's telemetry) and
AIPerf's CSV."""

from __future__ import annotations

import csv
import io

from sources._internal.records import BenchmarkRun, ParseError
from sources.benchmarks.common import Context, base_run, num, parse_stamp, request_rate, whole


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
        concurrency, rate = (
            num(loadgen.get("concurrency")),
            request_rate(loadgen.get("request_rate")),
        )
        input_mean = num((prompt.get("input_tokens") or {}).get("mean"))
    else:
        models = cfg.get("model") or []
        concurrency, rate = num(cfg.get("concurrency")), request_rate(cfg.get("request_rate"))
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
