"""`gpuledger rank --workload` and `gpuledger explain` (the class leaders `refresh` ends with:
warehouse/queries/leaders.py).

Both read the marts only (fct_gpu_rankings_daily, fct_workload_costs_daily,
fct_throughput_evidence, int_workload_memory_fit, fct_benchmark_runs, the seeds); no Dagster.
"""

from __future__ import annotations

import csv
import io
from datetime import date
from typing import Any

import duckdb

from warehouse.queries import NotFound, WarehouseMissing, connect_published, short_run_key
from warehouse.queries.coverage import shown_day
from warehouse.queries.estimate import unknown_gpu
from warehouse.units import catalog_age, cost_scale, money, outputs_word, scaled

# what `rank --workload` shows of each GPU (its JSON and CSV keep these keys;
# a CSV without GPU rows still has this header)
GPU_COLUMNS = (
    "gpu_rank", "gpu_id", "provider", "offer_id", "region", "pricing_model",
    "price_usd_per_gpu_hour", "gpus_needed", "evidence", "runs_used", "unit_outputs_per_s",
    "accepted_fraction", "effective_hourly_cost", "tokens_per_dollar",
    "cost_per_1m_accepted_tokens", "cost_per_accepted_output", "cost_per_accepted_output_p10",
    "cost_per_accepted_output_p90", "output_unit", "slo_status", "is_stale",
    "days_since_observed", "snapshot_url", "snapshot_sha256", "slo_margin",
)  # fmt: skip


def rows_of(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> list[dict]:
    """A query's rows as dicts by column name."""
    cur = con.execute(sql, params or [])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]


def _classes(con) -> list[str]:
    return [
        r[0]
        for r in con.execute(
            "select workload_class from reference.workload_classes order by 1"
        ).fetchall()
    ]


def _check_class(con, workload: str) -> None:
    known = _classes(con)
    if workload not in known:
        raise NotFound(f"no workload class {workload!r}; known: {', '.join(known)}")


def _day(con, workload: str, day: date | None) -> date:
    """The day asked for, else the day the first screen shows (or the class's newest ranked day
    before it, when the class has no ranking that day)."""
    if day is not None:
        return day
    coverage = shown_day(con)
    newest = con.execute(
        "select max(day) from marts.fct_gpu_rankings_daily where workload_class = ? "
        "and (? is null or day <= ?)",
        [workload, coverage and coverage["day"], coverage and coverage["day"]],
    ).fetchone()[0]
    if newest is None:
        raise NotFound(f"workload class {workload!r} has no ranked day yet")
    return newest


def _check_ranked(con, workload: str, day: date) -> None:
    """A day the class has no option ranked on is refused with the reason, not shown empty:
    the day has no GPU prices, or none of its offers is eligible for the class."""
    if con.execute(
        "select count(*) from marts.fct_gpu_rankings_daily where workload_class = ? and day = ?",
        [workload, day],
    ).fetchone()[0]:
        return
    first, last = con.execute(
        "select min(day), max(day) from marts.fct_gpu_rankings_daily where workload_class = ?",
        [workload],
    ).fetchone()
    ranked = f"{workload} is ranked on days from {first} to {last}" if first else (
        f"{workload} has no ranked day yet")  # fmt: skip
    if not con.execute(
        "select count(*) from marts.fct_gpu_offers_daily where day = ?", [day]
    ).fetchone()[0]:
        raise NotFound(f"{day} has no GPU prices; {ranked}")
    raise NotFound(
        f"no option is eligible for {workload} on {day} (memory fit, offers, evidence, SLO: "
        f"see `gpuledger explain`); {ranked}"
    )


GRADES = {"measured": 3, "calibrated": 2, "estimated": 1}


