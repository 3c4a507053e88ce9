"""vLLM: `benchmark_serving --save-result` / `vllm bench serve` JSON (old layout with per-request
arrays, new with `request_goodput`), `benchmark_throughput` and `benchmark_latency` JSON, and the
"Serving Benchmark Result" console text."""

from __future__ import annotations

import re

from sources._internal.records import BenchmarkRun, ParseError
from sources.benchmarks.common import (
    STACKS,
    Context,
    base_run,
    latency_fields,
    num,
    parse_stamp,
    path_shape,
    request_rate,
    stats_ms,
    summary_latencies,
    whole,
)


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
        lat.update(latency_fields("ttft", stats_ms([ttfts[i] for i in ok], 1000)))
        lat.update(latency_fields("itl", stats_ms(all_itls, 1000)))
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
        request_rate=request_rate(doc.get("request_rate")),
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
    lat = latency_fields("e2e", stats_ms([v for v in lats if v is not None], 1000))
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
