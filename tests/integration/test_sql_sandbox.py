"""`gpuledger sql` and `gpuledger shell` on the demo's published copy: DuckDB's external access off
and its configuration locked, so SQL reaches nothing outside the warehouse; each refused statement
named with its reason; the analysts' queries unchanged; `--allow-files` lets files in."""

from __future__ import annotations

import csv
import json

import pytest

from tests.conftest import SKYPILOT, copy_demo, gpuledger
from warehouse import analyst, sandbox
from warehouse.publish import MANIFEST_NAME

pytestmark = pytest.mark.integration

# A real capture (SkyPilot's Lambda catalog, tests/fixtures/README.md) as the local file to read.
CATALOG = SKYPILOT / "v7_lambda_vms@11580132.csv"


@pytest.fixture(scope="module")
def home(demo_build, tmp_path_factory):
    return copy_demo(demo_build, tmp_path_factory.mktemp("sandbox"))


def _refusal(home, sql: str, allow_files: bool = False) -> str:
    con = sandbox.connect(home, allow_files)
    try:
        with pytest.raises(analyst.QueryError) as raised:
            analyst.run_sql(con, sql)
        return str(raised.value)
    finally:
        con.close()


# (statement, the verb named, the reason given, a file it would have written or None)
REFUSED = [
    (f"select * from read_csv('{CATALOG}')", "SELECT", "reads a file or URL", None),
    ("select * from read_csv('/etc/hostname')", "SELECT", "reads a file or URL", None),
    (f"select count(*) from read_parquet('{CATALOG}')", "SELECT", "reads a file or URL", None),
    (f"select * from read_text('{CATALOG}')", "SELECT", "reads a file or URL", None),
    (f"select * from glob('{SKYPILOT}/*')", "SELECT", "reads a file or URL", None),
    (
        "copy (select * from analytics.gpus) to '{out}/gpus.csv'",
        "COPY",
        "writes a file",
        "gpus.csv",
    ),
    (f"copy raw.fx_rates from '{CATALOG}'", "COPY", "reads or writes a file", None),
    (f"select * from '{CATALOG}'", "SELECT", "reads a file or URL", None),
    ("select * from 'prices.parquet'", "SELECT", "reads a file or URL", None),
    ("select * from '/etc/hostname'", "SELECT", "reads a file by its path", None),
    ("export database '{out}/dump'", "EXPORT", "EXPORT DATABASE writes files", "dump"),
    (f"import database '{SKYPILOT}'", "IMPORT", "reads files", None),
    ("install httpfs", "INSTALL", "extension is switched off", None),
    ("load httpfs", "LOAD", "extension is switched off", None),
    ("attach '{out}/mine.duckdb' as mine", "ATTACH", "opens another database file", "mine.duckdb"),
    ("set enable_external_access = true", "SET", "settings are locked", None),
    ("reset enable_external_access", "RESET", "settings are locked", None),
    ("set lock_configuration = false", "SET", "settings are locked", None),
    ("set autoinstall_known_extensions = true", "SET", "settings are locked", None),
    ("pragma enable_external_access=true", "PRAGMA", "settings are locked", None),
]


@pytest.mark.parametrize(
    ("sql", "verb", "reason", "written"), REFUSED, ids=[r[0][:40] for r in REFUSED]
)
def test_each_statement_outside_the_warehouse_is_refused_with_its_reason(
    home, tmp_path, sql, verb, reason, written
):
    sql = sql.format(out=tmp_path)
    message = _refusal(home, sql)
    assert message.startswith(f"refused {verb} ("), message
    assert reason in message and "--allow-files" in message, message
    assert "DuckDB said:" in message  # DuckDB's own words follow, for whoever wants them
    assert not list(tmp_path.iterdir()), f"{sql} left {list(tmp_path.iterdir())}"


def test_the_refused_statement_is_named_among_several(home, tmp_path):
    message = _refusal(home, f"select 1; copy analytics.gpus to '{tmp_path}/g.csv'; select 2")
    assert message.startswith('refused COPY ("copy analytics.gpus to'), message
    assert not (tmp_path / "g.csv").exists()


