"""The daily report: one static HTML page, readable offline, built from the published warehouse.

Charts are Vega-Lite specs made with Altair and drawn in the browser by the Vega bundle that
vl-convert ships, inlined in the page: no server, no CDN. The page marks each chart
`data-drawn="yes"` once Vega has drawn it and the body `data-charts-drawn="N"` when all have, so a
headless browser can tell a page whose charts drew from one that only loaded.
"""

from __future__ import annotations

import html
import json
import os
import time
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import altair as alt
import duckdb
import pandas as pd

from warehouse import publish
from warehouse.paths import Paths
from warehouse.queries import coverage
from warehouse.units import catalog_age, cost_scale, money

HISTORY_DAYS = 365
TOP_GPUS = 8
DEFAULT_CLASS = "chat-70b"


@dataclass(frozen=True)
class Report:
    path: Path
    size_bytes: int
    seconds: float
    chart_rows: dict[str, int]  # rows of data behind each chart
    day: date | None


def build(paths: Paths, out: Path | None = None) -> Report:
    """Write the report of the published copy to `out`; "today" is the day the first screen shows
    (the newest day at least half the recent providers are fresh; warehouse/queries/coverage.py)."""
    began = time.perf_counter()
    out = out or paths.report_path
    con = publish.connect(paths)
    try:
        data = _load(con)
    finally:
        con.close()
    charts = {
        "leaders-over-time": _leaders_chart(data["leaders"]),
        "cost-per-output": _cost_chart(data["costs"]),
        "price-history": _price_chart(data["prices"]),
        "provider-spread": _spread_chart(data["spread"]),
        "coverage": _coverage_chart(data["coverage"], data["day"]),
    }
    page = _page(data, charts, publish.publication(paths) or {}, paths.home / "cache")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(out)
    return Report(
        path=out,
        size_bytes=out.stat().st_size,
        seconds=round(time.perf_counter() - began, 3),
        chart_rows={
            "leaders-over-time": len(data["leaders"]),
            "cost-per-output": len(data["costs"]),
            "price-history": len(data["prices"]),
            "provider-spread": len(data["spread"]),
            "coverage": len(data["coverage"]),
        },
        day=data["day"],
    )


