"""An independent recalculation of the economics, to check the dbt marts against.

    .venv/bin/python scripts/verify_economics.py [--date D]     (uses $GPULEDGER_HOME)

Written apart from the SQL (plain Python over the seeds' CSV files and the marts the economics
start from: fct_gpu_offers_daily, fct_gpu_specs, fct_benchmark_runs, fct_model_api_prices), it
recomputes, for the newest ranked day of every workload class, each GPU's best eligible offer:
memory fit, matching runs and their median per-GPU throughput, the performance model (every
run's prediction under its own conditions and its efficiency; each class's roofline calibrated by
the runs on that kind of GPU, or by comparable GPU kinds; the latency estimate against the SLO),
accepted fraction, effective hourly cost and cost per accepted output. It
then compares with `gpuledger rank --workload W --format json` (the same rows the CLI prints):
every cell within 0.5 %, and the same GPU order. Prints one line per class; exits 1 on a mismatch.
Runs count from their ingestion day here as in the marts; specs are taken as of the build (the
marts date them too), so an earlier --date is comparable only if no spec row arrived after it.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
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


def kv_bytes_per_token(model: dict, precision: str) -> float:
    return float(model["kv_layers"]) * float(model["kv_values_per_layer"]) * BYTES[precision]


def memory_fit(cls: dict, model: dict, gpu_memory: float) -> tuple[int | None, dict]:
    weights = float(model["params_b"]) * BYTES[cls["precision"]]
    kv = 0.0
    if cls["class_kind"] == "llm_serving":
        per_token = kv_bytes_per_token(model, cls["kv_cache_precision"])
        context = fnum(cls["input_len"]) + fnum(cls["output_len"])
        kv = per_token * context * fnum(cls["concurrency"]) / 1e9
    overhead = float(cls["runtime_overhead_gb"])
    usable = gpu_memory * (1 - float(cls["headroom"]))
    for n in (1, 2, 4, 8):
        if n <= min(int(cls["max_gpus"]), 8) and weights + kv + n * overhead <= n * usable:
            return n, {"weights_gb": weights, "kv_cache_gb": kv}
    return None, {"weights_gb": weights, "kv_cache_gb": kv}


def is_moe(model: dict) -> bool:
    return str(model.get("is_moe", "")).lower() == "true"


def model_of(name: str | None, models: dict) -> dict | None:
    """The reference model a run's name matches (the longest run_model_pattern wins)."""
    if not name:
        return None
    hits = [m for m in models.values() if re.search(m["run_model_pattern"], name.lower())]
    return max(hits, key=lambda m: (len(m["run_model_pattern"]), m["model_ref"])) if hits else None


def run_matches(cls: dict, model: dict, run: dict, v: dict) -> bool:
    p, f = float(model["params_b"]), float(v["measured_match_factor"])
    pf = float(v["params_match_factor"])
    if run["model_params_b"] is None or not (p / pf <= run["model_params_b"] <= p * pf):
        return False
    if run["precision"] != cls["precision"] or bool(run["is_moe"]) != is_moe(model):
        return False
    if cls["class_kind"] == "training":
        return run["run_kind"] in ("training", "fine_tuning")
    if cls["class_kind"] == "image_generation":  # at the class's number of denoising steps
        return run["run_kind"] == "image_generation" and run["image_steps"] == fnum(
            cls["image_steps"]
        )

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


def tflops_for(spec: dict, precision: str) -> float | None:
    if precision in ("fp8", "int8", "fp4"):
        return spec.get("fp8_tflops") or spec.get("fp16_tflops")
    return spec.get("fp16_tflops")


def tp_factor(n: float, interconnect: str, v: dict) -> float:
    e = float(v["pcie_tp_efficiency"])
    if n <= 1:
        return 1.0
    if interconnect == "pcie":
        return e ** math.log2(n)
    if interconnect == "nvlink_bridge" and n > 2:
        return e ** math.log2(n / 2)
    return 1.0


