"""The raw schema of the warehouse and the only code that writes it.

Raw tables are append-only and keyed, so loading the same snapshot twice changes nothing. One
snapshot's rows, its validation verdict and its quarantined rows are written in one transaction: a
crash mid-load leaves the snapshot unloaded, and the next run loads it whole.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from sources._internal.records import BenchmarkRun

RAW_DDL = """
create schema if not exists raw;

create table if not exists raw.page_snapshots (
    source          varchar not null,
    url             varchar not null,
    fetched_at      timestamptz not null,
    http_status     integer not null,
    content_type    varchar,
    size_bytes      bigint not null,
    sha256          varchar not null,
    etag            varchar,
    last_modified   varchar,
    archive_path    varchar not null,
    origin          varchar not null,
    parser_version  varchar,
    loaded_at       timestamptz not null,
    primary key (source, url, fetched_at)
);

create table if not exists raw.snapshot_validations (
    source              varchar not null,
    snapshot_url        varchar not null,
    snapshot_fetched_at timestamptz not null,
    snapshot_sha256     varchar not null,
    suite               varchar not null,
    success             boolean not null,
    row_count           integer not null,
    failed_expectations varchar,
    sample_rows         varchar,
    validated_at        timestamptz not null,
    primary key (source, snapshot_url, snapshot_fetched_at, suite)
);

create table if not exists raw.quarantine (
    source              varchar not null,
    snapshot_url        varchar not null,
    snapshot_fetched_at timestamptz not null,
    snapshot_sha256     varchar not null,
    item_ref            varchar not null,
    field               varchar not null,
    reason              varchar not null,
    raw                 varchar,
    quarantined_at      timestamptz not null,
    primary key (source, snapshot_url, snapshot_fetched_at, item_ref)
);