def workload_ranking(
    workload: str, day: date | None = None, min_evidence: str | None = None
) -> dict[str, Any]:
    con = connect_published()
    try:
        try:
            _check_class(con, workload)
            coverage = shown_day(con) if day is None else None  # the default day, and why
            day = _day(con, workload, day)
            _check_ranked(con, workload, day)
        except duckdb.CatalogException as exc:
            raise WarehouseMissing(f"the warehouse has no rankings yet ({exc})") from exc
        gpus = rows_of(
            con,
            """select gpu_rank, gpu_id, provider, offer_id, region, pricing_model,
                      price_usd_per_gpu_hour, gpus_needed, evidence, runs_used,
                      unit_outputs_per_s, accepted_fraction, effective_hourly_cost,
                      tokens_per_dollar, cost_per_1m_accepted_tokens, cost_per_accepted_output,
                      cost_per_accepted_output_p10, cost_per_accepted_output_p90,
                      output_unit, slo_status, is_stale, days_since_observed, snapshot_url,
                      snapshot_sha256
               from marts.fct_gpu_rankings_daily
               where workload_class = ? and day = ? and gpu_rank is not null
               order by gpu_rank""",
            [workload, day],
        )
        margins = dict(
            con.execute(
                """select gpu_id, slo_margin from marts.fct_throughput_evidence
                   where workload_class = ? and evidence_from <= ?
                     and (evidence_until is null or ? < evidence_until)""",
                [workload, day, day],
            ).fetchall()
        )
        for g in gpus:
            g["slo_margin"] = margins.get(g["gpu_id"])
        hidden = 0
        if min_evidence:
            floor = GRADES[min_evidence]
            kept = [g for g in gpus if GRADES.get(g["evidence"], 0) >= floor]
            hidden, gpus = len(gpus) - len(kept), kept
        apis = rows_of(
            con,
            """select option_rank, provider, offer_id as model_id, cost_per_1m_accepted_tokens,
                      cost_per_accepted_output, tokens_per_dollar, output_unit,
                      days_since_observed
               from marts.fct_gpu_rankings_daily
               where workload_class = ? and day = ? and option_kind = 'model_api'
               order by option_rank limit 5""",
            [workload, day],
        )
        # the leader's p10-p90 cost interval against the runner-up's (fct_class_leaders_daily)
        tied = con.execute(
            """select is_tied_within_evidence from marts.fct_class_leaders_daily
               where workload_class = ? and day = ?""",
            [workload, day],
        ).fetchone()
        ineligible = con.execute(
            """select count(distinct gpu_id) from marts.fct_workload_costs_daily
               where workload_class = ? and day = ? and option_kind = 'gpu_offer'
                 and gpu_id not in (select gpu_id from marts.fct_gpu_rankings_daily
                                    where workload_class = ? and day = ? and gpu_id is not null)""",
            [workload, day, workload, day],
        ).fetchone()[0]
    finally:
        con.close()
    return {"workload": workload, "day": day, "gpus": gpus, "model_apis": apis,
            "gpus_not_eligible": ineligible, "coverage": coverage,
            "tied_within_evidence": bool(tied and tied[0]),
            "min_evidence": min_evidence, "gpus_hidden": hidden}  # fmt: skip


def no_gpu_line(result: dict[str, Any]) -> str:
    """Why a ranking shows no GPU: none of those with offers is eligible."""
    return (
        f"{result['workload']} on {result['day']}: no GPU is eligible "
        f"({result['gpus_not_eligible']} GPU(s) with offers: memory fit, too few GPUs in the "
        "offer, no evidence, SLO: see `gpuledger explain`)"
    )


