"""Ingest assets, one per source in sources.REGISTRY, all built by one step that runs the engine in
pipelines/ingest.py (fetch -> archive -> parse -> validate -> raw) for each, and the raw tables
they fill.

Validation runs inside the asset and reports as the asset's check. It is not `blocking` in the
Dagster sense on purpose: every source feeds the one dbt step, and a blocking failure would stop
the models for all sources. The gate is on the data instead: staging reads passed snapshots only.
"""

import contextlib
from datetime import UTC, datetime, timedelta
from types import ModuleType

import dagster as dg
import duckdb
from dagster_duckdb import DuckDBResource

import sources
from pipelines.defs.resources import GpuledgerResource, long_lived, warehouse_connection
from pipelines.ingest import ingest_source, raw_connection
from warehouse import db

CHECK_NAME = "snapshots_valid"
FRESH_CHECK_NAME = "source_fresh"
RAW_TABLE_KEYS = [
    dg.AssetKey(["raw", t])
    for t in (
        "page_snapshots",
        "price_observations",
        "gpu_specs",
        "fx_rates",
        "api_prices",
        "benchmark_runs",
        "snapshot_validations",
        "quarantine",
        "source_runs",
    )
]


def _interval_hours(module: ModuleType) -> int:
    return int(getattr(module, "EXPECTED_INTERVAL_HOURS", 24))


def _ingest_spec(module: ModuleType) -> dg.AssetSpec:
    return dg.AssetSpec(
        ingest_key(module.NAME),
        group_name="ingest",
        kinds={"python", "duckdb"},
        description=(module.__doc__ or module.NAME).strip().splitlines()[0],
    )


def ingest_key(name: str) -> dg.AssetKey:
    return dg.AssetKey(["ingest", name])


def _check_specs(module: ModuleType) -> list[dg.AssetCheckSpec]:
    key = ingest_key(module.NAME)
    return [
        dg.AssetCheckSpec(
            CHECK_NAME,
            asset=key,
            description="Great Expectations suites on every snapshot loaded in this run",
        ),
        dg.AssetCheckSpec(
            FRESH_CHECK_NAME,
            asset=key,
            description=f"new data at least every {_interval_hours(module)} h (overdue if not)",
        ),
    ]


@dg.multi_asset(
    name="ingest",
    specs=[_ingest_spec(m) for m in sources.REGISTRY.values()],
    check_specs=[c for m in sources.REGISTRY.values() for c in _check_specs(m)],
    can_subset=True,
)
def ingest(context: dg.AssetExecutionContext, gpuledger: GpuledgerResource):
    """Every selected source in one step, on one connection to the warehouse: an asset per source
    with its checks, as when each was a step of its own (then each opened the file and checked
    the raw layout again, ~45 ms of a source with nothing new). A source that raises does not
    stop the others; the step then fails naming it, as its own step failed before."""
    failed: list[str] = []
    with raw_connection(gpuledger, context.log) as con:
        for module in sources.REGISTRY.values():
            key = ingest_key(module.NAME)
            if key not in context.selected_asset_keys:
                continue
            try:
                summary = ingest_source(module, gpuledger, context.run_id, context.log, con)
            except Exception as exc:  # a defect in the source's code: the rest still load
                failed.append(f"{module.NAME}: {type(exc).__name__}: {exc}")
                context.log.error(f"ingest {module.NAME} FAILED: {type(exc).__name__}: {exc}")
                with contextlib.suppress(duckdb.Error):
                    con.rollback()  # an open transaction of the failed load
                continue
            yield dg.MaterializeResult(
                asset_key=key,
                metadata={
                    "snapshots_loaded": summary.snapshots_loaded,
                    "rows_loaded": summary.rows_loaded,
                    "rows_quarantined": summary.rows_quarantined,
                    "live_fetches": summary.fetched,
                    "fetch_failures": dg.MetadataValue.json(summary.fetch_failures),
                    "used_archive": summary.used_archive,
                },
                check_results=[
                    dg.AssetCheckResult(
                        asset_key=key,
                        check_name=CHECK_NAME,
                        passed=summary.passed,
                        severity=dg.AssetCheckSeverity.ERROR,
                        metadata={
                            "snapshots_checked": summary.snapshots_loaded,
                            "failed_snapshots": dg.MetadataValue.json(summary.snapshots_failed),
                        },
                    ),
                    _freshness_result(module, gpuledger),
                ],
            )
    # the archive's index, parsed by this step, is kept for the rest of the run
    long_lived()
    if failed:
        raise dg.Failure(
            description=f"{len(failed)} source(s) failed: " + "; ".join(failed),
            metadata={"failed_sources": dg.MetadataValue.json(failed)},
        )


def _freshness_result(module: ModuleType, settings: GpuledgerResource) -> dg.AssetCheckResult:
    """Overdue when the source's newest capture (fetched, imported or taken from the inbox) is
    older than its expected interval plus two hours of slack. Sources with no URLs (package data,
    files) are never overdue."""
    key = ingest_key(module.NAME)
    if not settings.urls_for(module):
        return dg.AssetCheckResult(
            asset_key=key,
            check_name=FRESH_CHECK_NAME,
            passed=True,
            metadata={"expected": "no URLs: not fetched"},
        )
    newest = None
    for snap in settings.archive().snapshots(module.NAME):
        if snap.origin in ("live", "import", "inbox") and (
            newest is None or snap.fetched_at > newest
        ):
            newest = snap.fetched_at
    now = datetime.now(UTC)
    limit = timedelta(hours=_interval_hours(module) + 2)
    if newest is None:
        age_h, passed = None, False
    else:
        age = now - datetime.fromisoformat(newest)
        age_h, passed = round(age.total_seconds() / 3600, 1), age <= limit
    return dg.AssetCheckResult(
        asset_key=key,
        check_name=FRESH_CHECK_NAME,
        passed=passed,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={
            "newest_capture": newest or "never",
            "age_hours": age_h if age_h is not None else -1,
            "overdue_after_hours": _interval_hours(module) + 2,
        },
    )


INGEST_ASSETS = [ingest]


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            key,
            deps=list(ingest.keys),
            group_name="ingest",
            kinds={"duckdb"},
            description=f"Raw table {'.'.join(key.path)}, after every price source has loaded.",
        )
        for key in RAW_TABLE_KEYS
    ]
)
def raw_tables(duckdb: DuckDBResource):
    """The raw tables as the dbt sources see them, with row counts per table."""
    with warehouse_connection(duckdb) as con:
        db.ensure_raw_schema(con)
        counts = {
            key: con.execute(f"select count(*) from {'.'.join(key.path)}").fetchone()[0]
            for key in RAW_TABLE_KEYS
        }
        verdicts = con.execute(
            "select source, count(*) filter (where success), count(*) filter (where not success) "
            "from raw.snapshot_validations group by 1 order by 1"
        ).fetchall()
    for key, n in counts.items():
        metadata = {"dagster/row_count": n}
        if key.path[-1] == "snapshot_validations":
            metadata["snapshots_passed"] = dg.MetadataValue.json({s: p for s, p, _ in verdicts})
            metadata["snapshots_failed"] = dg.MetadataValue.json({s: f for s, _, f in verdicts})
        yield dg.MaterializeResult(asset_key=key, metadata=metadata)
