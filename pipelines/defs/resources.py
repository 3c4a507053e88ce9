"""Resources: where the warehouse lives, how a refresh runs (as-of day, offline), and dbt."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import dagster as dg
from dagster_dbt import DbtCliResource, DbtProject

from pipelines.defs.dbt_worker import WorkerDbtResource
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
    # The dbt next to this interpreter, so a venv works without being on PATH.
    beside = Path(sys.executable).parent / "dbt"
    return WorkerDbtResource(
        project_dir=DBT_PROJECT,
        profiles_dir=str(wpaths.DBT_PROJECT_DIR),
        dbt_executable=str(beside) if beside.exists() else "dbt",
    )
