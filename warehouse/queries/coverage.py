"""The day the first screen shows, and why: the newest day on which at least the documented share
of the providers seen in the 30 days before had fresh prices (`analytics.coverage_daily`,
`is_covered`); when no day is covered, the newest day, with a plain warning. `refresh`, `rank`,
`rank --workload`, `explain` and the report all take their default day from here, so the price
ranking and the class leaders on one screen are always of one day."""

from __future__ import annotations

from datetime import date
from typing import Any

import duckdb

from warehouse.queries import WarehouseMissing


def shown_day(
    con: duckdb.DuckDBPyConnection, not_after: date | None = None
) -> dict[str, Any] | None:
    """The coverage row of the day to show (None when no day has prices yet)."""
    try:
        cur = con.execute(
            """select * from analytics.coverage_daily
               where ? is null or day <= ?
               order by is_covered desc, day desc
               limit 1""",
            [not_after, not_after],
        )
    except duckdb.CatalogException as exc:
        raise WarehouseMissing(f"the warehouse has no coverage yet ({exc})") from exc
    row = cur.fetchone()
    if row is None:
        return None
    shown = dict(zip([d[0] for d in cur.description], row, strict=True))
    newest = con.execute(
        """select day, n_providers_fresh, n_providers_recent from analytics.coverage_daily
           where ? is null or day <= ? order by day desc limit 1""",
        [not_after, not_after],
    ).fetchone()
    shown["newest_day"], shown["newest_fresh"], shown["newest_recent"] = newest
    return shown


def describe(c: dict[str, Any] | None) -> str:
    """One or two lines: which day, its coverage, and why not a newer day."""
    if c is None:
        return "No prices yet."
    share = c["min_fresh_provider_share"]
    need = "half" if share == 0.5 else f"{share:.0%}"
    counts = f"{c['n_providers_fresh']} of {c['n_providers_recent']} providers fresh"
    if not c["is_covered"]:
        return (
            f"WARNING: {counts} on {c['day']}, the newest day; no day has at least {need} of its "
            f"recent providers fresh, so this day rests on few providers "
            f"(fresh: {c['providers_fresh'] or 'none'})."
        )
    line = (
        f"Showing {c['day']}: {counts} ({c['providers_fresh']}); "
        f"{c['n_offers_present']} of {c['n_offers_recent']} offers of the last 30 days priced."
    )
    if c["newest_day"] != c["day"]:
        line += (
            f"\nNewer days have prices too, but fewer than {need} of their recent providers fresh "
            f"(newest, {c['newest_day']}: {c['newest_fresh']} of {c['newest_recent']})."
        )
    if c["providers_stale"] or c["providers_down"]:
        line += (
            f"\nStale on {c['day']}: {c['providers_stale'] or 'none'}; "
            f"down: {c['providers_down'] or 'none'}."
        )
    return line
