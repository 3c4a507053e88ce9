"""`gpuledger estimate`: the performance model's prediction for any conditions, from the published
copy: the DuckDB macros the warehouse computes with (dbt/macros/performance_model.sql) and the
runs' efficiencies (marts.fct_benchmark_run_efficiency), weighted and graded exactly as
int_throughput_calibrated weighs them for a workload class (a test holds the two to the same
figure for a class's own conditions):

- calibrated: runs on this kind of GPU (same family and memory): their efficiencies' weighted
  geometric mean, nearest runs first (gl_nearness), with their p10-p90 spread;
- estimated: no run on this kind of GPU: the median efficiency of comparable kinds (same vendor and
  architecture, else all);
- roofline: no run at all (the raw figure, marked as such).
"""

from __future__ import annotations

import json
import re
from typing import Any

import duckdb

from warehouse.queries import NotFound, WarehouseMissing, connect_published, short_run_key

PRECISIONS = ("fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4")
BYTES = "case ? when 'fp32' then 4.0 when 'bf16' then 2.0 when 'fp16' then 2.0 when 'fp8' then 1.0 when 'int8' then 1.0 else 0.5 end"  # noqa: E501

STACKS = ("trtllm", "vllm", "sglang", "other")
# `--concurrency max`: the largest batch whose KV cache fits beside the weights, at the shipped
# classes' headroom (0.2 of memory) and 2 GB of runtime per GPU (the 8B class's; the 70B classes
# take 4), at most MAX_SEQS_PER_GPU per GPU (the engines' default batch limit: vLLM's max_num_seqs).
HEADROOM = 0.2
RUNTIME_OVERHEAD_GB = 2.0
MAX_SEQS_PER_GPU = 256

# One definition: the table macro the warehouse calibrates the classes with
# (int_throughput_calibrated), for the GPU asked about.
CALIBRATION_SQL = """
select * from main.gl_calibration(
    'marts.fct_benchmark_run_efficiency', 'marts.dim_gpu', 'inference',
    ?::double, ?::double, ?::double, ?::double, ?::varchar, ?::boolean, ?::date, ?::varchar,
    null, null
) where gpu_id = ?
"""

NEAREST_SQL = """
select run_key, file_path, model_id, gpu_count, batch, input_len, output_len, efficiency,
       serving_stack, organization
from marts.fct_benchmark_run_efficiency
where list_contains(string_split(?, ' | '), run_key)
"""


# the largest unit of GPUs the memory fit sizes (dbt/macros/workload_model.sql, wl_memory_fit)
MAX_UNIT_GPUS = 8