def _df(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> pd.DataFrame:
    return con.execute(sql, params or []).df()


def _load(con: duckdb.DuckDBPyConnection) -> dict:
    shown = coverage.shown_day(con)
    day = shown["day"] if shown else None
    since = (day or date.today()) - timedelta(days=HISTORY_DAYS)
    leaders = _df(
        con,
        """select day, workload_class, gpu_id, gpu_name, provider, cost_per_accepted_output,
                  output_unit, evidence
           from analytics.cheapest_gpu_daily where day >= ? order by day, workload_class""",
        [since],
    )
    today = _df(
        con,
        """select workload_class, gpu_name, provider, offer_id, pricing_model,
                  gpus_needed, cost_per_accepted_output, output_unit, evidence,
                  evidence_basis, slo_status,
                  lead_pct, is_tied_within_evidence, cost_per_accepted_output_p10,
                  cost_per_accepted_output_p90, best_api, best_api_cost_per_accepted_output,
                  is_stale, day
           from analytics.cheapest_gpu_daily where day = ? order by workload_class""",
        [day],
    )
    costs = _df(
        con,
        """select c.workload_class, c.gpu_id, g.gpu_name, c.provider, c.offer_id,
                  c.cost_per_accepted_output, c.output_unit, c.evidence, c.gpu_rank
           from analytics.workload_costs_daily as c
           left join analytics.gpus as g using (gpu_id)
           where c.gpu_rank is not null and c.day = ?
           order by c.workload_class, c.gpu_rank""",
        [day],
    )
    # The GPUs with an on-demand price that led a class most often in the window, and their
    # cheapest on-demand price (a leader rented only on spot or by reservation has no line).
    prices = _df(
        con,
        """with top as (
               select gpu_id from analytics.cheapest_gpu_daily where day >= ?
                   and gpu_id in (select gpu_id from analytics.gpu_price_history
                                  where day >= ? and pricing_model = 'on_demand')
               group by gpu_id order by count(*) desc, gpu_id limit ?
           )
           select p.day, p.gpu_id, min(p.price_usd_per_gpu_hour) as usd_per_gpu_hour,
                  arg_min(p.provider, p.price_usd_per_gpu_hour) as provider
           from analytics.gpu_price_history as p
           where p.day >= ? and p.pricing_model = 'on_demand' and p.gpu_id in (select * from top)
           group by all order by p.day, p.gpu_id""",
        [since, since, TOP_GPUS, since],
    )
    spread = _df(
        con,
        """with latest as (
               select max(day) as day from analytics.provider_spread_daily
               where pricing_model = 'on_demand' and n_providers >= 2
           ),
           several as (
               select s.gpu_id from analytics.provider_spread_daily as s, latest
               where s.day = latest.day and s.pricing_model = 'on_demand' and s.n_providers >= 2
           )
           select p.day, p.gpu_id, p.provider, min(p.price_usd_per_gpu_hour) as usd_per_gpu_hour
           from analytics.gpu_price_history as p, latest
           where p.day = latest.day and p.pricing_model = 'on_demand'
             and p.gpu_id in (select gpu_id from several)
           group by all order by p.gpu_id, usd_per_gpu_hour""",
    )
    alert_columns = """day, workload_class, alert_kind, cause, old_gpu_id, old_provider,
                       new_gpu_id, new_provider, change_pct, is_within_uncertainty,
                       new_slo_status, failed_source"""
    alerts = _df(
        con,
        f"""select {alert_columns}
            from analytics.rank_changes order by day desc, workload_class limit 15""",
    )
    # the shown day's alerts, whichever day the newest 15 fall on
    day_alerts = _df(
        con,
        f"""select {alert_columns}
            from analytics.rank_changes where day = ? order by workload_class""",
        [day],
    )
    health = _df(
        con,
        """select source, newest_accepted_at, days_since_newest, keeps_data, is_stale, is_down,
                  n_fetch_failures, last_failure_reason, n_price_disagreements
           from analytics.source_health order by is_down desc, is_stale desc, source""",
    )
    # how old the ranked model APIs' catalogs are on the day (negative: taken after it)
    api_ages = [
        a
        for (a,) in con.execute(
            """select distinct days_since_observed from analytics.workload_costs_daily
               where day = ? and option_kind = 'model_api' and option_rank is not null
               order by 1""",
            [day],
        ).fetchall()
        if a
    ]
    # Offers two sources price beyond the tolerance on the shown day, and whose price ranks.
    disagreements = _df(
        con,
        """select provider, gpu_id, gpu_count, pricing_model, region,
                  source_a, price_usd_per_gpu_hour_a, source_b, price_usd_per_gpu_hour_b,
                  round(100 * relative_gap, 1) as gap_pct,
                  case when is_catalog_set_aside then source_a || ' (the provider''s page)'
                       else 'both (the cheaper ranks)' end as ranked
           from marts.fct_price_disagreements
           where day = ? and is_above_tolerance
           order by relative_gap desc, provider, gpu_id, source_a, source_b""",
        [day],
    )
    cover = _df(
        con,
        """select day, n_providers_fresh as fresh, n_providers_recent as recent, is_covered
           from analytics.coverage_daily where day >= ? order by day""",
        [since],
    )
    return {
        "day": day,
        "shown": shown,
        "coverage": cover,
        "leaders": leaders,
        "today": today,
        "costs": costs,
        "prices": prices,
        "spread": spread,
        "alerts": alerts,
        "day_alerts": day_alerts,
        "health": health,
        "disagreements": disagreements,
        "api_ages": api_ages,
    }


def _coverage_chart(df: pd.DataFrame, day: date | None) -> alt.LayerChart:
    """Providers fresh against those seen in the 30 days before, per day; the day shown marked."""
    long = df.melt(
        id_vars=["day"], value_vars=["fresh", "recent"], var_name="providers", value_name="n"
    )
    lines = (
        alt.Chart(long, title="Coverage: providers with fresh prices / seen in the 30 days before")
        .mark_line(interpolate="step-after")
        .encode(
            x=alt.X("day:T", title=None),
            y=alt.Y("n:Q", title="providers"),
            color=alt.Color("providers:N", title=None),
            tooltip=["day:T", "providers:N", "n:Q"],
        )
    )
    shown = alt.Chart(pd.DataFrame({"day": [day]})).mark_rule(strokeDash=[4, 4]).encode(x="day:T")
    return alt.layer(lines, shown).properties(width=900, height=160)


def _leaders_chart(df: pd.DataFrame) -> alt.Chart:
    return (
        alt.Chart(df, title="Cheapest GPU per workload class, day by day")
        .mark_square(size=90)
        .encode(
            x=alt.X("day:T", title=None),
            y=alt.Y("workload_class:N", title=None),
            color=alt.Color("gpu_name:N", title="leader", legend=alt.Legend(columns=1)),
            tooltip=[
                "day:T",
                "workload_class:N",
                "gpu_name:N",
                "provider:N",
                alt.Tooltip("cost_per_accepted_output:Q", format=".5f"),
                "output_unit:N",
                "evidence:N",
            ],
        )
        .properties(width=760, height=260)
    )


def _cost_chart(df: pd.DataFrame) -> alt.Chart:
    classes = sorted(df["workload_class"].unique().tolist()) or [DEFAULT_CLASS]
    chosen = alt.param(
        name="workload",
        value=DEFAULT_CLASS if DEFAULT_CLASS in classes else classes[0],
        bind=alt.binding_select(options=classes, name="Workload class "),
    )
    return (
        alt.Chart(df, title="Cost per accepted output by GPU (best offer, newest day)")
        .mark_bar()
        .encode(
            x=alt.X(
                "cost_per_accepted_output:Q", title="USD per accepted output (unit in the tooltip)"
            ),
            y=alt.Y("gpu_name:N", sort="x", title=None),
            color=alt.Color("evidence:N", title="evidence"),
            tooltip=[
                "gpu_name:N",
                "provider:N",
                "offer_id:N",
                alt.Tooltip("cost_per_accepted_output:Q", format=".6f"),
                "output_unit:N",
                "evidence:N",
                "gpu_rank:Q",
            ],
        )
        .add_params(chosen)
        .transform_filter(alt.datum.workload_class == chosen)
        .properties(width=640)
    )


def _price_chart(df: pd.DataFrame) -> alt.Chart:
    return (
        alt.Chart(
            df,
            title=f"On-demand price of the {TOP_GPUS} most frequent leaders rented on demand",
        )
        .mark_line(point=True, interpolate="step-after")
        .encode(
            x=alt.X("day:T", title=None),
            y=alt.Y("usd_per_gpu_hour:Q", title="USD per GPU-hour"),
            color=alt.Color("gpu_id:N", title="GPU"),
            tooltip=[
                "day:T",
                "gpu_id:N",
                "provider:N",
                alt.Tooltip("usd_per_gpu_hour:Q", format=".3f"),
            ],
        )
        .properties(width=760, height=300)
    )


def _spread_chart(df: pd.DataFrame) -> alt.LayerChart:
    base = alt.Chart(df, title="Provider spread per GPU (on demand, newest day with 2+ providers)")
    rule = base.mark_rule(color="#999").encode(
        x=alt.X("min(usd_per_gpu_hour):Q", title="USD per GPU-hour"),
        x2="max(usd_per_gpu_hour):Q",
        y=alt.Y("gpu_id:N", title=None),
    )
    points = base.mark_circle(size=80).encode(
        x="usd_per_gpu_hour:Q",
        y="gpu_id:N",
        color=alt.Color("provider:N", title="provider"),
        tooltip=["gpu_id:N", "provider:N", alt.Tooltip("usd_per_gpu_hour:Q", format=".3f")],
    )
    return (rule + points).properties(width=640)


def _table(df: pd.DataFrame, empty: str, css_class: str = "") -> str:
    if df.empty:
        return f"<p class='empty'>{html.escape(empty)}</p>"
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_cell(v))}</td>" for v in row) + "</tr>"
        for row in df.itertuples(index=False)
    )
    return f"<table class='{css_class}'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


