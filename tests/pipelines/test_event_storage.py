"""The batched event storage records exactly what Dagster's own SQLite storage records: the same
events, the same partition status (materialized and failed days), readable by the plain storage."""

import sqlite3
import threading
import time
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.event_api import EventLogRecord
from dagster._core.instance.ref import InstanceRef
from dagster_shared.serdes import deserialize_value

from pipelines import event_storage

DAYS = dg.DailyPartitionsDefinition(start_date="2026-08-01", end_offset=0)


@dg.asset(partitions_def=DAYS, backfill_policy=dg.BackfillPolicy.single_run())
def day_rows(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
    if context.run.tags.get("fail") == "yes":
        raise RuntimeError("the day cannot be built")
    return dg.MaterializeResult(metadata={"days": len(context.partition_keys)})


@dg.asset(partitions_def=DAYS, backfill_policy=dg.BackfillPolicy.single_run(), deps=[day_rows])
def day_summary(context: dg.AssetExecutionContext) -> None:
    return None


JOB = dg.define_asset_job("days", selection=[day_rows, day_summary])
DEFS = dg.Definitions(assets=[day_rows, day_summary], jobs=[JOB])


def _run(instance: dg.DagsterInstance, start: str, end: str, fail: bool = False) -> bool:
    tags = {
        "dagster/asset_partition_range_start": start,
        "dagster/asset_partition_range_end": end,
    }
    if fail:
        tags["fail"] = "yes"
    result = DEFS.resolve_job_def("days").execute_in_process(
        instance=instance, tags=tags, raise_on_error=False
    )
    return result.success


def _status(instance: dg.DagsterInstance) -> dict:
    out = {}
    for key in (day_rows.key, day_summary.key):
        keys = DAYS.get_partition_keys_in_range(dg.PartitionKeyRange("2026-08-01", "2026-08-15"))
        by_day = instance.get_status_by_partition(key, keys, DAYS)
        out[key.to_user_string()] = (
            sorted(instance.get_materialized_partitions(key)),
            instance.get_latest_materialization_event(key).dagster_event.partition,
            sorted(
                day
                for day, status in by_day.items()
                if status is not None and status.value == "FAILED"
            ),
            sorted(day for day, status in by_day.items() if status is None),
        )
    return out


def _rows(home: Path) -> list[tuple]:
    con = sqlite3.connect(home / "history" / "runs" / "index.db")
    try:
        return con.execute(
            """select dagster_event_type, asset_key, partition, count(*) from event_logs
               group by 1, 2, 3 order by 1, 2, 3"""
        ).fetchall()
    finally:
        con.close()


def _asset_keys(home: Path) -> list[tuple]:
    """Each asset's row in asset_keys against the events it summarises: its last run, its last
    materialization (the newest materialization event) and the time of its newest event."""
    con = sqlite3.connect(home / "history" / "runs" / "index.db")
    try:
        rows = con.execute(
            """select asset_key, last_run_id, last_materialization,
                      last_materialization_timestamp from asset_keys order by 1"""
        ).fetchall()
        out = []
        for key, run_id, last, stamp in rows:
            record = deserialize_value(last, EventLogRecord)
            newest_run, newest_stamp = con.execute(
                "select run_id, timestamp from event_logs where asset_key = ? order by id desc",
                [key],
            ).fetchone()
            newest_materialization = con.execute(
                """select max(id) from event_logs
                   where asset_key = ? and dagster_event_type = 'ASSET_MATERIALIZATION'""",
                [key],
            ).fetchone()[0]
            out.append((
                key,
                run_id == newest_run,
                record.storage_id == newest_materialization,
                record.event_log_entry.dagster_event.partition,
                str(stamp)[:19] == str(newest_stamp)[:19],
            ))  # fmt: skip
        return out
    finally:
        con.close()


@pytest.fixture
def homes(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSTER_EVENT_BATCH_SIZE", "5")  # several batches per range
    plain, batched = tmp_path / "plain", tmp_path / "batched"
    for home in (plain, batched):
        home.mkdir()
        (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    return plain, batched


def test_a_range_is_recorded_as_dagsters_own_storage_records_it(homes):
    plain_home, batched_home = homes
    with (
        dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(plain_home))) as plain,
        event_storage.open_instance(batched_home) as batched,
    ):
        assert isinstance(batched.event_log_storage, event_storage.BatchedSqliteEventLogStorage)
        assert not isinstance(plain.event_log_storage, event_storage.BatchedSqliteEventLogStorage)
        for instance in (plain, batched):
            assert _run(instance, "2026-08-01", "2026-08-12")
            assert not _run(instance, "2026-08-13", "2026-08-14", fail=True)
        expected_days = [f"2026-08-{d:02d}" for d in range(1, 13)]
        failed = ["2026-08-13", "2026-08-14"]  # the failed run's days, in the UI's status
        assert _status(batched) == _status(plain)
        assert _status(batched) == {
            "day_rows": (expected_days, "2026-08-12", failed, ["2026-08-15"]),
            "day_summary": (expected_days, "2026-08-12", failed, ["2026-08-15"]),
        }
    rows = _rows(batched_home)
    assert rows == _rows(plain_home)
    # each asset's summary row, written once per batch, is the one written event by event
    assert _asset_keys(batched_home) == _asset_keys(plain_home)
    assert _asset_keys(batched_home) == [
        (f'["{name}"]', True, True, "2026-08-12", True) for name in ("day_rows", "day_summary")
    ]
    # 12 days x 2 assets materialized; planned for all 14 days (the failed run's too)
    counts = {}
    for event_type, _, _, n in rows:
        counts[event_type] = counts.get(event_type, 0) + n
    assert counts["ASSET_MATERIALIZATION"] == 24
    assert counts["ASSET_MATERIALIZATION_PLANNED"] == 28
    # the plain storage (what `dagster dev` opens) reads the batched files
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(batched_home))) as reader:
        assert sorted(reader.get_materialized_partitions(day_rows.key))[-1] == "2026-08-12"


