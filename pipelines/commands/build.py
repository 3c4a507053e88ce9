"""Commands that build the warehouse: `refresh` (and the first screen it prints), `ingest` of
benchmark result files, `backfill` of a range of days and the `demo` replay. Each runs the
pipeline's Dagster job in-process."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, date, datetime
from pathlib import Path

from pipelines.commands.read import cmd_rank


def cmd_refresh(args: argparse.Namespace) -> int:
    from pipelines.refresh import run_refresh

    as_of = date.fromisoformat(args.as_of) if args.as_of else datetime.now(UTC).date()
    result = run_refresh(as_of=as_of, offline=args.offline, progress=True, verbose=args.verbose)
    if not result.success:
        return 1
    print()
    return print_first_screen(as_of, args.pricing_model)


def print_first_screen(as_of: date, pricing_model: str = "on_demand") -> int:
    """The day shown and its coverage, the GPU price ranking and each class's leader, all of
    that one day (warehouse/queries/coverage.py)."""
    from warehouse.queries import WarehouseMissing
    from warehouse.queries.leaders import leaders, render_leaders

    code = cmd_rank(
        argparse.Namespace(
            date=None, as_of=as_of, format="table", pricing_model=pricing_model, limit=3
        )
    )
    try:
        print()
        print(render_leaders(leaders(as_of)))
    except WarehouseMissing as exc:
        print(f"gpuledger refresh: {exc}", file=sys.stderr)
        return 1
    return code


def cmd_ingest(args: argparse.Namespace) -> int:
    """Archive benchmark result files (files or folders), then load and build unless --no-build."""
    from pipelines.benchmarks import archive_files
    from pipelines.defs.resources import GpuledgerResource
    from warehouse import db
    from warehouse.paths import prepare_environment

    paths = prepare_environment()
    hints = {
        "gpu": args.gpu,
        "gpu_count": args.gpu_count,
        "model": args.model,
        "precision": args.precision,
        "stack": args.stack,
        "tensor_parallel": args.tensor_parallel,
        "organization": args.organization,
    }
    hints = {k: str(v) for k, v in hints.items() if v not in (None, "")}
    archive = GpuledgerResource(home=str(paths.home)).archive()
    outcomes = archive_files(archive, [Path(p) for p in args.paths], hints)
    rejected = [o for o in outcomes if o.status == "rejected"]
    if rejected:
        con = db.connect(paths.db_path)
        try:
            db.ensure_raw_schema(con)
            for o in rejected:
                db.record_rejected_file(
                    con, "benchmark_files", o.url or o.display, o.sha256, f"{o.display}: {o.reason}"
                )
        finally:
            con.close()
    if not args.no_build:
        from pipelines.refresh import run_refresh

        result = run_refresh(
            as_of=datetime.now(UTC).date(),
            offline=True,
            out=sys.stderr,
            progress=True,
            verbose=args.verbose,
        )
        if not result.success:
            return 1
    quarantined = _print_ingest_report(paths, outcomes, loaded=not args.no_build)
    return 1 if rejected or quarantined else 0


def _print_ingest_report(paths, outcomes, loaded: bool) -> int:
    """One line per file: status, and once loaded, runs kept and items quarantined."""
    import duckdb

    counts: dict[str, tuple[int, int, str]] = {}
    if loaded and paths.db_path.exists():
        con = duckdb.connect(str(paths.db_path), read_only=True)
        try:
            for url, runs, formats in con.execute(
                "select snapshot_url, count(*), string_agg(distinct format, ',') "
                "from raw.benchmark_runs group by 1"
            ).fetchall():
                counts[url] = (runs, 0, formats)
            for url, n, reason in con.execute(
                "select snapshot_url, count(*), min(reason) from raw.quarantine "
                "where source = 'benchmark_files' group by 1"
            ).fetchall():
                runs, _, formats = counts.get(url, (0, 0, ""))
                counts[url] = (runs, n, formats or reason)
        finally:
            con.close()
    quarantined = 0
    for o in outcomes:
        runs, bad, what = counts.get(o.url, (0, 0, ""))
        quarantined += bool(bad) and o.status != "rejected"
        detail = o.reason or (f"{runs} runs ({what})" if runs else what)
        status = o.status
        if bad and runs:
            detail += f", {bad} quarantined"
        elif bad and status in ("archived", "unchanged"):
            status = "quarantined"
        print(f"{status:11s} {o.display}  {detail}".rstrip())
    totals = {s: sum(1 for o in outcomes if o.status == s) for s in
              ("archived", "unchanged", "skipped", "rejected")}  # fmt: skip
    print(
        f"{len(outcomes)} files: {totals['archived']} archived, {totals['unchanged']} already "
        f"archived, {totals['skipped']} skipped (documentation), {totals['rejected']} rejected"
    )
    return quarantined


def cmd_backfill(args: argparse.Namespace) -> int:
    from pipelines.backfill import backfill

    result, _ = backfill(date.fromisoformat(args.start), date.fromisoformat(args.end),
                         deliver=not args.no_deliver, progress=True,
                         verbose=args.verbose)  # fmt: skip
    return 0 if result.success else 1


def cmd_demo(args: argparse.Namespace) -> int:
    from pipelines.backfill import demo

    return demo(Path(args.home) if args.home else None, progress=True, verbose=args.verbose)
