"""Publishing by updating the spare copy (warehouse/spare_sync.py): which tables and groups of rows
it replaces, when it declines and copies the whole file instead, and that the result equals the
working file. The warehouses here are constructed fixtures: a per-day mart, a raw table keyed by
snapshot, a small table."""

from __future__ import annotations

import errno
import os
import stat
from datetime import date
from pathlib import Path

import duckdb
import pytest

from warehouse import publish, spare_sync
from warehouse.paths import Paths

DAY = date(2026, 8, 22)


def tables_of(path: Path) -> dict[str, list[tuple]]:
    """Every table's rows, sorted: what a reader of that file can see."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        names = con.execute(
            "select schema_name, table_name from duckdb_tables() order by all"
        ).fetchall()
        return {
            f"{s}.{t}": sorted(con.execute(f'select * from "{s}"."{t}"').fetchall(), key=repr)
            for s, t in names
        }
    finally:
        con.close()


def daily_db(
    paths: Paths,
    days: dict[str, float],
    snapshots: list[tuple[str, int]],
    built: tuple[str, str] | None = None,
) -> None:
    """A warehouse with a per-day mart, a raw table keyed by snapshot and a small table; `built`:
    the window of days this build of the mart wrote, logged as the pipeline logs it."""
    paths.home.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(paths.db_path))
    try:
        con.execute("create schema if not exists marts")
        con.execute("create schema if not exists raw")
        con.execute("create schema if not exists analytics")
        con.execute("create table if not exists marts.daily (day date, gpu varchar, usd double)")
        con.execute(
            "create table if not exists raw.rows (source varchar, snapshot varchar, "
            "row_index integer, price double, primary key (source, snapshot, row_index))"
        )
        con.execute("create schema if not exists ops")
        con.execute(
            "create table if not exists ops.daily_mart_log (build_id uuid primary key default "
            "gen_random_uuid(), window_start date not null, window_end date not null, "
            "rebuilt varchar[] not null, logged_at timestamptz not null default now())"
        )
        if built:
            con.execute(
                "insert into ops.daily_mart_log (window_start, window_end, rebuilt) "
                "values (?, ?, [])",
                list(built),
            )
        con.execute("create or replace table marts.small as select count(*) n from marts.daily")
        con.execute("delete from marts.daily")
        for day, usd in days.items():
            con.execute("insert into marts.daily values (?, 'h100', ?), (?, 'a100', ?)",
                        [day, usd, day, usd / 2])  # fmt: skip
        for snapshot, n in snapshots:
            con.execute(
                "insert or ignore into raw.rows select 'sky', ?, i, i * 1.5 from range(?) t(i)",
                [snapshot, n],
            )
        con.execute("create or replace table marts.small as select count(*) n from marts.daily")
        con.execute("create or replace view analytics.daily as select * from marts.daily")
    finally:
        con.close()


@pytest.fixture
def update_small_files(monkeypatch):
    """These warehouses are small: below SYNC_MIN_BYTES the whole file would be copied."""
    monkeypatch.setattr(publish, "SYNC_MIN_BYTES", 0)


def test_a_small_warehouse_is_copied_whole(tmp_path):
    paths = Paths(tmp_path)
    daily_db(paths, {"2026-08-20": 2.0}, [("s1", 3)], built=("2026-08-20", "2026-08-20"))
    for run in ("run-1", "run-2", "run-3"):
        done = publish.publish(paths, DAY, run)
    assert paths.db_path.stat().st_size < publish.SYNC_MIN_BYTES
    assert done.method == "copy" and done.why == "a whole copy is cheaper below 1024 MB"
    assert tables_of(paths.published_db_path) == tables_of(paths.db_path)


def test_a_day_s_publication_updates_the_spare_copy_instead_of_copying_the_file(
    tmp_path, update_small_files
):
    """The third publication finds the first one's file as its spare and brings it up to date:
    only the groups that changed (the new day, the new snapshot) are written, and the result
    holds exactly the working file's rows in every table."""
    paths = Paths(tmp_path)
    days = {"2026-08-20": 2.0, "2026-08-21": 2.1}
    daily_db(paths, days, [("s1", 3)], built=("2026-08-20", "2026-08-21"))
    first = publish.publish(paths, DAY, "run-1")
    assert first.method == "copy" and first.why == "no spare copy yet"
    days["2026-08-22"] = 2.2
    daily_db(paths, days, [("s1", 3), ("s2", 4)], built=("2026-08-22", "2026-08-22"))
    second = publish.publish(paths, DAY, "run-2")
    assert second.method == "copy" and second.why == "no spare copy yet"
    spare = paths.published_dir / publish.SPARE_NAME
    assert spare.exists() and not os.path.samefile(spare, paths.published_db_path)
    days["2026-08-21"] = 1.9  # a day rebuilt (a backfill over 21..23), and a new one
    days["2026-08-23"] = 2.3
    daily_db(paths, days, [("s1", 3), ("s2", 4), ("s3", 2)], built=("2026-08-21", "2026-08-23"))
    third = publish.publish(paths, DAY, "run-3")
    assert third.method == "sync" and third.why == ""
    assert list(third.phases) == ["checkpoint", "sync", "check", "flush", "rename"]
    # the spare was run-1's file: the days built since (22; 21..23), the snapshots s2 and s3,
    # the small table whole, and the log's two new rows (a table keyed by one column: whole)
    assert third.synced == {
        "marts.daily": 3, "marts.small": 1, "raw.rows": 2, "ops.daily_mart_log": 1
    }  # fmt: skip
    assert tables_of(paths.published_db_path) == tables_of(paths.db_path)
    assert third.views == {"daily": 8}
    assert not stat.S_IMODE(paths.published_db_path.stat().st_mode) & 0o222
    assert publish.publication(paths)["method"] == "sync"
    # and again: the spare is now run-2's file
    days.pop("2026-08-20")  # a day whose rows are all gone (row counts differ: found unlogged)
    daily_db(paths, days, [("s1", 3), ("s2", 4), ("s3", 2)])
    fourth = publish.publish(paths, DAY, "run-4")
    assert fourth.method == "sync"
    assert tables_of(paths.published_db_path) == tables_of(paths.db_path)
    # views changed, added and dropped are re-created in the spare as the working file has them
    con = duckdb.connect(str(paths.db_path))
    con.execute("create or replace view analytics.daily as select day, usd from marts.daily")
    con.execute("create view analytics.latest as select max(day) as day from analytics.daily")
    con.close()
    fifth = publish.publish(paths, DAY, "run-5")
    assert fifth.method == "sync" and fifth.views == {"daily": 6, "latest": 1}
    con = duckdb.connect(str(paths.db_path))
    con.execute("drop view analytics.latest")
    con.close()
    sixth = publish.publish(paths, DAY, "run-6")
    assert sixth.method == "sync" and sixth.views == {"daily": 6}
    con = duckdb.connect(str(paths.published_db_path), read_only=True)
    try:
        views = con.execute("select view_name from duckdb_views() where not internal").fetchall()
        columns = [d[0] for d in con.execute("select * from analytics.daily").description]
    finally:
        con.close()
    assert views == [("daily",)] and columns == ["day", "usd"]
    assert list(paths.published_dir.glob(".*.tmp")) == []


