"""Bringing the spare copy of the published warehouse up to date (warehouse/publish.py calls
`sync` when the spare is usable).

A day's run changes a few days of the marts and a few snapshots of raw data, so copying the whole
file (1.5 GB at three years of history and 4 s, when the costs were stored with their measures;
0.6 GB since) would make publishing grow with history. The copy a publication replaces is therefore
kept as the spare (`.gpuledger.spare.duckdb`, a hard link to the replaced file) and the next
publication brings the spare up to date instead of copying: per table it compares groups of rows
(a snapshot of a raw table, else the whole table) by row count and the sum of the rows' hashes,
deletes the groups that differ and inserts the working file's rows of them,
then compares every table it wrote whole the same way. A per-day mart's groups are its days: the
days its builds logged since the spare was made, and, should its rows outside those days not count
the same on both sides, every day whose row count differs. The spare is used only when no
reader can have it open (DuckDB's file lock, taken by read-only connections of other processes, and
this process's open files) and when its tables, views and macros are defined exactly as the working
file's; otherwise, or when anything in the update fails, the whole file is copied as before.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

SPARE_ALIAS = "gpuledger_spare"  # the spare's name while it is attached to the working file

_CATALOG_SQL = """
select 'schema', schema_name, '', '' from duckdb_schemas()
 where database_name = $db and not internal
union all
select 'table', schema_name, table_name, sql from duckdb_tables() where database_name = $db
union all
select 'macro', schema_name, function_name, coalesce(macro_definition, '') || parameters::varchar
  from duckdb_functions()
 where database_name = $db and not internal and function_type in ('macro', 'table_macro')
union all
select 'sequence', schema_name, sequence_name, sql from duckdb_sequences() where database_name = $db
union all
select 'index', schema_name, index_name, coalesce(sql, '') from duckdb_indexes()
 where database_name = $db
