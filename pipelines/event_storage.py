"""The Dagster instance gpuledger's runs record into: Dagster's own SQLite storage, writing
events together in one transaction per database.

A run over a range of days records, for every partitioned asset, one planned and one
materialization event per day (Dagster's partition status needs them; a failed day is marked
failed by them). Dagster's SQLite event storage writes each event on a new connection with a
commit of its own: on the demo's range run that was 6,972 events and about 66 s of a 2 min
run. Dagster hands such events over in batches when `DAGSTER_EVENT_BATCH_SIZE` is set (its
storages for hosted deployments write a batch at once; the SQLite one writes them one by one).
This storage writes a batch of asset events in one transaction on each database (the run's and
the index): the same rows, in the same tables, as one by one. The files stay Dagster's format,
so `dagster dev` (which opens them with the plain storage) reads them as ever.

The events Dagster hands over one at a time (a day's run: 767, most of them two writes, the
run's database and the index) each cost a new SQLAlchemy engine and a commit that waits for the
disk (SQLite's `synchronous=FULL`), about 3.5 s of a day's run over three years of history, and
a new SQLite connection whose closing checkpoints the WAL file, about 4 s more. This storage
keeps one engine and one open connection per database and commits with `synchronous=NORMAL`,
which SQLite documents as safe for a database in WAL mode (Dagster puts these in WAL mode): a
crashed process loses no committed event and the files stay consistent; a power cut can lose
the last events, which a rerun of the day writes again (the warehouse, not the event log, holds
the data).

Even so, each event was a transaction of its own, and Dagster, for every event on the index,
asked SQLite on a new connection whether the asset-check table exists and read the asset table's
columns: 647 events, 3.3-4.5 s of a day's run at 365 days, on the same interpreter lock as dbt's
thread. So the events are kept in memory and written together, in the order they came and as
Dagster writes them, in one transaction per database: when a step or the run starts or ends,
a second after the first kept event at the latest, and before anything reads the storage (a read of
asset events writes the kept events up to the last asset event, which is what it can see; any
other read writes them all). A crashed process can lose the last second's events, not more;
the tables' existence is asked once per process.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import dagster as dg
import sqlalchemy as db
from dagster._core.events import ASSET_EVENTS, DagsterEventType
from dagster._core.events.log import EventLogEntry
from dagster._core.instance.ref import InstanceRef
from dagster._core.storage.event_log.schema import AssetKeyTable
from dagster._core.storage.event_log.sqlite.sqlite_event_log import SqliteEventLogStorage
from dagster._core.storage.sqlalchemy_compat import db_result
from dagster._core.storage.sqlite import SQLITE_BUSY_TIMEOUT_SECONDS
from sqlalchemy.pool import StaticPool

# events per batch: Dagster flushes a batch at this size or at its end (a range's last day)
BATCH_SIZE = "2000"
# events kept before they are written (below): at most this many, or this long
FLUSH_AT = 500
FLUSH_EVERY_S = 1.0
# events written as they come (with any kept before them): a step's or the run's start and end
WRITE_AT_ONCE = frozenset({
    DagsterEventType.STEP_START,
    DagsterEventType.STEP_SUCCESS,
    DagsterEventType.STEP_FAILURE,
    DagsterEventType.STEP_UP_FOR_RETRY,
    DagsterEventType.STEP_SKIPPED,
    DagsterEventType.RUN_START,
    DagsterEventType.RUN_SUCCESS,
    DagsterEventType.RUN_FAILURE,
    DagsterEventType.RUN_CANCELED,
    DagsterEventType.RUN_CANCELING,
    DagsterEventType.RUN_STARTING,
    DagsterEventType.RUN_ENQUEUED,
})  # fmt: skip


class BatchedSqliteEventLogStorage(SqliteEventLogStorage):
    """SQLite event storage that keeps events and writes them together (see the module's text);
    a range's batch of asset events is written in one transaction as well."""

    @classmethod
    def from_config_value(cls, inst_data, config_value):
        return cls(inst_data=inst_data, **config_value)

    def __init__(self, *args, **kwargs):
        # set before Dagster's __init__, which already opens the index database
        self._pending: list[EventLogEntry] = []
        self._pending_lock = threading.Lock()
        # held for a whole write of the pending events: writes keep the order events came in
        self._flush_lock = threading.RLock()
        self._last_flush = time.monotonic()
        # the thread writing pending events, and its open transaction on each database
        self._writer: int | None = None
        self._open: dict[str, db.Connection] = {}
        self._local = threading.local()
        self._timer: threading.Timer | None = None
        super().__init__(*args, **kwargs)

    def _engine(self, shard: str) -> db.Engine:
        engines = self.__dict__.setdefault("_engines", {})
        engine = engines.get(shard)
        if engine is None:
            engine = db.create_engine(
                self.conn_string_for_shard(shard),
                poolclass=StaticPool,
                connect_args={
                    "timeout": SQLITE_BUSY_TIMEOUT_SECONDS,
                    "check_same_thread": False,
                },
            )
            db.event.listen(engine, "connect", _commit_without_waiting_for_the_disk)
            if shard not in self._initialized_dbs:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            engines[shard] = engine
        return engine

    @contextmanager
    def _connect(self, shard: str) -> Iterator[db.Connection]:
        # as SqliteEventLogStorage._connect, but the engine, and its one connection, are made once
        # per database: opening and closing a connection per event (Dagster's NullPool) cost ~4 s
        # of a day's run, most of it the checkpoint SQLite runs when a WAL file's last connection
        # closes. The storage's lock serializes every use, so one connection serves all threads.
        if self._writer == threading.get_ident():
            # writing the pending events: every write joins the one transaction on its database
            conn = self._open.get(shard)
            if conn is None:
                conn = self._engine(shard).connect()
                conn.begin()
                self._open[shard] = conn
            yield conn
            return
        # whoever reads (or writes) sees every event stored before: the pending ones first
        # (a read of asset events has written those it needs: _read_assets)
        if not getattr(self._local, "reading_assets", False):
            self.flush()
        with self._db_lock, self._engine(shard).connect() as conn, conn.begin():
            yield conn

    def has_table(self, table_name: str) -> bool:
        # Dagster asks this for every asset check event (is the checks table there?) and every
        # asset event (the tags table), each time on a new engine and SQLite connection. A
        # table, once there, stays (Dagster adds tables by migration, and drops none).
        found = self.__dict__.setdefault("_tables_found", set())
        if table_name in found:
            return True
        if super().has_table(table_name):
            found.add(table_name)
            return True
        return False

    def _has_asset_key_col_on_connection(self, conn: db.Connection, column_name: str) -> bool:
        # asked for every asset event (reading the table's columns): as has_table
        found = self.__dict__.setdefault("_asset_key_cols_found", set())
        if column_name in found:
            return True
        if super()._has_asset_key_col_on_connection(conn, column_name):
            found.add(column_name)
            return True
        return False

    @contextmanager
    def _read_assets(self) -> Iterator[None]:
        """A read of asset events or asset rows: it needs the kept asset events written (and the
        events kept before them, so the order stays), not the kept step outputs or check results
        after the last of them. Dagster reads an asset's newest materialization for every check
        result it records (the materialization the check ran against) and the assets' rows for
        every output; writing everything kept at each of those reads wrote ~3 events at a time."""
        with self._pending_lock:
            last = max(
                (i for i, e in enumerate(self._pending) if e.dagster_event_type in ASSET_EVENTS),
                default=-1,
            )
        if last >= 0:
            self.flush(upto=last + 1)
        self._local.reading_assets = True
        try:
            yield
        finally:
            self._local.reading_assets = False

    def fetch_materializations(self, *args, **kwargs):
        with self._read_assets():
            return super().fetch_materializations(*args, **kwargs)

    def get_asset_records(self, *args, **kwargs):
        with self._read_assets():
            return super().get_asset_records(*args, **kwargs)

    def store_event(self, event: EventLogEntry) -> None:
        """Keep the event, and write the kept events in one transaction on each database when a
        step or the run starts or ends, FLUSH_EVERY_S after the first kept event at the latest,
        when FLUSH_AT events are kept, and before anything reads the storage (see the module's
        text)."""
        with self._pending_lock:
            self._pending.append(event)
            due = (
                len(self._pending) >= FLUSH_AT
                or time.monotonic() - self._last_flush >= FLUSH_EVERY_S
                or (event.is_dagster_event and event.dagster_event_type in WRITE_AT_ONCE)
            )
            if not due and self._timer is None:
                # a step that runs on without events still has the kept ones written in time
                self._timer = threading.Timer(FLUSH_EVERY_S, self._flush_on_time)
                self._timer.daemon = True
                self._timer.start()
        if due:
            self.flush()

    def _flush_on_time(self) -> None:
        with self._pending_lock:
            self._timer = None
        self.flush()

    def flush(self, upto: int | None = None) -> None:
        """Write the kept events (the first `upto` of them), in the order they came, as
        Dagster's SQLite storage writes them one by one, but in one transaction per database. If
        that fails, the events are written one by one: a bad event fails alone, as it would have,
        after the others are written."""
        if not self._pending:
            return
        with self._flush_lock:
            with self._pending_lock:
                cut = len(self._pending) if upto is None else min(upto, len(self._pending))
                events, self._pending = self._pending[:cut], self._pending[cut:]
                self._last_flush = time.monotonic()
            if not events:
                return
            try:
                self._write(events)
            except Exception:
                failure: Exception | None = None
                for event in events:
                    try:
                        self._write([event])
                    except Exception as exc:
                        failure = failure or exc
                if failure is not None:
                    raise failure from None

    def _write(self, events: Sequence[EventLogEntry]) -> None:
        """Write the events as SqliteEventLogStorage.store_event does, each of its connections
        joining one transaction per database (see _connect); committed together, or not at all."""
        with self._db_lock:
            self._writer = threading.get_ident()
            try:
                for event in events:
                    SqliteEventLogStorage.store_event(self, event)
                for conn in self._open.values():
                    conn.commit()
            except BaseException:
                for conn in self._open.values():
                    conn.rollback()
                raise
            finally:
                for conn in self._open.values():
                    conn.close()
                self._open = {}
                self._writer = None

    def _store_asset_entries(self, conn, events: Sequence[EventLogEntry], ids: list[int]) -> None:
        """What SqliteEventLogStorage._store_asset_event does event by event (each asset's row
        in asset_keys: its last materialization, run and event time), once per asset for the
        batch: the columns each event sets, later events over earlier ones, leave the row as
        writing them in order does. Event by event, Dagster also read the table's columns again
        for every event; a range of 365 days has 7,665 planned events, ~5 s of a backfill."""
        has_index_cols = self._has_asset_key_index_cols_on_connection(conn)
        latest: dict[str, dict] = {}
        for event, event_id in zip(events, ids, strict=True):
            if not (event.dagster_event and event.dagster_event.asset_key):
                continue
            values = self._get_asset_entry_values(event, event_id, has_index_cols)
            if values:
                latest.setdefault(event.dagster_event.asset_key.to_string(), {}).update(values)
        for key, values in latest.items():
            try:
                conn.execute(AssetKeyTable.insert().values(asset_key=key, **values))
            except db.exc.IntegrityError:
                conn.execute(
                    AssetKeyTable.update().values(**values).where(AssetKeyTable.c.asset_key == key)
                )

    def dispose(self) -> None:
        with self._pending_lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        self.flush()
        for engine in self.__dict__.pop("_engines", {}).values():
            engine.dispose()
        super().dispose()

    def store_event_batch(self, events: Sequence[EventLogEntry]) -> None:
        self.flush()  # the events kept before this batch are written before it
        asset_events = [
            e for e in events if e.is_dagster_event and e.dagster_event_type in ASSET_EVENTS
        ]
        run_ids = {e.run_id for e in asset_events}
        if len(asset_events) < 2 or len(run_ids) != 1:
            super().store_event_batch(events)
            return
        statements = [self.prepare_insert_event(e) for e in asset_events]
        with self.run_connection(run_ids.pop()) as conn:
            for statement in statements:
                conn.execute(statement)
        # mirrored in the cross-run index, as SqliteEventLogStorage.store_event does one by one
        with self.index_transaction() as conn:
            event_ids = []
            for statement in statements:
                with db_result(conn, statement) as result:
                    event_ids.append(result.inserted_primary_key[0])
            if any(i is None for i in event_ids):
                raise dg.DagsterInvariantViolationError(
                    "Cannot store asset event tags for null event id."
                )
            self._store_asset_event_tags(conn, asset_events, event_ids)
            self._store_asset_entries(conn, asset_events, event_ids)
        # anything else in the batch (planned asset checks) as Dagster stores it
        for event in events:
            if not (event.is_dagster_event and event.dagster_event_type in ASSET_EVENTS):
                self.store_event(event)


def _commit_without_waiting_for_the_disk(dbapi_connection, _record) -> None:
    dbapi_connection.execute("PRAGMA synchronous=NORMAL")


def open_instance(dagster_home: Path | None = None) -> dg.DagsterInstance:
    """The Dagster instance in DAGSTER_HOME (its dagster.yaml as written), its events written in
    batches by BatchedSqliteEventLogStorage."""
    home = Path(dagster_home or os.environ["DAGSTER_HOME"]).resolve()
    os.environ.setdefault("DAGSTER_EVENT_BATCH_SIZE", BATCH_SIZE)
    ref = InstanceRef.from_dir(
        str(home),
        overrides={
            "event_log_storage": {
                "module": __name__,
                "class": BatchedSqliteEventLogStorage.__name__,
                # where Dagster's default SQLite storage keeps the event logs
                "config": {"base_dir": str(home / "history" / "runs")},
            }
        },
    )
    return dg.DagsterInstance.from_ref(ref)
