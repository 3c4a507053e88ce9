"""`gpuledger` command line. Thin: pipeline work runs the daily_refresh Dagster job in-process;
read-only commands answer from the warehouse without loading Dagster."""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, date, datetime
from pathlib import Path


def _parse_ts(text: str) -> datetime:
    ts = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return ts if ts.tzinfo else ts.replace(tzinfo=UTC)


def _source_module(name: str):
    import sources

    if name not in sources.REGISTRY:
        raise SystemExit(
            f"gpuledger: unknown source {name!r}; known: {', '.join(sources.REGISTRY)}"
        )
    return sources.REGISTRY[name]


def _page_source(provider: str | None):
    """`--source price_page --provider NAME`: the provider's configured entry, or the automatic
    reading alone for a provider not configured yet."""
    from sources import price_page

    if not provider:
        raise SystemExit("gpuledger: --source price_page needs --provider NAME")
    entries, _ = price_page.load()
    try:
        entry = entries.get(provider) or price_page.automatic(provider)
    except price_page.ConfigError as exc:
        raise SystemExit(f"gpuledger: {exc}") from exc
    return price_page.PricePageSource(entry)


def cmd_parse(args: argparse.Namespace) -> int:
    from sources._internal.records import ParseError

    if args.source == "price_page":
        module = _page_source(args.provider)
    else:
        module = _source_module(args.source)
    path = Path(args.file)
    try:
        content = path.read_bytes()
    except OSError as exc:
        print(f"gpuledger parse: {path}: cannot read: {exc.strerror}", file=sys.stderr)
        return 2
    fetched_at = _parse_ts(args.fetched_at) if args.fetched_at else datetime.now(UTC)
    try:
        result = module.parse(content, args.url, fetched_at)
    except ParseError as exc:
        print(f"gpuledger parse: {path}: {exc}", file=sys.stderr)
        return 1
    out = sys.stdout
    for record in result.records:  # price observations, with exactly the record's fields
        out.write(json.dumps(record.as_dict(), default=lambda v: v.isoformat()) + "\n")
    # Spec rows, reference rates and API prices say which kind of record they are.
    for kind, items in (
        ("gpu_spec", result.specs),
        ("fx_rate", result.rates),
        ("api_price", result.api_prices),
        ("benchmark_run", result.benchmark_runs),
    ):
        for item in items:
            row = {"record": kind, **item.as_dict()}
            out.write(json.dumps(row, default=lambda v: v.isoformat()) + "\n")
    for err in result.row_errors:
        print(
            f"gpuledger parse: {path}: {err.row_ref}: field {err.field!r}: {err.reason} "
            "(row rejected)",
            file=sys.stderr,
        )
    return 0


def cmd_providers(args: argparse.Namespace) -> int:
    from sources import price_page
    from sources._internal.records import ParseError

    path = price_page.config_path()
    if args.action != "add":
        entries, errors = price_page.load(path)
        print(f"{path}: {len(entries)} providers")
        for entry in entries.values():
            variable = f"GPULEDGER_{entry.name.upper()}_URLS"
            urls = ", ".join(entry.urls) or f"(no URL: {variable} or imported captures)"
            print(f"  {entry.name}: {entry.description}; {urls}")
        for error in errors:
            print(f"  LEFT OUT {error}")
        return 1 if errors else 0
    body: dict = {"description": args.description or f"{args.name}'s GPU price page"}
    body["urls"] = list(args.url)
    for key in ("pricing_model", "price_basis", "currency"):
        if getattr(args, key):
            body[key] = getattr(args, key)
    content = None
    if args.from_capture:
        try:
            content = Path(args.from_capture).read_bytes()
        except OSError as exc:
            print(f"gpuledger providers add: {args.from_capture}: cannot read: {exc.strerror}",
                  file=sys.stderr)  # fmt: skip
            return 2
    try:
        entry = price_page.check_entry(args.name, body, str(path))
        result = None
        if content is not None:  # read before writing: a page nothing can be read from is no entry
            result = price_page.parse_with(entry, content, args.url[0], datetime.now(UTC))
        price_page.add(args.name, body, path)
    except price_page.ConfigError as exc:
        print(f"gpuledger providers add: {exc}", file=sys.stderr)
        return 2
    except ParseError as exc:
        print(f"gpuledger providers add: {args.from_capture}: {exc}; nothing written",
              file=sys.stderr)  # fmt: skip
        return 1
    print(f"added {args.name} to {path}")
    if result is not None:
        print(f"{args.from_capture}: {len(result.records)} prices, {len(result.row_errors)} rows "
              "rejected")  # fmt: skip
        for r in result.records:
            mark = " (from)" if r.price_qualifier else ""
            print(f"  {r.offer_id}: {r.gpu_count} x {r.gpu_name_raw}, {r.pricing_model}, "
                  f"{r.price_per_hour:g} {r.currency}/h{mark}")  # fmt: skip
        for e in result.row_errors:
            print(f"  rejected {e.row_ref}: field {e.field!r}: {e.reason}")
    print("restart the Dagster code location (or the next refresh) to fetch it daily")
    return 0


