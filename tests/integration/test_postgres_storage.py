"""Dagster's run, event-log and schedule storage on PostgreSQL, as a shared deployment runs it
(docs/deployment.md): a real server started here on 127.0.0.1 from Debian's `postgresql` package
(`make test` installs it as root), a day's refresh and a 7-day backfill of the demo archive with
GPULEDGER_DAGSTER_PG_URL set (each into a new database of its own), and the partitions' status
read back from that server; and a URL that cannot be used fails with an error naming the
setting."""

from __future__ import annotations

import glob
import io
import itertools
import os
import pwd
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import dagster as dg
import psycopg2
import pytest
from dagster_postgres import PostgresEventLogStorage, PostgresRunStorage, PostgresScheduleStorage

from pipelines.backfill import backfill
from pipelines.defs.partitions import DAILY
from pipelines.refresh import run_refresh
from tests.conftest import DEMO_DAY, free_port
from warehouse.paths import DAGSTER_PG_URL_VAR, DagsterStorageError, Paths

pytestmark = [pytest.mark.integration, pytest.mark.slow]

USER, PASSWORD, DATABASE = "gpuledger", "ledger-pw-7Q", "gpuledger_dagster"
DAY = DEMO_DAY + timedelta(days=1)  # 2026-08-23: the day's refresh
WEEK = [DEMO_DAY - timedelta(days=n) for n in range(7, 0, -1)]  # 2026-08-15 .. 2026-08-21
# the per-day mart that stores each day's options with their ranks (fct_gpu_rankings_daily, the
# rankings, is a view of its ranked rows)
RANKINGS = dg.AssetKey(["marts", "fct_workload_cost_inputs_daily"])
_DATABASES = itertools.count(1)


