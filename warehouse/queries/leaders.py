"""Each workload class's leader on the day the first screen shows: what `refresh` and
`backfill` end with (a line per class: its rank-1 GPU, the cheapest model API, the evidence and
what the reader must know about it). Reads the published copy only; no Dagster."""

from __future__ import annotations

from datetime import date
from typing import Any

import duckdb

from warehouse.queries import WarehouseMissing, connect_published
from warehouse.queries.coverage import shown_day
from warehouse.queries.workloads import rows_of
from warehouse.units import catalog_age, cost_scale, money


def leaders(not_after: date | None = None) -> dict[str, Any]:
    """Each workload class's rank-1 GPU (and cheapest model API) on the day the first screen
    shows (one day for every class; see warehouse/queries/coverage.py)."""
    con = connect_published()
    try:
        try:
            coverage = shown_day(con, not_after)
            day = coverage["day"] if coverage else None
            rows = rows_of(
                con,
                """select r.workload_class, r.day, r.gpu_id, r.provider, r.offer_id,
                          r.pricing_model, r.gpus_needed, r.evidence, r.cost_per_accepted_output,
                          r.cost_per_1m_accepted_tokens, r.output_unit, r.is_stale, r.slo_status,
                          (select min(a.cost_per_accepted_output)
                           from marts.fct_gpu_rankings_daily as a
                           where a.workload_class = r.workload_class and a.day = r.day
                             and a.option_kind = 'model_api') as best_api_cost,
                          (select arg_min(a.days_since_observed, a.option_rank)
                           from marts.fct_gpu_rankings_daily as a
                           where a.workload_class = r.workload_class and a.day = r.day
                             and a.option_kind = 'model_api') as best_api_catalog_age,
                          (select e.calibration_source from marts.fct_throughput_evidence as e
                           where e.workload_class = r.workload_class and e.gpu_id = r.gpu_id
                             and e.evidence_from <= r.day
                             and (e.evidence_until is null or r.day < e.evidence_until)
                          ) as calibration_source,
                          (select l.is_tied_within_evidence from marts.fct_class_leaders_daily as l
                           where l.workload_class = r.workload_class and l.day = r.day
                          ) as is_tied_within_evidence
                   from marts.fct_gpu_rankings_daily as r
                   where r.gpu_rank = 1 and r.day = ?
                   order by r.workload_class""",
                [day],
            )
        except duckdb.CatalogException as exc:
            raise WarehouseMissing(f"the warehouse has no rankings yet ({exc})") from exc
    finally:
        con.close()
    return {"day": day, "rows": rows, "coverage": coverage}


_LEADER_SLO = {"unknown": "SLO unchecked", "estimated_met": "SLO met, estimated"}


def render_leaders(result: dict[str, Any]) -> str:
    lines = [f"Cheapest GPU per accepted output on {result['day']}, per workload class (USD):"]
    lines.append(
        f"{'class':24s} {'gpu_id':31s} {'n':>2} {'cost':>8} {'best API':>8} "
        f"{'USD per':22s} {'provider':10s} evidence"
    )
    why = {  # an estimated leader says why it is not measured or calibrated
        "architecture": "no run of its kind on this GPU",
        "vendor": "no run of its kind on this GPU",
        "all_gpus": "no run of its kind on this GPU",
        "uncalibrated": "no run of its kind at all: uncalibrated",
    }
    for r in result["rows"]:
        factor, label = cost_scale([r["cost_per_accepted_output"]], r["output_unit"])
        api = money(r["best_api_cost"] * factor if r["best_api_cost"] is not None else None, 8)
        note = [why[r["calibration_source"]]] if r["evidence"] == "estimated" and r.get(
            "calibration_source") in why else []  # fmt: skip
        note += ["stale"] if r["is_stale"] else []
        # the class's latency target, when the evidence could not check it or only estimated it
        note += [_LEADER_SLO[r["slo_status"]]] if r.get("slo_status") in _LEADER_SLO else []
        note += ["tied within evidence"] if r.get("is_tied_within_evidence") else []
        line = (
            f"{r['workload_class']:24s} {r['gpu_id']:31s} "
            f"{r['gpus_needed']:>2} "
            f"{money(r['cost_per_accepted_output'] * factor, 8)} {api} "
            f"{label.removeprefix('USD per '):22s} {r['provider'][:10]:10s} "
            f"{r['evidence']:10s}" + (f" {', '.join(note)}" if note else "")
        )
        lines.append(line.rstrip())
    ages = {r["best_api_catalog_age"] for r in result["rows"]} - {None, 0}
    if ages:
        # the best API's price is not from a catalog of the day (warehouse/README.md, "Model-API
        # prices by day"): say how far from it, once for the table
        said = " or ".join(catalog_age(a, result["day"]) for a in sorted(ages))
        lines.append(f"best API: {said} (warehouse/README.md: model-API prices by day)")
    lines.append(
        "`gpuledger rank --workload W` ranks every GPU of a class; `gpuledger explain --workload W "
        "--gpu G` shows how a number was reached."
    )
    return "\n".join(lines)