def _dbapi_of(storage):
    with storage.index_connection() as conn:
        conn.exec_driver_sql("select count(*) from event_logs").scalar()
        return conn.connection.dbapi_connection


def test_one_engine_per_database_committing_in_wal_mode_without_waiting_for_the_disk(homes):
    _, batched_home = homes
    with event_storage.open_instance(batched_home) as instance:
        assert _run(instance, "2026-08-01", "2026-08-02")
        storage = instance.event_log_storage
        with storage.index_connection() as conn:
            first = conn.engine
            first_dbapi = conn.connection.dbapi_connection
            mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
            sync = conn.exec_driver_sql("PRAGMA synchronous").scalar()
        with storage.index_connection() as conn:
            assert conn.engine is first  # made once, not per event
            # and its SQLite connection stays open: closing a WAL file's last connection makes
            # SQLite checkpoint it, which per event cost seconds of a day's run
            assert conn.connection.dbapi_connection is first_dbapi
        # another thread (Dagster's event watcher) is served the same connection, in turn
        seen = []
        worker = threading.Thread(target=lambda: seen.append(_dbapi_of(storage)))
        worker.start()
        worker.join()
        assert seen == [first_dbapi]
        # WAL (Dagster's own setting for these files) and NORMAL (1): SQLite's documented safe
        # pairing; FULL (2) would wait for the disk on every event
        assert (mode, sync) == ("wal", 1)
    plain = sqlite3.connect(batched_home / "history" / "runs" / "index.db")
    try:
        assert plain.execute("PRAGMA journal_mode").fetchone() == ("wal",)  # kept in the file
    finally:
        plain.close()


# --- events kept and written together -------------------------------------------------------


