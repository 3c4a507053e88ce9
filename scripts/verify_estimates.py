"""How well the performance model predicts real runs it has not seen (leave one out).

For every run in marts.fct_benchmark_run_efficiency (resolved LLM-serving runs with the model's
prediction under their own conditions), predict its throughput from all the *other* runs,
leaving out those of the same file and of the same system (result folder, GPU and count), the
way the warehouse calibrates a workload class (int_throughput_calibrated):

- calibrated: other runs on this kind of GPU (same family and memory): the run's own roofline x
  the weighted geometric mean of their efficiencies, each weighted by gl_nearness (the DuckDB
  macro the warehouse uses) to this run's model size, batch, lengths, precision and MoE;
- estimated: no other run on this kind of GPU: the median of those weighted efficiencies over the
  comparable GPU kinds (same vendor and architecture, else all).

Runs of a setup that a faster setup of the same file outperformed under the same conditions
(fct_benchmark_runs.outperformed_by) are not in the efficiency table and are not predicted: the
model predicts what the best setup measured reaches. Their number and how far below they were
are reported beside the figures.

Reported per grade and per GPU family: runs predicted, median and 90th percentile of
|predicted / measured - 1|, and the 90th percentile of the factor between them
(max(predicted / measured, measured / predicted)). Usage:

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

LOO_SQL = """
with runs as (
    select * from marts.fct_benchmark_run_efficiency where efficiency > 0
),

pairs as (
    select
        t.run_key,
        s.family, s.memory_gb, s.vendor, s.architecture,
        s.efficiency,
        main.gl_nearness(
            s.model_active_params_b, t.model_active_params_b, s.batch, t.batch,
            s.input_len, t.input_len, s.output_len, t.output_len,
            s.precision, t.precision, s.is_moe, t.is_moe
        ) as weight
    from runs as t
    inner join runs as s
        on s.run_key <> t.run_key
        and s.run_kind = t.run_kind
        and s.file_path <> t.file_path
        and s.system_key <> t.system_key
),

per_kind as (
    select
        run_key, family, memory_gb, vendor, architecture,
        exp(sum(weight * ln(efficiency)) / sum(weight)) as efficiency
    from pairs
    group by all
),

chosen as (
    select
        t.run_key,
        t.run_kind,
        t.family as gpu_family,
        t.measured_tokens_per_s,
        t.predicted_tokens_per_s,
        max(k.efficiency) filter (where k.family = t.family and k.memory_gb = t.memory_gb)
            as same_kind,
        median(k.efficiency) filter (
            where not (k.family = t.family and k.memory_gb = t.memory_gb)
            and k.vendor = t.vendor and k.architecture = t.architecture
        ) as same_architecture,
        median(k.efficiency) filter (where not (k.family = t.family and k.memory_gb = t.memory_gb))
            as all_kinds
    from runs as t
    left join per_kind as k on k.run_key = t.run_key
    group by all
)

select
    run_key,
    run_kind,
    gpu_family,
    case when same_kind is not null then 'calibrated' else 'estimated' end as grade,
    measured_tokens_per_s,
    predicted_tokens_per_s * coalesce(same_kind, same_architecture, all_kinds)
        as loo_predicted_tokens_per_s,
    abs(
        predicted_tokens_per_s * coalesce(same_kind, same_architecture, all_kinds)
        / measured_tokens_per_s - 1
    ) as abs_error
from chosen
where coalesce(same_kind, same_architecture, all_kinds) is not null
"""

SUMMARY_SQL = """
select
    {key} as "group",
    count(*) as runs,
    median(abs_error) as median_abs_error,
    quantile_cont(abs_error, 0.9) as p90_abs_error,
    quantile_cont(
        greatest(loo_predicted_tokens_per_s / measured_tokens_per_s,
                 measured_tokens_per_s / loo_predicted_tokens_per_s), 0.9
    ) as p90_factor
from loo
group by all
order by runs desc, "group"
"""


OUTPERFORMED_SQL = """
select count(*), median(outperformed_factor)
from marts.fct_benchmark_runs
where outperformed_by is not null and is_resolved and duplicate_of is null
    and run_kind = 'inference' and output_unit = 'tokens'
"""


def verify(con: duckdb.DuckDBPyConnection) -> dict:
    con.execute(f"create or replace temp table loo as {LOO_SQL}")
    out = {"runs": con.execute("select count(*) from loo").fetchone()[0]}
    n, factor = con.execute(OUTPERFORMED_SQL).fetchone()
    out["outperformed"] = {"runs": n, "median_factor": factor}
    cols = ["group", "runs", "median_abs_error", "p90_abs_error", "p90_factor"]
    for name, key in (("all", "'all'"), ("by_grade", "grade"), ("by_gpu_family", "gpu_family"),
                      ("by_run_kind", "run_kind")):  # fmt: skip
        rows = con.execute(SUMMARY_SQL.format(key=key)).fetchall()
        out[name] = [dict(zip(cols, r, strict=True)) for r in rows]
    return out


def summary_line(result: dict) -> str:
    a = result["all"][0] if result["all"] else None
    if not a:
        return "performance model, leave one out: no runs to predict"
    grades = ", ".join(
        f"{g['group']} {g['runs']} runs: median {g['median_abs_error']:.0%}, "
        f"p90 {g['p90_factor']:.2f}x"
        for g in result["by_grade"]
    )
    left_out = ""
    if result.get("outperformed", {}).get("runs"):
        o = result["outperformed"]
        left_out = (
            f"; left out: {o['runs']} runs of setups their own file outperformed under the same "
            f"conditions (median {o['median_factor']:.2f}x slower)"
        )
    return (
        f"performance model, leave one out: {a['runs']} runs, median |error| "
        f"{a['median_abs_error']:.0%}, p90 {a['p90_abs_error']:.0%} (within "
        f"{a['p90_factor']:.2f}x); {grades}{left_out}"
    )


def _table(rows: list[dict], title: str) -> str:
    lines = [title, f"  {'group':16s} {'runs':>5s} {'median':>8s} {'p90':>8s} {'p90 factor':>11s}"]
    for r in rows:
        lines.append(
            f"  {r['group']!s:16s} {r['runs']:>5d} {r['median_abs_error']:>8.1%} "
            f"{r['p90_abs_error']:>8.1%} {r['p90_factor']:>10.2f}x"
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
    print(_table(result["by_grade"], "by grade:"))
    print(_table(result["by_gpu_family"], "by GPU family:"))
    print(_table(result["by_run_kind"], "by kind of run:"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
