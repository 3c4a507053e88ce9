"""`gpuledger` command line. Thin: pipeline work runs the daily_refresh Dagster job in-process;
read-only commands answer from the warehouse without loading Dagster."""

from __future__ import annotations

import argparse
import os
import sys

from pipelines.commands.build import cmd_backfill, cmd_demo, cmd_ingest, cmd_refresh
from pipelines.commands.read import (
    cmd_alerts,
    cmd_docs,
    cmd_estimate,
    cmd_explain,
    cmd_export,
    cmd_rank,
    cmd_report,
    cmd_shell,
    cmd_sources,
    cmd_sql,
)
from pipelines.commands.sources import cmd_import_snapshot, cmd_parse, cmd_providers
from warehouse.paths import DagsterStorageError

VERBOSE_HELP = (
    "show Dagster's, dbt's and GX's own log on the console (always in the run's log file)"
)

ALLOW_FILES_HELP = (
    "let SQL read and write local files (read_csv, COPY ... TO, ATTACH); by default the "
    "connection reaches nothing outside the published warehouse"
)


def _concurrency(text: str) -> int | str:
    if text == "max":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: a number of sequences or 'max'") from None


def _workload_arguments(p: argparse.ArgumentParser) -> None:
    """Your own workload, instead of a seeded class (analytics.rank_workload's parameters)."""
    w = p.add_argument_group(
        "your workload (instead of --workload; analytics.rank_workload in SQL)"
    )
    w.add_argument("--model", help="model_ref, e.g. llama-3.1-70b (reference.model_reference)")
    w.add_argument("--input", type=int, help="prompt tokens per request")
    w.add_argument("--output", type=int, help="output tokens per request")
    w.add_argument("--concurrency", type=int, default=1, help="requests in flight (default 1)")
    w.add_argument("--precision", help="weights' precision (default: the checkpoint's)")
    w.add_argument("--slo-ttft", type=float, help="p95 time to first token target, ms")
    w.add_argument("--slo-e2e", type=float, help="p99 end-to-end latency target, ms")
    w.add_argument(
        "--pricing-models",
        nargs="+",
        default=["on_demand"],
        metavar="MODEL",
        help="pricing models to rank (default on_demand; spot, reserved_6m, reserved_1y, "
        "reserved_3y, dynamic, marketplace)",
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
    a.add_argument(
        "--selector",
        action="append",
        metavar="NAME=CSS",
        help="a CSS selector (row, split, gpu, count, memory, price; repeatable)",
    )
    a.add_argument(
        "--pricing-word",
        action="append",
        metavar="WORDS=MODEL",
        help="the page's own words for a pricing model (repeatable)",
    )
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
        "--organization", help="who published the results, when the files do not say (NVIDIA ...)"
    )
    p.add_argument(
        "--no-build", action="store_true", help="archive only; the next refresh loads the files"
    )
    p.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser(
        "rank",
        help="GPUs ranked by cost per accepted output for a workload class (--workload) or your "
        "own workload (--model --input --output ...), or by USD per GPU-hour (read-only)",
    )
    p.add_argument("--workload", help="workload class (dbt/seeds/workload_classes.csv)")
    _workload_arguments(p)
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
    p.add_argument(
        "--gpus", type=int, default=1, help="GPUs in the unit: 1, 2, 4 or 8, one server (default 1)"
    )
    p.add_argument("--precision", help="default: the precision of the published checkpoint")
    p.add_argument("--input", type=int, required=True, help="input tokens per request")
    p.add_argument("--output", type=int, required=True, help="output tokens per request")
    p.add_argument(
        "--concurrency",
        type=_concurrency,
        default=1,
        help="sequences served at once, or 'max': the largest batch that fits in memory (what "
        "batch jobs and max-throughput benchmarks run)",
    )
    p.add_argument(
        "--stack",
        choices=["trtllm", "vllm", "sglang", "other"],
        help="serving stack whose runs calibrate the estimate (default: the best stack with "
        "evidence on that GPU)",
    )
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=cmd_estimate)

    p = sub.add_parser(
        "explain",
        help="the whole calculation behind one GPU for a workload class or your own workload "
        "(read-only)",
    )
    p.add_argument("--workload", help="workload class (or describe yours with --model ...)")
    _workload_arguments(p)
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
    p.add_argument("--allow-files", action="store_true", help=ALLOW_FILES_HELP)
    p.set_defaults(func=cmd_sql)

    p = sub.add_parser("shell", help="interactive SQL on the published warehouse (read-only)")
    p.add_argument("--allow-files", action="store_true", help=ALLOW_FILES_HELP)
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
    except DagsterStorageError as exc:  # a wrong GPULEDGER_DAGSTER_PG_URL, a server down
        print(f"gpuledger: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader of our output went away (e.g. `| head`): not an error of gpuledger's
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
