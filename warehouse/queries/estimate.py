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

from warehouse.queries import NotFound, WarehouseMissing, connect_published

PRECISIONS = ("fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4")
BYTES = "case ? when 'fp32' then 4.0 when 'bf16' then 2.0 when 'fp16' then 2.0 when 'fp8' then 1.0 when 'int8' then 1.0 else 0.5 end"  # noqa: E501

RUNS_SQL = """
with target as (
    select ?::double as active, ?::double as batch, ?::double as input_len,
           ?::double as output_len, ?::varchar as precision, ?::boolean as is_moe
),
weighted as (
    select r.*, main.gl_nearness(
            r.model_active_params_b, t.active, r.batch, t.batch, r.input_len, t.input_len,
            r.output_len, t.output_len, r.precision, t.precision, r.is_moe, t.is_moe) as weight,
        case when r.batch_source <> 'offline_default' then r.ttft_ratio end as lat_ttft,
        case when r.batch_source <> 'offline_default' then r.e2e_ratio end as lat_e2e
    from marts.fct_benchmark_run_efficiency as r, target as t
    where r.efficiency > 0 and r.run_kind = 'inference'
)
select
    vendor, architecture, family, memory_gb,
    exp(list_sum(list(weight * ln(efficiency) order by run_key))
        / list_sum(list(weight order by run_key))) as efficiency,
    quantile_cont(efficiency, 0.1) as p10,
    quantile_cont(efficiency, 0.9) as p90,
    count(*) as n_runs,
    list(struct_pack(run_key := run_key, file_path := file_path, model_id := model_id,
                     gpu_count := gpu_count, batch := batch, input_len := input_len,
                     output_len := output_len, efficiency := efficiency, weight := weight)
         order by weight desc, run_key)[1:5] as nearest,
    exp(list_sum(list(weight * ln(lat_ttft) order by run_key)
                 filter (where lat_ttft > 0 and weight >= exp(-4)))
        / list_sum(list(weight order by run_key) filter (where lat_ttft > 0 and weight >= exp(-4))))
        as ttft_ratio,
    exp(list_sum(list(weight * ln(lat_e2e) order by run_key)
                 filter (where lat_e2e > 0 and weight >= exp(-4)))
        / list_sum(list(weight order by run_key) filter (where lat_e2e > 0 and weight >= exp(-4))))
        as e2e_ratio
from weighted
group by all
"""


