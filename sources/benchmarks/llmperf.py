"""LLMPerf: summary and per-request JSON of hosted APIs (kept with `api_provider`, no GPU)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from sources._internal.records import BenchmarkRun
from sources.benchmarks.common import (
    Context,
    base_run,
    latency_fields,
    num,
    parse_stamp,
    stats_ms,
    whole,
)


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
    lat.update(latency_fields("ttft", stats_ms([num(r.get("ttft_s")) for r in ok], 1000)))
    lat.update(
        latency_fields("e2e", stats_ms([num(r.get("end_to_end_latency_s")) for r in ok], 1000))
    )
    lat.update(
        latency_fields("tpot", stats_ms([num(r.get("inter_token_latency_s")) for r in ok], 1000))
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