create table if not exists raw.source_runs (
    run_id            varchar not null,
    source            varchar not null,
    url               varchar not null,
    started_at        timestamptz not null,
    fetch_status      varchar not null,
    fetch_error       varchar,
    used_archive      boolean not null,
    primary key (run_id, source, url)
);
"""


# Row tables: what one snapshot yields, each row keyed by its snapshot and position in it.
# Every one carries the same provenance columns; ROW_TABLE_COLUMNS holds the rest.
ROW_TABLE_COLUMNS: dict[str, list[tuple[str, str]]] = {
    "price_observations": [
        ("provider", "varchar not null"),
        ("offer_id", "varchar not null"),
        ("region", "varchar"),
        ("zone", "varchar"),
        ("gpu_name_raw", "varchar not null"),
        ("gpu_count", "integer not null"),
        ("pricing_model", "varchar not null"),
        ("price_per_hour", "double not null"),
        ("currency", "varchar not null"),
        ("observed_at", "timestamptz not null"),
        ("vcpus", "double"),
        ("ram_gb", "double"),
        ("gpu_memory_gb", "double"),
        ("valid_until", "timestamptz"),
        ("price_qualifier", "varchar"),
    ],
    "gpu_specs": [
        ("gpu_name_raw", "varchar not null"),
        ("offer_id", "varchar"),
        ("memory_gb", "double"),
        ("memory_bandwidth_gb_s", "double"),
        ("fp16_tflops", "double"),
        ("fp8_tflops", "double"),
        ("tdp_w", "double"),
        ("form_factor", "varchar"),
        ("observed_at", "timestamptz not null"),
    ],
    "fx_rates": [
        ("rate_date", "date not null"),
        ("currency", "varchar not null"),
        ("per_eur", "double not null"),
    ],
    "api_prices": [
        ("provider", "varchar not null"),
        ("model_id", "varchar not null"),
        ("model_name", "varchar"),
        ("input_per_mtok", "double"),  # in `currency`, per million tokens
        ("output_per_mtok", "double"),
        ("currency", "varchar not null"),
        ("valid_from", "date"),
        ("is_tiered", "boolean not null"),
        ("observed_at", "timestamptz not null"),
    ],
}


def _columns_of(record_type, not_null: tuple[str, ...]) -> list[tuple[str, str]]:
    """Raw columns from a record dataclass, so table and record cannot drift apart."""
    out = []
    for f in dataclasses.fields(record_type):
        ann = str(f.type)
        sql = (
            "timestamptz" if "datetime" in ann
            else "bigint" if ann.startswith("int")
            else "double" if ann.startswith("float")
            else "varchar"
        )  # fmt: skip
        out.append((f.name, f"{sql} not null" if f.name in not_null else sql))
    return out


ROW_TABLE_COLUMNS["benchmark_runs"] = _columns_of(
    BenchmarkRun, ("run_ref", "format", "tool", "hardware_source", "run_kind", "output_unit")
)

PROVENANCE_COLUMNS = [
    ("source", "varchar not null"),
    ("snapshot_url", "varchar not null"),
    ("snapshot_fetched_at", "timestamptz not null"),
    ("snapshot_sha256", "varchar not null"),
    ("row_index", "integer not null"),
]


def _row_table_ddl(name: str, columns: list[tuple[str, str]]) -> str:
    cols = PROVENANCE_COLUMNS + columns + [("parser_version", "varchar not null")]
    body = ",\n".join(f"    {c} {t}" for c, t in cols)
    key = "    primary key (source, snapshot_url, snapshot_fetched_at, row_index)"
    return f"create table if not exists raw.{name} (\n{body},\n{key}\n);\n"


ROW_TABLES_DDL = "\n".join(_row_table_ddl(n, c) for n, c in ROW_TABLE_COLUMNS.items())

RAW_ROW_TABLES = tuple(ROW_TABLE_COLUMNS)


def connect(db_path: Path | str, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    if not read_only:
        Path(db_path).parent.mkdir(parents=True, exist_ok=True)
    return duckdb.connect(str(db_path), read_only=read_only)


# Tables derived from the archive alone: when their layout changes they are rebuilt from it.
ARCHIVE_DERIVED = ("page_snapshots", "snapshot_validations", "quarantine", *ROW_TABLE_COLUMNS)


def _layout_changed(con: duckdb.DuckDBPyConnection) -> list[str]:
    changed = []
    for name, columns in ROW_TABLE_COLUMNS.items():
        have = [
            r[0]
            for r in con.execute(
                "select column_name from information_schema.columns "
                "where table_schema = 'raw' and table_name = ? order by ordinal_position",
                [name],
            ).fetchall()
        ]
        want = [c for c, _ in PROVENANCE_COLUMNS + columns] + ["parser_version"]
        if have and have != want:
            changed.append(name)
    return changed


def ensure_raw_schema(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Create the raw tables. A warehouse written by an older gpuledger whose raw row tables had
    another layout drops every archive-derived table, so the next load re-reads the whole archive
    into the current layout (fetch history in raw.source_runs is kept). Returns the changed
    tables (empty when nothing had to be rebuilt)."""
    con.execute(RAW_DDL)
    changed = _layout_changed(con)
    if changed:
        for name in ARCHIVE_DERIVED:
            con.execute(f"drop table if exists raw.{name}")
        con.execute(RAW_DDL)
    con.execute(ROW_TABLES_DDL)
    return changed


def loaded_snapshot_keys(con: duckdb.DuckDBPyConnection, source: str) -> set[tuple[str, str]]:
    rows = con.execute(
        "select url, strftime(fetched_at at time zone 'UTC', '%Y-%m-%dT%H:%M:%S.%f') "
        "from raw.page_snapshots where source = ?",
        [source],
    ).fetchall()
    return {(url, ts) for url, ts in rows}


def _now() -> datetime:
    return datetime.now(UTC)


