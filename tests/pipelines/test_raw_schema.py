"""A warehouse written with an older raw layout is rebuilt from the archive, not left broken."""

from __future__ import annotations

import duckdb

from warehouse import db


def test_older_row_table_layout_drops_archive_derived_tables_and_keeps_fetch_history(tmp_path):
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    db.ensure_raw_schema(con)
    con.execute(
        "insert into raw.source_runs values ('r1', 's', 'u', now(), 'fetched', null, false)"
    )
    con.execute(
        "insert into raw.page_snapshots values ('s', 'u', now(), 200, null, 1, 'x', null, null, "
        "'p', 'live', '1', now())"
    )
    assert db.ensure_raw_schema(con) == []  # same layout: nothing touched
    assert con.execute("select count(*) from raw.page_snapshots").fetchone()[0] == 1

    con.execute("alter table raw.api_prices rename column input_per_mtok to input_usd_per_mtok")
    assert db.ensure_raw_schema(con) == ["api_prices"]
    assert con.execute("select count(*) from raw.page_snapshots").fetchone()[0] == 0
    assert con.execute("select count(*) from raw.source_runs").fetchone()[0] == 1
    cols = [r[0] for r in con.execute("describe raw.api_prices").fetchall()]
    assert "input_per_mtok" in cols and "input_usd_per_mtok" not in cols


def _runs(con) -> list[tuple]:
    return con.execute(
        "select run_id, source, url, fetch_status, fetch_error, used_archive "
        "from raw.source_runs order by all"
    ).fetchall()


def test_rows_written_in_one_statement_are_those_written_one_by_one(tmp_path, monkeypatch):
    """insert_rows writes what executemany (a statement per row) wrote: with "or replace" a key
    met twice keeps its last row, with "or ignore" the row already there (or the first), over
    statements of ROWS_PER_STATEMENT rows."""
    monkeypatch.setattr(db, "ROWS_PER_STATEMENT", 2)  # 5 rows: three statements
    one_by_one = duckdb.connect(str(tmp_path / "a.duckdb"))
    together = duckdb.connect(str(tmp_path / "b.duckdb"))
    for con in (one_by_one, together):
        db.ensure_raw_schema(con)
        con.execute("insert into raw.source_runs values ('r1','s','u1',now(),'old',null,false)")
    rows = [
        db.source_run("r1", "s", "u1", "fetched", None, False),  # replaces the row there
        db.source_run("r1", "s", "u2", "failed", "timeout", True),
        db.source_run("r1", "s", "u3", "fetched", None, False),
        db.source_run("r1", "s", "u2", "fetched", None, False),  # u2 again: this one stays
        db.source_run("r1", "t", "u1", "not_modified", None, False),
    ]
    one_by_one.executemany("insert or replace into raw.source_runs values (?,?,?,?,?,?,?)", rows)
    db.record_source_runs(together, rows)
    assert _runs(one_by_one) == [
        ("r1", "s", "u1", "fetched", None, False),
        ("r1", "s", "u2", "fetched", None, False),
        ("r1", "s", "u3", "fetched", None, False),
        ("r1", "t", "u1", "not_modified", None, False),
    ]
    assert _runs(together) == _runs(one_by_one)

    kept = [["s", "u1", "2026-08-21 06:00:00+00", 200, None, 1, "a", None, None, "p1", "live",
             "1", "2026-08-21 06:00:01+00"]]  # fmt: skip
    again = [kept[0][:6] + ["b"] + kept[0][7:], kept[0][:1] + ["u2"] + kept[0][2:]]
    for con in (one_by_one, together):
        db.insert_rows(con, "insert or ignore into raw.page_snapshots", kept)
    one_by_one.executemany(
        "insert or ignore into raw.page_snapshots values (?,?,?,?,?,?,?,?,?,?,?,?,?)", again
    )
    db.insert_rows(together, "insert or ignore into raw.page_snapshots", again)
    pages = "select url, sha256 from raw.page_snapshots order by url"
    assert one_by_one.execute(pages).fetchall() == [("u1", "a"), ("u2", "a")]  # u1 stays
    assert together.execute(pages).fetchall() == one_by_one.execute(pages).fetchall()