def test_other_errors_stay_duckdbs_own(home):
    con = sandbox.connect(home)
    try:
        with pytest.raises(analyst.QueryError) as typo:
            analyst.run_sql(con, "select no_such_column from analytics.gpus")
        with pytest.raises(analyst.QueryError) as write:
            analyst.run_sql(con, "delete from raw.fx_rates")
    finally:
        con.close()
    assert "no_such_column" in str(typo.value) and "refused" not in str(typo.value)
    assert "read-only" in str(write.value) and "--allow-files" not in str(write.value)


def test_the_sql_command_refuses_without_a_traceback(home, tmp_path):
    done = gpuledger(home, "sql", "select * from read_csv('/etc/hostname')")
    assert done.returncode == 1 and not done.stdout
    assert done.stderr.startswith("gpuledger sql: refused SELECT ("), done.stderr
    assert "--allow-files" in done.stderr and "Traceback" not in done.stderr

    wrote = gpuledger(home, "sql", f"copy (select 1 as x) to '{tmp_path}/x.csv'")
    assert wrote.returncode == 1 and "refused COPY" in wrote.stderr
    assert not (tmp_path / "x.csv").exists()


def test_the_shell_refuses_and_goes_on(home, tmp_path):
    script = (
        f"select count(*) from read_csv('{CATALOG}');\n"
        "install httpfs;\n"
        "set enable_external_access = true;\n"
        "select count(*) as n from analytics.gpus;\n"
    )
    done = gpuledger(home, "shell", stdin=script)
    assert "no file access (--allow-files)" in done.stdout.splitlines()[0]
    assert done.stdout.count("error: refused") == 3, done.stdout
    for verb in ("SELECT", "INSTALL", "SET"):
        assert f"error: refused {verb} (" in done.stdout
    published = json.loads((home.published_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert f"\n{published['views']['gpus']}\n" in done.stdout  # the query after them answered
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr


def test_every_documented_query_and_view_answers_in_the_sandbox(home):
    """Nothing in the analytics views or their macros reads a file: the README's queries and a
    full read of every view give what the publication recorded."""
    published = json.loads((home.published_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
    con = sandbox.connect(home)
    try:
        assert con.execute("select current_setting('enable_external_access')").fetchone() == (
            False,
        )
        for view, sql in analyst.documented_queries():
            assert con.execute(sql).fetchall(), f"the README's example on {view} returns no rows"
        views = analyst.analytics_views(con)
        counts = {
            v: con.execute(f'select count(*) from analytics."{v}"').fetchone()[0] for v in views
        }
    finally:
        con.close()
    assert counts == published["views"]


def test_allow_files_reads_and_writes_local_files(home, tmp_path):
    with CATALOG.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    h100 = sorted(
        {float(r["Price"]) for r in rows if r["AcceleratorName"] == "H100" and r["Price"]}
    )
    done = gpuledger(
        home,
        "sql",
        f"select count(*) as n, min(Price) filter (where AcceleratorName = 'H100') as h100 "
        f"from read_csv('{CATALOG}')",
        "--format",
        "json",
        "--allow-files",
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [{"n": len(rows), "h100": h100[0]}]

    out = tmp_path / "gpus.csv"
    wrote = gpuledger(
        home, "sql", f"copy (select gpu_id from analytics.gpus) to '{out}'", "--allow-files"
    )
    assert wrote.returncode == 0, wrote.stderr
    published = json.loads((home.published_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert len(out.read_text(encoding="utf-8").splitlines()) == published["views"]["gpus"] + 1

    # the warehouse stays read-only and the settings locked
    assert "read-only" in _refusal(home, "delete from raw.fx_rates", allow_files=True)
    locked = _refusal(home, "set enable_external_access = false", allow_files=True)
    assert "settings are locked" in locked and "--allow-files" not in locked
