"""InferenceX: per-run JSON and aggregated arrays (also the seconds-based vLLM variant)."""

from __future__ import annotations

import re

from sources._internal.records import BenchmarkRun
from sources.benchmarks.common import Context, base_run, num, whole


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