def tp_degree(n: float, params_b: float, bytes_per_param: float, memory_gb: float, v: dict):
    """The tensor-parallel degree of n GPUs serving a model: the fewest GPUs, a power of two,
    whose memory less the headroom and the runtime's overhead holds its weights, at most n (more
    GPUs than that serve replicas of the model)."""
    room = memory_gb * (1 - float(v["tp_headroom"])) - float(v["tp_runtime_overhead_gb"])
    if n <= 1:
        return n
    if params_b * bytes_per_param <= room:
        return 1
    if room <= 0:
        return n
    return min(n, 2 ** math.ceil(math.log2(params_b * bytes_per_param / room)))


def serving(n, bw, tflops, total_b, active_b, prec, batch, kv_tok, i, o, interconnect, v, tp=None):
    """(tokens/s, ttft ms, time per token ms) of n GPUs serving `batch` sequences, in replicas of
    `tp` GPUs (default: one unit of all n): a decode step is the longer of its bytes and its
    FLOPs, prefill adds its FLOPs per token; the PCIe cost is the replica's."""
    ce, be = float(v["compute_efficiency"]), float(v["bandwidth_efficiency"])
    weights = min(total_b, active_b * max(batch, 1)) * BYTES[prec] * 1e9
    step = max((weights + batch * kv_tok * (i + o / 2)) / (n * bw * 1e9 * be),
               batch * 2 * active_b * 1e9 / (n * tflops * 1e12 * ce))  # fmt: skip
    prefill = 2 * active_b * 1e9 * i / o / (n * tflops * 1e12 * ce)
    tp = tp_factor(n if tp is None else tp, interconnect, v)
    ttft = (2 * active_b * 1e9 * i / (n * tflops * 1e12 * ce) + step) / tp * 1000
    return tp / (step / batch + prefill), ttft, step / tp * 1000


def roofline(cls: dict, model: dict, n: int, spec: dict, interconnect: str, v: dict):
    """The class's raw estimate: (outputs/s, ttft ms, e2e ms) or None without the specs."""
    tflops = tflops_for(spec, cls["precision"])
    bw = spec.get("memory_bandwidth_gb_s")
    ce = float(v["compute_efficiency"])
    if tflops is None:
        return None
    tp = tp_factor(n, interconnect, v)
    if cls["class_kind"] == "training":
        per_s = n * tflops * 1e12 * ce * tp / (
            4 * float(model["params_b"]) * 1e9 * fnum(cls["tokens_per_output"]))  # fmt: skip
        return per_s, None, None
    if cls["class_kind"] == "image_generation":
        return n * tflops * ce / fnum(cls["flops_per_output_tflop"]), None, None
    if bw is None:
        return None
    i, o, b = fnum(cls["input_len"]), fnum(cls["output_len"]), fnum(cls["concurrency"])
    per_s, ttft, tpot = serving(n, bw, tflops, float(model["params_b"]),
                                float(model["active_params_b"]), cls["precision"], b,
                                kv_bytes_per_token(model, cls["kv_cache_precision"]), i, o,
                                interconnect, v)  # fmt: skip
    return per_s, ttft, ttft + o * tpot


def outperformed(runs: list[dict]) -> set[str]:
    """The runs of a setup that a faster setup of the same file beat under identical conditions
    (same model, precision, GPU, count, kind, scenario, lengths, concurrency and request rate):
    not what a buyer would run on those GPUs. Repeats of one setup are not compared."""
    groups: dict[tuple, list[tuple[float, str, str]]] = {}
    for r in runs:
        rate = r["output_units_per_s"] or r["output_tokens_per_s"]
        if not (r["setup"] and rate and r["model_ref"] and r["precision"]):
            continue
        key = (r["file_sha256"], r["run_kind"], r["output_unit"], r["model_ref"], r["precision"],
               r["gpu_id"], r["gpu_count"], r["scenario"], r["input_len"], r["output_len"],
               r["concurrency"], r["request_rate"])  # fmt: skip
        groups.setdefault(key, []).append((rate, r["setup"], r["run_key"]))
    return {
        run_key
        for group in groups.values()
        for rate, setup, run_key in group
        if any(other != setup and faster > rate for faster, other, _ in group)
    }


