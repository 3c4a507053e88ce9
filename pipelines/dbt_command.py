"""dbt's command line as gpuledger's runs call it (the `gpuledger-dbt` script, which
pipelines/defs/resources.py gives dagster-dbt as its dbt executable).

Every command is dbt's own (`dbt.cli.main.cli`, what the `dbt` script runs), except `--version`:
dagster-dbt asks `dbt --version` once a run to learn which dbt it drives, and dbt answers that
question by also asking PyPI for the newest releases of dbt-core and its adapter (two requests
with a 1 s timeout each: 2-3 s of every run on this machine, a request to the internet from
every scheduled run, and a wait on a server that cannot reach it). Here the installed versions
answer, as dbt prints them, read from the packages' metadata.
"""

from __future__ import annotations

import sys
from importlib.metadata import version


def version_text() -> str:
    """The installed dbt-core and dbt-duckdb, in the layout of `dbt --version`."""
    return (
        f"Core:\n  - installed: {version('dbt-core')}\n\n"
        f"Plugins:\n  - duckdb: {version('dbt-duckdb')}"
    )


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        print(version_text())
        sys.exit(0)
    from dbt.cli.main import cli

    sys.exit(cli())


if __name__ == "__main__":
    main()