def render_workload_ranking(
    result: dict[str, Any], fmt: str = "table", limit: int | None = None
) -> str:
    rows = result["gpus"][:limit] if limit else result["gpus"]
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else list(GPU_COLUMNS))
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue()
    apis = result["model_apis"][:1]
    # the class's unit: its GPUs', or its model API's when --min-evidence hides every GPU
    unit = next((r["output_unit"] for r in rows + apis), "")
    factor, label = cost_scale(
        [r["cost_per_accepted_output"] for r in rows]
        + [a["cost_per_accepted_output"] for a in apis],
        unit,
    )
    lines = [
        f"{result['workload']} on {result['day']}: GPUs by cost per accepted output, in {label}",
        f"{'rank':>4}  {'gpu_id':32s} {'cost':>12} {'$/1M tok':>9} {'tok/$':>9} "
        f"{'n':>2} {'$/GPU-h':>8}  {'provider':11s} {'offer':34s} evidence   note",
    ]
    not_eligible = result["gpus_not_eligible"]
    if not rows and not result.get("gpus_hidden"):
        # only a model API is eligible: say why no GPU is, rather than show an empty table
        lines = [no_gpu_line(result)]
        not_eligible = 0

    def interval(r: dict) -> str:
        lo, hi = r.get("cost_per_accepted_output_p10"), r.get("cost_per_accepted_output_p90")
        if lo is None or hi is None:
            return ""
        return f"p10-p90 {money(lo * factor).strip()}-{money(hi * factor).strip()}"

    for r in rows:
        note = []
        if r["is_stale"]:
            note.append(f"stale {r['days_since_observed']}d")
        if r["slo_status"] == "unknown":
            note.append("SLO unchecked")
        elif r["slo_status"] == "estimated_met":
            margin = r.get("slo_margin")
            note.append("SLO met, estimated" + (f" ({margin:+.0%})" if margin is not None else ""))
        elif r["slo_status"] == "met":
            note.append("SLO met")
        if spread := interval(r):
            note.append(spread)
        lines.append(
            f"{r['gpu_rank']:>4}  {r['gpu_id']:32s} "
            f"{money(r['cost_per_accepted_output'] * factor, 12)} "
            f"{_fmt(r['cost_per_1m_accepted_tokens'], 9, 3)} {_fmt(r['tokens_per_dollar'], 9, 0)} "
            f"{r['gpus_needed']:>2} {r['price_usd_per_gpu_hour']:8.3f}  {r['provider'][:11]:11s} "
            f"{str(r['offer_id'])[:34]:34s} {r['evidence']:10s} {', '.join(note)}"
        )
    if result.get("tied_within_evidence") and len(result["gpus"]) > 1:
        lines.append(
            "TIED WITHIN EVIDENCE: rank 1's p10-p90 cost interval reaches rank 2's; the evidence "
            "does not tell them apart (see `gpuledger explain`)"
        )
    if rows and all(r["slo_status"] == "unknown" for r in rows):
        lines.append(
            "SLO UNCHECKED on every GPU shown: no run near this workload reports its latency, so "
            "the order above ignores the latency target (see `gpuledger explain`)"
        )
    if result.get("gpus_hidden"):
        lines.append(
            f"{result['gpus_hidden']} GPU(s) with evidence weaker than {result['min_evidence']} "
            "hidden (--min-evidence)"
        )
    if limit and len(result["gpus"]) > limit:
        lines.append(f"... {len(result['gpus']) - limit} more (--format json)")
    if result["model_apis"]:
        best = result["model_apis"][0]
        # its price's catalog, when not one of the day (warehouse/README.md)
        age = catalog_age(best.get("days_since_observed"), result["day"])
        lines.append(
            f"cheapest model API: {best['provider']}/{best['model_id']} at "
            f"{money(best['cost_per_accepted_output'] * factor)} {label} "
            f"(overall rank {best['option_rank']}{f'; {age}' if age else ''})"
        )
    if not_eligible:
        lines.append(
            f"{not_eligible} GPU(s) with offers are not eligible "
            "(memory fit, too few GPUs in the offer, no evidence, SLO): see `gpuledger explain`"
        )
    return "\n".join(lines)


def _fmt(value, width: int, digits: int) -> str:
    return f"{value:{width}.{digits}f}" if value is not None else f"{'-':>{width}}"


