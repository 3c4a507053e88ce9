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
