"""What a new user sees at the end of `make run` (`gpuledger refresh`): one day, chosen for its
coverage and said why, the GPU price ranking and each class's leader of that day, in a screen."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from tests.conftest import DEMO_DAY, gpuledger, query

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SHOWN = "2026-08-21"  # 3 of 6 recent providers fresh; 2026-08-22 had 1 of 6


def test_refresh_ends_with_one_covered_day_on_one_screen(demo_copy):
    done = gpuledger(demo_copy, "refresh", "--offline", "--as-of", DEMO_DAY.isoformat())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    lines = (done.stderr + done.stdout).splitlines()
    assert len(lines) <= 40, "\n".join(lines)
    # progress: one line per step with its time, and where the whole log went
    log = re.search(r"the run's full log is (\S+)", done.stderr).group(1)
    steps = re.findall(r"^\[\s*[\d.]+ s\] (.+?) \([\d.]+ s\)$", done.stderr, re.M)
    assert steps == [
        "ingest: 12 sources fetched or read, checked, loaded",
        "raw tables",
        "dbt models, per-day marts of the day and tests",
        "alerts",
        "publish for readers",
        "report",
    ], done.stderr[-3000:]
    # dbt's and GX's own output is in the log file, not on the screen
    assert "Finished running" in Path(log).read_text()
    assert "Finished running" not in done.stdout + done.stderr
    # one day for everything on the screen, with its coverage and why
    assert f"Showing {SHOWN}: 3 of 6 providers fresh" in done.stdout
    assert f"GPU ranking for {SHOWN} (on_demand)" in done.stdout
    assert f"Cheapest GPU per accepted output on {SHOWN}" in done.stdout
    classes = [
        c
        for (c,) in query(
            demo_copy, "select workload_class from reference.workload_classes order by 1"
        )
    ]
    leaders = [
        line.split()[0]
        for line in done.stdout.splitlines()
        if line.split()[:1] and line.split()[0] in classes
    ]
    assert leaders == classes
    # a leader whose latency target no run could check says so on its line (8 of 13 that day)
    unchecked = {
        c
        for (c,) in query(
            demo_copy,
            "select workload_class from marts.fct_gpu_rankings_daily "
            "where day = ? and gpu_rank = 1 and slo_status = 'unknown'",
            [SHOWN],
        )
    }
    assert len(unchecked) == 8 and "chat-70b-latency" in unchecked
    assert "assistant-405b" not in unchecked  # it sets no latency target
    flagged = {
        line.split()[0]
        for line in done.stdout.splitlines()
        if line.split()[:1] and line.split()[0] in classes and "SLO unchecked" in line
    }
    assert flagged == unchecked
    shown = query(
        demo_copy,
        "select n_providers_fresh, n_providers_recent from marts.fct_coverage_daily where day = ?",
        [SHOWN],
    )
    assert shown == [(3, 6)]  # at least half of the recent providers are fresh that day
    # the "best API" column's prices come from a catalog taken after the day (the demo's only
    # one, installed with the package): said once under the table, with by how much, as the
    # API rows of the marts count it and as raw's capture day of the catalog gives it
    ages = query(
        demo_copy,
        "select distinct days_since_observed from marts.fct_gpu_rankings_daily "
        "where day = ? and option_kind = 'model_api'",
        [SHOWN],
    )
    taken = query(
        demo_copy,
        "select distinct cast(snapshot_fetched_at as date) from raw.api_prices "
        "where source = 'model_api_prices'",
    )
    later = (taken[0][0] - date.fromisoformat(SHOWN)).days
    assert len(taken) == 1 and later > 0 and ages == [(-later,)]
    assert (
        f"best API: price from a catalog taken {later} days after {SHOWN} "
        "(warehouse/README.md: model-API prices by day)"
    ) in done.stdout.splitlines()
