"""gpuledger-dbt, the dbt executable the runs give dagster-dbt (pipelines/dbt_command.py): dbt's
own command line, with `--version` answered from the installed packages instead of PyPI, run in
the warehouse's folder."""

import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

from pipelines.dbt_command import DB_PATH_VAR, run_in_warehouse_folder
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


def test_dbt_runs_in_the_warehouse_s_folder_when_started_as_dagster_dbt_starts_it(
    tmp_path, monkeypatch
):
    # dagster-dbt starts dbt in the project's folder; the warehouse's path is absolute
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    (project / "dbt_project.yml").write_text("name: tiny\n")
    monkeypatch.chdir(project)
    monkeypatch.delenv("DBT_PROJECT_DIR", raising=False)
    monkeypatch.setenv(DB_PATH_VAR, str(home / "gpuledger.duckdb"))
    assert run_in_warehouse_folder(["ls", "--select", "state:modified+"])
    # the warehouse named relative to its folder, the project where dbt looks for it
    assert Path.cwd() == home
    assert os.environ[DB_PATH_VAR] == "gpuledger.duckdb"
    assert os.environ["DBT_PROJECT_DIR"] == str(project)


def test_dbt_runs_as_called_otherwise(tmp_path, monkeypatch):
    project = tmp_path / "project"
    project.mkdir()
    (project / "dbt_project.yml").write_text("name: tiny\n")
    monkeypatch.delenv("DBT_PROJECT_DIR", raising=False)
    monkeypatch.chdir(project)
    # a relative warehouse path (`make manifest`, sqlfluff's lint): nothing to move to
    monkeypatch.setenv(DB_PATH_VAR, "gpuledger.duckdb")
    assert not run_in_warehouse_folder(["parse"])
    # the project named on the command line: a relative one would be lost by moving
    monkeypatch.setenv(DB_PATH_VAR, str(tmp_path / "w.duckdb"))
    assert not run_in_warehouse_folder(["build", "--project-dir", "."])
    assert not run_in_warehouse_folder(["build", "--project-dir=."])
    # started outside a dbt project
    monkeypatch.chdir(tmp_path)
    assert not run_in_warehouse_folder(["build"])
    assert Path.cwd() == tmp_path
    assert os.environ[DB_PATH_VAR] == str(tmp_path / "w.duckdb")
    assert "DBT_PROJECT_DIR" not in os.environ
