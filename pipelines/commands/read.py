"""Read-only commands: they answer from the published copy of the warehouse (directly or through
warehouse/queries) without loading Dagster."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path


def _custom(args: argparse.Namespace):
    """Your workload from the command line's --model, --input, ... (None without --model)."""
    if not getattr(args, "model", None):
        return None
    from warehouse.queries.custom import Workload

    return Workload(
        model=args.model, input_len=args.input, output_len=args.output,
        concurrency=args.concurrency, precision=args.precision, slo_p95_ttft_ms=args.slo_ttft,
        slo_p99_e2e_ms=args.slo_e2e, pricing_models=args.pricing_models,
        day=date.fromisoformat(args.date) if args.date else None,
    )  # fmt: skip


def cmd_rank(args: argparse.Namespace) -> int:
    if getattr(args, "workload", None) and getattr(args, "model", None):
        print("gpuledger rank: give --workload (a class) or --model ... (yours), not both",
              file=sys.stderr)  # fmt: skip
        return 2
    if getattr(args, "workload", None) or getattr(args, "model", None):
        return _rank_workload(args)
    from warehouse.queries import WarehouseMissing
    from warehouse.queries.coverage import describe
    from warehouse.queries.prices import ranking, render_ranking, render_ranking_csv

    day = date.fromisoformat(args.date) if args.date else None
    try:
        result = ranking(
            day=day, pricing_model=args.pricing_model, not_after=getattr(args, "as_of", None)
        )
    except WarehouseMissing as exc:
        print(f"gpuledger rank: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(result, default=str, indent=2))
    elif args.format == "csv":  # rows only; why there are none on stderr
        print(render_ranking_csv(result, limit=getattr(args, "limit", None)), end="")
        if not result["rows"]:
            print(render_ranking(result), file=sys.stderr)
    else:
        if result["coverage"] is not None:  # the day was chosen for its coverage: say why
            print(describe(result["coverage"]))
            print()
        print(render_ranking(result, limit=getattr(args, "limit", None)))
    return 0 if result["rows"] else 3


def _rank_workload(args: argparse.Namespace) -> int:
    from warehouse.queries import NotFound, WarehouseMissing
    from warehouse.queries.coverage import describe
    from warehouse.queries.workloads import render_workload_ranking, workload_ranking

    day = date.fromisoformat(args.date) if args.date else None
    try:
        if custom := _custom(args):
            from warehouse.queries.custom import custom_ranking

            result = custom_ranking(custom, min_evidence=args.min_evidence)
        else:
            result = workload_ranking(args.workload, day, min_evidence=args.min_evidence)
    except (WarehouseMissing, NotFound) as exc:
        print(f"gpuledger rank: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(result, default=str, indent=2))
    else:
        if args.format == "table" and result["coverage"] is not None:
            print(describe(result["coverage"]))  # the day was chosen for its coverage: say why
            print()
        # a CSV ends with its last row's line end: no blank line after it
        end = "" if args.format == "csv" else "\n"
        print(render_workload_ranking(result, args.format, limit=args.limit), end=end)
        if args.format == "csv" and not result["gpus"]:
            # the CSV holds GPU rows only: why there are none (and the cheapest model API)
            print(render_workload_ranking(result, "table"), file=sys.stderr)
    return 0 if result["gpus"] else 3


def cmd_explain(args: argparse.Namespace) -> int:
    from warehouse.queries import NotFound, WarehouseMissing
    from warehouse.queries.workloads import explain, render_explain

    day = date.fromisoformat(args.date) if args.date else None
    if bool(args.workload) == bool(args.model):
        print("gpuledger explain: give --workload (a class) or --model ... (yours)",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        if custom := _custom(args):
            from warehouse.queries.custom import custom_explain

            result = custom_explain(custom, args.gpu)
        else:
            result = explain(args.workload, args.gpu, day)
    except (WarehouseMissing, NotFound) as exc:
        print(f"gpuledger explain: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(result, default=str, indent=2))
    else:
        print(render_explain(result))
    return 0


def cmd_estimate(args: argparse.Namespace) -> int:
    from warehouse.queries import NotFound, WarehouseMissing
    from warehouse.queries.estimate import estimate, render_estimate

    try:
        result = estimate(args.model, args.gpu, args.gpus, args.precision, args.input,
                          args.output, args.concurrency, stack=args.stack)  # fmt: skip
    except (WarehouseMissing, NotFound, ValueError) as exc:
        print(f"gpuledger estimate: {exc}", file=sys.stderr)
        return 2
    print(render_estimate(result, args.format))
    return 0


def cmd_alerts(args: argparse.Namespace) -> int:
    from pipelines.alerts import list_alerts
    from warehouse.paths import current

    since = date.fromisoformat(args.since) if args.since else None
    rows = list_alerts(current().published_db_path, since)
    if args.format == "json":
        print(json.dumps(rows, default=str, indent=2))
        return 0
    if not rows:
        print("no alerts")
        return 0
    for r in rows:
        state = f"delivered: {r['delivered_to']}" if r["delivered_to"] else "PENDING"
        if r["failed_attempts"]:
            state += f" ({r['failed_attempts']} failed attempts, last: {r['last_error']})"
        flag = " [marginal]" if r["is_marginal"] else ""
        print(f"{r['day']}  {r['alert_kind']:12s} {state}{flag}\n    {r['message']}")
    return 0


def cmd_sources(args: argparse.Namespace) -> int:
    from warehouse.queries import WarehouseMissing
    from warehouse.queries.prices import render_source_health, source_health

    try:
        rows = source_health()
    except WarehouseMissing as exc:
        print(f"gpuledger sources: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(rows, default=str, indent=2))
    else:
        print(render_source_health(rows))
    return 0


def _published():
    from warehouse import publish
    from warehouse.paths import current

    paths = current()
    try:
        return paths, publish.connect(paths)
    except publish.NotPublished as exc:
        print(f"gpuledger: {exc}", file=sys.stderr)
        return paths, None


def cmd_sql(args: argparse.Namespace) -> int:
    from warehouse import publish, sandbox
    from warehouse.analyst import QueryError, run_sql
    from warehouse.paths import current

    try:
        con = sandbox.connect(current(), args.allow_files)
    except publish.NotPublished as exc:
        print(f"gpuledger: {exc}", file=sys.stderr)
        return 2
    try:
        run_sql(con, args.query, sys.stdout, args.format, args.max_rows)
    except QueryError as exc:
        print(f"gpuledger sql: {exc}", file=sys.stderr)
        return 1
    finally:
        con.close()
    return 0


def cmd_shell(args: argparse.Namespace) -> int:
    from warehouse import publish
    from warehouse.analyst import shell
    from warehouse.paths import current

    try:
        failures = shell(current(), allow_files=args.allow_files)
    except publish.NotPublished as exc:
        print(f"gpuledger shell: {exc}", file=sys.stderr)
        return 2
    return 1 if failures else 0


def cmd_export(args: argparse.Namespace) -> int:
    from warehouse.analyst import export

    _, con = _published()
    if con is None:
        return 2
    try:
        written = export(con, args.format, Path(args.out), args.view or ())
    except ValueError as exc:
        print(f"gpuledger export: {exc}", file=sys.stderr)
        return 2
    finally:
        con.close()
    for view, (path, rows) in written.items():
        print(f"{view}: {rows} rows -> {path}")
    return 0


def cmd_docs(args: argparse.Namespace) -> int:
    from pipelines.docs import DocsError, build_docs

    try:
        page = build_docs(out_dir=Path(args.out) if args.out else None)
    except DocsError as exc:
        print(f"gpuledger docs: {exc}", file=sys.stderr)
        return 1
    print(f"dbt docs site (one static page, works offline): {page}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from warehouse import publish, report
    from warehouse.paths import current

    try:
        done = report.build(current(), Path(args.out) if args.out else None)
    except publish.NotPublished as exc:
        print(f"gpuledger report: {exc}", file=sys.stderr)
        return 2
    print(f"report for {done.day}: {done.path} ({done.size_bytes:,} bytes, {done.seconds} s)")
    return 0