def _rows_of(
    snapshot: Any, table: str, rows: pd.DataFrame, fetched_at: datetime, parser_version: str
) -> pd.DataFrame:
    """A snapshot's rows for a raw row table, with the snapshot's key and their row index."""
    if table not in RAW_ROW_TABLES:
        raise ValueError(f"not a raw row table: {table}")
    frame = rows.copy()
    frame["source"] = snapshot.source
    frame["snapshot_url"] = snapshot.url
    frame["snapshot_fetched_at"] = fetched_at
    frame["snapshot_sha256"] = snapshot.sha256
    frame["row_index"] = range(len(frame))
    frame["parser_version"] = parser_version
    return frame


def load_snapshot(
    con: duckdb.DuckDBPyConnection,
    snapshot: Any,
    parser_version: str,
    frames: dict[str, pd.DataFrame],
    validations: Iterable[dict[str, Any]],
    quarantine: Iterable[dict[str, Any]],
) -> None:
    """Write one snapshot with everything derived from it, in one transaction.

    `frames` maps a raw table name (price_observations, gpu_specs) to its rows from this snapshot.
    """
    now = _now()
    fetched_at = datetime.fromisoformat(snapshot.fetched_at)
    con.execute("begin transaction")
    try:
        con.execute(
            "insert or ignore into raw.page_snapshots values (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [
                snapshot.source,
                snapshot.url,
                fetched_at,
                snapshot.http_status,
                snapshot.content_type,
                snapshot.size_bytes,
                snapshot.sha256,
                snapshot.etag,
                snapshot.last_modified,
                snapshot.archive_path,
                snapshot.origin,
                parser_version,
                now,
            ],
        )
        for table, rows in frames.items():
            frame = _rows_of(snapshot, table, rows, fetched_at, parser_version)
            if not len(frame):
                continue
            con.register("_rows", frame)
            con.execute(f"insert or ignore into raw.{table} by name select * from _rows")
            con.unregister("_rows")
        for validation in validations:
            con.execute(
                "insert or replace into raw.snapshot_validations values (?,?,?,?,?,?,?,?,?,?)",
                [
                    snapshot.source,
                    snapshot.url,
                    fetched_at,
                    snapshot.sha256,
                    validation["suite"],
                    validation["success"],
                    validation["row_count"],
                    json.dumps(validation.get("failed_expectations", []), default=str),
                    json.dumps(validation.get("sample_rows", []), default=str),
                    now,
                ],
            )
        for item in quarantine:
            con.execute(
                "insert or ignore into raw.quarantine values (?,?,?,?,?,?,?,?,?)",
                [
                    snapshot.source,
                    snapshot.url,
                    fetched_at,
                    snapshot.sha256,
                    item["item_ref"],
                    item["field"],
                    item["reason"],
                    item.get("raw"),
                    now,
                ],
            )
        con.execute("commit")
    except BaseException:
        con.execute("rollback")
        raise


# rows per statement of insert_rows (each row one placeholder group: 13 values at most here)
ROWS_PER_STATEMENT = 500


def insert_rows(
    con: duckdb.DuckDBPyConnection,
    insert: str,
    rows: list[list[Any]],
    key: tuple[int, ...] | None = None,
) -> None:
    """`insert` ("insert or ignore into raw.t" and the like) of many rows in one statement per
    ROWS_PER_STATEMENT rows, their values bound as parameters as executemany binds them.

    DuckDB's executemany runs the statement once per row: 50 snapshot rows and their 50
    verdicts took 0.27-0.31 s, one statement 0.016-0.024 s (2026-12-03, on a copy of the
    365-day warehouse). Within one statement a key met twice keeps its first row, as rows
    inserted one by one do with "or ignore"; with "or replace" one by one the last row wins,
    so `key` (the positions of the key's values) keeps each key's last row only."""
    if key is not None:
        last = {tuple(row[i] for i in key): row for row in rows}
        rows = list(last.values())
    for start in range(0, len(rows), ROWS_PER_STATEMENT):
        part = rows[start : start + ROWS_PER_STATEMENT]
        group = "(" + ",".join("?" * len(part[0])) + ")"
        con.execute(
            f"{insert} values {','.join([group] * len(part))}",
            [value for row in part for value in row],
        )


