"""The one place that decides paths and environments.

Everything lives under GPULEDGER_HOME (default: the repository's `warehouse/` folder):

    gpuledger.duckdb   the working warehouse: only the refresh opens it (raw schema written by
                       Python, the rest built by dbt)
    published/         gpuledger.duckdb, the read-only copy analysts connect to, replaced
                       atomically after each successful run, and PUBLISHED.json describing it
    site/              report.html (the day's charts) and docs/index.html (dbt docs), static
    archive/           content-addressed snapshot archive, the source of truth
    dagster_home/      Dagster instance: its dagster.yaml; run history, event log and schedules
                       in SQLite files there, or in PostgreSQL when GPULEDGER_DAGSTER_PG_URL is set
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DBT_PROJECT_DIR = REPO_ROOT / "dbt"
DEMO_ARCHIVE_DIR = Path(__file__).resolve().parent / "demo_archive"

# The PostgreSQL database for Dagster's run, event-log and schedule storage (dagster-postgres),
# e.g. postgresql+psycopg2://gpuledger:secret@db.internal:5432/gpuledger_dagster (psycopg2 comes
# with dagster-postgres); unset: SQLite files in dagster_home/ (Dagster's default). dagster.yaml
# names the variable, not the URL, so the password stays in the environment of the processes that
# use it (gpuledger, dagster-daemon, dagster-webserver).
DAGSTER_PG_URL_VAR = "GPULEDGER_DAGSTER_PG_URL"
DAGSTER_YAML_MARK = "# Written by gpuledger (warehouse/paths.py)"
DAGSTER_YAML_HEADER = (
    f"{DAGSTER_YAML_MARK}: storage follows {DAGSTER_PG_URL_VAR}; rewritten by every\n"
    "# run while the first line is this one. Delete these lines to keep your own settings.\n"
)


class DagsterStorageError(RuntimeError):
    """Dagster's storage named by GPULEDGER_DAGSTER_PG_URL cannot be opened (pipelines/refresh.py
    says which setting and why)."""


# What gpuledger wrote before storage followed the variable: still its own file.
_EARLIER_DAGSTER_YAML = "telemetry:\n  enabled: false\n"


@dataclass(frozen=True)
class Paths:
    home: Path

    @property
    def db_path(self) -> Path:
        return self.home / "gpuledger.duckdb"

    @property
    def published_dir(self) -> Path:
        return self.home / "published"

    @property
    def published_db_path(self) -> Path:
        # Same file name as the working copy: DuckDB names the catalog after the file's stem.
        return self.published_dir / "gpuledger.duckdb"

    @property
    def site_dir(self) -> Path:
        return self.home / "site"

    @property
    def report_path(self) -> Path:
        return self.site_dir / "report.html"

    @property
    def archive_dir(self) -> Path:
        return self.home / "archive"

    @property
    def dagster_home(self) -> Path:
        return self.home / "dagster_home"


def current() -> Paths:
    return Paths(Path(os.environ.get("GPULEDGER_HOME", REPO_ROOT / "warehouse")).resolve())


def prepare_environment(paths: Paths | None = None) -> Paths:
    """Create the folders, point Dagster and dbt at them, and switch telemetry off."""
    paths = paths or current()
    paths.home.mkdir(parents=True, exist_ok=True)
    paths.dagster_home.mkdir(parents=True, exist_ok=True)
    write_dagster_yaml(paths)
    os.environ["DAGSTER_HOME"] = str(paths.dagster_home)
    os.environ["GPULEDGER_DB_PATH"] = str(paths.db_path)
    os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "False")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    return paths


def dagster_yaml_text() -> str:
    """The dagster.yaml gpuledger keeps: telemetry off, and Dagster's run, event-log and schedule
    storage on PostgreSQL when GPULEDGER_DAGSTER_PG_URL is set (SQLite, Dagster's default,
    otherwise)."""
    text = DAGSTER_YAML_HEADER + "telemetry:\n  enabled: false\n"
    if os.environ.get(DAGSTER_PG_URL_VAR):
        text += f"storage:\n  postgres:\n    postgres_url:\n      env: {DAGSTER_PG_URL_VAR}\n"
    return text


def write_dagster_yaml(paths: Paths) -> Path:
    """Write dagster_home/dagster.yaml unless someone else wrote it (it lacks gpuledger's first
    line): a deployment may keep a dagster.yaml of its own (run coordinator, compute logs)."""
    dagster_yaml = paths.dagster_home / "dagster.yaml"
    current = dagster_yaml.read_text(encoding="utf-8") if dagster_yaml.exists() else None
    wanted = dagster_yaml_text()
    ours = current in (None, _EARLIER_DAGSTER_YAML) or current.startswith(DAGSTER_YAML_MARK)
    if ours and current != wanted:
        dagster_yaml.write_text(wanted, encoding="utf-8")
    return dagster_yaml
