"""The dbt project as Dagster assets: staging -> intermediate -> marts, with dbt tests as checks."""

import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
from dagster_dbt import DbtCliResource, dbt_assets

from pipelines.defs.resources import DBT_PROJECT, GpuledgerResource

KEEP_DBT_RUNS = 7


@dbt_assets(manifest=DBT_PROJECT.manifest_path, project=DBT_PROJECT)
def gpuledger_dbt_models(
    context: dg.AssetExecutionContext, dbt: DbtCliResource, gpuledger: GpuledgerResource
):
    # dbt's profile reads the warehouse path from the environment; this run's resource decides it.
    os.environ["GPULEDGER_DB_PATH"] = str(gpuledger.paths.db_path)
    dbt_vars = {"as_of_date": gpuledger.as_of_date().isoformat()}
    # dbt's per-run target folder (manifest, run results, logs) lives with the warehouse, and only
    # the last few are kept: one folder per daily run would otherwise grow without end.
    runs_dir = gpuledger.paths.home / "dbt_runs"
    target = runs_dir / f"{datetime.now(UTC):%Y%m%dT%H%M%S}-{context.run_id[:8]}"
    args = ["build", "--vars", json.dumps(dbt_vars)]
    if context.is_subset:
        # A few models materialized on their own: run only the tests whose every parent is among
        # them (a relationships test to a model not built here would fail on a fresh warehouse).
        args += ["--indirect-selection", "cautious"]
    try:
        yield from dbt.cli(args, context=context, target_path=target).stream()
    finally:
        prune_run_folders(runs_dir, keep=KEEP_DBT_RUNS)


def prune_run_folders(runs_dir: Path, keep: int) -> None:
    """Delete all but the newest `keep` run folders (names sort by start time)."""
    if not runs_dir.exists():
        return
    folders = sorted(p for p in runs_dir.iterdir() if p.is_dir())
    for old in folders[:-keep] if keep > 0 else folders:
        shutil.rmtree(old, ignore_errors=True)