def max_concurrency(
    m: dict, g: dict, gpus: int, precision: str, input_len: int, output_len: int, kv_bytes: float
) -> int:
    """The largest batch whose sequences fit in memory beside the weights (0: the weights alone
    do not fit)."""  # fmt: skip
    weight_bytes = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0}.get(
        precision, 0.5
    )
    free_gb = (gpus * g["memory_gb"] * (1 - HEADROOM) - m["params_b"] * weight_bytes
               - gpus * RUNTIME_OVERHEAD_GB)  # fmt: skip
    per_seq_gb = (
        m["kv_layers"] * m["kv_values_per_layer"] * kv_bytes * (input_len + output_len) / 1e9
    )
    return max(0, min(int(free_gb // per_seq_gb), MAX_SEQS_PER_GPU * gpus))


def _resolve_model(con, name: str) -> dict[str, Any]:
    rows = con.execute(
        """select model_ref, params_b, active_params_b, is_moe, kv_layers, kv_values_per_layer,
                  native_precision, run_model_pattern, flops_per_image_step_tflop,
                  max_context_tokens
           from reference.model_reference
           where model_ref = lower(?) or regexp_matches(lower(?), run_model_pattern)
           order by model_ref = lower(?) desc, length(run_model_pattern) desc, model_ref
           limit 1""",
        [name, name, name],
    ).fetchall()
    if not rows:
        known = [
            r[0] for r in con.execute("select model_ref from reference.model_reference").fetchall()
        ]
        raise NotFound(f"no model {name!r} in model_reference; known: {', '.join(sorted(known))}")
    keys = ["model_ref", "params_b", "active_params_b", "is_moe", "kv_layers",
            "kv_values_per_layer", "native_precision", "run_model_pattern",
            "flops_per_image_step_tflop", "max_context_tokens"]  # fmt: skip
    return dict(zip(keys, rows[0], strict=True))


def unknown_gpu(con, name: str) -> NotFound:
    """The error for a GPU name gpuledger does not know, with the gpu_ids it may mean."""
    like = [r[0] for r in con.execute(
        "select gpu_id from marts.dim_gpu where gpu_id like '%' || lower(?) || '%' order by 1",
        [re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")],
    ).fetchall()]  # fmt: skip
    hint = f"; did you mean {', '.join(like)}" if like else " (see analytics.gpus)"
    return NotFound(f"no GPU {name!r}{hint}")


def _resolve_gpu(con, name: str) -> dict[str, Any]:
    rows = con.execute(
        """select g.gpu_id, g.vendor, g.family, g.memory_gb, g.architecture, g.interconnect,
                  s.memory_bandwidth_gb_s, s.fp16_tflops, s.fp8_tflops
           from marts.dim_gpu as g left join marts.fct_gpu_specs as s using (gpu_id)
           where g.gpu_id = lower(?) or lower(g.display_name) = lower(?)""",
        [name, name],
    ).fetchall()
    if not rows:
        raise unknown_gpu(con, name)
    keys = ["gpu_id", "vendor", "family", "memory_gb", "architecture", "interconnect",
            "memory_bandwidth_gb_s", "fp16_tflops", "fp8_tflops"]  # fmt: skip
    return dict(zip(keys, rows[0], strict=True))


def estimate(
    model: str,
    gpu: str,
    gpus: int,
    precision: str | None,
    input_len: int,
    output_len: int,
    concurrency: int | str,
    kv_cache_precision: str = "bf16",
    stack: str | None = None,
) -> dict:
    """The prediction for one set of conditions, with its grade and the runs behind it.
    `concurrency` "max": the largest batch that fits in memory (max_concurrency)."""
    if stack is not None and stack not in STACKS:
        raise ValueError(f"--stack {stack!r}: one of {', '.join(STACKS)}")
    if concurrency != "max" and (not isinstance(concurrency, int) or concurrency < 1):
        raise ValueError("--concurrency must be >= 1 or 'max'")
    if gpus < 1 or output_len < 1 or input_len < 0:
        raise ValueError("--gpus and --output must be >= 1, --input >= 0")
    if gpus & (gpus - 1):
        # vLLM, SGLang and TensorRT-LLM split a model's attention (and KV) heads evenly over its
        # tensor-parallel GPUs, and the memory fit sizes units in powers of two (wl_memory_fit):
        # 3, 6 or 7 divide none of model_reference's KV-head counts (1, 2, 4, 8, 16, 32, 40)
        raise ValueError(
            f"--gpus {gpus}: a unit of 1, 2, 4 or 8 GPUs (a power of two): serving stacks "
            "split a model's attention heads evenly over the GPUs it runs on, and the rankings "
            "size units the same way"
        )
    if gpus > MAX_UNIT_GPUS:
        raise ValueError(
            f"--gpus {gpus}: the performance model covers units of up to {MAX_UNIT_GPUS} GPUs "
            "(one server's NVLink or PCIe domain, the largest unit the rankings size); a larger "
            "unit spans servers, whose network it does not model"
        )
    con = connect_published()
    try:
        try:
            m = _resolve_model(con, model)
            g = _resolve_gpu(con, gpu)
        except duckdb.CatalogException as exc:
            raise WarehouseMissing(f"the warehouse has no performance model yet ({exc})") from exc
        if m["flops_per_image_step_tflop"] is not None or not m["kv_layers"]:
            raise ValueError(
                f"{m['model_ref']} is not a text-generating model: `gpuledger estimate` predicts "
                "LLM serving (image classes: `gpuledger rank --workload image-gen-sdxl`)"
            )
        context = m["max_context_tokens"]
        if context is not None and input_len + output_len > context:
            raise ValueError(
                f"--input {input_len} + --output {output_len} = {input_len + output_len} tokens "
                f"exceed the context window of {m['model_ref']}, {context} tokens "
                "(max_position_embeddings of its published config)"
            )
        precision = (precision or m["native_precision"]).lower()
        if precision not in PRECISIONS:
            raise ValueError(f"precision {precision!r}: one of {', '.join(PRECISIONS)}")
        kv_bytes = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0}.get(
            kv_cache_precision, 0.5
        )
        fitting = max_concurrency(m, g, gpus, precision, input_len, output_len, kv_bytes)
        if concurrency == "max":
            if fitting < 1:
                raise ValueError(
                    f"{m['model_ref']} in {precision} does not fit on {gpus} x {g['gpu_id']} "
                    f"with one sequence of {input_len + output_len} tokens"
                )
            concurrency = fitting
        tflops = g["fp16_tflops"]
        if precision in ("fp8", "int8", "fp4"):  # FP4 at the FP8 rate, as the classes
            tflops = g["fp8_tflops"] or g["fp16_tflops"]
        bw = g["memory_bandwidth_gb_s"]
        if tflops is None or bw is None:
            missing = " and ".join(
                w for w, v in (("memory bandwidth", bw), ("dense TFLOPS", tflops)) if v is None
            )
            raise NotFound(f"{g['gpu_id']}: no estimate without its {missing}")
        kv = f"{m['kv_layers']} * {m['kv_values_per_layer']} * ({BYTES})"
        weights = f"main.gl_weights_read_gb(?, ?, ?, {BYTES})"

        def at(batch: int) -> tuple:
            """The roofline (tokens/s, TTFT, time per token, TP factor) and its calibration at
            `batch` sequences in flight."""
            args = [gpus, bw, tflops]
            w_args = [m["params_b"], m["active_params_b"], batch, precision]
            tail = [m["active_params_b"], batch]
            shape = [input_len, output_len, g["interconnect"]]
            raw = con.execute(
                f"""select main.gl_tokens_per_s(?, ?, ?, {weights}, ?, ?, {kv}, ?, ?, ?),
                           main.gl_ttft_ms(?, ?, ?, {weights}, ?, ?, {kv}, ?, ?, ?),
                           main.gl_tpot_ms(?, ?, ?, {weights}, ?, ?, {kv}, ?, ?, ?),
                           main.gl_tp_factor(?, ?)""",
                [*args, *w_args, *tail, kv_cache_precision, *shape] * 3 + [gpus, g["interconnect"]],
            ).fetchone()
            cur = con.execute(CALIBRATION_SQL, [
                m["active_params_b"], batch, input_len, output_len, precision, m["is_moe"],
                "9999-12-31", stack, g["gpu_id"],
            ])  # fmt: skip
            names = [d[0] for d in cur.description]
            rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
            return (*raw, rows[0] if rows else None)

        # Sequences beyond what fits in memory wait: the running batch is at most `fitting`.
        running = min(concurrency, fitting) if fitting >= 1 else concurrency
        tokens_per_s, ttft_ms, tpot_ms, tp, cal = at(running)
        # Throughput never falls as concurrency rises: a server holding more sequences can cap
        # its running batch (vLLM's max_num_seqs) at a smaller one that the evidence rates
        # higher. The estimate is the best of that batch and the powers of two below it.
        served_batch = running
        best = tokens_per_s * (cal["efficiency"] if cal else 1.0)
        batch = 1
        while batch < running:
            r_tps, _, _, _, r_cal = at(batch)
            if r_tps * (r_cal["efficiency"] if r_cal else 1.0) > best * (1 + 1e-9):
                best = r_tps * (r_cal["efficiency"] if r_cal else 1.0)
                served_batch, tokens_per_s, cal = batch, r_tps, r_cal
            batch *= 2
        nearest = []
        if cal and cal["nearest_runs"]:
            cur = con.execute(NEAREST_SQL, [cal["nearest_runs"]])
            names = [d[0] for d in cur.description]
            found = {r[0]: dict(zip(names, r, strict=True)) for r in cur.fetchall()}
            nearest = [found[k] for k in cal["nearest_runs"].split(" | ") if k in found]
    finally:
        con.close()
    if cal is None:
        grade, source, eff = "roofline", "uncalibrated", None
    else:
        grade, source, eff = cal["grade"], cal["calibration_source"], cal["efficiency"]
    ttft_ratio = cal["ttft_ratio"] if cal else None
    e2e_ratio = cal["e2e_ratio"] if cal else None
    e2e_ms = ttft_ms + output_len * tpot_ms
    calibrated = tokens_per_s * eff if eff is not None else tokens_per_s
    return {
        "model": m["model_ref"], "gpu_id": g["gpu_id"], "gpus": gpus, "precision": precision,
        "input_len": input_len, "output_len": output_len, "concurrency": concurrency,
        "max_concurrency_fitting": fitting, "served_batch": served_batch,
        "stack": stack or (cal["stack"] if cal else None), "stack_asked": stack,
        "interconnect": g["interconnect"], "tp_factor": tp,
        "roofline_tokens_per_s": tokens_per_s,
        "grade": grade, "calibration_source": source, "efficiency": eff,
        "tokens_per_s": calibrated,
        "efficiency_p10": cal["efficiency_p10"] if cal else None,
        "efficiency_p90": cal["efficiency_p90"] if cal else None,
        "tokens_per_s_p10": tokens_per_s * cal["efficiency_p10"] if cal else None,
        "tokens_per_s_p90": tokens_per_s * cal["efficiency_p90"] if cal else None,
        "n_runs": cal["n_runs"] if cal else 0,
        "nearest_runs": nearest,
        "comparable_gpu_kinds": (cal["comparable_gpus"] or "").split(", ")
        if cal and cal["comparable_gpus"] else [],
        "ttft_ms_model": ttft_ms, "tpot_ms_model": tpot_ms, "e2e_ms_model": e2e_ms,
        "ttft_p95_ms_estimated": ttft_ms * ttft_ratio if ttft_ratio else None,
        "e2e_p99_ms_estimated": e2e_ms * e2e_ratio if e2e_ratio else None,
    }  # fmt: skip


def render_estimate(x: dict[str, Any], fmt: str = "table") -> str:
    if fmt == "json":
        return json.dumps(x, indent=2, default=str)
    out = [
        f"{x['model']} on {x['gpus']} x {x['gpu_id']} ({x['interconnect']}), {x['precision']}, "
        f"{x['input_len']} in / {x['output_len']} out tokens, concurrency {x['concurrency']}",
        f"  model (roofline): {x['roofline_tokens_per_s']:.1f} output tokens/s "
        f"(tensor-parallel factor {x['tp_factor']:.2f}); TTFT {x['ttft_ms_model']:.1f} ms, "
        f"{x['tpot_ms_model']:.2f} ms per token",
    ]
    if x["grade"] == "roofline":
        out.append("  ESTIMATE, uncalibrated: no benchmark run in the warehouse to calibrate it")
    else:
        spread = f", p10-p90 {x['efficiency_p10']:.3f}-{x['efficiency_p90']:.3f}" + (
            f" over {x['n_runs']} runs" if x["n_runs"] else ""
        )
        basis = ("runs on this kind of GPU" if x["grade"] == "calibrated"
                 else "comparable GPU kinds: " + ", ".join(x["comparable_gpu_kinds"]))  # fmt: skip
        out.append(
            f"  {x['grade']}: efficiency {x['efficiency']:.3f}{spread} ({basis}) -> "
            f"{x['tokens_per_s']:.1f} output tokens/s (ESTIMATE, p10-p90 "
            f"{x['tokens_per_s_p10']:.1f}-{x['tokens_per_s_p90']:.1f}; stack: "
            f"{x['stack'] or 'any'}{'' if x['stack_asked'] else ', the best with evidence'})"
        )
        if x["max_concurrency_fitting"] < 1:
            out.append("  CAUTION: not even one sequence of these lengths fits beside the weights")
        elif x["concurrency"] > x["max_concurrency_fitting"]:
            out.append(
                f"  (only {x['max_concurrency_fitting']} sequences fit in memory: the others "
                "wait, so the running batch is at most that)"
            )
        if x["served_batch"] < min(x["concurrency"], max(x["max_concurrency_fitting"], 1)):
            out.append(
                f"  (at {x['concurrency']} sequences the runs rate a running batch of "
                f"{x['served_batch']} higher: a server capping its batch there reaches this; "
                "throughput never falls as concurrency rises)"
            )
        for r in x["nearest_runs"]:
            out.append(
                f"    run {short_run_key(r['run_key'])} in {r['file_path']}: {r['model_id']} on "
                f"{r['gpu_count']} GPU(s), batch {r['batch']:.0f}, {r['input_len']:.0f}/"
                f"{r['output_len']:.0f}, efficiency {r['efficiency']:.3f} "
                f"({r['serving_stack'] or 'stack not named'}, {r['organization']})"
            )
    lat = []
    if x["ttft_p95_ms_estimated"] is not None:
        lat.append(f"TTFT p95 ~{x['ttft_p95_ms_estimated']:.0f} ms")
    if x["e2e_p99_ms_estimated"] is not None:
        lat.append(f"end-to-end p99 ~{x['e2e_p99_ms_estimated']:.0f} ms")
    out.append(
        "  latency (estimated from runs near these conditions): " + ", ".join(lat)
        if lat
        else "  latency: no run near these conditions reports it; not estimated"
    )
    return "\n".join(out)