# column names as a reader says them (the tables' data stay as the views name them)
_WORDS = {
    "workload_class": "class", "alert_kind": "kind", "old_gpu_id": "previous GPU",
    "old_provider": "previous provider", "new_gpu_id": "new GPU", "new_provider": "new provider",
    "change_pct": "change (%)", "failed_source": "failed source",
    "is_within_uncertainty": "within the evidence's uncertainty",
    "new_slo_status": "new leader's SLO",
    "newest_accepted_at": "newest accepted capture", "days_since_newest": "days since",
    "keeps_data": "kept until replaced", "is_stale": "stale", "is_down": "down",
    "n_fetch_failures": "failed fetches",
    "last_failure_reason": "last failure", "n_price_disagreements": "price disagreements",
    "gpu_id": "GPU", "gpu_count": "GPUs", "pricing_model": "pricing",
    "source_a": "source", "price_usd_per_gpu_hour_a": "USD/GPU-h",
    "source_b": "other source", "price_usd_per_gpu_hour_b": "other USD/GPU-h",
    "gap_pct": "gap (%)", "ranked": "ranked price",
}  # fmt: skip


def _words(df: pd.DataFrame) -> pd.DataFrame:
    return df.rename(columns=_WORDS)


def _readable_leaders(df: pd.DataFrame) -> pd.DataFrame:
    """The day's leaders with column names in words and each cost in a unit that fits its size
    (0.000994 USD per request -> 0.994 USD per 1,000 requests)."""
    if df.empty:
        return df
    rows = []
    for r in df.to_dict("records"):
        factor, label = cost_scale([r["cost_per_accepted_output"]], r["output_unit"])
        api = r["best_api_cost_per_accepted_output"]
        lead = r["lead_pct"]
        rows.append({
            "class": r["workload_class"], "GPU": r["gpu_name"], "provider": r["provider"],
            "offer": r["offer_id"], "pricing": r["pricing_model"], "GPUs": r["gpus_needed"],
            "cost": money(r["cost_per_accepted_output"] * factor),
            "p10-p90": _interval(r["cost_per_accepted_output_p10"],
                                 r["cost_per_accepted_output_p90"], factor),
            "cheapest model API": money(api * factor if pd.notna(api) else None).strip("- ")
            or "-",
            "unit": label,
            "evidence": r["evidence"], "what it rests on": r["evidence_basis"] or "",
            "SLO": r["slo_status"],
            "lead over the next GPU": "" if pd.isna(lead) else f"{lead:.1f} %",
            "tied within evidence": "yes" if r["is_tied_within_evidence"] else "",
            "model API": r["best_api"] or "", "stale price": "yes" if r["is_stale"] else "",
        })  # fmt: skip
    return pd.DataFrame(rows)