def cmd_import_snapshot(args: argparse.Namespace) -> int:
    from sources._internal.archive import Archive
    from warehouse.paths import prepare_environment

    module = _source_module(args.source)
    paths = prepare_environment()
    path = Path(args.file)
    try:
        content = path.read_bytes()
    except OSError as exc:
        print(f"gpuledger import-snapshot: {path}: cannot read: {exc.strerror}", file=sys.stderr)
        return 2
    snap = Archive(paths.archive_dir).put(
        module.NAME,
        args.url,
        _parse_ts(args.fetched_at),
        content,
        200,
        args.content_type or "",
        origin="import",
    )
    print(
        f"archived {path} as {snap.sha256} ({snap.size_bytes} bytes) for {snap.source} "
        f"{snap.url} @ {snap.fetched_at}; `gpuledger refresh --offline` loads it"
    )
    return 0


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
    from warehouse.queries.workloads import leaders, render_leaders

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


def cmd_rank(args: argparse.Namespace) -> int:
    if getattr(args, "workload", None):
        return _rank_workload(args)
    from warehouse.queries import WarehouseMissing
    from warehouse.queries.coverage import describe
    from warehouse.queries.prices import ranking, render_ranking

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
        print(render_workload_ranking(result, args.format, limit=args.limit))
    return 0 if result["gpus"] else 3


def cmd_explain(args: argparse.Namespace) -> int:
    from warehouse.queries import NotFound, WarehouseMissing
    from warehouse.queries.workloads import explain, render_explain

    day = date.fromisoformat(args.date) if args.date else None
    try:
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
                          args.output, args.concurrency)  # fmt: skip
    except (WarehouseMissing, NotFound, ValueError) as exc:
        print(f"gpuledger estimate: {exc}", file=sys.stderr)
        return 2
    print(render_estimate(result, args.format))
    return 0


def cmd_backfill(args: argparse.Namespace) -> int:
    from pipelines.backfill import backfill

    result, _ = backfill(date.fromisoformat(args.start), date.fromisoformat(args.end),
                         deliver=not args.no_deliver, progress=True,
                         verbose=args.verbose)  # fmt: skip
    return 0 if result.success else 1


def cmd_demo(args: argparse.Namespace) -> int:
    from pipelines.backfill import demo

    return demo(Path(args.home) if args.home else None, progress=True, verbose=args.verbose)


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
    from warehouse.analyst import QueryError, run_sql

    _, con = _published()
    if con is None:
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
        failures = shell(current())
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