@pytest.mark.parametrize(
    ("stray", "table"),
    [
        # a row too many in a day the update does not write: the table's rows count differently
        ("insert into gpuledger_spare.marts.daily values ('2026-08-20', 'l4', 0.5)", "marts.daily"),
        # a value changed in a snapshot the update does not write: the rows count the same, the
        # sum of their hashes (a table this small is checked whole) does not
        ("update gpuledger_spare.raw.rows set price = 7 where snapshot = 's1'", "raw.rows"),
    ],
)
def test_a_spare_left_different_by_its_update_is_not_published(
    tmp_path, update_small_files, monkeypatch, stray, table
):
    """After the update, every table written is checked on both sides (row count, and the count
    and hash of the rows written): a spare that differs is not published, the whole file is."""
    paths = Paths(tmp_path)
    days = {"2026-08-20": 2.0, "2026-08-21": 2.1}
    daily_db(paths, days, [("s1", 3)], built=("2026-08-20", "2026-08-21"))
    publish.publish(paths, DAY, "run-1")
    days["2026-08-22"] = 2.2
    daily_db(paths, days, [("s1", 3), ("s2", 4)], built=("2026-08-22", "2026-08-22"))
    publish.publish(paths, DAY, "run-2")
    days["2026-08-23"] = 2.3
    daily_db(paths, days, [("s1", 3), ("s2", 4), ("s3", 2)], built=("2026-08-23", "2026-08-23"))
    sync_views = spare_sync.sync_views

    def spoiled(con, *args):  # in the update's transaction, before it writes the tables
        sync_views(con, *args)
        con.execute(stray)

    monkeypatch.setattr(spare_sync, "sync_views", spoiled)
    done = publish.publish(paths, DAY, "run-3")
    assert done.method == "copy" and done.synced == {}
    schema, name = table.split(".")
    assert done.why.startswith(f'"{schema}"."{name}" differs after the update')
    assert tables_of(paths.published_db_path) == tables_of(paths.db_path)


