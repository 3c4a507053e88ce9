"""The dbt project as Dagster assets: staging -> intermediate -> marts, with dbt tests as checks."""

import json
import os

import dagster as dg
from dagster_dbt import DbtCliResource, dbt_assets

from pipelines.defs.resources import DBT_PROJECT, GpuledgerResource


@dbt_assets(manifest=DBT_PROJECT.manifest_path, project=DBT_PROJECT)
def gpuledger_dbt_models(
    context: dg.AssetExecutionContext, dbt: DbtCliResource, gpuledger: GpuledgerResource
):
    # dbt's profile reads the warehouse path from the environment; this run's resource decides it.
    os.environ["GPULEDGER_DB_PATH"] = str(gpuledger.paths.db_path)
    dbt_vars = {"as_of_date": gpuledger.as_of_date().isoformat()}
    yield from dbt.cli(["build", "--vars", json.dumps(dbt_vars)], context=context).stream()
