"""Resources: where the warehouse lives, how a refresh runs (as-of day, offline), and dbt."""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import dagster as dg
from dagster_dbt import DbtCliResource, DbtProject

from sources._internal.archive import Archive
from sources._internal.http import HttpClient
from warehouse import paths as wpaths

DBT_PROJECT = DbtProject(project_dir=wpaths.DBT_PROJECT_DIR, profiles_dir=wpaths.DBT_PROJECT_DIR)


class GpuledgerResource(dg.ConfigurableResource):
    """Settings of one refresh. Empty `home` = $GPULEDGER_HOME or the repository's warehouse/."""

    home: str = ""
    as_of: str = ""
    # First day the per-day marts are written for (a backfill's start); empty = the as-of day.
    window_start: str = ""
    offline: bool = False
    seed_demo_archive: bool = True
    deliver_alerts: bool = True
    url_overrides: dict[str, list[str]] = {}
    http_timeout_s: float = 20.0
    http_retries: int = 3
    http_min_interval_s: float = 1.0

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        # Called once at the start of a run (the in-process executor): see long_lived().
        long_lived()

    def teardown_after_execution(self, context: dg.InitResourceContext) -> None:
        # The run's end: what was left out goes back to the collector, so nothing that dies
        # later in this process (a test session, a day-by-day backfill) is kept for good.
        gc.unfreeze()

    @property
    def paths(self) -> wpaths.Paths:
        return wpaths.Paths(Path(self.home).resolve()) if self.home else wpaths.current()

    def as_of_date(self) -> date:
        return date.fromisoformat(self.as_of) if self.as_of else datetime.now(UTC).date()

    def window_start_date(self) -> date | None:
        return date.fromisoformat(self.window_start) if self.window_start else None

    def archive(self) -> Archive:
        archive = Archive(self.paths.archive_dir)
        if self.seed_demo_archive and not archive.index_path.exists():
            archive.copy_from(Archive(wpaths.DEMO_ARCHIVE_DIR), origin="demo")
        return archive

    def http_client(self) -> HttpClient:
        return HttpClient(
            timeout_s=self.http_timeout_s,
            retries=self.http_retries,
            min_interval_s=self.http_min_interval_s,
        )

    def urls_for(self, module) -> tuple[str, ...]:
        if module.NAME in self.url_overrides:
            return tuple(self.url_overrides[module.NAME])
        return tuple(module.urls(self.as_of_date()))


def long_lived() -> None:
    """Leave every object alive now out of Python's full garbage collections until the run ends.

    A full collection walks every object the process holds: Dagster's and dbt's modules, the
    definitions, the archive's parsed index (about 600,000 objects in a day's run at three years
    of history), 0.3-0.4 s each time, and a day's run made one or none, whichever way its
    allocations fell (days in turn on kept 30-day and three-year warehouses: 0-1 a day, 0.29-0.42
    s each). Objects alive at the start of the run, and the index once the ingest has parsed it,
    live as long as the run: left out (`gc.freeze`, Python's own means), a day's full
    collections took 0.01 s in all (two a day, three-year warehouse). Reference cycles made
    during the run are still collected; `GpuledgerResource.teardown_after_execution` hands the
    rest back (`gc.unfreeze`)."""
    gc.freeze()


@contextlib.contextmanager
def warehouse_connection(duckdb_resource) -> Iterator:
    """A connection from the run's DuckDBResource, closed also when the block raises (the
    resource's own context manager closes it only on success, and an open connection would keep
    the next writer out of the file)."""
    with contextlib.ExitStack() as stack:
        con = stack.enter_context(duckdb_resource.get_connection())
        try:
            yield con
        finally:
            con.close()


def dbt_resource() -> DbtCliResource:
    # dbt through gpuledger-dbt (pipelines/dbt_command.py: dbt's own commands; `--version`, which
    # dagster-dbt asks once a run, answered without asking PyPI), the one next to this
    # interpreter, so a venv works without being on PATH.
    beside = Path(sys.executable).parent / "gpuledger-dbt"
    return DbtCliResource(
        project_dir=DBT_PROJECT,
        profiles_dir=str(wpaths.DBT_PROJECT_DIR),
        dbt_executable=str(beside) if beside.exists() else "gpuledger-dbt",
    )