def server_bin_dir() -> Path:
    """The newest PostgreSQL server's bin folder (Debian: /usr/lib/postgresql/<major>/bin), or
    skip (fail under CI, where `make test` has installed it)."""
    found = sorted(
        (Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/initdb")),
        key=lambda d: int(d.parent.name) if d.parent.name.isdigit() else 0,
    )
    if found:
        return found[-1]
    if initdb := shutil.which("initdb"):
        return Path(initdb).parent
    if os.environ.get("CI"):
        pytest.fail(
            "no PostgreSQL server (initdb, pg_ctl): `make test` installs Debian's postgresql"
        )
    pytest.skip(
        "no PostgreSQL server binaries (initdb, pg_ctl under /usr/lib/postgresql/*/bin): "
        "`make test` installs Debian's postgresql package when run as root"
    )


def _run(args: list[str]) -> None:
    done = subprocess.run(
        args, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=90
    )
    assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module")
def postgres_port() -> Iterator[int]:
    """A PostgreSQL server of its own on 127.0.0.1 (password authentication), stopped and
    removed after the module. The server refuses to run as root: as root
    it runs as the `postgres` user Debian's package creates (or `nobody`)."""
    bin_dir = server_bin_dir()
    base = Path(tempfile.mkdtemp(prefix="gpuledger-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        owner = "postgres" if _user_exists("postgres") else "nobody"
        as_user = ["runuser", "-u", owner, "--"]
        os.chown(base, pwd.getpwnam(owner).pw_uid, pwd.getpwnam(owner).pw_gid)
    data, password_file = base / "data", base / "password"
    password_file.write_text(PASSWORD, encoding="utf-8")
    if as_user:
        os.chown(password_file, pwd.getpwnam(as_user[2]).pw_uid, -1)
    _run([*as_user, str(bin_dir / "initdb"), "-D", str(data), "-U", USER, "--pwfile",
          str(password_file), "--auth", "scram-sha-256", "-E", "UTF8", "--no-sync"])  # fmt: skip
    port = free_port()
    pg_ctl = [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data)]
    # fsync off: a test server, thrown away after the module
    _run([*pg_ctl, "-l", str(base / "server.log"), "-w", "-t", "60", "-o",
          f"-h 127.0.0.1 -p {port} -k {base} -c fsync=off", "start"])  # fmt: skip
    try:
        yield port
    finally:
        subprocess.run([*pg_ctl, "-m", "fast", "stop"], capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_port) -> str:
    """A new, empty database on the module's server for one test's Dagster storage."""
    database = f"{DATABASE}_{next(_DATABASES)}"
    con = _connect(postgres_port, "postgres")
    con.autocommit = True  # create database runs outside a transaction
    try:
        con.cursor().execute(f"create database {database}")
    finally:
        con.close()
    return f"postgresql+psycopg2://{USER}:{PASSWORD}@127.0.0.1:{postgres_port}/{database}"


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _connect(port: int, database: str):
    return psycopg2.connect(
        host="127.0.0.1", port=port, user=USER, password=PASSWORD, dbname=database
    )


def _port_and_database(url: str) -> tuple[int, str]:
    found = re.search(r"@127\.0\.0\.1:(\d+)/(\w+)$", url)
    return int(found[1]), found[2]


def _sqlite_runs(paths: Paths) -> int:
    """Runs in the SQLite run storage Dagster keeps in dagster_home/ by default."""
    con = sqlite3.connect(paths.dagster_home / "history" / "runs.db")
    try:
        return con.execute("select count(*) from runs").fetchone()[0]
    finally:
        con.close()


def _on_postgres(paths: Paths) -> dg.DagsterInstance:
    instance = dg.DagsterInstance.from_config(str(paths.dagster_home))
    assert isinstance(instance.run_storage, PostgresRunStorage)
    assert isinstance(instance.event_log_storage, PostgresEventLogStorage)
    assert isinstance(instance.schedule_storage, PostgresScheduleStorage)
    return instance


def _status(instance: dg.DagsterInstance, days: list[date]) -> dict[str, str | None]:
    got = instance.get_status_by_partition(RANKINGS, [d.isoformat() for d in days], DAILY)
    return {k: (v.value if v else None) for k, v in got.items()}


def _in_postgres(url: str) -> tuple[list[tuple], tuple[int, int]]:
    """From PostgreSQL's own tables: runs by status; the rankings' materialized partitions and
    the runs that materialized them."""
    port, database = _port_and_database(url)
    con = _connect(port, database)
    try:
        with con.cursor() as cur:
            cur.execute("select status, count(*) from runs group by status")
            runs = cur.fetchall()
            cur.execute(
                "select count(distinct partition), count(distinct run_id) from event_logs "
                "where dagster_event_type = 'ASSET_MATERIALIZATION' and asset_key = %s",
                [RANKINGS.to_string()],
            )
            return runs, cur.fetchone()
    finally:
        con.close()


def test_a_days_refresh_is_recorded_in_postgres(demo_copy, postgres_url, monkeypatch):
    assert _sqlite_runs(demo_copy) == 1  # the demo build's refresh, on the default storage
    monkeypatch.setenv(DAGSTER_PG_URL_VAR, postgres_url)
    out = io.StringIO()
    day = run_refresh(DAY, offline=True, paths=demo_copy, out=out,
                      extra_config={"deliver_alerts": False})  # fmt: skip
    assert day.success, out.getvalue()

    yaml = (demo_copy.dagster_home / "dagster.yaml").read_text(encoding="utf-8")
    assert f"postgres_url:\n      env: {DAGSTER_PG_URL_VAR}" in yaml and PASSWORD not in yaml
    with _on_postgres(demo_copy) as instance:
        [record] = instance.get_run_records()
        assert record.dagster_run.run_id == day.run_id
        assert record.dagster_run.status == dg.DagsterRunStatus.SUCCESS
        assert record.dagster_run.tags["dagster/partition"] == "2026-08-23"
        assert instance.get_materialized_partitions(RANKINGS) == {"2026-08-23"}
        # 08-22 was built too, by the demo build, in its SQLite storage: not here
        assert _status(instance, [DEMO_DAY, DAY]) == {
            "2026-08-22": None,
            "2026-08-23": "MATERIALIZED",
        }
    assert _in_postgres(postgres_url) == ([("SUCCESS", 1)], (1, 1))
    assert _sqlite_runs(demo_copy) == 1  # nothing went to the SQLite files


def test_a_weeks_backfill_is_recorded_in_postgres(demo_copy, postgres_url, monkeypatch):
    monkeypatch.setenv(DAGSTER_PG_URL_VAR, postgres_url)
    out = io.StringIO()
    week, _ = backfill(WEEK[0], WEEK[-1], paths=demo_copy, out=out, deliver=False)
    assert week.success, out.getvalue()

    week_keys = {f"2026-08-{n}" for n in range(15, 22)}
    with _on_postgres(demo_copy) as instance:
        [record] = instance.get_run_records()  # one run for the range (single-run policy)
        assert record.dagster_run.run_id == week.run_id
        assert record.dagster_run.status == dg.DagsterRunStatus.SUCCESS
        assert record.dagster_run.tags["dagster/asset_partition_range_start"] == "2026-08-15"
        assert record.dagster_run.tags["dagster/asset_partition_range_end"] == "2026-08-21"
        assert instance.get_materialized_partitions(RANKINGS) == week_keys
        days = [WEEK[0] - timedelta(days=1), *WEEK, DEMO_DAY]  # 2026-08-14 .. 2026-08-22
        assert _status(instance, days) == {
            "2026-08-14": None,
            **dict.fromkeys(sorted(week_keys), "MATERIALIZED"),
            "2026-08-22": None,
        }
    assert _in_postgres(postgres_url) == ([("SUCCESS", 1)], (7, 1))
    assert _sqlite_runs(demo_copy) == 1


def test_a_wrong_password_names_the_setting_and_hides_the_password(
    postgres_url, tmp_path, monkeypatch
):
    wrong = postgres_url.replace(f":{PASSWORD}@", ":not-the-password@")
    monkeypatch.setenv(DAGSTER_PG_URL_VAR, wrong)
    with pytest.raises(DagsterStorageError) as caught:
        run_refresh(DEMO_DAY, offline=True, paths=Paths(tmp_path / "home"), out=io.StringIO())
    message = str(caught.value)
    port, database = _port_and_database(wrong)
    assert (
        f"{DAGSTER_PG_URL_VAR}=postgresql+psycopg2://{USER}:***@127.0.0.1:{port}/{database}):"
        in message
    )
    assert f'password authentication failed for user "{USER}"' in message
    assert "not-the-password" not in message
    assert not (tmp_path / "home" / "gpuledger.duckdb").exists()  # nothing ran


def test_no_server_at_the_url_fails_the_command_with_the_setting_named(tmp_path):
    """Needs no server: nothing listens on the port. The command stops before any step."""
    port = free_port()
    url = f"postgresql+psycopg2://{USER}:s3cret@127.0.0.1:{port}/{DATABASE}"
    done = subprocess.run(
        [sys.executable, "-m", "pipelines.cli", "refresh", "--offline", "--as-of", "2026-08-22"],
        env={**os.environ, "GPULEDGER_HOME": str(tmp_path), DAGSTER_PG_URL_VAR: url},
        capture_output=True, text=True, timeout=110,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        f"gpuledger: Dagster's storage on PostgreSQL cannot be opened ({DAGSTER_PG_URL_VAR}="
        f"postgresql+psycopg2://{USER}:***@127.0.0.1:{port}/{DATABASE}): connection to server "
        f'at "127.0.0.1", port {port} failed: Connection refused'
    )
    assert "s3cret" not in done.stderr + done.stdout
    assert not (tmp_path / "gpuledger.duckdb").exists()
    assert not (tmp_path / "dagster_home" / "history").exists()  # no SQLite storage instead


def test_a_plain_postgresql_url_says_which_driver_to_name(tmp_path, monkeypatch):
    """SQLAlchemy reads postgresql:// as psycopg 3; dagster-postgres brings psycopg2."""
    monkeypatch.setenv(DAGSTER_PG_URL_VAR, f"postgresql://{USER}@127.0.0.1:{free_port()}/x")
    with pytest.raises(DagsterStorageError, match=r"write the URL as postgresql\+psycopg2://"):
        run_refresh(DEMO_DAY, offline=True, paths=Paths(tmp_path / "home"), out=io.StringIO())
