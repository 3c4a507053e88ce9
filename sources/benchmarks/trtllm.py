"""TensorRT-LLM's `trtllm-bench` (throughput and latency subcommands): the console report
("= PERFORMANCE OVERVIEW" and the sections before it) and the JSON report (`--report_json`).

Both name the model, the quantization and KV-cache dtype, TP/PP (and EP), the mean input and
output lengths, request and output-token throughput of the whole world (all GPUs), and latency
percentiles (request latency always; TTFT and TPOT when streaming). The GPU is in the JSON
report's `machine` block on recent versions (name and memory of the first GPU; its count is the
world size) and nowhere in the console report: the operator names it (`--gpu`), as for other
tools. Field names and units follow tensorrt_llm/bench/dataclasses/reporting.py.
"""

from __future__ import annotations

import re
from typing import Any

from sources._internal.records import BenchmarkRun, ParseError
from sources.benchmarks.common import Context, base_run, num, precision_of, whole

# "Token Throughput (tokens/sec):" (0.17) and "Total Output Throughput (tokens/sec):" (later)
_KV = re.compile(r"^\s*([^:\[\]]+?)\s*:\s*(.+?)\s*$")
_PCT = re.compile(r"^\s*\[(Latency|TTFT|TPOT)\]\s+(P50|P95|P99|AVERAGE)\s*:\s*([0-9.eE+-]+)")


def _quant(value: Any) -> str | None:
    """FP8 / NVFP4 / W4A16_AWQ / None -> a precision gpuledger knows (None: not quantized)."""
    text = str(value or "").strip()
    if text.lower() in ("", "none", "null"):
        return None
    return precision_of(text) or text.lower()


def _dtype(value: Any) -> str | None:
    text = str(value or "").strip().lower()
    return {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}.get(text, text or None)


def trtllm_console(text: str, ctx: Context) -> BenchmarkRun:
    kv: dict[str, str] = {}
    pct: dict[str, float | None] = {}
    for line in text.splitlines():
        m = _PCT.match(line)
        if m:
            metric = {"Latency": "e2e", "TTFT": "ttft", "TPOT": "tpot"}[m.group(1)]
            stat = "mean" if m.group(2) == "AVERAGE" else m.group(2).lower()
            pct[f"{metric}_{stat}_ms"] = num(m.group(3))
            continue
        m = _KV.match(line)
        if m and not line.lstrip().startswith("["):
            kv.setdefault(m.group(1).strip().lower(), m.group(2).strip())
    output_tps = num(
        kv.get("total output throughput (tokens/sec)") or kv.get("token throughput (tokens/sec)")
    )
    if output_tps is None:
        raise ParseError(
            ctx.where,
            "Total Output Throughput (tokens/sec)",
            "trtllm-bench report without an output throughput",
        )
    tp, pp = whole(kv.get("tp size")), whole(kv.get("pp size")) or 1
    quant = _quant(kv.get("quantization"))
    return base_run(
        ctx,
        "document",
        "trtllm_bench_console",
        "trtllm-bench",
        tool_version=kv.get("tensorrt-llm version") or kv.get("tensorrt llm version"),
        model_id=kv.get("model"),
        precision=quant or _dtype(kv.get("dtype")),
        serving_stack="tensorrt-llm",
        serving_stack_version=kv.get("tensorrt-llm version") or kv.get("tensorrt llm version"),
        gpu_count=tp * pp if tp else None,
        tensor_parallel=tp,
        scenario="offline",
        input_len=num(kv.get("average input length (tokens)")),
        output_len=num(kv.get("average output length (tokens)")),
        concurrency=num(kv.get("number of concurrent requests")),
        attempted=whole(kv.get("number of requests")),
        request_throughput_rps=num(kv.get("request throughput (req/sec)")),
        output_tokens_per_s=output_tps,
        total_tokens_per_s=num(kv.get("total token throughput (tokens/sec)")),
        duration_s=(num(kv.get("total latency (ms)")) or 0) / 1000 or None,
        percentile_source="tool_summary",
        **pct,
    )


def trtllm_report_json(doc: dict, ctx: Context) -> BenchmarkRun:
    engine = doc.get("engine") or {}
    world = doc.get("world_info") or {}
    req = doc.get("request_info") or {}
    perf = doc.get("performance") or {}
    stream = doc.get("streaming_metrics") or {}
    machine = doc.get("machine") or {}
    if num(perf.get("system_output_throughput_tok_s")) is None:
        raise ParseError(
            ctx.where,
            "performance.system_output_throughput_tok_s",
            "trtllm-bench JSON report without an output throughput",
        )
    lat: dict[str, float | None] = {}
    for block, metric in (
        (perf.get("request_latency_percentiles_ms") or {}, "e2e"),
        (stream.get("ttft_percentiles") or {}, "ttft"),
        (stream.get("tpot_percentiles") or {}, "tpot"),
    ):
        for stat in ("p50", "p95", "p99"):
            lat[f"{metric}_{stat}_ms"] = num(block.get(stat))
        lat[f"{metric}_mean_ms"] = num(block.get("average"))
    world_size = whole(world.get("world_size"))
    gpu = machine.get("name") if isinstance(machine, dict) else None
    return base_run(
        ctx,
        "document",
        "trtllm_bench_json",
        "trtllm-bench",
        tool_version=engine.get("version"),
        model_id=engine.get("model"),
        precision=_quant(engine.get("quantization")) or _dtype(engine.get("dtype")),
        serving_stack="tensorrt-llm",
        serving_stack_version=engine.get("version"),
        gpu_name_raw=gpu or None,
        gpu_count=world_size if gpu else None,
        tensor_parallel=whole(world.get("tp_size")),
        scenario="offline",
        input_len=num(req.get("avg_input_length")),
        output_len=num(req.get("avg_output_length")),
        concurrency=num(req.get("avg_num_concurrent_requests")),
        attempted=whole(req.get("num_requests")),
        request_throughput_rps=num(perf.get("request_throughput_req_s")),
        output_tokens_per_s=num(perf.get("system_output_throughput_tok_s")),
        total_tokens_per_s=num(perf.get("system_total_throughput_tok_s")),
        duration_s=(num(perf.get("total_latency_ms")) or 0) / 1000 or None,
        percentile_source="tool_summary",
        **lat,
    )