def test_a_spare_a_reader_may_hold_or_defined_differently_is_not_updated(
    tmp_path, update_small_files
):
    paths = Paths(tmp_path)
    daily_db(paths, {"2026-08-20": 2.0}, [("s1", 3)])
    publish.publish(paths, DAY, "run-1")
    reader = publish.connect(paths)  # this process reads run-1's copy, the next spare
    try:
        publish.publish(paths, DAY, "run-2")
        daily_db(paths, {"2026-08-20": 2.0, "2026-08-21": 3.0}, [("s1", 3)])
        done = publish.publish(paths, DAY, "run-3")
        assert done.method == "copy" and done.why == "this process still has the spare open"
        assert reader.execute("select count(*) from analytics.daily").fetchone()[0] == 2
    finally:
        reader.close()
    # a changed definition (a new column) is not patched in: the whole file is copied
    con = duckdb.connect(str(paths.db_path))
    con.execute("alter table marts.daily add column region varchar")
    con.close()
    done = publish.publish(paths, DAY, "run-4")
    assert done.method == "copy"
    assert done.why == "the spare's tables or macros are not defined as the warehouse's"
    assert tables_of(paths.published_db_path) == tables_of(paths.db_path)


def test_a_spare_another_process_reads_is_not_updated(tmp_path, update_small_files):
    import subprocess
    import sys

    paths = Paths(tmp_path)
    daily_db(paths, {"2026-08-20": 2.0}, [("s1", 3)])
    publish.publish(paths, DAY, "run-1")
    publish.publish(paths, DAY, "run-2")
    spare = paths.published_dir / publish.SPARE_NAME
    hold = (
        "import duckdb, sys, time; c = duckdb.connect(sys.argv[1], read_only=True); "
        "print('open', flush=True); time.sleep(30)"
    )
    reader = subprocess.Popen([sys.executable, "-c", hold, str(spare)], stdout=subprocess.PIPE)
    try:
        assert reader.stdout.readline().strip() == b"open"
        daily_db(paths, {"2026-08-20": 2.0, "2026-08-21": 3.0}, [("s1", 3)])
        done = publish.publish(paths, DAY, "run-3")
    finally:
        reader.kill()
        reader.wait()
    assert done.method == "copy"
    assert done.why.startswith("the spare copy could not be updated: IO Error: Could not set lock")
    assert tables_of(paths.published_db_path) == tables_of(paths.db_path)


def test_without_a_log_of_builds_every_day_is_compared_by_its_rows(tmp_path, update_small_files):
    """A warehouse whose marts keep no log of their builds: a day whose prices changed but not
    its row count is still found (by the sum of its rows' hashes) and written."""
    paths = Paths(tmp_path)
    days = {"2026-08-20": 2.0, "2026-08-21": 2.1}
    daily_db(paths, days, [("s1", 3)])
    con = duckdb.connect(str(paths.db_path))
    con.execute("drop table ops.daily_mart_log")
    con.close()
    publish.publish(paths, DAY, "run-1")
    publish.publish(paths, DAY, "run-2")
    days["2026-08-20"] = 1.8  # same rows, another price
    daily_db(paths, days, [("s1", 3)])
    con = duckdb.connect(str(paths.db_path))
    con.execute("drop table ops.daily_mart_log")
    con.close()
    done = publish.publish(paths, DAY, "run-3")
    assert done.method == "sync" and done.synced == {"marts.daily": 1}
    assert tables_of(paths.published_db_path) == tables_of(paths.db_path)


