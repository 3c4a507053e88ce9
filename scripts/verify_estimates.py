"""How well the performance model predicts real runs it has not seen: grouped cross-validation.

Every resolved LLM-serving run in marts.fct_benchmark_run_efficiency (its measured throughput and
the roofline under its own conditions) is predicted the way the warehouse calibrates a workload
class: the roofline x main.gl_calibration (dbt/macros/performance_model.sql, the one table macro
int_throughput_calibrated and `gpuledger estimate` call), with the run's own conditions and GPU,
its best stack, and one group of runs left out of the calibration:

- leave one organisation out: every run of the run's own organisation (an MLPerf submitter, a
  vendor, a benchmark repository) is out at once, so no run is predicted from its own files,
  stacks or setups;
- leave one GPU kind out: every run of the run's GPU family is out, as for a GPU with no runs
  (its prediction comes from its architecture generation, else all GPUs);
- pairwise order: for every pair of runs on two GPU kinds under the same model, precision,
  lengths, batch and serving stack, do the leave-one-organisation-out predictions order their
  per-GPU throughput as the measurements do (pairs measured within 5 % of each other are not
  counted).

Reported overall, per grade (of the leave-one-organisation-out prediction) and per GPU family: runs
predicted, the median and 90th percentile of the error factor max(predicted / measured,
measured / predicted), and the median of predicted / measured (above 1: the model predicts more
than the run reached; it predicts what the upper part of comparable setups reaches). Runs of a
setup its own file outperformed under the same conditions are not in the efficiency table (their
number is reported). Usage:

    python scripts/verify_estimates.py [WAREHOUSE.duckdb] [--format table|json]

(default: the published copy under $GPULEDGER_HOME). `make perf` prints its summary line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

RUNS = "'marts.fct_benchmark_run_efficiency'"

CV_SQL = f"""
select
    t.run_key, t.organization, t.family as gpu_family, t.gpu_id, t.gpu_count, t.model_ref,
    t.precision, t.input_len, t.output_len, t.batch,
    main.gl_stack_group(t.serving_stack) as stack,
    main.gl_regime(t.batch, t.input_len, t.output_len) as regime,
    t.measured_tokens_per_s,
    t.predicted_tokens_per_s * o.efficiency as org_out_tokens_per_s,
    o.grade as org_out_grade,
    t.predicted_tokens_per_s * k.efficiency as kind_out_tokens_per_s,
    k.grade as kind_out_grade
from marts.fct_benchmark_run_efficiency as t,
    lateral main.gl_calibration(
        {RUNS}, 'marts.dim_gpu', t.run_kind, t.model_active_params_b, t.batch, t.input_len,
        t.output_len, t.precision, t.is_moe, t.ingested_date, null, t.organization, null
    ) as o,
    lateral main.gl_calibration(
        {RUNS}, 'marts.dim_gpu', t.run_kind, t.model_active_params_b, t.batch, t.input_len,
        t.output_len, t.precision, t.is_moe, t.ingested_date, null, null, t.family
    ) as k
where t.run_kind = 'inference' and t.efficiency > 0
    and o.gpu_id = t.gpu_id and k.gpu_id = t.gpu_id
"""

SUMMARY_SQL = """
select
    {key} as "group",
    count(*) as runs,
    median(greatest({col} / measured_tokens_per_s, measured_tokens_per_s / {col})) as median_factor,
    quantile_cont(greatest({col} / measured_tokens_per_s, measured_tokens_per_s / {col}), 0.9)
        as p90_factor,
    count(*) filter (
        where greatest({col} / measured_tokens_per_s, measured_tokens_per_s / {col}) <= 2
    ) / count(*) as within_2x,
    median({col} / measured_tokens_per_s) as median_ratio
from cv
where {col} > 0
group by all
order by runs desc, "group"
"""

PAIRS_SQL = """
select
    count(*) as pairs,
    count(*) filter (
        where (a.measured_tokens_per_s / a.gpu_count > b.measured_tokens_per_s / b.gpu_count)
            = (a.org_out_tokens_per_s / a.gpu_count > b.org_out_tokens_per_s / b.gpu_count)
    ) as ordered_right
from cv as a
inner join cv as b
    on a.run_key < b.run_key
    and a.gpu_family <> b.gpu_family
    and a.model_ref = b.model_ref and a.precision = b.precision
    and a.input_len = b.input_len and a.output_len = b.output_len
    and a.batch = b.batch and a.stack = b.stack