def _api_ages(ages: list[int], day) -> str:
    """A line under the leaders when the model APIs' prices are not from a catalog of the day."""
    if not ages:
        return ""
    said = " or ".join(catalog_age(a, day) for a in ages)
    return (
        f"<p class='meta'>Cheapest model API: {html.escape(said)} (warehouse/README.md: "
        "model-API prices by day).</p>"
    )


def _interval(lo, hi, factor: float) -> str:
    if lo is None or hi is None or pd.isna(lo) or pd.isna(hi):
        return "-"
    return f"{money(lo * factor).strip()}-{money(hi * factor).strip()}"


def _cell(value) -> str:
    if value is None or value is pd.NaT or (isinstance(value, float) and pd.isna(value)):
        return ""
    if isinstance(value, pd.Timestamp):
        return value.strftime("%Y-%m-%d" if value == value.normalize() else "%Y-%m-%d %H:%M")
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, bool):  # itertuples gives Python's bool, also for a bool column
        return "yes" if value else "no"
    return str(value)


def _json_for_script(obj) -> str:
    return json.dumps(obj, default=str).replace("</", "<\\/")


def _vega_bundle(cache_dir: Path) -> str:
    """The Vega and Vega-Lite JavaScript the page inlines (so it renders offline). vl-convert
    assembles it in about 1.7 s; it depends only on the two versions, so it is kept in the
    warehouse home's cache folder under their names and assembled again when either changes (the
    other versions' bundles then deleted)."""
    import vl_convert

    # the Vega-Lite version altair writes its specs for ("v6.4.1" -> "6.4", as vl-convert names it)
    vl_version = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    cached = cache_dir / f"vega-bundle-{vl_convert.__version__}-{vl_version}.js"
    if cached.exists():
        return cached.read_text(encoding="utf-8")
    bundle = vl_convert.javascript_bundle(vl_version=vl_version)
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
    tmp.write_text(bundle, encoding="utf-8")
    tmp.replace(cached)
    for stale in cache_dir.glob("vega-bundle-*.js"):  # other versions' bundles are not read again
        if stale != cached:
            stale.unlink(missing_ok=True)
    return bundle


