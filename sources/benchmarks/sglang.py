"""SGLang: `bench_serving --output-file` JSONL, one run per line (`Infinity` = an offline rate).

Newer versions add the server's own description (`server_info`, what the server's
/get_server_info returns: its ServerArgs, e.g. model_path, tp_size, dp_size, dtype,
quantization, kv_cache_dtype); it names the model, the precision and the tensor-parallel size
when the line itself does not (a disaggregated server nests it under `decode`)."""

from __future__ import annotations

import json

from sources._internal.records import BenchmarkRun, ParseError
from sources.benchmarks.common import (
    STACKS,
    Context,
    base_run,
    check_numbers,
    num,
    precision_of,
    request_rate,
    summary_latencies,
    whole,
)


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
        info = doc.get("server_info") if isinstance(doc.get("server_info"), dict) else {}
        if isinstance(info.get("decode"), list) and info["decode"]:
            info = info["decode"][0] if isinstance(info["decode"][0], dict) else {}
        tp = whole(info.get("tp_size"))
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
                model_id=doc.get("model_id") or doc.get("model") or info.get("model_path"),
                precision=precision_of(info.get("quantization"))
                or {"bfloat16": "bf16", "float16": "fp16"}.get(str(info.get("dtype")).lower()),
                tensor_parallel=tp,
                gpu_count=tp * (whole(info.get("dp_size")) or 1) if tp else None,
                serving_stack=doc.get("backend") if doc.get("backend") in STACKS else None,
                scenario="offline" if num(doc.get("request_rate")) is None else "online",
                input_len=in_tok / completed if in_tok and completed else None,
                output_len=out_tok / completed if out_tok and completed else None,
                concurrency=num(doc.get("max_concurrency")),
                request_rate=request_rate(doc.get("request_rate")),
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
