"""Fixtures of the integration tests that read the demo's published copy as analysts do."""

from __future__ import annotations

import pytest

from warehouse import publish


@pytest.fixture(scope="module")
def con(demo_build):
    """The published demo copy, read-only (nothing here writes)."""
    connection = publish.connect(demo_build[0])
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def shown_day(con):
    """The day the first screen shows (warehouse/queries/coverage.py): the newest covered day."""
    return con.execute(
        "select day from analytics.coverage_daily order by is_covered desc, day desc limit 1"
    ).fetchone()[0]