def run_efficiencies(runs: list[dict], models: dict, specs: dict, catalog: dict, v: dict):
    """Every usable run's conditions, prediction and measured/predicted ratios."""
    out = []
    offline = float(v["offline_batch"])
    for r in runs:
        model = model_of(r["model_id"], models)
        gpu = catalog.get(r["gpu_id"])
        step_tflop = fnum(model.get("flops_per_image_step_tflop")) if model else None
        if (r["is_resolved"] and model and gpu and r["run_kind"] == "image_generation"
                and step_tflop and r["image_steps"]):  # fmt: skip
            tflops = tflops_for(specs.get(r["gpu_id"], {}), r["precision"])
            if tflops:
                per_image = step_tflop * r["image_steps"]
                predicted = r["gpu_count"] * tflops * float(v["compute_efficiency"]) / per_image
                out.append({
                    "run": {**r, "input_len": 0.0, "output_len": 1.0}, "run_kind": "image",
                    "kind": (gpu["vendor"], gpu["family"]), "vendor": gpu["vendor"],
                    "architecture": gpu["architecture"], "active": r["model_active_params_b"],
                    "stack": stack_group(r["serving_stack"]),
                    "batch": 1.0, "moe": False,
                    "efficiency": r["output_units_per_s"] / predicted,
                    "ttft_ratio": None, "e2e_ratio": None,
                })  # fmt: skip
            continue
        if not (r["is_resolved"] and model and gpu and r["run_kind"] == "inference"
                and r["output_unit"] == "tokens" and (r["output_tokens_per_s"] or 0) > 0
                and r["input_len"] is not None and r["input_len"] >= 0
                and (r["output_len"] or 0) > 0):  # fmt: skip
            continue
        if r["success_rate"] is not None and r["success_rate"] < 0.99:
            continue  # over 1 % of its requests failed: not a measure of the GPUs' capacity
        # requests in flight by Little's law: completed/s x mean latency
        in_flight = (r["request_throughput_rps"] or 0) * (r["e2e_mean_ms"] or 0) / 1000
        if r["concurrency"] and 0 < in_flight < r["concurrency"]:
            batch, source = in_flight, "little_law"  # its clients paused between requests
        elif r["concurrency"] and r["concurrency"] > 0:
            batch, source = r["concurrency"], "concurrency"
        elif r["request_rate"] and (r["e2e_mean_ms"] or r["e2e_p50_ms"]):
            e2e = r["e2e_mean_ms"] or r["e2e_p50_ms"]
            batch, source = max(r["request_rate"] * e2e / 1000, 1.0), "little_law"
        elif r["request_rate"] is None:
            batch, source = min(r["attempted"] or r["completed"] or offline, offline), "offline"
        else:
            continue
        spec = specs.get(r["gpu_id"], {})
        tflops, bw = tflops_for(spec, r["precision"]), spec.get("memory_bandwidth_gb_s")
        if tflops is None or bw is None:
            continue
        total = r["model_params_b"]
        active = float(model["active_params_b"]) if model else total
        # the tensor-parallel degree as the file states it, else the fewest GPUs holding the weights
        if (r["tensor_parallel"] or 0) > 0:
            tp = min(r["tensor_parallel"], r["gpu_count"])
        else:
            tp = tp_degree(r["gpu_count"], total, BYTES[r["precision"]], float(gpu["memory_gb"]), v)
        per_s, ttft, tpot = serving(r["gpu_count"], bw, tflops, total, active, r["precision"],
                                    batch, kv_bytes_per_token(model, "bf16"), r["input_len"],
                                    r["output_len"], gpu["interconnect"], v, tp)  # fmt: skip
        e2e = ttft + r["output_len"] * tpot
        ttft_meas = r["ttft_p95_ms"] if r["ttft_p95_ms"] is not None else r["ttft_p99_ms"]
        out.append({
            "run": r, "run_kind": "tokens",
            "kind": (gpu["vendor"], gpu["family"]), "vendor": gpu["vendor"],
            "architecture": gpu["architecture"], "active": active, "batch": batch,
            "stack": stack_group(r["serving_stack"]),
            "moe": is_moe(model), "efficiency": r["output_tokens_per_s"] / per_s,
            "ttft_ratio": ttft_meas / ttft if source != "offline" and ttft_meas and ttft else None,
            "e2e_ratio": r["e2e_p99_ms"] / e2e if source != "offline" and r["e2e_p99_ms"] else None,
        })  # fmt: skip
    return out