where greatest(a.measured_tokens_per_s / a.gpu_count, b.measured_tokens_per_s / b.gpu_count)
    > 1.05 * least(a.measured_tokens_per_s / a.gpu_count, b.measured_tokens_per_s / b.gpu_count)
"""

OUTPERFORMED_SQL = """
select count(*), median(outperformed_factor)
from marts.fct_benchmark_runs
where outperformed_by is not null and is_resolved and duplicate_of is null
    and run_kind = 'inference' and output_unit = 'tokens'
"""

COLS = ["group", "runs", "median_factor", "p90_factor", "within_2x", "median_ratio"]


def verify(con: duckdb.DuckDBPyConnection) -> dict:
    con.execute(f"create or replace temp table cv as {CV_SQL}")
    out: dict = {"runs": con.execute("select count(*) from cv").fetchone()[0]}
    n, factor = con.execute(OUTPERFORMED_SQL).fetchone()
    out["outperformed"] = {"runs": n, "median_factor": factor}
    for split, col, grade in (
        ("organization_out", "org_out_tokens_per_s", "org_out_grade"),
        ("gpu_kind_out", "kind_out_tokens_per_s", "kind_out_grade"),
    ):
        part = {}
        for name, key in (("all", "'all'"), ("by_grade", grade), ("by_regime", "regime"),
                          ("by_gpu_family", "gpu_family")):  # fmt: skip
            rows = con.execute(SUMMARY_SQL.format(key=key, col=col)).fetchall()
            part[name] = [dict(zip(COLS, r, strict=True)) for r in rows]
        out[split] = part
    pairs, right = con.execute(PAIRS_SQL).fetchone()
    out["pairwise_order"] = {"pairs": pairs, "ordered_right": right,
                             "share": right / pairs if pairs else None}  # fmt: skip
    return out


def summary_line(result: dict) -> str:
    org = result["organization_out"]["all"]
    kind = result["gpu_kind_out"]["all"]
    if not org:
        return "performance model, grouped cross-validation: no runs to predict"
    o, k, p = org[0], kind[0], result["pairwise_order"]
    order = (
        f"{p['ordered_right']} of {p['pairs']} pairs ({p['share']:.0%})"
        if p["pairs"]
        else "no pairs"
    )
    return (
        f"performance model, {o['runs']} runs: leave one organisation out median "
        f"{o['median_factor']:.2f}x, p90 {o['p90_factor']:.2f}x, {o['within_2x']:.0%} within 2x; "
        f"leave one GPU kind out median {k['median_factor']:.2f}x, p90 {k['p90_factor']:.2f}x; "
        f"GPU order right in {order}"
    )


def _table(rows: list[dict], title: str) -> str:
    lines = [
        title,
        f"  {'group':24s} {'runs':>5s} {'median':>7s} {'p90':>7s} {'<=2x':>5s} {'pred/meas':>9s}",
    ]
    for r in rows:
        lines.append(
            f"  {r['group']!s:24s} {r['runs']:>5d} {r['median_factor']:>6.2f}x "
            f"{r['p90_factor']:>6.2f}x {r['within_2x']:>5.0%} {r['median_ratio']:>9.2f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "warehouse", nargs="?", help="a gpuledger.duckdb (default: the published copy)"
    )
    parser.add_argument("--format", choices=["table", "json"], default="table")
    args = parser.parse_args(argv)
    if args.warehouse:
        path = Path(args.warehouse)
    else:
        from warehouse import paths

        path = paths.current().published_db_path
    if not path.exists():
        print(f"no warehouse at {path}: run `gpuledger refresh` first", file=sys.stderr)
        return 2
    con = duckdb.connect(str(path), read_only=True)
    result = verify(con)
    if args.format == "json":
        print(json.dumps(result, indent=2))
        return 0
    print(summary_line(result))
    o = result["outperformed"]
    if o["runs"]:
        print(f"not predicted: {o['runs']} runs of setups their own file outperformed under the "
              f"same conditions (median {o['median_factor']:.2f}x slower)")  # fmt: skip
    for split, title in (("organization_out", "leave one organisation out"),
                         ("gpu_kind_out", "leave one GPU kind out")):  # fmt: skip
        print(_table(result[split]["by_grade"], f"{title}, by grade:"))
        print(_table(result[split]["by_regime"], f"{title}, by regime:"))
        print(_table(result[split]["by_gpu_family"], f"{title}, by GPU family:"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