order by all
"""


# The log of the per-day marts' builds, written by each build in its own transaction
# (dbt/macros/daily_window.sql): one row per build (its own id), the days it wrote, or the mart it
# built whole.
_BUILDS = "ops.daily_mart_log"
# Tables up to this many rows are compared row by row (the sum of their rows' hashes); the larger
# raw tables by their rows per snapshot, as their rows are written once (insert or ignore). Tables
# of the other schemas are always compared by their rows' hashes (per group of their key).
HASHED_ROWS = 500_000
_BUILT = "_gpuledger_sync_built"  # temp table: the days the log says were written since


def _day_tables(con, db: str) -> set[tuple[str, str]]:
    """The tables with a `day` column."""
    return set(
        con.execute(
            "select schema_name, table_name from duckdb_columns() "
            "where database_name = ? and column_name = 'day'",
            [db],
        ).fetchall()
    )


# The key of a snapshot, as raw's tables name it: its rows' tables, and raw.page_snapshots.
_SNAPSHOT_KEYS = (
    ["source", "snapshot_url", "snapshot_fetched_at"],
    ["source", "url", "fetched_at"],
)


def group_keys(con, db: str) -> dict[tuple[str, str], list[str]]:
    """Per table, the columns its rows are compared in groups by: a snapshot's key where its
    primary key begins with one (raw's tables), else its primary key without the last column;
    tables not listed are compared whole. (raw.page_snapshots, one row per snapshot, was grouped
    by page until 2026-12-03: each day replaced every snapshot of every page fetched that day in
    the copy, 54,800 rows at three years of 50 providers, and its commit took 0.7 s.)"""
    groups = {}
    for schema, table, keys in con.execute(
        "select schema_name, table_name, constraint_column_names from duckdb_constraints() "
        "where database_name = ? and constraint_type = 'PRIMARY KEY'",
        [db],
    ).fetchall():
        snapshot = next((k for k in _SNAPSHOT_KEYS if list(keys[: len(k)]) == k), None)
        if snapshot is not None and len(keys) > 1:
            groups[(schema, table)] = snapshot
        elif len(keys) > 1:
            groups[(schema, table)] = list(keys[:-1])
    return groups


def _built_days(con, work: str) -> tuple[str | None, str]:
    """The per-day marts' days written since the spare was made, as a query of `day`s (None when
    the warehouse keeps no log of its builds), or why the spare cannot be updated."""
    logged = con.execute(
        "select count(*) from duckdb_tables() where database_name = ? "
        "and schema_name || '.' || table_name = ?",
        [work, _BUILDS],
    ).fetchone()[0]
    if not logged:
        return None, ""
    # builds run two at a time, so their order in the log means nothing: the builds since the
    # spare are the ids the spare's log does not hold
    lost = con.execute(
        f"select count(*) from {SPARE_ALIAS}.{_BUILDS} "
        f'where build_id not in (select build_id from "{work}".{_BUILDS})'
    ).fetchone()[0]
    if lost:
        return None, "the warehouse's log of builds is behind the spare's"
    builds = con.execute(
        f'select window_start, window_end, rebuilt from "{work}".{_BUILDS} '
        f"where build_id not in (select build_id from {SPARE_ALIAS}.{_BUILDS})"
    ).fetchall()
    if any(rebuilt for _, _, rebuilt in builds):
        return None, "per-day marts were rebuilt whole since the spare was made"
    days = " union ".join(
        f"select cast(d as date) as day from range(date '{a}', date '{b}' + 1, interval 1 day) t(d)"
        for a, b in sorted({(a, b) for a, b, _ in builds})
    )
    return days or "select cast(null as date) as day where false", ""


def sync(con: duckdb.DuckDBPyConnection, spare: Path, synced: dict[str, int]) -> str | None:
    """Bring the spare up to the working file's state; None when done, else why it was not."""
    work = con.execute("select current_database()").fetchone()[0]
    con.execute(f"attach '{_sql_str(spare)}' as {SPARE_ALIAS}")
    try:
        catalogs = [con.execute(_CATALOG_SQL, {"db": db}).fetchall() for db in (work, SPARE_ALIAS)]
        if catalogs[0] != catalogs[1]:
            return "the spare's tables or macros are not defined as the warehouse's"
        views = [dict(con.execute(_VIEWS_SQL, [db]).fetchall()) for db in (work, SPARE_ALIAS)]
        built_days, why = _built_days(con, work)
        if why:
            return why
        tables = con.execute(
            "select schema_name, table_name, estimated_size from duckdb_tables() "
            "where database_name = ? order by all",
            [work],
        ).fetchall()
        day_tables, grouped_by = _day_tables(con, work), group_keys(con, work)
        if built_days:
            con.execute(f"create or replace temp table {_BUILT} as {built_days}")
            built_filter = _days_filter(con, _BUILT)
        plans, checks = [], []
        for i, (schema, table, rows) in enumerate(tables):
            name = f'"{schema}"."{table}"'
            ours, theirs = f'"{work}".{name}', f"{SPARE_ALIAS}.{name}"
            diff = f"_gpuledger_sync_{i}"
            if built_days and schema == "marts" and (schema, table) in day_tables:
                # a per-day mart: the days its builds wrote since; and, when its rows outside
                # them do not count the same on both sides, every day whose rows differ
                key = ["day"]
                if _same_count_outside(con, ours, theirs, built_filter):
                    con.execute(f"create or replace temp table {diff} as {built_days}")
                else:
                    _group_diff(con, diff, key, ours, theirs, hashed=False, also=built_days)
                check = _days_filter(con, diff)
            else:
                key = grouped_by.get((schema, table), [])
                if not key and (schema, table) in day_tables:
                    key = ["day"]  # no log of builds: every day compared by its rows' hashes
                # only raw's rows are written once (insert or ignore): a larger table of
                # another schema (a mart or a table with a contract's key) is rebuilt, its
                # values may change while its groups keep their row counts
                hashed = rows <= HASHED_ROWS or key == ["day"] or schema != "raw"
                _group_diff(con, diff, key, ours, theirs, hashed=hashed)
                check = "true" if hashed else None
            groups = con.execute(f"select count(*) from temp.{diff}").fetchone()[0]
            if groups:
                # a table no group of which differs is not written, nor checked again
                plans.append((name, key, diff))
                checks.append((name, check))
                synced[f"{schema}.{table}"] = groups
        con.execute("begin")
        try:
            sync_views(con, work, *views)
            for name, key, diff in plans:
                if key == ["day"]:
                    # the days as constants, so that DuckDB reads only their row groups
                    days = _days_filter(con, diff)
                    con.execute(f"delete from {SPARE_ALIAS}.{name} as x where {days}")
                    con.execute(
                        f'insert into {SPARE_ALIAS}.{name} select x.* from "{work}".{name} as x '
                        f"where {days}"
                    )
                    continue
                match = " and ".join(f'x."{k}" is not distinct from d."{k}"' for k in key) or "true"
                con.execute(
                    f"delete from {SPARE_ALIAS}.{name} as x using temp.{diff} as d where {match}"
                )
                con.execute(
                    f'insert into {SPARE_ALIAS}.{name} select x.* from "{work}".{name} as x '
                    f"where exists (select 1 from temp.{diff} as d where {match})"
                )
            con.execute("commit")
        except BaseException:
            con.execute("rollback")
            raise
        # The same rows on both sides: every table's count, and the hashes of the rows written
        # (of the whole table where it is small).
        try:
            if checks:
                sides = [con.execute(_checks_sql(db, checks)).fetchone() for db in (work, None)]
                for (name, _), ours, theirs in zip(checks, *sides, strict=True):
                    if ours != theirs:
                        return f"{name} differs after the update ({theirs} vs {ours})"
        finally:
            for i in range(len(tables)):
                con.execute(f"drop table if exists temp._gpuledger_sync_{i}")
            con.execute(f"drop table if exists temp.{_BUILT}")
        con.execute(f"checkpoint {SPARE_ALIAS}")
    finally:
        con.execute(f"detach {SPARE_ALIAS}")
    if spare.with_name(spare.name + ".wal").exists():
        return "the spare kept a write-ahead log after its checkpoint"
    return None