def stack_group(stack: str | None) -> str:
    """Serving stacks as calibration groups (MLPerf's "TensorRT" runs TensorRT-LLM)."""
    name = (stack or "").lower()
    if name in ("tensorrt-llm", "tensorrt", "trtllm", "trt-llm"):
        return "trtllm"
    return name if name in ("vllm", "sglang") else "other"


def regime(batch: float, input_len: float, output_len: float) -> str:
    if input_len >= 8 * output_len:
        return "prefill_heavy"
    return "decode_high_concurrency" if batch >= 64 else "decode_low_concurrency"


def nearness(e: dict, cls: dict, model: dict) -> float:
    def dist(a, b):
        return abs(math.log(max(a, 1) / max(b, 1)))

    r = e["run"]
    batch, i, o = (
        fnum(cls["concurrency"]) or 1,
        fnum(cls["input_len"]) or 0,
        fnum(cls["output_len"]),
    )
    o = 1 if o is None else o
    d = (abs(math.log(e["active"] / float(model["active_params_b"])))
         + dist(e["batch"], batch)
         + 0.5 * dist(r["input_len"], i)
         + 0.5 * dist(r["output_len"], o)
         + (0 if r["precision"] == cls["precision"] else 1)
         + (0 if e["moe"] == is_moe(model) else 1))  # fmt: skip
    same = regime(e["batch"], r["input_len"], r["output_len"]) == regime(batch, i, o)
    return math.exp(-2 * d) * (1.0 if same else math.exp(-2.0))


def weighted_geomean(pairs: list[tuple[float, float]]) -> float | None:
    pairs = [(w, x) for w, x in pairs if x and x > 0]
    if not pairs:
        return None
    return math.exp(sum(w * math.log(x) for w, x in pairs) / sum(w for w, _ in pairs))


def weighted_quantile(items: list[tuple[float, float, str]], q: float) -> float:
    """The smallest log-efficiency whose cumulative weight share reaches q; items are
    (weight, log efficiency, run key), ordered by efficiency then run key."""
    items = sorted(items, key=lambda t: (t[1], t[2]))
    total, acc = sum(w for w, _, _ in items), 0.0
    for w, le, _ in items:
        acc += w
        if acc / total >= q - 1e-12:
            return le
    return items[-1][1]


def effective_runs(items: list[tuple[float, float, str]]) -> float:
    return sum(w for w, _, _ in items) ** 2 / sum(w * w for w, _, _ in items)