def _resolve_model(con, name: str) -> dict[str, Any]:
    rows = con.execute(
        """select model_ref, params_b, active_params_b, is_moe, kv_layers, kv_values_per_layer,
                  native_precision, run_model_pattern, flops_per_image_step_tflop
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
            "flops_per_image_step_tflop"]  # fmt: skip
    return dict(zip(keys, rows[0], strict=True))


def _resolve_gpu(con, name: str) -> dict[str, Any]:
    rows = con.execute(
        """select g.gpu_id, g.vendor, g.family, g.memory_gb, g.architecture, g.interconnect,
                  s.memory_bandwidth_gb_s, s.fp16_tflops, s.fp8_tflops
           from marts.dim_gpu as g left join marts.fct_gpu_specs as s using (gpu_id)
           where g.gpu_id = lower(?) or lower(g.display_name) = lower(?)""",
        [name, name],
    ).fetchall()
    if not rows:
        like = [r[0] for r in con.execute(
            "select gpu_id from marts.dim_gpu where gpu_id like '%' || lower(?) || '%' order by 1",
            [re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")],
        ).fetchall()]  # fmt: skip
        hint = f"; did you mean {', '.join(like)}" if like else " (see analytics.gpus)"
        raise NotFound(f"no GPU {name!r}{hint}")
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
    concurrency: int,
    kv_cache_precision: str = "bf16",
) -> dict:
    """The prediction for one set of conditions, with its grade and the runs behind it."""
    if gpus < 1 or concurrency < 1 or output_len < 1 or input_len < 0:
        raise ValueError("--gpus, --concurrency and --output must be >= 1, --input >= 0")
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
        precision = (precision or m["native_precision"]).lower()
        if precision not in PRECISIONS:
            raise ValueError(f"precision {precision!r}: one of {', '.join(PRECISIONS)}")
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
        args = [gpus, bw, tflops]
        w_args = [m["params_b"], m["active_params_b"], concurrency, precision]
        tail = [m["active_params_b"], concurrency]
        shape = [input_len, output_len, g["interconnect"]]
        raw = con.execute(
            f"""select main.gl_tokens_per_s(?, ?, ?, {weights}, ?, ?, {kv}, ?, ?, ?),
                       main.gl_ttft_ms(?, ?, ?, {weights}, ?, ?, {kv}, ?, ?, ?),
                       main.gl_tpot_ms(?, ?, ?, {weights}, ?, ?, {kv}, ?, ?, ?),
                       main.gl_tp_factor(?, ?)""",
            [*args, *w_args, *tail, kv_cache_precision, *shape] * 3 + [gpus, g["interconnect"]],
        ).fetchone()
        tokens_per_s, ttft_ms, tpot_ms, tp = raw
        cur = con.execute(RUNS_SQL, [m["active_params_b"], concurrency, input_len, output_len,
                                     precision, m["is_moe"]])  # fmt: skip
        names = [d[0] for d in cur.description]
        kinds = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
    finally:
        con.close()
    own = [k for k in kinds if k["family"] == g["family"] and k["memory_gb"] == g["memory_gb"]]
    others = [k for k in kinds if k not in own]
    arch = [k for k in others if k["vendor"] == g["vendor"]
            and k["architecture"] == g["architecture"]]  # fmt: skip

    def median(vals):
        vals = sorted(v for v in vals if v is not None)
        if not vals:
            return None
        mid = len(vals) // 2
        return vals[mid] if len(vals) % 2 else (vals[mid - 1] + vals[mid]) / 2

    if own:
        grade, source, eff = "calibrated", "this_gpu_kind", own[0]["efficiency"]
    elif arch:
        grade, source, eff = "estimated", "architecture", median(k["efficiency"] for k in arch)
    elif others:
        grade, source, eff = "estimated", "all_gpus", median(k["efficiency"] for k in others)
    else:
        grade, source, eff = "roofline", "uncalibrated", None

    def ratio(key):
        if own and own[0][key] is not None:
            return own[0][key]
        return median(k[key] for k in arch) or median(k[key] for k in others)

    ttft_ratio, e2e_ratio = ratio("ttft_ratio"), ratio("e2e_ratio")
    e2e_ms = ttft_ms + output_len * tpot_ms
    return {
        "model": m["model_ref"], "gpu_id": g["gpu_id"], "gpus": gpus, "precision": precision,
        "input_len": input_len, "output_len": output_len, "concurrency": concurrency,
        "interconnect": g["interconnect"], "tp_factor": tp,
        "roofline_tokens_per_s": tokens_per_s,
        "grade": grade, "calibration_source": source, "efficiency": eff,
        "tokens_per_s": tokens_per_s * eff if eff is not None else tokens_per_s,
        "efficiency_p10": own[0]["p10"] if own else None,
        "efficiency_p90": own[0]["p90"] if own else None,
        "n_runs": own[0]["n_runs"] if own else 0,
        "nearest_runs": own[0]["nearest"] if own else [],
        "comparable_gpu_kinds": [f"{k['family']} {int(k['memory_gb'])}GB"
                                 for k in (arch or others)] if not own else [],
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
        spread = (f", p10-p90 {x['efficiency_p10']:.3f}-{x['efficiency_p90']:.3f} over "
                  f"{x['n_runs']} runs" if x["n_runs"] else "")  # fmt: skip
        basis = ("runs on this kind of GPU" if x["grade"] == "calibrated"
                 else "comparable GPU kinds: " + ", ".join(x["comparable_gpu_kinds"]))  # fmt: skip
        out.append(
            f"  {x['grade']}: efficiency {x['efficiency']:.3f}{spread} ({basis}) -> "
            f"{x['tokens_per_s']:.1f} output tokens/s"
        )
        for r in x["nearest_runs"]:
            out.append(
                f"    run {r['run_key'][:12]}.. {r['file_path']}: {r['model_id']} on "
                f"{r['gpu_count']} GPU(s), batch {r['batch']:.0f}, {r['input_len']:.0f}/"
                f"{r['output_len']:.0f}, efficiency {r['efficiency']:.3f} "
                f"(weight {r['weight']:.3f})"
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