def load_snapshots(
    con: duckdb.DuckDBPyConnection,
    parser_version: str,
    loads: list[tuple[Any, dict[str, pd.DataFrame], list[dict[str, Any]], list[dict[str, Any]]]],
) -> None:
    """Write several snapshots, each with everything derived from it (snapshot, frames,
    validations, quarantine, as load_snapshot takes them), in one transaction: a day's 50
    snapshots of one source took 50 commits, 1.2-1.5 s at three years of history (each insert
    checks the primary key of 2 million price rows). The same rows as load_snapshot writes."""
    now = _now()
    pages, validations, quarantine = [], [], []
    frames: dict[str, list[pd.DataFrame]] = {}
    for snapshot, snapshot_frames, snapshot_validations, snapshot_quarantine in loads:
        fetched_at = datetime.fromisoformat(snapshot.fetched_at)
        key = [snapshot.source, snapshot.url, fetched_at]
        pages.append(key + [
            snapshot.http_status, snapshot.content_type, snapshot.size_bytes, snapshot.sha256,
            snapshot.etag, snapshot.last_modified, snapshot.archive_path, snapshot.origin,
            parser_version, now,
        ])  # fmt: skip
        for table, rows in snapshot_frames.items():
            frame = _rows_of(snapshot, table, rows, fetched_at, parser_version)
            if len(frame):
                frames.setdefault(table, []).append(frame)
        for validation in snapshot_validations:
            validations.append(key + [
                snapshot.sha256, validation["suite"], validation["success"],
                validation["row_count"],
                json.dumps(validation.get("failed_expectations", []), default=str),
                json.dumps(validation.get("sample_rows", []), default=str), now,
            ])  # fmt: skip
        for item in snapshot_quarantine:
            quarantine.append(key + [
                snapshot.sha256, item["item_ref"], item["field"], item["reason"], item.get("raw"),
                now,
            ])  # fmt: skip
    con.execute("begin transaction")
    try:
        if pages:
            insert_rows(con, "insert or ignore into raw.page_snapshots", pages)
        for table, parts in frames.items():
            con.register("_rows", pd.concat(parts, ignore_index=True))
            con.execute(f"insert or ignore into raw.{table} by name select * from _rows")
            con.unregister("_rows")
        if validations:
            # keyed by (source, snapshot_url, snapshot_fetched_at, suite)
            insert_rows(
                con, "insert or replace into raw.snapshot_validations", validations, (0, 1, 2, 4)
            )
        if quarantine:
            insert_rows(con, "insert or ignore into raw.quarantine", quarantine)
        con.execute("commit")
    except BaseException:
        con.execute("rollback")
        raise


def source_run(
    run_id: str,
    source: str,
    url: str,
    fetch_status: str,
    fetch_error: str | None,
    used_archive: bool,
) -> list[Any]:
    """A row of raw.source_runs, timed now (when the fetch of `url` ended)."""
    return [run_id, source, url, _now(), fetch_status, fetch_error, used_archive]


def record_source_runs(con: duckdb.DuckDBPyConnection, rows: list[list[Any]]) -> None:
    """Rows of `source_run` in one statement (a source's 50 URLs one by one took ~0.13 s)."""
    if rows:
        insert_rows(con, "insert or replace into raw.source_runs", rows, (0, 1, 2))


def record_rejected_file(
    con: duckdb.DuckDBPyConnection, source: str, url: str, sha256: str, reason: str
) -> None:
    """A file that could not even be archived (over the size cap, unreadable, a symlink): kept in
    quarantine with its reason, keyed by the file and the time it was refused."""
    now = _now()
    con.execute(
        "insert or ignore into raw.quarantine values (?,?,?,?,?,?,?,?,?)",
        [source, url, now, sha256 or "", "<file>", "<file>", reason, None, now],
    )
