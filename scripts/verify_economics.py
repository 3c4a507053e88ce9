"""An independent recalculation of the economics, to check the dbt marts against.

    .venv/bin/python scripts/verify_economics.py [--date D]     (uses $GPULEDGER_HOME)

Written apart from the SQL (plain Python over the seeds' CSV files and the marts the economics
start from: fct_gpu_offers_daily, fct_gpu_specs, fct_benchmark_runs, fct_model_api_prices), it
recomputes, for the newest ranked day of every workload class, each GPU's best eligible offer:
memory fit, matching runs and their median per-GPU throughput, the roofline estimate and its
per-class calibration, accepted fraction, effective hourly cost and cost per accepted output. It
then compares with `gpuledger rank --workload W --format json` (the same rows the CLI prints):
every cell within 0.5 %, and the same GPU order. Prints one line per class; exits 1 on a mismatch.
Runs count from their ingestion day here as in the marts; specs are taken as of the build (the
marts date them too), so an earlier --date is comparable only if no spec row arrived after it.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
from datetime import date
from pathlib import Path

import duckdb
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SEEDS = ROOT / "dbt" / "seeds"
BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5, "fp4": 0.5}
TOLERANCE = 0.005


def read_csv(name: str) -> list[dict]:
    with (SEEDS / name).open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def fnum(value) -> float | None:
    return None if value in (None, "") else float(value)


def dbt_vars() -> dict:
    return yaml.safe_load((ROOT / "dbt" / "dbt_project.yml").read_text())["vars"]


def memory_fit(cls: dict, model: dict, gpu_memory: float) -> tuple[int | None, dict]:
    weights = float(model["params_b"]) * BYTES[cls["precision"]]
    kv = 0.0
    if cls["class_kind"] == "llm_serving":
        per_token = (2 * float(model["layers"]) * float(model["kv_heads"])
                     * float(model["head_dim"]) * BYTES[cls["kv_cache_precision"]])  # fmt: skip
        context = fnum(cls["input_len"]) + fnum(cls["output_len"])
        kv = per_token * context * fnum(cls["concurrency"]) / 1e9
    overhead = float(cls["runtime_overhead_gb"])
    usable = gpu_memory * (1 - float(cls["headroom"]))
    for n in (1, 2, 4, 8):
        if n <= min(int(cls["max_gpus"]), 8) and weights + kv + n * overhead <= n * usable:
            return n, {"weights_gb": weights, "kv_cache_gb": kv}
    return None, {"weights_gb": weights, "kv_cache_gb": kv}


def run_matches(cls: dict, model: dict, run: dict, v: dict) -> bool:
    p, f = float(model["params_b"]), float(v["measured_match_factor"])
    pf = float(v["params_match_factor"])
    if run["model_params_b"] is None or not (p / pf <= run["model_params_b"] <= p * pf):
        return False
    if run["precision"] != cls["precision"]:
        return False
    if cls["class_kind"] == "training":
        return run["run_kind"] in ("training", "fine_tuning")
    if cls["class_kind"] == "image_generation":
        return run["run_kind"] == "image_generation"

    def near(x, target):
        return x is not None and target / f <= x <= target * f

    conc = fnum(cls["concurrency"])
    batch = run["concurrency"] is None and conc >= 64
    return (run["run_kind"] == "inference" and run["output_unit"] == "tokens"
            and near(run["input_len"], fnum(cls["input_len"]))
            and near(run["output_len"], fnum(cls["output_len"]))
            and (near(run["concurrency"], conc) or batch))  # fmt: skip


def breaks_slo(cls: dict, run: dict) -> bool:
    ttft_target, e2e_target = fnum(cls["slo_p95_ttft_ms"]), fnum(cls["slo_p99_e2e_ms"])
    ttft = run["ttft_p95_ms"]
    broken = ttft_target is not None and ttft is not None and ttft > ttft_target
    e2e = run["e2e_p99_ms"]
    return broken or (e2e_target is not None and e2e is not None and e2e > e2e_target)


def roofline(cls: dict, model: dict, n: int, weights_gb: float, spec: dict, v: dict):
    prec = cls["precision"]
    tflops = (
        (spec.get("fp8_tflops") or spec.get("fp16_tflops"))
        if prec in ("fp8", "int8")
        else spec.get("fp16_tflops")
    )  # noqa: E501
    bw = spec.get("memory_bandwidth_gb_s")
    ce, be = float(v["compute_efficiency"]), float(v["bandwidth_efficiency"])
    if tflops is None:
        return None
    if cls["class_kind"] == "training":
        return (
            n
            * tflops
            * 1e12
            * ce
            / (4 * float(model["params_b"]) * 1e9 * fnum(cls["tokens_per_output"]))
        )  # noqa: E501
    if cls["class_kind"] == "image_generation":
        return n * tflops * ce / fnum(cls["flops_per_output_tflop"])
    if bw is None:
        return None
    i, o, b = fnum(cls["input_len"]), fnum(cls["output_len"]), fnum(cls["concurrency"])
    kv_tok = (2 * float(model["layers"]) * float(model["kv_heads"]) * float(model["head_dim"])
              * BYTES[cls["kv_cache_precision"]])  # fmt: skip
    decode = b * n * bw * 1e9 * be / (weights_gb * 1e9 + b * kv_tok * (i + o / 2))
    compute = n * tflops * 1e12 * ce / (2 * float(model["active_params_b"]) * 1e9 * (i + o) / o)
    return min(decode, compute)


def cost_per_output(cls: dict, n: int, price: float, unit_per_s: float, success: float) -> float:
    """USD per accepted output in the class unit for a unit of n GPUs at `price` per GPU-hour."""
    cost = n * price / float(cls["target_utilization"]) + float(cls["overhead_usd_per_hour"])
    per_hour = unit_per_s * 3600 * success * float(cls["quality_pass_rate"])
    if cls["output_unit"] == "request":
        return cost / (per_hour / fnum(cls["output_len"]))
    if cls["output_unit"] == "1m_tokens":
        return cost / per_hour * 1e6
    return cost / per_hour


def recompute(con, day: date) -> dict[str, list[dict]]:
    v = dbt_vars()
    classes = read_csv("workload_classes.csv")
    models = {m["model_ref"]: m for m in read_csv("model_reference.csv")}
    memory = {g["gpu_id"]: float(g["memory_gb"]) for g in read_csv("gpu_catalog.csv")}

    def rows(sql, params=None):
        cur = con.execute(sql, params or [])
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]

    specs = {r["gpu_id"]: r for r in rows("select * from marts.fct_gpu_specs")}
    runs = rows(
        """select * from marts.fct_benchmark_runs where gpu_id is not null and gpu_count > 0
           and duplicate_of is null and coalesce(output_units_per_s, output_tokens_per_s) > 0
           and ingested_date <= ?""",
        [day],
    )
    offers = rows(
        """select * from marts.fct_gpu_offers_daily where day = ? and gpu_id is not null
           and price_usd_per_gpu_hour is not null""",
        [day],
    )
    out: dict[str, list[dict]] = {}
    for cls in classes:
        model = models[cls["model_ref"]]
        allowed = set(cls["pricing_models"].split("|"))
        cells: dict[str, dict] = {}
        for gpu_id in memory:
            n, terms = memory_fit(cls, model, memory[gpu_id])
            if n is None:
                continue
            matched = [r for r in runs if r["gpu_id"] == gpu_id and run_matches(cls, model, r, v)]
            kept = [r for r in matched if not breaks_slo(cls, r)]
            key = (
                "output_tokens_per_s"
                if cls["class_kind"] == "llm_serving"
                else "output_units_per_s"
            )
            est = roofline(cls, model, n, terms["weights_gb"], specs.get(gpu_id, {}), v)
            cell = {"n": n, "estimate": est, "matched": bool(matched)}
            if kept:
                cell["evidence"] = "measured"
                cell["unit"] = statistics.median(r[key] / r["gpu_count"] for r in kept) * n
                rates = [r["success_rate"] for r in kept if r["success_rate"] is not None]
                cell["success"] = sum(rates) / len(rates) if rates else 1.0
            elif not matched and est is not None:
                cell["evidence"] = "estimated"
                cell["success"] = 1.0
            else:
                continue
            cells[gpu_id] = cell
        ratios = [c["unit"] / c["estimate"] for c in cells.values()
                  if c["evidence"] == "measured" and c["estimate"]]  # fmt: skip
        factor = statistics.median(ratios) if ratios else 1.0
        for c in cells.values():
            if c["evidence"] == "estimated":
                c["unit"] = c["estimate"] * factor
        best: dict[str, dict] = {}
        for o in offers:
            cell = cells.get(o["gpu_id"])
            if cell is None or o["pricing_model"] not in allowed or o["gpu_count"] < cell["n"]:
                continue
            per_output = cost_per_output(
                cls, cell["n"], o["price_usd_per_gpu_hour"], cell["unit"], cell["success"]
            )
            candidate = {"gpu_id": o["gpu_id"], "cost": per_output,
                         "price": o["price_usd_per_gpu_hour"], "evidence": cell["evidence"],
                         "offer_key": o["offer_key"]}  # fmt: skip
            held = best.get(o["gpu_id"])
            if held is None or (candidate["cost"], candidate["price"], candidate["offer_key"]) < (
                held["cost"], held["price"], held["offer_key"]):  # fmt: skip
                best[o["gpu_id"]] = candidate
        out[cls["workload_class"]] = sorted(
            best.values(), key=lambda c: (c["cost"], c["price"], c["gpu_id"])
        )
    return out


def compare(con, day: date | None = None) -> list[str]:
    """Mismatches between the recalculation and `rank --workload --format json` (empty = agree)."""
    from warehouse.queries.workloads import workload_ranking

    problems = []
    classes = [r["workload_class"] for r in read_csv("workload_classes.csv")]
    days = {}
    for w in classes:
        days[w] = (
            day
            or con.execute(
                "select max(day) from marts.fct_gpu_rankings_daily where workload_class = ?", [w]
            ).fetchone()[0]
        )
    for w in classes:
        if days[w] is None:
            continue
        mine = recompute(con, days[w])[w]
        theirs = workload_ranking(w, days[w])["gpus"]
        if [c["gpu_id"] for c in mine] != [r["gpu_id"] for r in theirs]:
            problems.append(f"{w}: GPU order differs: {[c['gpu_id'] for c in mine][:5]} vs "
                            f"{[r['gpu_id'] for r in theirs][:5]}")  # fmt: skip
        for c, r in zip(mine, theirs, strict=False):
            if (
                c["gpu_id"] == r["gpu_id"]
                and abs(c["cost"] / r["cost_per_accepted_output"] - 1) > TOLERANCE
            ):
                problems.append(
                    f"{w} {c['gpu_id']}: {c['cost']:.6g} vs {r['cost_per_accepted_output']:.6g}"
                )
            if c["gpu_id"] == r["gpu_id"] and c["evidence"] != r["evidence"]:
                problems.append(f"{w} {c['gpu_id']}: evidence {c['evidence']} vs {r['evidence']}")
        print(f"{w:22s} {days[w]}  {len(mine):3d} GPUs ranked, "
              f"{sum(c['evidence'] == 'measured' for c in mine)} measured")  # fmt: skip
    return problems


def main() -> int:
    from warehouse import paths

    parser = argparse.ArgumentParser()
    parser.add_argument("--date")
    args = parser.parse_args()
    con = duckdb.connect(str(paths.current().db_path), read_only=True)
    try:
        problems = compare(con, date.fromisoformat(args.date) if args.date else None)
    finally:
        con.close()
    for p in problems:
        print("MISMATCH", p)
    print("agree within 0.5 %, same order" if not problems else f"{len(problems)} mismatches")
    print(json.dumps({"mismatches": len(problems)}))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