def test_a_log_of_builds_that_lost_the_spare_s_builds_means_a_whole_copy(
    tmp_path, update_small_files
):
    """The working file's log no longer holds builds the spare's log holds (the log was dropped
    and made anew): which days were written since cannot be told, so the whole file is copied."""
    paths = Paths(tmp_path)
    days = {"2026-08-20": 2.0}
    daily_db(paths, days, [("s1", 3)], built=("2026-08-20", "2026-08-20"))
    publish.publish(paths, DAY, "run-1")
    publish.publish(paths, DAY, "run-2")
    con = duckdb.connect(str(paths.db_path))
    con.execute("delete from ops.daily_mart_log")
    con.close()
    days["2026-08-21"] = 2.1
    daily_db(paths, days, [("s1", 3)], built=("2026-08-21", "2026-08-21"))
    done = publish.publish(paths, DAY, "run-3")
    assert done.method == "copy"
    assert done.why == "the warehouse's log of builds is behind the spare's"
    assert tables_of(paths.published_db_path) == tables_of(paths.db_path)


def rebuilt_whole(paths: Paths) -> None:
    """Log a build of the per-day mart over every day, as a backfill's build logs it."""
    con = duckdb.connect(str(paths.db_path))
    con.execute(
        "insert into ops.daily_mart_log (window_start, window_end, rebuilt) "
        "values (date '1900-01-01', ?, ['daily'])",
        [DAY],
    )
    con.close()


@pytest.mark.parametrize("spare_now", [False, True])
def test_a_backfill_s_publication_leaves_a_spare_the_next_day_can_update(
    tmp_path, update_small_files, spare_now
):
    """After a backfill rebuilt the marts whole, the copy published before it is no use as a
    spare: the next day copied the whole file again. A backfill's publication (spare_now)
    makes the spare from what it published, and the next day updates it."""
    paths = Paths(tmp_path)
    days = {"2026-08-20": 2.0, "2026-08-21": 2.1}
    daily_db(paths, days, [("s1", 3)], built=("2026-08-20", "2026-08-21"))
    publish.publish(paths, DAY, "day-before")
    publish.publish(paths, DAY, "day-before-2")  # a spare from an earlier publication
    days["2026-08-20"] = 1.8  # the backfill rewrote history
    daily_db(paths, days, [("s1", 3)])
    rebuilt_whole(paths)
    backfill = publish.publish(paths, DAY, "backfill", spare_now=spare_now)
    assert backfill.method == "copy"
    assert backfill.why == "per-day marts were rebuilt whole since the spare was made"
    spare = paths.published_dir / publish.SPARE_NAME
    if spare_now:
        assert list(backfill.phases)[-1] == "spare"
        assert not os.path.samefile(spare, paths.published_db_path)
        assert tables_of(spare) == tables_of(paths.published_db_path)
    else:
        assert "spare" not in backfill.phases
    days["2026-08-22"] = 2.2
    daily_db(paths, days, [("s1", 3), ("s2", 2)], built=("2026-08-22", "2026-08-22"))
    next_day = publish.publish(paths, DAY, "next-day")
    if spare_now:
        assert next_day.method == "sync" and next_day.why == ""
        assert next_day.synced == {
            "marts.daily": 1, "marts.small": 1, "raw.rows": 1, "ops.daily_mart_log": 1
        }  # fmt: skip
    else:
        assert next_day.method == "copy"
        assert next_day.why == "per-day marts were rebuilt whole since the spare was made"
    assert tables_of(paths.published_db_path) == tables_of(paths.db_path)
    assert list(paths.published_dir.glob(".*.tmp")) == []


def test_no_spare_is_made_where_every_publication_copies_the_whole_file(tmp_path):
    paths = Paths(tmp_path)
    daily_db(paths, {"2026-08-20": 2.0}, [("s1", 3)], built=("2026-08-20", "2026-08-20"))
    # below SYNC_MIN_BYTES every publication copies the whole file: a spare would not be used
    small = publish.publish(paths, DAY, "backfill", spare_now=True)
    assert small.method == "copy" and "spare" not in small.phases
    assert not (paths.published_dir / publish.SPARE_NAME).exists()


