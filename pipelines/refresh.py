"""Run the daily_refresh job in-process, the same job the schedule runs."""

from __future__ import annotations

import contextlib
import os
import re
import sys
import textwrap
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from pipelines.progress import console_kept
from warehouse import db, publish
from warehouse.paths import DAGSTER_PG_URL_VAR, DagsterStorageError, Paths, prepare_environment


def run_refresh(
    as_of: date,
    offline: bool = False,
    paths: Paths | None = None,
    extra_config: dict[str, Any] | None = None,
    out=sys.stdout,
    assets: list[str] | None = None,
    progress: bool = False,
    verbose: bool = False,
    start: date | None = None,
):
    """Execute daily_refresh for the partition `as_of` (or, with `start`, for the partition range
    start..as_of in one run: a backfill); print a per-source summary; return the Dagster result.

    `assets` (keys such as "marts/source_health") runs only those assets and what they depend
    on, as one would materialize them in the Dagster UI; by default the whole job runs.

    Every message of the run goes to $GPULEDGER_HOME/logs/run-<time>.log. With `progress` (the
    CLI) the console shows one line per step instead of the log, unless `verbose`."""
    import dagster as dg

    # Loading the code location points the environment at the default home; this run's home is
    # set after it, so Dagster's instance, dbt and the DuckDB resource all use `paths`.
    from pipelines.definitions import defs

    paths = prepare_environment(paths)

    config = {"as_of": as_of.isoformat(), "offline": offline, "home": str(paths.home)}
    if start is not None and start < as_of:
        config["window_start"] = start.isoformat()
        partition = {
            "tags": {
                "dagster/asset_partition_range_start": start.isoformat(),
                "dagster/asset_partition_range_end": as_of.isoformat(),
            }
        }
    else:
        partition = {"partition_key": as_of.isoformat()}
    config.update(extra_config or {})
    job = defs.resolve_job_def("daily_refresh")
    selection = None
    if assets:
        wanted = dg.AssetSelection.assets(*(dg.AssetKey.from_user_string(a) for a in assets))
        closure = wanted.upstream().required_multi_asset_neighbors()
        selection = sorted(closure.resolve(defs.resolve_asset_graph()))
    log_path = _run_log_path(paths)
    if progress:
        print(f"refresh as of {as_of}: the run's full log is {log_path}", file=sys.stderr)
    loggers = {
        "console": {"config": {"log_level": "INFO" if verbose or not progress else "ERROR"}},
        "progress": {"config": {"enabled": progress}},
        "run_log": {"config": {"path": str(log_path)}},
    }
    # Dagster's own instance in DAGSTER_HOME (its dagster.yaml: SQLite storage by default)
    with contextlib.ExitStack() as quiet, open_instance() as instance:
        if progress:  # the progress lines reach the console whatever Dagster captures
            quiet.enter_context(console_kept())
        if progress and not verbose:  # dbt's own output (dagster-dbt echoes it) into the log file
            log_file = quiet.enter_context(log_path.open("a", encoding="utf-8"))
            quiet.enter_context(contextlib.redirect_stdout(log_file))
        result = job.execute_in_process(
            run_config={"resources": {"gpuledger": {"config": config}}, "loggers": loggers},
            instance=instance,
            raise_on_error=False,
            asset_selection=selection,
            **partition,
        )
    _print_summary(paths, result, out)
    pub = publish.publication(paths)
    if pub and pub["run_id"] == result.run_id:
        print(f"published for readers: {pub['path']}; report: {paths.report_path}", file=out)
    else:
        print("nothing published: readers keep the previous copy", file=out)
    if not result.success:
        failures = [e for e in result.all_events if e.is_step_failure]
        failed = [e.step_key for e in failures]
        print(f"refresh {result.run_id} FAILED in step(s): {', '.join(failed)}", file=out)
        for event in failures:
            print(f"  {event.step_key}: {_why(event)}", file=out)
    return result


def open_instance():
    """Dagster's instance of DAGSTER_HOME, as its dagster.yaml says (PostgreSQL when
    GPULEDGER_DAGSTER_PG_URL is set); a storage that cannot be opened raises DagsterStorageError
    naming the setting and why, with the URL's password left out."""
    import dagster as dg

    try:
        return dg.DagsterInstance.get()
    except Exception as exc:
        url = os.environ.get(DAGSTER_PG_URL_VAR)
        if not url:
            raise
        raise DagsterStorageError(_storage_error(url, exc)) from exc


def _storage_error(url: str, exc: BaseException) -> str:
    secret = re.search(r"://[^:/@]+:([^/@]+)@", url)
    shown = url.replace(f":{secret[1]}@", ":***@") if secret else url
    cause: BaseException = exc
    while cause.__cause__ is not None or cause.__context__ is not None:
        cause = cause.__cause__ or cause.__context__
    reason = str(getattr(cause, "orig", None) or cause).strip()
    reason = reason.splitlines()[0] if reason else type(cause).__name__
    if isinstance(cause, ModuleNotFoundError) and cause.name == "psycopg":
        reason = ("SQLAlchemy takes postgresql:// for the psycopg 3 driver, which is not "
                  "installed; write the URL as postgresql+psycopg2://...")  # fmt: skip
    if secret:
        reason = reason.replace(secret[1], "***")
    return (
        f"Dagster's storage on PostgreSQL cannot be opened ({DAGSTER_PG_URL_VAR}={shown}): {reason}"
    )