def calibration(cls: dict, model: dict, gpu: dict, effs: list[dict], v: dict) -> dict | None:
    """Efficiency and latency ratios for a (class, GPU) without matching runs, from the runs of
    the class's kind (token runs for LLM serving, image runs for image generation): the weighted
    upper quantile of each level's efficiencies, shrunk toward the level above (all GPUs <-
    vendor <- generation <- GPU kind <- stack) by its effective number of runs; the best stack."""
    q, n0 = float(v["calibration_quantile"]), float(v["calibration_prior_weight"])
    wanted = "image" if cls["class_kind"] == "image_generation" else "tokens"
    pool = [(nearness(e, cls, model), e) for e in effs if e["run_kind"] == wanted]
    pool = [(w, e) for w, e in pool if e["efficiency"] > 0]
    if not pool:
        return None

    def level(pred) -> list[tuple[float, float, str]]:
        return [(w, math.log(e["efficiency"]), e["run"]["run_key"]) for w, e in pool if pred(e)]

    def shrunk(items, above: float) -> float:
        ess = effective_runs(items)
        return (ess * weighted_quantile(items, q) + n0 * above) / (ess + n0)

    def ratio(key: str, pred) -> float | None:
        near = [(w, e[key]) for w, e in pool if pred(e) and w >= math.exp(-4)]
        return weighted_geomean(near)

    s = weighted_quantile(level(lambda e: True), q)
    preds = [lambda e: True]
    source = "all_gpus"
    for name, pred in (
        ("vendor", lambda e: e["vendor"] == gpu["vendor"]),
        ("architecture", lambda e: e["vendor"] == gpu["vendor"]
            and e["architecture"] == gpu["architecture"]),
        ("this_gpu_kind", lambda e: e["kind"] == (gpu["vendor"], gpu["family"])),
    ):  # fmt: skip
        items = level(pred)
        if not items:
            break
        s, source = shrunk(items, s), name
        preds.append(pred)
    if source == "this_gpu_kind":
        own = preds[-1]
        s = max(
            shrunk(level(lambda e, st=st: own(e) and e["stack"] == st), s)
            for st in {e["stack"] for _, e in pool if own(e)}
        )
    ttft = next((x for x in (ratio("ttft_ratio", p) for p in reversed(preds)) if x), None)
    e2e = next((x for x in (ratio("e2e_ratio", p) for p in reversed(preds)) if x), None)
    grade = "calibrated" if source == "this_gpu_kind" else "estimated"
    return {"grade": grade, "source": source, "efficiency": math.exp(s),
            "ttft_ratio": ttft, "e2e_ratio": e2e}  # fmt: skip


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
    catalog = {g["gpu_id"]: g for g in read_csv("gpu_catalog.csv")}
    memory = {g: float(c["memory_gb"]) for g, c in catalog.items()}

    def rows(sql, params=None):
        cur = con.execute(sql, params or [])
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]

    specs = {r["gpu_id"]: r for r in rows("select * from marts.fct_gpu_specs")}
    every_run = rows(
        """select * from marts.fct_benchmark_runs where gpu_id is not null and gpu_count > 0
           and coalesce(output_units_per_s, output_tokens_per_s) > 0
           and ingested_date <= ?""",
        [day],
    )
    beaten = outperformed(every_run)
    runs = [r for r in every_run if r["duplicate_of"] is None and r["run_key"] not in beaten]
    effs = run_efficiencies(runs, models, specs, catalog, v)
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
            n, _terms = memory_fit(cls, model, memory[gpu_id])
            if n is None:
                continue
            matched = [r for r in runs if r["gpu_id"] == gpu_id and run_matches(cls, model, r, v)]
            kept = [r for r in matched if not breaks_slo(cls, r)]
            key = (
                "output_tokens_per_s"
                if cls["class_kind"] == "llm_serving"
                else "output_units_per_s"
            )
            est = roofline(cls, model, n, specs.get(gpu_id, {}), catalog[gpu_id]["interconnect"], v)
            cell = {"n": n, "matched": bool(matched)}
            if kept:
                cell["evidence"] = "measured"
                cell["unit"] = statistics.median(r[key] / r["gpu_count"] for r in kept) * n
                rates = [r["success_rate"] for r in kept if r["success_rate"] is not None]
                cell["success"] = sum(rates) / len(rates) if rates else 1.0
            elif not matched and est is not None:
                per_s, ttft, e2e = est
                cal = (calibration(cls, model, catalog[gpu_id], effs, v)
                       if cls["class_kind"] != "training" else None)  # fmt: skip
                cell["evidence"] = cal["grade"] if cal else "estimated"
                cell["unit"] = per_s * (cal["efficiency"] if cal else 1.0)
                cell["success"] = 1.0
                ttft_target, e2e_target = fnum(cls["slo_p95_ttft_ms"]), fnum(cls["slo_p99_e2e_ms"])
                if cal and (
                    (ttft_target and cal["ttft_ratio"] and ttft * cal["ttft_ratio"] > ttft_target)
                    or (e2e_target and cal["e2e_ratio"] and e2e * cal["e2e_ratio"] > e2e_target)
                ):
                    continue  # estimated to break the SLO: not eligible
            else:
                continue
            cells[gpu_id] = cell
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
    from warehouse.queries import NotFound
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
    recomputed: dict[date, dict[str, list[dict]]] = {}  # a day's recalculation covers every class
    for w in classes:
        if days[w] is None:
            continue
        if days[w] not in recomputed:
            recomputed[days[w]] = recompute(con, days[w])
        mine = recomputed[days[w]][w]
        try:
            theirs = workload_ranking(w, days[w])["gpus"]
        except NotFound:  # the class has no option ranked that day: the command says why
            theirs = []
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
        print(f"{w:24s} {days[w]}  {len(mine):3d} GPUs ranked, "
              f"{sum(c['evidence'] == 'measured' for c in mine)} measured, "
              f"{sum(c['evidence'] == 'calibrated' for c in mine)} calibrated")  # fmt: skip
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
