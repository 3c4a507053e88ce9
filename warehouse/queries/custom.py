"""`gpuledger rank --model ...` and `gpuledger explain --model ...`: a workload the user describes,
ranked by the published warehouse's table macro analytics.rank_workload (dbt/models/analytics/
rank_workload.sql), which computes through the same macros as the seeded classes' marts.

The answer is printed as `rank --workload` and `explain --workload` print a class's; a wrong
parameter comes back as the macro's error, which names the parameter and the reason.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any

import duckdb

from warehouse.queries import NotFound, WarehouseMissing, connect_published
from warehouse.queries.coverage import shown_day
from warehouse.queries.workloads import GPU_COLUMNS, GRADES, cell_sources


@dataclass
class Workload:
    """A workload as analytics.rank_workload takes it (None: the macro's default)."""

    model: str
    input_len: int | None
    output_len: int | None
    concurrency: int = 1
    precision: str | None = None
    slo_p95_ttft_ms: float | None = None
    slo_p99_e2e_ms: float | None = None
    pricing_models: list[str] = field(default_factory=lambda: ["on_demand"])
    day: date | None = None

    def label(self) -> str:
        parts = [
            f"{self.model} ({self.precision or 'its checkpoint precision'})",
            f"{self.input_len} in / {self.output_len} out tokens",
            f"{self.concurrency} at once",
        ]
        if self.slo_p95_ttft_ms is not None:
            parts.append(f"p95 TTFT <= {self.slo_p95_ttft_ms:g} ms")
        if self.slo_p99_e2e_ms is not None:
            parts.append(f"p99 end-to-end <= {self.slo_p99_e2e_ms:g} ms")
        parts.append("+".join(self.pricing_models))
        return "your workload: " + ", ".join(parts)


def _call(workload: Workload) -> tuple[str, list]:
    args = {k: v for k, v in asdict(workload).items() if v is not None}
    sql = (
        "select * from analytics.rank_workload(" + ", ".join(f"{name} := ?" for name in args) + ")"
    )
    return sql, list(args.values())


def rank_rows(con: duckdb.DuckDBPyConnection, workload: Workload) -> list[dict[str, Any]]:
    """Every option of the workload on its day, as analytics.rank_workload returns them."""
    sql, params = _call(workload)
    try:
        cur = con.execute(sql, params)
    except duckdb.InvalidInputException as exc:
        # the macro's own checks (error()): they name the parameter and the reason
        message = str(exc).split("rank_workload: ", 1)
        if len(message) == 2:
            raise NotFound(message[1].strip()) from exc
        raise
    except duckdb.CatalogException as exc:
        raise WarehouseMissing(
            f"the published warehouse has no analytics.rank_workload yet ({exc}); run "
            "`gpuledger refresh`"
        ) from exc
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]


def custom_ranking(workload: Workload, min_evidence: str | None = None) -> dict[str, Any]:
    """GPUs ranked for the workload (each by its best eligible offer), the model APIs, what is
    not eligible, and whether the leader is told apart from the runner-up by the evidence."""
    con = connect_published()
    try:
        coverage = shown_day(con) if workload.day is None else None
        rows = rank_rows(con, workload)
    finally:
        con.close()
    ranked = sorted((r for r in rows if r["gpu_rank"] is not None), key=lambda r: r["gpu_rank"])
    gpus = [{k: r[k] for k in GPU_COLUMNS} for r in ranked]
    # fct_class_leaders_daily's rule: the leader's p90 cost reaches the runner-up's p10 (or
    # either has no interval)
    tied = len(gpus) > 1 and (
        gpus[0]["cost_per_accepted_output_p90"] is None
        or gpus[1]["cost_per_accepted_output_p10"] is None
        or gpus[0]["cost_per_accepted_output_p90"] >= gpus[1]["cost_per_accepted_output_p10"]
    )
    hidden = 0
    if min_evidence:
        kept = [g for g in gpus if GRADES.get(g["evidence"], 0) >= GRADES[min_evidence]]
        hidden, gpus = len(gpus) - len(kept), kept
    # the columns `rank --workload` gives a model API (warehouse/queries/workloads.py)
    apis = [
        {"option_rank": r["option_rank"], "provider": r["provider"], "model_id": r["offer_id"],
         "cost_per_1m_accepted_tokens": r["cost_per_1m_accepted_tokens"],
         "cost_per_accepted_output": r["cost_per_accepted_output"],
         "tokens_per_dollar": r["tokens_per_dollar"], "output_unit": r["output_unit"],
         "days_since_observed": r["days_since_observed"]}
        for r in rows if r["option_kind"] == "model_api" and r["option_rank"] is not None
    ][:5]  # fmt: skip
    offered = {r["gpu_id"] for r in rows if r["option_kind"] == "gpu_offer"}
    day = rows[0]["day"] if rows else workload.day
    return {"workload": workload.label(), "day": day, "gpus": gpus, "model_apis": apis,
            "gpus_not_eligible": len(offered - {r["gpu_id"] for r in ranked}),
            "coverage": coverage, "tied_within_evidence": tied, "min_evidence": min_evidence,
            "gpus_hidden": hidden}  # fmt: skip