def test_a_spare_that_cannot_be_made_leaves_the_publication_and_no_debris(
    tmp_path, update_small_files, monkeypatch
):
    paths = Paths(tmp_path)
    daily_db(paths, {"2026-08-20": 2.0}, [("s1", 3)], built=("2026-08-20", "2026-08-20"))
    publish.publish(paths, DAY, "first")
    copy = publish._copy

    def disk_full_for_the_spare(src, dst):
        if dst.name.startswith(publish.SPARE_NAME):
            dst.write_bytes(b"partial")
            raise OSError(errno.ENOSPC, "No space left on device")
        copy(src, dst)

    monkeypatch.setattr(publish, "_copy", disk_full_for_the_spare)
    rebuilt_whole(paths)
    done = publish.publish(paths, DAY, "backfill", spare_now=True)
    assert done.method == "copy" and read_views(paths) == {"daily": 2}
    assert not (paths.published_dir / publish.SPARE_NAME).exists()
    assert list(paths.published_dir.glob(".gpuledger.spare*")) == []
    monkeypatch.setattr(publish, "_copy", copy)
    # the next publication copies the whole file, as without a spare
    after = publish.publish(paths, DAY, "next-day")
    assert after.method == "copy" and after.why == "no spare copy yet"
    assert tables_of(paths.published_db_path) == tables_of(paths.db_path)


def read_views(paths: Paths) -> dict[str, int]:
    return publish.check(paths.published_db_path)


def test_a_large_keyed_table_outside_raw_is_compared_by_its_rows(
    tmp_path, update_small_files, monkeypatch
):
    """Only raw's rows are written once: a large table of another schema with a composite
    primary key (a mart's contract) whose values change while its groups keep their row counts
    is still found, by the sum of its rows' hashes, and written."""
    monkeypatch.setattr(spare_sync, "HASHED_ROWS", 1)  # the tables below count as large
    paths = Paths(tmp_path)

    def rates(usd: float) -> None:
        daily_db(paths, {"2026-08-20": 2.0}, [("s1", 3)], built=("2026-08-20", "2026-08-20"))
        con = duckdb.connect(str(paths.db_path))
        con.execute("create schema if not exists intermediate")
        con.execute(
            "create or replace table intermediate.fx (rate_date date, currency varchar, "
            "usd_per_unit double not null check (usd_per_unit > 0), "
            "primary key (rate_date, currency))"
        )
        con.execute(
            "insert into intermediate.fx values ('2026-08-20', 'EUR', ?), ('2026-08-20', 'GBP', ?)",
            [usd, usd + 0.1],
        )
        con.close()

    rates(1.10)
    publish.publish(paths, DAY, "run-1")
    publish.publish(paths, DAY, "run-2")
    rates(1.12)  # the same keys and counts, another rate
    done = publish.publish(paths, DAY, "run-3")
    assert done.method == "sync"
    assert done.synced.get("intermediate.fx") == 1  # the day's group, found by its hashes
    assert tables_of(paths.published_db_path) == tables_of(paths.db_path)


def test_raw_tables_are_compared_by_snapshot_not_by_page(tmp_path):
    """raw's tables are updated in the spare by snapshot: a day's new snapshot of a page is
    written alone, not with every earlier snapshot of that page (raw.page_snapshots, one row per
    snapshot, has the snapshot's key for its primary key)."""
    from warehouse import db

    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    try:
        db.ensure_raw_schema(con)
        keys = spare_sync.group_keys(con, "w")
    finally:
        con.close()
    snapshot = ["source", "snapshot_url", "snapshot_fetched_at"]
    assert keys[("raw", "page_snapshots")] == ["source", "url", "fetched_at"]
    assert keys[("raw", "price_observations")] == snapshot
    assert keys[("raw", "benchmark_runs")] == snapshot
    assert keys[("raw", "snapshot_validations")] == snapshot  # its key ends with the suite
    assert keys[("raw", "quarantine")] == snapshot  # and this one's with the item
    assert keys[("raw", "source_runs")] == ["run_id", "source"]  # not a snapshot's: one run's
