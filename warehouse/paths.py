"""The one place that decides paths and environments.

Everything lives under GPULEDGER_HOME (default: the repository's `warehouse/` folder):

    gpuledger.duckdb   the working warehouse: only the refresh opens it (raw schema written by
                       Python, the rest built by dbt)
    published/         gpuledger.duckdb, the read-only copy analysts connect to, replaced
                       atomically after each successful run, and PUBLISHED.json describing it
    site/              report.html (the day's charts) and docs/index.html (dbt docs), static
    archive/           content-addressed snapshot archive, the source of truth
    dagster_home/      Dagster instance (run history, schedules); telemetry off
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DBT_PROJECT_DIR = REPO_ROOT / "dbt"
DEMO_ARCHIVE_DIR = Path(__file__).resolve().parent / "demo_archive"


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
    dagster_yaml = paths.dagster_home / "dagster.yaml"
    if not dagster_yaml.exists():
        dagster_yaml.write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    os.environ["DAGSTER_HOME"] = str(paths.dagster_home)
    os.environ["GPULEDGER_DB_PATH"] = str(paths.db_path)
    os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "False")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    return paths