VERBOSE_HELP = (
    "show Dagster's, dbt's and GX's own log on the console (always in the run's log file)"
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpuledger", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("refresh", help="fetch (or take the archive) and build the warehouse")
    p.add_argument("--as-of", help="build as of this day (YYYY-MM-DD, default today UTC)")
    p.add_argument("--offline", action="store_true", help="no fetching: load from the archive only")
    p.add_argument("--pricing-model", default="on_demand", help="ranking printed at the end")
    p.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    p.set_defaults(func=cmd_refresh)

    p = sub.add_parser(
        "parse",
        help="parse one captured file and print its records as JSON lines (prices; spec, rate "
        "and API-price rows carry a 'record' field)",
    )
    p.add_argument("--source", required=True, help="a source, or price_page with --provider")
    p.add_argument(
        "--provider",
        help="with --source price_page: the provider's entry in sources/price_pages.yaml, or the "
        "automatic reading alone for a provider not configured yet",
    )
    p.add_argument("--url", required=True, help="the URL the file was captured from")
    p.add_argument("--fetched-at", help="capture time (ISO 8601; default now)")
    p.add_argument("file")
    p.set_defaults(func=cmd_parse)

    p = sub.add_parser(
        "providers",
        help="the provider price pages read by configuration (sources/price_pages.yaml)",
    )
    p.set_defaults(func=cmd_providers, action="list")
    psub = p.add_subparsers(dest="action")
    a = psub.add_parser("list", help="every configured provider and any entry left out")
    a.set_defaults(func=cmd_providers)
    a = psub.add_parser(
        "add", help="write a provider's entry and show what its page reads (with --from-capture)"
    )
    a.add_argument("name", help="the provider's name (lower case, digits, _)")
    a.add_argument("--url", action="append", required=True, help="a price page (repeatable)")
    a.add_argument("--from-capture", help="a saved copy of the page, read with the new entry")
    a.add_argument("--pricing-model", help="model of prices the page names none for")
    a.add_argument("--price-basis", choices=["per_gpu", "per_instance"])
    a.add_argument("--currency", help="currency of prices printed without a sign (default USD)")
    a.add_argument("--description")
    a.set_defaults(func=cmd_providers)

    p = sub.add_parser("import-snapshot", help="put a captured page into the archive")
    p.add_argument("--source", required=True)
    p.add_argument("--url", required=True)
    p.add_argument("--fetched-at", required=True, help="capture time (ISO 8601)")
    p.add_argument("--content-type")
    p.add_argument("file")
    p.set_defaults(func=cmd_import_snapshot)

    p = sub.add_parser(
        "ingest",
        help="archive benchmark result files (files or folders), load and validate them, "
        "and rebuild the warehouse",
    )
    p.add_argument("paths", nargs="+", help="result files or folders")
    p.add_argument("--gpu", help="GPU the runs used, when the files do not say (e.g. 'H200 SXM')")
    p.add_argument("--gpu-count", type=int, help="GPUs per run, when the files do not say")
    p.add_argument("--model", help="model, when the files do not say")
    p.add_argument("--precision", help="weights precision (bf16, fp8, int4 ...)")
    p.add_argument("--stack", help="serving stack (vllm, sglang, tgi ...)")
    p.add_argument("--tensor-parallel", type=int)
    p.add_argument(
        "--no-build", action="store_true", help="archive only; the next refresh loads the files"
    )
    p.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser(
        "rank",
        help="GPUs ranked by cost per accepted output for a workload class (--workload), or by "
        "USD per GPU-hour (read-only)",
    )
    p.add_argument("--workload", help="workload class (dbt/seeds/workload_classes.csv)")
    p.add_argument(
        "--date", help="day to show (default: the newest day at least half the providers are fresh)"
    )
    p.add_argument("--format", choices=["table", "json", "csv"], default="table")
    p.add_argument("--pricing-model", default="on_demand")
    p.add_argument("--limit", type=int, default=None)
    p.add_argument(
        "--min-evidence",
        choices=["measured", "calibrated", "estimated"],
        help="with --workload: hide GPUs whose evidence is weaker (measured > calibrated > "
        "estimated)",
    )
    p.set_defaults(func=cmd_rank)

    p = sub.add_parser(
        "estimate",
        help="the performance model's prediction for any model, GPU and load, with its grade and "
        "the runs behind it (read-only)",
    )
    p.add_argument("--model", required=True, help="model_ref or a model name (gpt-oss-120b, ...)")
    p.add_argument("--gpu", required=True, help="canonical gpu_id, e.g. nvidia-h100-sxm-80gb")
    p.add_argument("--gpus", type=int, default=1, help="GPUs in the unit (default 1)")
    p.add_argument("--precision", help="default: the precision of the published checkpoint")
    p.add_argument("--input", type=int, required=True, help="input tokens per request")
    p.add_argument("--output", type=int, required=True, help="output tokens per request")
    p.add_argument("--concurrency", type=int, default=1, help="sequences served at once")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=cmd_estimate)

    p = sub.add_parser(
        "explain", help="the whole calculation behind one workload class and GPU (read-only)"
    )
    p.add_argument("--workload", required=True)
    p.add_argument("--gpu", required=True, help="canonical gpu_id, e.g. nvidia-h100-sxm-80gb")
    p.add_argument("--date", help="day (default: the day `rank` shows)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser(
        "backfill", help="rebuild the rankings of a range of days from the archive in one pass"
    )
    p.add_argument("--start", required=True)
    p.add_argument("--end", required=True)
    p.add_argument("--no-deliver", action="store_true", help="record the alerts, send none")
    p.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    p.set_defaults(func=cmd_backfill)

    p = sub.add_parser(
        "demo", help="replay the shipped demo archive into a fresh warehouse: leaders and alerts"
    )
    p.add_argument("--home", help="where to build it (default: a new temporary folder)")
    p.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("alerts", help="alerts raised, with their delivery status (read-only)")
    p.add_argument("--since", help="first day to list (YYYY-MM-DD)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=cmd_alerts)

    p = sub.add_parser("sources", help="health of every source: last success, failure, staleness")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=cmd_sources)

    p = sub.add_parser("sql", help="run one SQL query on the published warehouse (read-only)")
    p.add_argument("query", help='e.g. "select * from analytics.cheapest_gpu_daily limit 5"')
    p.add_argument("--format", choices=["table", "csv", "json"], default="table")
    p.add_argument("--max-rows", type=int, default=1000, help="rows shown in table format")
    p.set_defaults(func=cmd_sql)

    p = sub.add_parser("shell", help="interactive SQL on the published warehouse (read-only)")
    p.set_defaults(func=cmd_shell)

    p = sub.add_parser("export", help="write the analytics views to Parquet or CSV files")
    p.add_argument("--format", choices=["parquet", "csv"], default="parquet")
    p.add_argument("--out", required=True, help="folder to write <view>.<format> into")
    p.add_argument("--view", action="append", help="only this view (repeatable)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("docs", help="generate the dbt docs site as one static page (offline)")
    p.add_argument("--out", help="folder (default $GPULEDGER_HOME/site/docs)")
    p.set_defaults(func=cmd_docs)

    p = sub.add_parser("report", help="rebuild the static HTML report from the published warehouse")
    p.add_argument("--out", help="file (default $GPULEDGER_HOME/site/report.html)")
    p.set_defaults(func=cmd_report)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        # the reader of our output went away (e.g. `| head`): not an error of gpuledger's
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