# A view's text as DuckDB prints it can change when dbt re-creates it unchanged (the order of an
# EXCLUDE list), so views are not compared but re-created in the spare where their text differs.
_VIEWS_SQL = """
select schema_name || '.' || view_name, sql from duckdb_views()
 where database_name = ? and not internal order by view_oid
"""


def sync_views(con, work: str, ours: dict[str, str], theirs: dict[str, str]) -> None:
    """Make the spare's views the working file's: dropped, and re-created in its order."""
    con.execute(f"use {SPARE_ALIAS}")
    try:
        for name in theirs:
            if ours.get(name) != theirs[name]:
                con.execute(f"drop view {_quoted(name)}")
        for name, sql in ours.items():
            if theirs.get(name) != sql:
                con.execute(sql)
    finally:
        con.execute(f'use "{work}"')


def _quoted(dotted: str) -> str:
    return ".".join(f'"{part}"' for part in dotted.split(".", 1))


def _days_filter(con, diff: str) -> str:
    """`x.day` in the days of temp.<diff>, written out (false when there are none)."""
    days = [r[0] for r in con.execute(f"select day from temp.{diff} order by 1").fetchall()]
    if not days:
        return "false"
    listed = ", ".join("null" if d is None else f"date '{d}'" for d in days)
    nulls = " or x.day is null" if None in days else ""
    return f"(x.day in ({listed}){nulls})"


def _same_count_outside(con, work: str, spare: str, days: str) -> bool:
    """Whether a per-day mart holds as many rows outside the days `days` (a filter of `x.day`)
    in the working file as in the spare. Counting a table and its rows of a few days reads its
    metadata and those days' row groups only (under 2 ms at three years of history, where
    counting every day's rows took 0.04-0.08 s per mart)."""
    sides = ", ".join(
        f"(select count(*) from {db}) - (select count(*) from {db} as x where {days})"
        for db in (work, spare)
    )
    outside = con.execute(f"select {sides}").fetchone()
    return outside[0] == outside[1]


def _checks_sql(work: str | None, checks: list[tuple[str, str | None]]) -> str:
    """One query for the checks of every table written, on the working file (`work`, its
    name) or the spare (None): per table a row count, and the count and sum of the row hashes
    of the rows `where` selects (when given). (A query per table and side, the counts on their
    own, was 86 statements and 0.09-0.10 s of a day's update at three years of history; the two
    queries take 0.06 s.)"""
    db = f'"{work}"' if work is not None else SPARE_ALIAS
    parts = []
    for name, where in checks:
        table = f"{db}.{name}"
        part = f"(select count(*) from {table})"
        if where:
            part = (
                f"{{'rows': {part}, 'checked': (select {{'rows': count(*), 'hash': sum(hash(x))}} "
                f"from {table} as x where {where})}}"
            )
        parts.append(part)
    return "select " + ", ".join(parts)


def _group_diff(
    con, diff: str, key: list[str], work: str, spare: str, hashed: bool, also: str = ""
) -> None:
    """temp.<diff>: the groups (key values) whose row count (or sum of row hashes) differ, and
    the key values of `also` (a query of them)."""
    cols = ", ".join(f'"{k}"' for k in key)
    sel = f"{cols}, " if key else ""
    group = "group by all" if key else ""
    h = ", sum(hash(x)) as h" if hashed else ", 0 as h"
    on = " and ".join(f'w."{k}" is not distinct from s."{k}"' for k in key) or "true"
    keys = ", ".join(f'coalesce(w."{k}", s."{k}") as "{k}"' for k in key) or "1 as whole"
    union = f" union {also}" if also else ""
    con.execute(
        f"""create or replace temp table {diff} as
        with w as (select {sel}count(*) as n{h} from {work} as x {group}),
             s as (select {sel}count(*) as n{h} from {spare} as x {group})
        select {keys} from w full outer join s on {on}
        where w.n is distinct from s.n or w.h is distinct from s.h{union}"""
    )


def _sql_str(path: Path) -> str:
    return str(path).replace("'", "''")