def _why(event, limit: int = 1200) -> str:
    """A failed step's error as its message says it (dbt's own error lines for a dbt step:
    which model, which constraint or test), shortened for the console."""
    error = event.step_failure_data.error if event.step_failure_data else None
    while error is not None and error.cause is not None and not error.message.strip():
        error = error.cause
    text = error.message if error else "no error recorded"
    # dagster-dbt's error repeats the whole command first; dbt's own lines follow this header
    text = text.split("Errors parsed from dbt logs:", 1)[-1]
    text = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", text).split())  # dbt's colours
    return text if len(text) <= limit else text[: limit - 3] + "..."


WIDTH = 140  # the summary's lines, as wide as the first screen's tables below them (120-145)


def _ingest_outcomes(result) -> dict[str, dict[str, int]]:
    """What this run's ingest did per source, from the run's own events (the ingest assets'
    materializations and their validation checks): snapshots loaded, rows loaded and
    quarantined, snapshots that failed validation."""
    from pipelines.defs.ingest import CHECK_NAME

    outcomes: dict[str, dict[str, int]] = {}
    for event in result.get_asset_materialization_events():
        key = event.asset_key.path
        if len(key) == 2 and key[0] == "ingest":
            meta = event.materialization.metadata
            outcomes[key[1]] = {
                name: int(meta[name].value) if name in meta else 0
                for name in ("snapshots_loaded", "rows_loaded", "rows_quarantined")
            }
    for check in result.get_asset_check_evaluations():
        key = check.asset_key.path
        if (
            check.check_name == CHECK_NAME
            and len(key) == 2
            and key[0] == "ingest"
            and key[1] in outcomes
        ):
            failed = check.metadata.get("failed_snapshots")
            outcomes[key[1]]["snapshots_failed"] = len(failed.value) if failed else 0
    return outcomes


def _print_summary(paths: Paths, result, out) -> None:
    """What this run did to its sources, one line per outcome, not one per source: what was
    fetched or read from the archive, what was loaded, refused or quarantined."""
    con = db.connect(paths.db_path)
    try:
        db.ensure_raw_schema(con)
        rows = con.execute(
            """
            select source, count(*) filter (where fetch_status in ('fetched', 'not_modified')),
                   count(*) filter (where fetch_status = 'failed'),
                   bool_or(used_archive),
                   any_value(fetch_error) filter (where fetch_error is not null)
            from raw.source_runs where run_id = ? group by 1 order by 1
            """,
            [result.run_id],
        ).fetchall()
    finally:
        con.close()
    outcomes = _ingest_outcomes(result)
    total = {k: sum(o.get(k, 0) for o in outcomes.values())
             for k in ("snapshots_loaded", "rows_loaded", "rows_quarantined")}  # fmt: skip
    done = (
        f"{total['snapshots_loaded']:,} snapshots loaded ({total['rows_loaded']:,} rows), "
        f"{total['rows_quarantined']:,} rows quarantined"
        if total["snapshots_loaded"]
        else "nothing new to load"
    )
    print(f"refresh {result.run_id}: {len(outcomes)} sources; {done}", file=out)

    def names(label: str, sources: list[str]) -> None:
        if sources:
            text = f"  {label} ({len(sources)}): {', '.join(sources)}"
            print(textwrap.fill(text, width=WIDTH, subsequent_indent="    "), file=out)

    names("fetched live", [s for s, ok, *_ in rows if ok])
    archived = [s for s, _, _, used_archive, _ in rows if used_archive]
    failed = [(s, n, error) for s, _, n, _, error in rows if n]
    if failed and [s for s, *_ in failed] == archived:
        names("live fetch failed, using archived snapshots", archived)
    else:
        names("using archived snapshots", archived)
        names("live fetch failed", [s for s, *_ in failed])
    if failed:
        reasons = sorted({_reason(error) for *_, error in failed})
        more = f" and {len(reasons) - 1} more reasons" if len(reasons) > 1 else ""
        print(f"    e.g. {reasons[0]}{more} (gpuledger sources)", file=out)
    # benchmark files, package data, imported quotes, pages with no URL configured
    fetched = {s for s, *_ in rows}
    names("no page to fetch: files and archive only", sorted(set(outcomes) - fetched))
    refused = {s: o["snapshots_failed"] for s, o in outcomes.items() if o.get("snapshots_failed")}
    if refused:
        counts = ", ".join(f"{s} {n}" for s, n in sorted(refused.items()))
        print(f"  snapshots refused by their checks, kept out of the marts: {counts} "
              "(gpuledger sources)", file=out)  # fmt: skip
    quarantined = {s: o["rows_quarantined"] for s, o in outcomes.items() if o["rows_quarantined"]}
    if quarantined:
        by_count = sorted(quarantined.items(), key=lambda item: (-item[1], item[0]))
        text = ("  rows quarantined, each with its reason in raw.quarantine: "
                + ", ".join(f"{s} {n:,}" for s, n in by_count))  # fmt: skip
        print(textwrap.fill(text, width=WIDTH, subsequent_indent="    "), file=out)


def _reason(error: str | None) -> str:
    """A fetch error without the URL it names (the URL is in raw.source_runs and the log)."""
    text = error or "unknown"
    return text.split(": ", 1)[1] if text.startswith(("http://", "https://")) else text


KEEP_RUN_LOGS = 30


def _run_log_path(paths: Paths) -> Path:
    """A new log file for this run; only the newest KEEP_RUN_LOGS are kept."""
    folder = paths.home / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    for old in sorted(folder.glob("run-*.log"))[: -(KEEP_RUN_LOGS - 1)]:
        old.unlink(missing_ok=True)
    return folder / f"run-{datetime.now(UTC):%Y%m%dT%H%M%S.%f}.log"