@dg.asset
def checked_rows(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
    # what the run has written so far, as another process (`dagster dev`) reads it
    con = sqlite3.connect(Path(context.instance.event_log_storage.path_for_shard(context.run_id)))
    try:
        seen = con.execute(
            "select dagster_event_type from event_logs where step_key = ?", [context.op.name]
        ).fetchall()
    finally:
        con.close()
    context.log.info(f"seen on disk: {sorted({t for (t,) in seen if t})}")
    return dg.MaterializeResult(metadata={"rows": 3})


@dg.asset_check(asset=checked_rows)
def rows_positive() -> dg.AssetCheckResult:
    return dg.AssetCheckResult(passed=True)


CHECKED = dg.Definitions(
    assets=[checked_rows],
    asset_checks=[rows_positive],
    jobs=[dg.define_asset_job("checked", selection=[checked_rows])],
)


def _check_rows(home: Path) -> list[tuple]:
    """Each check execution against the materialization it checked (by storage id)."""
    con = sqlite3.connect(home / "history" / "runs" / "index.db")
    try:
        return con.execute(
            """select c.check_name, c.execution_status, e.dagster_event_type, e.asset_key
               from asset_check_executions c
               left join event_logs e on e.id = c.materialization_event_storage_id
               order by c.id"""
        ).fetchall()
    finally:
        con.close()


def test_a_check_is_recorded_against_the_materialization_it_checked(homes):
    """Dagster reads the asset's newest materialization for every check result it records: the
    kept materialization is written before that read, so the check points at it, as with the
    plain storage, and the step's start is on disk while the step runs."""
    plain_home, batched_home = homes
    with (
        dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(plain_home))) as plain,
        event_storage.open_instance(batched_home) as batched,
    ):
        for instance in (plain, batched):
            for _ in range(2):
                assert (
                    CHECKED.resolve_job_def("checked").execute_in_process(instance=instance).success
                )
        logs = [
            r.event_log_entry.user_message
            for r in batched.get_records_for_run(batched.get_runs(limit=1)[0].run_id).records
            if "seen on disk" in r.event_log_entry.user_message
        ]
    assert _check_rows(batched_home) == _check_rows(plain_home)
    assert (
        _check_rows(batched_home)
        == [
            ("rows_positive", "SUCCEEDED", "ASSET_MATERIALIZATION", '["checked_rows"]'),
        ]
        * 2
    )
    assert _rows(batched_home) == _rows(plain_home)
    # written when the step started (with the run's plan), though nothing read the storage since
    assert logs == ["seen on disk: ['ASSET_MATERIALIZATION_PLANNED', 'STEP_START']"]


def test_kept_events_reach_the_disk_in_a_second_and_at_the_run_end(homes, monkeypatch):
    _, batched_home = homes
    monkeypatch.setattr(event_storage, "FLUSH_EVERY_S", 1.0)
    with event_storage.open_instance(batched_home) as instance:
        storage = instance.event_log_storage

        @dg.asset
        def slow(context: dg.AssetExecutionContext) -> None:
            context.log.info("first")
            assert storage._pending  # kept, not yet written
            time.sleep(1.5)  # nothing else happens: written FLUSH_EVERY_S after it came
            assert not storage._pending
            context.log.info("second")
            assert storage._pending

        defs = dg.Definitions(assets=[slow], jobs=[dg.define_asset_job("slow", [slow])])
        result = defs.resolve_job_def("slow").execute_in_process(instance=instance)
        assert result.success
        assert not storage._pending  # the run's end is written at once
        run_id = result.run_id
    con = sqlite3.connect(batched_home / "history" / "runs" / f"{run_id}.db")
    try:
        types = [t for (t,) in con.execute("select dagster_event_type from event_logs order by id")]
        messages = [m for (m,) in con.execute("select event from event_logs") if m]
    finally:
        con.close()
    assert types[-1] == "PIPELINE_SUCCESS"  # the run's end (Dagster's stored name for it)
    assert (
        sum('"first"' in m for m in messages) == 1 and sum('"second"' in m for m in messages) == 1
    )


def test_an_event_that_cannot_be_written_fails_alone(homes, monkeypatch):
    """A batch that fails is rolled back and its events written one by one: the bad one raises
    (as Dagster's storage raises for it), the others are on disk."""
    _, batched_home = homes
    original = event_storage.SqliteEventLogStorage.store_event

    def refuse_poison(self, event):
        if event.user_message == "poison":
            raise RuntimeError("cannot store this event")
        original(self, event)

    monkeypatch.setattr(event_storage.SqliteEventLogStorage, "store_event", refuse_poison)
    with event_storage.open_instance(batched_home) as instance:
        storage = instance.event_log_storage
        from dagster._core.events.log import EventLogEntry

        def entry(message: str) -> EventLogEntry:
            return EventLogEntry(
                error_info=None, level=20, user_message=message, run_id="r1",
                timestamp=1.0, step_key=None, job_name="j", dagster_event=None,
            )  # fmt: skip

        for message in ("before", "poison", "after"):
            storage.store_event(entry(message))
        with pytest.raises(RuntimeError, match="cannot store this event"):
            storage.flush()
        assert not storage._pending
        written = [
            r.event_log_entry.user_message for r in storage.get_records_for_run("r1").records
        ]
    assert written == ["before", "after"]