def cell_sources(
    con: duckdb.DuckDBPyConnection, day: date, evidence: dict, best_offer: dict | None
) -> tuple[list[dict], list[dict], list[dict]]:
    """What a cell's figures rest on: another source's price of its best offer that day (and
    which of the two ranks), the calibration's nearest runs, and the measured runs used."""
    competing = []
    if best_offer and best_offer["option_kind"] == "gpu_offer":
        competing = rows_of(
            con,
            """select * from marts.fct_price_disagreements
               where day = ? and ((source_a = ? and offer_key_a = ?)
                                  or (source_b = ? and offer_key_b = ?))
               order by relative_gap desc, source_a, source_b, offer_key_a, offer_key_b""",
            [day] + [best_offer["source"], best_offer["option_key"]] * 2,
        )
    calibration_runs = []
    if evidence.get("calibration_nearest_runs"):
        calibration_runs = rows_of(
            con,
            """select run_key, file_path, model_id, precision, gpu_id, gpu_count, batch,
                      input_len, output_len, measured_tokens_per_s, predicted_tokens_per_s,
                      efficiency
               from marts.fct_benchmark_run_efficiency
               where run_key in (select unnest(?))
               order by list_position(?, run_key)""",
            [evidence["calibration_nearest_runs"].split(" | ")] * 2,
        )
    runs = []
    if evidence.get("runs_used"):
        runs = rows_of(
            con,
            """select run_key, file_path, format, model_id, precision, gpu_name_raw, gpu_count,
                      hardware_source, input_len, output_len, concurrency,
                      output_tokens_per_s, output_units_per_s, success_rate, ttft_p95_ms,
                      e2e_p99_ms, measured_at
               from marts.fct_benchmark_runs where run_key in (select unnest(?))
               order by run_key""",
            [evidence["runs_used"].split(" | ")],
        )
    return competing, calibration_runs, runs


def explain(workload: str, gpu_id: str, day: date | None = None) -> dict[str, Any]:
    """The whole chain behind one (class, GPU, day) cell, from the marts."""
    con = connect_published()
    try:
        _check_class(con, workload)
        day = _day(con, workload, day)
        cls = rows_of(
            con,
            """select c.*, m.params_b, m.active_params_b, m.is_moe, m.layers, m.kv_heads,
                      m.head_dim
               from reference.workload_classes as c
               join reference.model_reference as m using (model_ref)
               where workload_class = ?""",
            [workload],
        )[0]
        fit = rows_of(
            con,
            "select * from intermediate.int_workload_memory_fit "
            "where workload_class = ? and gpu_id = ?",
            [workload, gpu_id],
        )
        if not fit:
            raise unknown_gpu(con, gpu_id)
        evidence = rows_of(
            con,
            """select * from marts.fct_throughput_evidence
               where workload_class = ? and gpu_id = ? and evidence_from <= ?
                 and (evidence_until is null or ? < evidence_until)""",
            [workload, gpu_id, day, day],
        )[0]
        offers = rows_of(
            con,
            """select c.*, o.price_per_hour as instance_price_per_hour, o.gpu_count as instance_gpus
               from marts.fct_workload_costs_daily as c
               left join marts.fct_gpu_offers_daily as o
                 on o.day = c.day and o.offer_key = c.option_key
               where c.workload_class = ? and c.gpu_id = ? and c.day = ?
               order by c.is_eligible desc, c.cost_per_accepted_output nulls last,
                        c.price_usd_per_gpu_hour, c.option_key""",
            [workload, gpu_id, day],
        )
        rank = con.execute(
            """select gpu_rank, option_rank from marts.fct_gpu_rankings_daily
               where workload_class = ? and day = ? and gpu_id = ? and gpu_rank is not null""",
            [workload, day, gpu_id],
        ).fetchone()
        leader = rows_of(
            con,
            """select gpu_id, runner_up_gpu_id, is_tied_within_evidence
               from marts.fct_class_leaders_daily where workload_class = ? and day = ?""",
            [workload, day],
        )
        competing, calibration_runs, runs = cell_sources(
            con, day, evidence, offers[0] if offers else None
        )
    finally:
        con.close()
    return {
        "workload": workload,
        "gpu_id": gpu_id,
        "day": day,
        "class": cls,
        "memory_fit": fit[0],
        "evidence": evidence,
        "runs": runs,
        "calibration_runs": calibration_runs,
        "best_offer": offers[0] if offers else None,
        "competing_prices": competing,
        "n_offers": len(offers),
        "gpu_rank": rank[0] if rank else None,
        "leader": leader[0] if leader else None,
        "option_rank": rank[1] if rank else None,
    }


