"""CSV tables: the documented gpuledger CSV for in-house runs (training and image generation
included) and CSV exports of serving results with known column names."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, replace

from sources._internal.records import BenchmarkRun, ParseError
from sources.benchmarks.common import (
    N_X_GPU,
    Context,
    base_run,
    num,
    parse_stamp,
    request_rate,
    summary_latencies,
    whole,
)

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
            runs.append(RowProblem(f"line {n}", str(exc), json.dumps(row)))
    return runs


@dataclass
class RowProblem:
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


def results_csv(text: str, ctx: Context) -> list[BenchmarkRun | RowProblem]:
    """CSV tables of vLLM benchmark results, one run a row: columns named like the JSON keys
    (`output_throughput`, `median_ttft_ms` ...), the console labels ("Output token throughput
    (tok/s)"), or the throughput script's (`batch_size`, `tokens_per_second`), with an optional
    `gpu` column ("8xH100 ...") and `model_id`."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    runs, offline = [], []
    for n, row in enumerate(reader, start=2):
        d = {}
        for key, value in row.items():
            if key is None:
                continue
            k = key.strip().lstrip("\ufeff")
            d[_RESULTS_CSV_ALIASES.get(k.lower(), k)] = (value or "").strip()
        gpu = N_X_GPU.search(d.get("gpu", "")) if d.get("gpu") else None
        fields = {}
        if gpu:
            fields = {"gpu_name_raw": gpu.group(2), "gpu_count": int(gpu.group(1))}
        if d.get("gpu"):
            fields["setup"] = d["gpu"]
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
                # the tokens the completed requests really had, as the JSON reports are read;
                # `isl`/`osl` are what was asked for (a server may stop a reply early)
                input_len=(in_tok / completed if in_tok and completed else None)
                or num(d.get("isl")),
                output_len=(out_tok / completed if out_tok and completed else None)
                or num(d.get("osl")),
                concurrency=num(d.get("max_concurrency")) or num(d.get("conc")),
                request_rate=request_rate(d.get("request_rate")),
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
        offline.append((len(runs) - 1, n, d))
    if not runs:
        raise ParseError(ctx.where, "rows", "results CSV without rows")
    return _without_replica_projections(runs, offline)


def _without_replica_projections(
    runs: list[BenchmarkRun], rows: list[tuple[int, int, dict]]
) -> list[BenchmarkRun | RowProblem]:
    """A throughput row that is another row of the same table times k (k times the GPUs and the
    tokens in the very same elapsed time or latency, lengths and batch) is a projection of k
    copies of that run, not a measurement on k times the GPUs: dstack's "8xMi300x 2FP8-amd" rows
    are twice the "4xMi300x 1FP8-amd" rows. It is kept as a row error naming its source row."""
    measured = {}
    for i, n, d in rows:
        run = runs[i]
        if run.format != "results_csv" or run.scenario != "offline" or not run.gpu_count:
            continue
        elapsed = d.get("elapsed_time") or d.get("end_to_end_latency")
        key = (d.get("input_len"), d.get("output_len"), d.get("batch_size"), elapsed)
        measured.setdefault(key, []).append((i, n, d))
    out: list[BenchmarkRun | RowProblem] = list(runs)
    for same in measured.values():
        for i, n, d in same:
            # in the same time, k times the tokens is k times the tokens per second
            tokens = num(d.get("total_num_tokens")) or num(d.get("tokens_per_second"))
            for j, m, e in same:
                base_tokens = num(e.get("total_num_tokens")) or num(e.get("tokens_per_second"))
                k, rest = divmod(runs[i].gpu_count, runs[j].gpu_count)
                if (
                    j == i or k < 2 or rest or not tokens or not base_tokens
                    or abs(tokens / base_tokens - k) > 1e-6 * k
                ):  # fmt: skip
                    continue
                out[i] = RowProblem(
                    f"line {n}",
                    f"derived, not measured: {k} copies of line {m}'s {runs[j].gpu_count}-GPU "
                    f"run ({k}x its tokens in the same "
                    f"{d.get('elapsed_time') or d.get('end_to_end_latency')} s)",
                    json.dumps(d),
                )
                break
    return out
