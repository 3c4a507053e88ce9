"""optimum-benchmark: report JSON; the GPU counts only if the backend ran on it."""

from __future__ import annotations

from sources._internal.records import BenchmarkRun, ParseError
from sources.benchmarks.common import Context, base_run, latency_fields, num, stats_ms, whole


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
        lat = latency_fields("e2e", stats_ms([v for v in values if v is not None], scale))
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
