"""The Dagster instance gpuledger's runs record into: Dagster's own SQLite storage, writing the
events of a day range in one transaction.

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
crashed process loses nothing and the files stay consistent; a power cut can lose the last
events, which a rerun of the day writes again (the warehouse, not the event log, holds the data).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import dagster as dg
import sqlalchemy as db
from dagster._core.events import ASSET_EVENTS
from dagster._core.events.log import EventLogEntry
from dagster._core.instance.ref import InstanceRef
from dagster._core.storage.event_log.schema import AssetKeyTable
from dagster._core.storage.event_log.sqlite.sqlite_event_log import SqliteEventLogStorage
from dagster._core.storage.sqlalchemy_compat import db_result
from dagster._core.storage.sqlite import SQLITE_BUSY_TIMEOUT_SECONDS
from sqlalchemy.pool import StaticPool

# events per batch: Dagster flushes a batch at this size or at its end (a range's last day)
BATCH_SIZE = "2000"


class BatchedSqliteEventLogStorage(SqliteEventLogStorage):
    """SQLite event storage that writes a batch of asset events in one transaction."""

    @classmethod
    def from_config_value(cls, inst_data, config_value):
        return cls(inst_data=inst_data, **config_value)

    @contextmanager
    def _connect(self, shard: str) -> Iterator[db.Connection]:
        # as SqliteEventLogStorage._connect, but the engine, and its one connection, are made once
        # per database: opening and closing a connection per event (Dagster's NullPool) cost ~4 s
        # of a day's run, most of it the checkpoint SQLite runs when a WAL file's last connection
        # closes. The storage's lock serializes every use, so one connection serves all threads.
        with self._db_lock:
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
            with engine.connect() as conn, conn.begin():
                yield conn

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
        for engine in self.__dict__.pop("_engines", {}).values():
            engine.dispose()
        super().dispose()

    def store_event_batch(self, events: Sequence[EventLogEntry]) -> None:
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
