"""MLPerf Inference: a result folder's `mlperf_log_summary.txt` and `mlperf_log_detail.txt`
(MLLOG lines), and the hardware of a `systems/<system>.json` (a round's summary file is read by
mlperf_summary.py). A v4.1 LLM result of NVIDIA's TensorRT harness whose `measurements/` JSON
names the checkpoint's fp16, or no precision at all, takes the format the harness serves, as in
the round's summary (mlperf_summary.served_precision: fp8 on Hopper and Ada, fp4 on Blackwell)."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from sources._internal.records import BenchmarkRun, ParseError
from sources.benchmarks.common import Context, base_run, num, whole
from sources.benchmarks.mlperf_summary import mlperf_stack, served_precision, weight_precision

# MLCommons' results tree: closed|open/<submitter>/results/<system>/<benchmark>/<scenario>/
# performance/run_1/<file> (inference_results_v4.1 and later; the benchmark folder names the model)
_LAYOUT = re.compile(
    r"(?:^|/)(?:(?P<division>closed|open|preview)/(?P<submitter>[^/]+)/results/)?(?P<system>[^/]+)/"
    r"(?P<benchmark>[^/]+)/(?P<scenario>Offline|Server|Interactive|SingleStream|MultiStream)/"
    r"(?:performance|accuracy)/"
)


# the round: a folder named like the results repository ("inference_results_v4.1"), or a folder
# of one result named after its round first ("v4.1_NVIDIA_H200-SXM-141GBx8_TRT_llama2-70b-99")
_ROUND = re.compile(r"(?:inference(?:_results)?_|(?:^|/)(?=v\d+\.\d+_))(v\d+\.\d+)", re.I)


def mlperf_layout(path: str) -> dict[str, str] | None:
    """division, submitter, system, benchmark and scenario of a file in MLCommons' results tree
    (division and submitter only inside closed|open/<submitter>/results/)."""
    m = _LAYOUT.search(path.replace("\\", "/"))
    return m.groupdict() if m else None


def _publisher(ctx: Context) -> dict[str, str | None]:
    """Submitter, system, division and round of a result in MLCommons' results tree (the round
    from a folder named like the results repository, "inference_results_v4.1", or a result's
    folder that starts with it, "v4.1_...")."""
    layout = mlperf_layout(ctx.path) or {}
    found = _ROUND.search(ctx.path)
    return {
        "organization": layout.get("submitter"),
        "system": layout.get("system"),
        "division": layout.get("division"),
        "round": found.group(1).lower() if found else None,
        "precision_source": ctx.hints.get("precision_source"),
    }


def _as_served(run: BenchmarkRun) -> BenchmarkRun:
    """An LLM run in the precision its harness served (mlperf_summary.served_precision), where
    its round's files name the checkpoint's or none."""
    served = served_precision(run.round, run.serving_stack, run.gpu_name_raw, run.precision)
    if not served or run.run_kind != "inference":
        return run
    return dataclasses.replace(run, precision=served, precision_source="submitter_documentation")


def _model_of(sut_or_model: str | None, ctx: Context) -> tuple[str | None, str | None]:
    """The benchmark model: the results tree's benchmark folder first, else the file's own name
    for it ("llama2-70b" from "llama2-70b-Server-SUT", a detail log's test_model) unless that
    names the harness ("PySUT"), else nothing here (the file-name rule follows)."""
    layout = mlperf_layout(ctx.path)
    if layout:
        return layout["benchmark"], "folder_layout"
    if sut_or_model and "sut" not in sut_or_model.lower():
        return sut_or_model, "file"
    return None, None


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
    model, model_source = _model_of(
        re.sub(r"-(Offline|Server|SingleStream|MultiStream)-SUT.*$", "", sut) or None, ctx
    )
    valid = kv.get("result is", "").upper()
    if valid not in ("VALID", ""):
        _invalid(ctx, valid)
    if "accuracy" in kv.get("mode", "").lower():
        raise ParseError(ctx.where, "Mode", "an MLPerf accuracy run: no performance figures")
    image = bool(model and model.lower().startswith("stable-diffusion"))
    if image:
        unit, per_s = "images", samples
    else:
        unit, per_s = ("tokens", tokens) if tokens is not None else ("samples", samples)
    run = base_run(
        ctx,
        "document",
        "mlperf_log_summary",
        "mlperf loadgen",
        model_id=model,
        model_source=model_source,
        run_kind="image_generation" if image else "inference",
        scenario=scenario,
        request_rate=num(kv.get("target_qps")) if scenario == "Server" else None,
        request_throughput_rps=samples,
        # the run's own mean: tokens per second over samples per second
        output_len=tokens / samples if tokens and samples and not image else None,
        output_tokens_per_s=tokens if not image else None,
        output_unit=unit,
        output_units_per_s=per_s,
        percentile_source="tool_summary",
        **_publisher(ctx),
        **lat,
    )
    return _as_served(run)


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
    model, model_source = _model_of(values.get("test_model") or values.get("model"), ctx)
    run = base_run(
        ctx,
        "document",
        "mlperf_log_detail",
        "mlperf loadgen",
        tool_version=values.get("loadgen_version"),
        model_id=model,
        model_source=model_source,
        scenario=scenario,
        request_throughput_rps=samples,
        output_tokens_per_s=tokens,
        output_unit="tokens" if tokens is not None else "samples",
        output_units_per_s=tokens if tokens is not None else samples,
        percentile_source="tool_summary",
        **_publisher(ctx),
        **lat,
    )
    return _as_served(run)


def mlperf_measurement_hints(doc: dict) -> dict[str, str]:
    """An MLPerf `measurements/<system>/<benchmark>/<scenario>/*.json` as the precision of the
    results of that system, benchmark and scenario."""
    precision = weight_precision(doc.get("weight_data_types"))
    return {"precision": precision} if precision else {}


def mlperf_system_hints(doc: dict) -> dict[str, str]:
    """An MLPerf `systems/<name>.json` as hints for the result files beside it."""
    per_node = whole(doc.get("accelerators_per_node")) or 0
    nodes = whole(doc.get("number_of_nodes")) or 1
    hints = {
        "gpu": str(doc.get("accelerator_model_name") or ""),
        "gpu_count": str(per_node * nodes) if per_node else "",
        "stack": mlperf_stack(doc.get("framework"))[0] or "",
        "stack_version": mlperf_stack(doc.get("framework"))[1] or "",
        "hardware_source": "system_description",
    }
    return {k: v for k, v in hints.items() if v}