def _largest_unit(cls: dict[str, Any]) -> str:
    """The largest unit the memory fit tries: a power of two up to the class's max_gpus, at most 8
    (macros/workload_model.sql, wl_memory_fit)."""
    limit = min(cls.get("max_gpus") or 8, 8)
    n = max((k for k in (1, 2, 4, 8) if k <= limit), default=1)
    return "1 GPU" if n == 1 else f"{n} GPUs"


def _count(value) -> str:
    """A length or concurrency as a whole number when it is one (the seed stores 1024.0)."""
    return "-" if value is None else f"{value:g}"


def _slo_text(c: dict[str, Any]) -> str:
    """The class's latency targets as words: "SLO p95 TTFT 800 ms", "no SLO"."""
    targets = [
        f"{name} {value:g} ms"
        for name, value in (
            ("p95 TTFT", c["slo_p95_ttft_ms"]),
            ("p99 end-to-end", c["slo_p99_e2e_ms"]),
        )
        if value
    ]
    return f"SLO {', '.join(targets)}" if targets else "no SLO"


def render_explain(x: dict[str, Any]) -> str:
    c, f, e, o = x["class"], x["memory_fit"], x["evidence"], x["best_offer"]
    out = [f"{x['workload']} x {x['gpu_id']} on {x['day']}"]
    out.append(
        f"class: {c['model_ref']} ({c['params_b']} B parameters, {c['precision']}), "
        f"{_count(c['input_len'])} in / {_count(c['output_len'])} out tokens, concurrency "
        f"{_count(c['concurrency'])}, {_slo_text(c)}, utilization {c['target_utilization']}, "
        f"overhead {c['overhead_usd_per_hour']} USD/h, quality pass rate {c['quality_pass_rate']}"
    )
    n = f["gpus_needed"]
    out.append(
        f"1 memory fit: weights {f['weights_gb']} GB + KV cache {f['kv_cache_gb']} GB + "
        f"{f['runtime_overhead_gb_per_gpu']} GB runtime per GPU; usable per GPU "
        f"{f['memory_gb']} x (1 - {f['headroom']}) = {f['usable_gb_per_gpu']} GB"
        + (f" -> gpus_needed = {n}" if n else f" -> does not fit on {_largest_unit(c)}")
    )
    if e["evidence"] == "measured":
        out.append(
            f"2 throughput: measured, {e['n_runs_used']} of {e['n_runs_matched']} matching runs "
            f"keep the SLO; median {e['measured_per_gpu_outputs_per_s']:.3f} per GPU x {n} = "
            f"{e['unit_outputs_per_s']:.3f} outputs/s"
        )
        for r in x["runs"]:
            out.append(
                f"   run {short_run_key(r['run_key'])} in {r['file_path']} ({r['format']}): "
                f"{r['gpu_count']} x "
                f"{r['gpu_name_raw']} [{r['hardware_source']}], in {r['input_len']}, out "
                f"{r['output_len']}, concurrency {r['concurrency']}, "
                f"{r['output_tokens_per_s'] or r['output_units_per_s']:.3f}/s, success "
                f"{r['success_rate'] if r['success_rate'] is not None else 'not counted'}"
            )
    elif e["evidence"] in ("calibrated", "estimated"):
        if c["class_kind"] == "llm_serving":
            out.append(
                f"2 throughput: {e['evidence']}. Model (prefill and decode add up; bound by "
                f"{e['estimate_bound']}): bandwidth {e['memory_bandwidth_gb_s']} GB/s x "
                f"{e['bandwidth_efficiency']}, dense TFLOPS {e['tflops']} x "
                f"{e['compute_efficiency']}, {e['interconnect']} unit of {n} (tensor-parallel "
                f"factor {e['tp_factor']:.2f}); decode alone {_num(e['decode_bound_per_s'])}/s, "
                f"compute alone {_num(e['compute_bound_per_s'])}/s -> "
                f"{_num(e['raw_estimate_outputs_per_s'])}/s"
            )
        else:
            per = (f"{c['flops_per_output_tflop']} TFLOP per image" if c["flops_per_output_tflop"]
                   else f"4 x parameters x {c['tokens_per_output']} tokens per sample")  # fmt: skip
            out.append(
                f"2 throughput: {e['evidence']}. Model (compute-bound): {n} x dense TFLOPS "
                f"{e['tflops']} x {e['compute_efficiency']} over {per} (tensor-parallel factor "
                f"{e['tp_factor']:.2f}) -> {_num(e['raw_estimate_outputs_per_s'])}/s"
            )
        far = (e["calibration_nearest_weight"] or 0) < 0.0183  # exp(-4): a distance over 2
        source = {
            "this_gpu_kind": f"{e['calibration_runs']} runs on this kind of GPU (p10-p90 "
            f"{_num(e['calibration_p10'])}-{_num(e['calibration_p90'])}), nearest first"
            + (
                "; CAUTION: even the nearest run is far from this class (other model size, "
                "batch or precision)"
                if far
                else ""
            ),
            "architecture": "no run on this kind of GPU: its architecture generation's runs ("
            f"{e['calibration_comparable_gpus']})",
            "vendor": "no run on this GPU's architecture: its vendor's runs ("
            f"{e['calibration_comparable_gpus']})",
            "all_gpus": "no run of this GPU's vendor: all GPU kinds' runs",
            "uncalibrated": "no run of this kind of workload: the raw model, uncalibrated",
        }[e["calibration_source"]]
        out.append(
            f"   x efficiency {e['calibration_factor']:.4f} ({source}) = "
            f"{_num(e['unit_outputs_per_s'])}/s"
        )
        for r in x["calibration_runs"]:
            shape = (f"batch {r['batch']:.0f}, {r['input_len']:.0f}/{r['output_len']:.0f} tokens"
                     if c["class_kind"] == "llm_serving" else "images")  # fmt: skip
            out.append(
                f"   run {short_run_key(r['run_key'])} in {r['file_path']}: {r['model_id']} "
                f"{r['precision']} on {r['gpu_count']} x {r['gpu_id']}, {shape}: measured "
                f"{r['measured_tokens_per_s']:.2f}/s, model {r['predicted_tokens_per_s']:.2f}/s, "
                f"efficiency {r['efficiency']:.3f}"
            )
        if e["slo_status"] in ("estimated_met", "estimated_broken"):
            parts = []
            if c["slo_p95_ttft_ms"] is not None and e["ttft_p95_est_ms"] is not None:
                parts.append(f"TTFT p95 ~{e['ttft_p95_est_ms']:.0f} ms vs {c['slo_p95_ttft_ms']}")
            if c["slo_p99_e2e_ms"] is not None and e["e2e_p99_est_ms"] is not None:
                parts.append(
                    f"end-to-end p99 ~{e['e2e_p99_est_ms']:.0f} ms vs {c['slo_p99_e2e_ms']}"
                )
            out.append(
                f"   SLO {e['slo_status']} (margin {e['slo_margin']:+.0%}): "
                + "; ".join(parts)
                + " (the model's latency x the measured/model ratio of runs near the class)"
            )
        elif e["slo_status"] == "unknown" and (c["slo_p95_ttft_ms"] or c["slo_p99_e2e_ms"]):
            out.append("   SLO unknown: no run near the class reports its latency")
    elif not n:
        # no unit of this GPU holds the workload: nothing to measure or estimate (the specs
        # may well be known)
        out.append("2 throughput: none: the workload does not fit (1)")
    else:
        out.append(
            "2 throughput: no evidence (no matching run; no estimate without "
            f"{e.get('estimate_missing') or 'specs'})"
        )
    if o is None:
        out.append("3 price: no offer of an allowed pricing model for this GPU on this day")
        return "\n".join(out)
    out.append(
        f"3 price: {o['provider']} {o['offer_id']} {o['region'] or ''} ({o['pricing_model']}), "
        f"{o['instance_price_per_hour']} {o['currency']}/h for {o['instance_gpus']} GPU(s) x FX "
        f"{o['fx_usd_per_unit']} ({o['fx_rate_date'] or 'USD'}) = "
        f"{o['price_usd_per_gpu_hour']:.6f} "
        f"USD per GPU-hour; snapshot {o['snapshot_url']} @ {o['snapshot_fetched_at']} "
        f"sha256 {o['snapshot_sha256'][:16]}..; "
        + (f"stale {o['days_since_observed']} days" if o["is_stale"] else "fresh")
    )
    for d in x.get("competing_prices") or []:
        out.append("   " + _competing(d, o["source"]))
    if not o["is_eligible"]:
        out.append(f"   not eligible: {o['ineligible_reason']}")
        return "\n".join(out)
    out.append(
        f"4 accepted fraction: success {o['success_fraction']:.4f} ({o['success_source']}) x "
        f"quality {o['quality_pass_rate']} = {o['accepted_fraction']:.4f}"
    )
    out.append(
        f"5 effective hourly cost: {n} x {o['price_usd_per_gpu_hour']:.6f} / "
        f"{o['target_utilization']} + {o['overhead_usd_per_hour']} = "
        f"{o['effective_hourly_cost']:.6f} USD/h"
    )
    # the unit's throughput is in tokens for LLM serving: an output is a request or 1M tokens
    per_output = {"request": f" / {_count(c['output_len'])} tokens per request",
                  "1m_tokens": " / 1,000,000 tokens"}.get(o["output_unit"], "")  # fmt: skip
    out.append(
        f"6 accepted outputs per hour: {o['unit_outputs_per_s']:.3f} x 3600 x "
        f"{o['accepted_fraction']:.4f}{per_output} = {o['accepted_outputs_per_hour']:.6g} "
        + outputs_word(o["output_unit"])
    )
    tail = (
        f"7 result: {_num(o['tokens_per_dollar'])} tokens per USD, "
        f"{_num(o['cost_per_1m_accepted_tokens'], 4)} USD per 1M accepted tokens, "
        f"{o['cost_per_accepted_output']:.6f} USD per accepted {o['output_unit']} "
        f"(= {scaled(o['cost_per_accepted_output'], o['output_unit'])})"
    )
    if x["gpu_rank"]:
        tail += f"; GPU rank {x['gpu_rank']} (option rank {x['option_rank']})"
    out.append(tail)
    lo, hi = o.get("cost_per_accepted_output_p10"), o.get("cost_per_accepted_output_p90")
    if lo is not None and hi is not None:
        out.append(
            f"  uncertainty: p10-p90 {lo:.6f}-{hi:.6f} USD per accepted {o['output_unit']}, from "
            f"the throughput's p10-p90 {_num(o['unit_outputs_per_s_p10'])}-"
            f"{_num(o['unit_outputs_per_s_p90'])} (the cost goes as 1 / throughput)"
        )
    else:
        out.append("  uncertainty: none the evidence can give (an uncalibrated estimate or an API)")
    if x.get("leader"):
        ld = x["leader"]
        out.append(
            f"  against the class: leader {ld['gpu_id']}, "
            f"runner-up {ld['runner_up_gpu_id'] or '-'}; "
            + ("TIED WITHIN EVIDENCE (the leader's p10-p90 cost reaches the runner-up's)"
               if ld["is_tied_within_evidence"] else "the lead holds beyond the p10-p90 intervals")
        )  # fmt: skip
    return "\n".join(out)


def _competing(d: dict[str, Any], source: str) -> str:
    """One line on another source's price of the same offer that day and the rule that chose."""
    side, other = ("a", "b") if d["source_a"] == source else ("b", "a")
    line = (
        f"competing source: {d[f'source_{other}']} ({d[f'source_kind_{other}']}) prices this "
        f"offer as {d[f'offer_id_{other}']} at {d[f'price_usd_per_gpu_hour_{other}']:.6f} USD per "
        f"GPU-hour, {d['relative_gap']:.1%} apart"
        + (" (beyond the tolerance)" if d["is_above_tolerance"] else "")
        + "; "
    )
    if d["is_catalog_set_aside"]:
        return line + "the provider's own page is taken over a catalog (docs/method.md)"
    return line + "both are the same kind of source, so both offers rank and the cheaper leads"


def _num(value, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"
