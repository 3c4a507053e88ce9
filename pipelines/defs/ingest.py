"""Ingest assets, one per source in sources.REGISTRY, each running the engine in pipelines/ingest.py
(fetch -> archive -> parse -> validate -> raw), and the raw tables they fill.

Validation runs inside the asset and reports as the asset's check. It is not `blocking` in the
Dagster sense on purpose: every source feeds the one dbt step, and a blocking failure would stop
the models for all sources. The gate is on the data instead: staging reads passed snapshots only.
"""

from datetime import UTC, datetime, timedelta
from types import ModuleType

import dagster as dg
from dagster_duckdb import DuckDBResource

import sources
from pipelines.defs.resources import GpuledgerResource, warehouse_connection
from pipelines.ingest import ingest_source
from warehouse import db

CHECK_NAME = "snapshots_valid"
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


def build_ingest_asset(module: ModuleType) -> dg.AssetsDefinition:
    key = dg.AssetKey(["ingest", module.NAME])
    doc = (module.__doc__ or module.NAME).strip().splitlines()[0]

    @dg.asset(
        key=key,
        group_name="ingest",
        kinds={"python", "duckdb"},
        description=doc,
        check_specs=[
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
        ],
    )
    def _ingest(context: dg.AssetExecutionContext, gpuledger: GpuledgerResource):
        summary = ingest_source(module, gpuledger, context.run_id, context.log)
        return dg.MaterializeResult(
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

    return _ingest


FRESH_CHECK_NAME = "source_fresh"


def _interval_hours(module: ModuleType) -> int:
    return int(getattr(module, "EXPECTED_INTERVAL_HOURS", 24))


def _freshness_result(module: ModuleType, settings: GpuledgerResource) -> dg.AssetCheckResult:
    """Overdue when the source's newest capture (fetched, imported or taken from the inbox) is
    older than its expected interval plus two hours of slack. Sources with no URLs (package data,
    files) are never overdue."""
    if not settings.urls_for(module):
        return dg.AssetCheckResult(
            check_name=FRESH_CHECK_NAME, passed=True, metadata={"expected": "no URLs: not fetched"}
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
        check_name=FRESH_CHECK_NAME,
        passed=passed,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={
            "newest_capture": newest or "never",
            "age_hours": age_h if age_h is not None else -1,
            "overdue_after_hours": _interval_hours(module) + 2,
        },
    )


INGEST_ASSETS = [build_ingest_asset(m) for m in sources.REGISTRY.values()]


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            key,
            deps=[a.key for a in INGEST_ASSETS],
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