FIT_COLUMNS = (
    "gpus_needed", "memory_gb", "headroom", "weights_gb", "kv_cache_gb",
    "runtime_overhead_gb_per_gpu", "required_gb", "usable_gb_per_gpu", "fits",
)  # fmt: skip


def custom_explain(workload: Workload, gpu_id: str) -> dict[str, Any]:
    """The calculation behind one GPU for the workload, shaped as `explain --workload`'s: its best
    offer (eligible first, then the cheapest), memory fit, evidence and the runs behind them."""
    con = connect_published()
    try:
        rows = rank_rows(con, workload)
        offers = sorted(
            (r for r in rows if r["gpu_id"] == gpu_id),
            key=lambda r: (not r["is_eligible"], r["cost_per_accepted_output"] is None,
                           r["cost_per_accepted_output"] or 0, r["price_usd_per_gpu_hour"],
                           r["option_key"]),
        )  # fmt: skip
        if not offers:
            priced = sorted({r["gpu_id"] for r in rows if r["gpu_id"]})
            raise NotFound(
                f"no offer of {gpu_id!r} under {'/'.join(workload.pricing_models)} on "
                f"{rows[0]['day'] if rows else workload.day}; GPUs offered: {', '.join(priced)}"
            )
        best = dict(offers[0], instance_price_per_hour=offers[0]["offer_price_per_hour"],
                    instance_gpus=offers[0]["offer_gpu_count"])  # fmt: skip
        model = con.execute(
            "select params_b, native_precision from reference.model_reference where model_ref = ?",
            [workload.model],
        ).fetchone()
        competing, calibration_runs, runs = cell_sources(con, best["day"], best, best)
    finally:
        con.close()
    ranked = sorted((r for r in rows if r["gpu_rank"] is not None), key=lambda r: r["gpu_rank"])
    leader = None
    if ranked:
        first, second = ranked[0], ranked[1] if len(ranked) > 1 else None
        leader = {
            "gpu_id": first["gpu_id"],
            "runner_up_gpu_id": second["gpu_id"] if second else None,
            "is_tied_within_evidence": second is not None
            and (first["cost_per_accepted_output_p90"] is None
                 or second["cost_per_accepted_output_p10"] is None
                 or first["cost_per_accepted_output_p90"]
                 >= second["cost_per_accepted_output_p10"]),
        }  # fmt: skip
    cls = {
        "model_ref": workload.model, "params_b": model[0],
        "precision": workload.precision or model[1], "class_kind": "llm_serving",
        "input_len": workload.input_len, "output_len": workload.output_len,
        "concurrency": workload.concurrency, "slo_p95_ttft_ms": workload.slo_p95_ttft_ms,
        "slo_p99_e2e_ms": workload.slo_p99_e2e_ms, "target_utilization": best["target_utilization"],
        "overhead_usd_per_hour": best["overhead_usd_per_hour"],
        "quality_pass_rate": best["quality_pass_rate"], "tokens_per_output": None,
        "flops_per_output_tflop": None,
    }  # fmt: skip
    rank = next((r for r in ranked if r["gpu_id"] == gpu_id), None)
    return {
        "workload": workload.label(),
        "gpu_id": gpu_id,
        "day": best["day"],
        "class": cls,
        "memory_fit": {k: best[k] for k in FIT_COLUMNS},
        "evidence": best,
        "runs": runs,
        "calibration_runs": calibration_runs,
        "best_offer": best,
        "competing_prices": competing,
        "n_offers": len(offers),
        "gpu_rank": rank["gpu_rank"] if rank else None,
        "leader": leader,
        "option_rank": rank["option_rank"] if rank else None,
    }
