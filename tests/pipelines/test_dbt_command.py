"""gpuledger-dbt, the dbt executable the runs give dagster-dbt (pipelines/dbt_command.py): dbt's
own command line, with `--version` answered from the installed packages instead of PyPI."""

import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

from pipelines.defs.resources import dbt_resource

SCRIPT = Path(sys.executable).parent / "gpuledger-dbt"
# what dagster-dbt reads of `dbt --version`: the first version number printed
DAGSTER_DBT_VERSION = re.compile(r"(\d+\.\d+\.\d+)")
# a proxy nobody listens on: a request to the internet fails at once
OFFLINE = {**os.environ, "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"}


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, env=OFFLINE)


def test_the_runs_drive_dbt_through_gpuledger_dbt():
    assert dbt_resource().dbt_executable == str(SCRIPT)


def test_version_is_the_installed_dbt_core_and_adapter_without_asking_pypi():
    done = run("--version")
    assert done.returncode == 0, done.stderr
    assert DAGSTER_DBT_VERSION.search(done.stdout).group(1) == version("dbt-core")
    assert f"  - installed: {version('dbt-core')}" in done.stdout
    assert f"  - duckdb: {version('dbt-duckdb')}" in done.stdout
    # dbt's own answer says what PyPI said (here: that it could not be asked)
    assert "latest" not in done.stdout and "could not be determined" not in done.stdout


def test_every_other_command_is_dbts_own():
    done = run("--help")
    assert done.returncode == 0, done.stderr
    assert "An ELT tool for managing your SQL transformations" in done.stdout
    for command in ("build", "list", "parse", "run", "test"):
        assert re.search(rf"^\s+{command}\s", done.stdout, re.MULTILINE), command
    wrong = run("no-such-command")
    assert wrong.returncode == 2
    assert "No such command 'no-such-command'" in wrong.stderr
