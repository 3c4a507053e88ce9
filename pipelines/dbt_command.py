"""dbt's command line as gpuledger's runs call it (the `gpuledger-dbt` script, which
pipelines/defs/resources.py gives dagster-dbt as its dbt executable).

Every command is dbt's own (`dbt.cli.main.cli`, what the `dbt` script runs), with two
differences:

- `--version`: dagster-dbt asks `dbt --version` once a run to learn which dbt it drives, and dbt
  answers that question by also asking PyPI for the newest releases of dbt-core and its adapter
  (two requests with a 1 s timeout each: 2-3 s of every run on this machine, a request to the
  internet from every scheduled run, and a wait on a server that cannot reach it). Here the
  installed versions answer, as dbt prints them, read from the packages' metadata.
- dbt runs in the warehouse's folder and names the warehouse by its file name
  (`GPULEDGER_DB_PATH=gpuledger.duckdb`, the project given as `DBT_PROJECT_DIR`). dbt's parse
  state records the profile's connection, the warehouse's path among it, and a command whose
  profile differs parses the whole project again (4.1 s against 1.2 s for `dbt ls` on this
  machine). Named relative to its folder, the warehouse is the same to dbt in every home: a
  copied, moved or new home takes up the parse state it was given (a new one: the state `make
  manifest` wrote) instead of parsing whole. Only when dagster-dbt starts dbt as it does (in the
  project's folder, no `--project-dir`) and the warehouse's path is absolute; otherwise dbt runs
  as called.
"""

from __future__ import annotations

import os
import sys
from importlib.metadata import version
from pathlib import Path

DB_PATH_VAR = "GPULEDGER_DB_PATH"


def version_text() -> str:
    """The installed dbt-core and dbt-duckdb, in the layout of `dbt --version`."""
    return (
        f"Core:\n  - installed: {version('dbt-core')}\n\n"
        f"Plugins:\n  - duckdb: {version('dbt-duckdb')}"
    )


def run_in_warehouse_folder(args: list[str]) -> bool:
    """Move into the warehouse's folder and name the warehouse relative to it (see above);
    False, and nothing changed, when dbt was not started as dagster-dbt starts it."""
    db = os.environ.get(DB_PATH_VAR, "")
    project = Path.cwd()
    if (
        not os.path.isabs(db)
        or not (project / "dbt_project.yml").exists()
        or any(a == "--project-dir" or a.startswith("--project-dir=") for a in args)
    ):
        return False
    os.environ.setdefault("DBT_PROJECT_DIR", str(project))
    os.environ[DB_PATH_VAR] = os.path.basename(db)
    os.chdir(os.path.dirname(db))
    return True


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        print(version_text())
        sys.exit(0)
    run_in_warehouse_folder(sys.argv[1:])
    from dbt.cli.main import cli

    sys.exit(cli())


if __name__ == "__main__":
    main()