def _source_states(health: pd.DataFrame) -> str:
    """The sources by state, as `gpuledger sources` names them: down, stale, kept (specs or runs,
    used until replaced), ok; each source in one state."""
    if health.empty:
        return "none yet"
    down = health["is_down"].astype(bool)
    stale = health["is_stale"].astype(bool) & ~down
    kept = health["keeps_data"].astype(bool) & ~down & ~stale
    counts = {"ok": int((~down & ~stale & ~kept).sum()), "stale": int(stale.sum()),
              "down": int(down.sum()), "kept": int(kept.sum())}  # fmt: skip
    return ", ".join(f"{n} {state}" for state, n in counts.items() if n)


def _page(data: dict, charts: dict[str, alt.TopLevelMixin], pub: dict, cache_dir: Path) -> str:
    specs = {name: chart.to_dict() for name, chart in charts.items()}
    day = data["day"]
    today_alerts = data["day_alerts"]
    blocks = "".join(f"<section><div class='chart' id='{name}'></div></section>" for name in specs)
    sources = _source_states(data["health"])
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>gpuledger report {html.escape(str(day))}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 1100px; }}
h1 {{ margin-bottom: 0.2em; }} .meta {{ color: #666; margin-top: 0; }}
table {{ border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1.5em; }}
th, td {{ border-bottom: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; }}
th {{ background: #f4f4f4; }} section {{ margin: 1.5em 0; }} .empty {{ color: #666; }}
.chart {{ min-height: 120px; }}
</style>
<script>{_vega_bundle(cache_dir)}</script>
</head>
<body>
<h1>gpuledger: cheapest GPU per accepted output</h1>
<p class="meta">{html.escape(coverage.describe(data["shown"]))}</p>
<p class="meta">Today: {html.escape(str(day))} &middot; published
{html.escape(str(pub.get("published_at", "?")))} (run {html.escape(str(pub.get("run_id", "?")))})
&middot; sources: {html.escape(sources)}</p>
<h2>Leaders today</h2>
{_table(_readable_leaders(data["today"]), "No class is ranked yet.")}
{_api_ages(data["api_ages"], day)}
<h2>Alerts on {html.escape(str(day))}</h2>
{_table(_words(today_alerts), f"No alerts on {day}.")}
{blocks}
<h2>Recent alerts</h2>
{_table(_words(data["alerts"]), "No alerts yet.")}
<h2>Source health</h2>
{_table(_words(data["health"]), "No sources.")}
<h2>Sources that disagree on {html.escape(str(day))}</h2>
{_table(_words(data["disagreements"]), f"No two sources price an offer apart on {day}.")}
<p class="meta">Evidence: measured = matching benchmark runs; calibrated = the performance model x
the efficiency of the runs on that kind of GPU; estimated = the model x the efficiency of
comparable GPUs (or the raw model where no run of the kind exists). Stale prices are carried
forward at most max_staleness_days and flagged. Numbers and their provenance: the analytics views
of the published warehouse.</p>
<script>
const specs = {_json_for_script(specs)};
const drawn = Object.entries(specs).map(([id, spec]) =>
  vegaEmbed("#" + id, spec, {{renderer: "svg", actions: false}}).then((result) => {{
    document.getElementById(id).dataset.drawn = "yes";
    return result;
  }}));
Promise.all(drawn)
  .then(() => {{ document.body.dataset.chartsDrawn = String(drawn.length); }})
  .catch((err) => {{ document.body.dataset.chartError = String(err); }});
</script>
</body>
</html>
"""
