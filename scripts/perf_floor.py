"""The floor of the scale run: a minimal Dagster + GX + dbt run on the same machine, which
the daily refresh is measured against. See perf_scale.py."""

import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from perf_history import END, Market, catalog_url

FLOOR_MODEL = "select provider, count(*) as n, avg(price_per_hour) as p from raw_prices group by 1"


def floor(work: Path) -> dict:
    """A minimal Dagster + GX + dbt run: one asset validates one catalog's rows with the price
    suite and writes them to DuckDB, one dbt build of one model over them."""
    import dagster as dg
    import duckdb
    from dagster_dbt import DbtCliResource

    from pipelines.ingest import records_frame
    from pipelines.quality import validate_prices
    from sources import skypilot

    project = work / "floor_dbt"
    (project / "models").mkdir(parents=True, exist_ok=True)
    (project / "dbt_project.yml").write_text(
        "name: floor\nversion: '1.0'\nconfig-version: 2\nprofile: floor\nmodel-paths: [models]\n"
    )
    db_file = work / "floor.duckdb"
    (project / "profiles.yml").write_text(
        f"floor:\n  target: t\n  outputs:\n    t:\n      type: duckdb\n      path: '{db_file}'\n"
    )
    (project / "models" / "offers.sql").write_text(FLOOR_MODEL + "\n")
    market = Market(1, 8, 3, [END])
    url = catalog_url("http://127.0.0.1", "perf-cloud-00")
    content = market.catalog("perf-cloud-00", 0)
    dbt = str(Path(sys.executable).parent / "dbt")

    @dg.asset
    def raw_prices():
        frame = records_frame(skypilot.parse(content, url, datetime.now(UTC)).records)
        assert validate_prices(frame, (1, 1000)).success
        con = duckdb.connect(str(db_file))
        con.register("f", frame)
        con.execute("create or replace table raw_prices as select * from f")
        con.close()

    @dg.asset(deps=[raw_prices])
    def offers(dbt_floor: DbtCliResource):
        dbt_floor.cli(["build"], manifest=None).wait()

    job = dg.define_asset_job("floor", executor_def=dg.in_process_executor)
    subprocess.run([dbt, "parse", "--project-dir", str(project), "--profiles-dir", str(project)],
                   check=True, capture_output=True)  # fmt: skip

    def median_of_three(resource: DbtCliResource) -> list[float]:
        defs = dg.Definitions(assets=[raw_prices, offers], jobs=[job],
                              resources={"dbt_floor": resource})  # fmt: skip
        times = []
        for _ in range(3):
            t = time.perf_counter()
            with dg.DagsterInstance.ephemeral() as instance:
                assert defs.resolve_job_def("floor").execute_in_process(instance=instance).success
            times.append(time.perf_counter() - t)
        return times

    # The floor: dagster-dbt as it comes (dbt a child process for each command), as gpuledger
    # runs it.
    kwargs = {"project_dir": str(project), "profiles_dir": str(project), "dbt_executable": dbt}
    times = median_of_three(DbtCliResource(**kwargs))
    return {
        "floor_s": round(statistics.median(times), 1),
        "floor_runs_s": [round(x, 1) for x in times],
    }
