"""The day the first screen shows: the newest covered day, else the newest day with a warning."""

from __future__ import annotations

from datetime import date

import duckdb
import pytest

from warehouse.queries.coverage import describe, shown_day

COLUMNS = """day date, is_covered boolean, min_fresh_provider_share double,
             n_providers_fresh bigint, n_providers_recent bigint, providers_fresh varchar,
             providers_stale varchar, providers_down varchar, n_offers_present bigint,
             n_offers_recent bigint"""
# the demo archive's last three days (analytics.coverage_daily as built on 2026-08-22)
DEMO = [
    ("2026-08-20", True, 0.5, 4, 4, "coreweave, lambda, paperspace, runpod", None, None, 991, 991),
    ("2026-08-21", True, 0.5, 3, 6, "coreweave, everxcloud, nebius", "lambda, paperspace, runpod",
     None, 1029, 1029),
    ("2026-08-22", False, 0.5, 1, 6, "coreweave",
     "everxcloud, lambda, nebius, paperspace, runpod", None, 1029, 1029),
]  # fmt: skip


@pytest.fixture
def con():
    c = duckdb.connect()
    c.execute("create schema analytics")
    c.execute(f"create table analytics.coverage_daily ({COLUMNS})")
    c.executemany("insert into analytics.coverage_daily values (?,?,?,?,?,?,?,?,?,?)", DEMO)
    yield c
    c.close()


def test_the_newest_covered_day_is_shown_and_the_newer_one_is_named(con):
    c = shown_day(con)
    assert (c["day"], c["newest_day"], c["newest_fresh"]) == (
        date(2026, 8, 21),
        date(2026, 8, 22),
        1,
    )
    assert describe(c).splitlines() == [
        "Showing 2026-08-21: 3 of 6 providers fresh (coreweave, everxcloud, nebius); "
        "1029 of 1029 offers of the last 30 days priced.",
        "Newer days have prices too, but fewer than half of their recent providers fresh "
        "(newest, 2026-08-22: 1 of 6).",
        "Stale on 2026-08-21: lambda, paperspace, runpod; down: none.",
    ]
    # a build as of an earlier day shows that day's own newest covered day
    assert shown_day(con, not_after=date(2026, 8, 20))["day"] == date(2026, 8, 20)


def test_no_covered_day_shows_the_newest_with_a_plain_warning(con):
    con.execute("update analytics.coverage_daily set is_covered = false")
    c = shown_day(con)
    assert c["day"] == date(2026, 8, 22)
    assert describe(c).startswith("WARNING: 1 of 6 providers fresh on 2026-08-22, the newest day")


def test_nothing_priced_yet(con):
    con.execute("delete from analytics.coverage_daily")
    assert shown_day(con) is None
    assert describe(None) == "No prices yet."
