"""`gpuledger rank` without a workload class (GPUs by USD per GPU-hour) and `gpuledger sources`
(health per source). Read-only, on the published copy."""

from __future__ import annotations

import csv
import io
import json
from datetime import date
from typing import Any

import duckdb

from warehouse.queries import WarehouseMissing, connect_published
from warehouse.queries.coverage import shown_day

# a GPU's row of the price ranking (JSON keys, CSV columns)
RANK_COLUMNS = (
    "gpu_rank", "gpu_id", "best_price_usd_per_gpu_hour", "best_provider", "best_offer_id",
    "best_region", "best_offer_gpu_count", "n_offers", "n_providers", "is_stale",
    "days_since_observed", "observed_at",
)  # fmt: skip


def ranking(
    day: date | None = None, pricing_model: str = "on_demand", not_after: date | None = None
) -> dict[str, Any]:
    con = connect_published()
    try:
        try:
            coverage = None
            if day is None:
                # The day the first screen shows: the newest day enough providers are fresh.
                coverage = shown_day(con, not_after)
                day = coverage["day"] if coverage else None
            cur = con.execute(
                f"""
                select {", ".join(RANK_COLUMNS)}
                from marts.fct_gpu_price_rankings_daily
                where day = ? and pricing_model = ?
                order by gpu_rank
                """,
                [day, pricing_model],
            )
        except duckdb.CatalogException as exc:
            raise WarehouseMissing(
                f"rankings not built yet ({exc}); run `gpuledger refresh`"
            ) from exc
        columns = [d[0] for d in cur.description]
        rows = [dict(zip(columns, r, strict=True)) for r in cur.fetchall()]
    finally:
        con.close()
    return {"day": day, "pricing_model": pricing_model, "rows": rows, "coverage": coverage}


def render_ranking_csv(result: dict[str, Any], limit: int | None = None) -> str:
    """The ranking's rows as CSV, with its header even when the day has none."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=RANK_COLUMNS)
    writer.writeheader()
    writer.writerows(result["rows"][:limit] if limit else result["rows"])
    return out.getvalue()


def render_ranking(result: dict[str, Any], limit: int | None = None) -> str:
    rows = result["rows"]
    if not rows:
        return f"no ranking for {result['day']} ({result['pricing_model']})"
    shown = rows[:limit] if limit else rows
    row_format = "{:>4}  {:<34} {:>9}  {:<11} {:<34} {:<22} {}"
    lines = [
        f"GPU ranking for {result['day']} ({result['pricing_model']}), cheapest USD per GPU-hour",
        row_format.format("rank", "gpu_id", "usd/gpu-h", "provider", "offer", "region", "note"),
    ]
    for r in shown:
        note = f"stale {r['days_since_observed']}d" if r["is_stale"] else ""
        price = f"{r['best_price_usd_per_gpu_hour']:.4f}"
        lines.append(
            row_format.format(
                r["gpu_rank"],
                r["gpu_id"],
                price,
                r["best_provider"],
                r["best_offer_id"][:34],
                r["best_region"][:22],
                note,
            )
        )
    if limit and len(rows) > limit:
        lines.append(f"... {len(rows) - limit} more (gpuledger rank --format json)")
    return "\n".join(lines)


def source_health() -> list[dict[str, Any]]:
    con = connect_published()
    try:
        try:
            # the analysts' view: the mart's health with the day's price disagreements named
            cur = con.execute("select * from analytics.source_health order by source")
        except duckdb.CatalogException as exc:
            raise WarehouseMissing(
                f"source health not built yet ({exc}); run `gpuledger refresh`"
            ) from exc
        columns = [d[0] for d in cur.description]
        return [dict(zip(columns, r, strict=True)) for r in cur.fetchall()]
    finally:
        con.close()


def failure_text(reason: str) -> str:
    """A rejected capture's reason as a reader says it: `<suite>: <what failed>`, each failed check
    as the field and why (a file gpuledger could not read) or the expectation, its column, how many
    rows broke it and a few of their values (a GX check), rather than the stored JSON. Any other
    reason (a fetch error) is returned as it is."""
    suite, sep, rest = reason.partition(": ")
    try:
        failed = json.loads(rest) if sep and rest.startswith("[") else None
    except ValueError:
        failed = None
    if not isinstance(failed, list) or not all(isinstance(f, dict) for f in failed) or not failed:
        return reason
    parts = []
    for f in failed:
        if "reason" in f:
            parts.append(f"{f.get('field')}: {f['reason']}")
            continue
        text = str(f.get("expectation"))
        if (f.get("kwargs") or {}).get("column"):
            text += f" on {f['kwargs']['column']}"
        if f.get("unexpected_count"):
            text += f", {f['unexpected_count']} rows"
        if f.get("partial_unexpected_list"):
            text += f" (e.g. {', '.join(str(v) for v in f['partial_unexpected_list'][:3])})"
        parts.append(text)
    return f"{suite}: {'; '.join(parts)}"


def render_source_health(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "no sources yet"
    # the source column as wide as the longest name ("model_api_prices"), so the states align
    width = max(len("source"), *(len(r["source"]) for r in rows))
    fmt = "{:<" + str(width) + "} {:<7} {:<17} {:>7} {:>6}  {}"
    lines = [
        f"Source health as of {rows[0]['as_of_date']}",
        fmt.format("source", "state", "newest accepted", "rows", "age d", "last failure"),
        "(rows: accepted rows fetched on the newest day; age d: days before the as-of day;",
        " kept: GPU specs or benchmark runs, used until newer ones replace them, however old)",
    ]
    for r in rows:
        state = "DOWN" if r["is_down"] else ("stale" if r["is_stale"] else "ok")
        if r.get("keeps_data") and not r["is_down"]:  # specs or runs, kept until replaced
            state = "kept"
        newest = (
            r["newest_accepted_at"].strftime("%Y-%m-%d %H:%M") if r["newest_accepted_at"] else "-"
        )
        failure = "-"
        if r["last_failure_at"]:
            reason = failure_text(r["last_failure_reason"] or "")[:120]
            failure = f"{r['last_failure_at']:%Y-%m-%d} {r['last_failure_kind']}: {reason}"
        age = "-" if r["days_since_newest"] is None else str(r["days_since_newest"])
        rows_day = r["rows_newest_day"] or 0
        lines.append(fmt.format(r["source"], state, newest, rows_day, age, failure))
    disagreeing = [r for r in rows if r.get("n_price_disagreements")]
    if disagreeing:
        lines.append(
            "Prices another source gives differently on the as-of day (beyond the tolerance; "
            "marts.fct_price_disagreements):"
        )
        for r in disagreeing:
            lines.append(f"  {r['source']}: {r['price_disagreements']}")
    return "\n".join(lines)
