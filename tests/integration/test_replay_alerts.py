"""Daily operation replayed: the real Lambda catalog versions in their real order, one day each,
then a day whose capture is broken; alerts against an independent calculation; the same days
again; and a backfill of the same days in one pass that must equal the day-by-day runs."""

from __future__ import annotations

import io
import os
import shutil
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
import pytest

import sources
from pipelines import alerts
from pipelines.backfill import backfill
from pipelines.refresh import run_refresh
from sources._internal.archive import Archive
from tests.conftest import SKYPILOT, query
from warehouse.paths import Paths

pytestmark = [pytest.mark.integration, pytest.mark.slow]

URL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/{c}/catalogs/{s}/lambda/vms.csv"
VERSIONS = [  # oldest first (data/README.md): v5@4223d8e1 < v5@2a8fa5b2 < v7@11580132
    (date(2026, 6, 1), "v5", "4223d8e1"),
    (date(2026, 6, 2), "v5", "2a8fa5b2"),
    (date(2026, 6, 3), "v7", "11580132"),
]
BROKEN_DAY = date(2026, 6, 4)
DAYS = [d for d, _, _ in VERSIONS] + [BROKEN_DAY]
CONFIG = {"seed_demo_archive": False, "url_overrides": {n: [] for n in sources.REGISTRY}}


def archive_captures(root: Path) -> None:
    archive = Archive(root)
    for day, schema, commit in VERSIONS:
        content = (SKYPILOT / f"{schema}_lambda_vms@{commit}.csv").read_bytes()
        at = datetime(day.year, day.month, day.day, 6, tzinfo=UTC)
        archive.put("skypilot", URL.format(c=commit, s=schema), at, content, 200, origin="import")
    # the next day's capture came back cut off after its header: every row fails
    header = (SKYPILOT / "v7_lambda_vms@11580132.csv").read_text().splitlines()[0]
    broken = (header + "\n" + "gpu_1x_h100_pcie,H100,1,26,200,not-a-price,,us-east-1,\n").encode()
    at = datetime(2026, 6, 4, 6, tzinfo=UTC)
    archive.put("skypilot", URL.format(c="broken00", s="v7"), at, broken, 200, origin="import")


def day_run(paths: Paths, day: date) -> None:
    """One daily run: the job records and delivers its alerts itself (the ops/alerts asset)."""
    out = io.StringIO()
    result = run_refresh(day, offline=True, paths=paths, extra_config=CONFIG, out=out)
    assert result.success, out.getvalue()


RANKING = """select day, workload_class, option_key, gpu_rank, round(cost_per_accepted_output, 12)
             from marts.fct_gpu_rankings_daily where day = ? order by all"""


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    root = tmp_path_factory.mktemp("replay")
    paths = Paths(root / "daily")
    archive_captures(paths.archive_dir)
    saved = {k: os.environ.get(k) for k in ("GPULEDGER_ALERT_SINKS", "GPULEDGER_ALERT_JSONL")}
    os.environ["GPULEDGER_ALERT_SINKS"] = "jsonl"
    os.environ["GPULEDGER_ALERT_JSONL"] = str(root / "alerts.jsonl")
    per_day = {}
    try:
        for day in DAYS:
            day_run(paths, day)
            # the ranking as that day's run published it
            per_day[day] = query(paths, RANKING, [day])
        yield root, paths, per_day
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_rank_change_alerts_match_an_independent_calculation(replay):
    root, paths, _ = replay
    sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
    import verify_economics

    con = duckdb.connect(str(paths.db_path), read_only=True)
    try:
        leaders = {}
        for d in DAYS:
            ranked_by_me = verify_economics.recompute(con, d)
            leaders[d] = {w: c[0]["gpu_id"] for w, c in ranked_by_me.items() if c}
    finally:
        con.close()
    expected = set()
    for prev, day in zip(DAYS, DAYS[1:], strict=False):
        for w, gpu in leaders[day].items():
            if w in leaders[prev] and leaders[prev][w] != gpu:
                expected.add(f"{w}|{day}|{gpu}")
    got = {
        k
        for (k,) in query(
            paths, "select alert_key from ops.alerts where alert_kind = 'rank_change'"
        )
    }
    assert got == expected
    assert len(expected) > 0  # prices changed and GPUs appeared between the catalog versions
    # and the leader of every class and day is the independent calculation's
    sql = """select day, workload_class, gpu_id from marts.fct_gpu_rankings_daily
             where gpu_rank = 1 and day between ? and ?"""
    ranked = query(paths, sql, [DAYS[0], DAYS[-1]])
    assert {(d, w): g for d, w, g in ranked} == {
        (d, w): g for d in DAYS for w, g in leaders[d].items()
    }
    delivered = [line for line in (root / "alerts.jsonl").read_text().splitlines()]
    assert len(delivered) == len(query(paths, "select * from ops.alerts"))  # each once


def test_a_broken_capture_gives_data_quality_alerts_and_no_ranking_alert(replay):
    _, paths, _ = replay
    on_broken_day = query(
        paths, "select alert_kind, day from ops.alerts where day = ? group by all", [BROKEN_DAY]
    )
    assert on_broken_day == [("data_quality", BROKEN_DAY)]
    messages = [
        m for (m,) in query(paths, "select message from ops.alerts where day = ?", [BROKEN_DAY])
    ]
    assert all("capture of source skypilot failed its checks" in m for m in messages)
    sql = """select count(distinct workload_class) from marts.fct_gpu_rankings_daily
             where day = ? and gpu_rank = 1 and source = 'skypilot'"""
    led = query(paths, sql, [BROKEN_DAY])
    assert len(messages) == led[0][0] > 0  # one per class whose leader comes from that source


def test_running_the_same_days_again_sends_nothing_new(replay):
    root, paths, _ = replay
    before = (root / "alerts.jsonl").read_text()
    n_alerts = query(paths, "select count(*) from ops.alerts")
    for day in DAYS:
        day_run(paths, day)
    con = duckdb.connect(str(paths.db_path))
    try:
        assert alerts.sync(con, BROKEN_DAY, start=DAYS[0]) == 0
        sink = alerts.JsonlSink(root / "alerts.jsonl")
        assert alerts.deliver(con, [sink]) == {"jsonl": {"delivered": 0, "failed": 0}}
    finally:
        con.close()
    assert (root / "alerts.jsonl").read_text() == before
    assert query(paths, "select count(*) from ops.alerts") == n_alerts


def test_backfill_in_one_pass_equals_the_day_by_day_runs(replay, tmp_path):
    root, daily, per_day = replay
    paths = Paths(tmp_path / "backfill")
    shutil.copytree(daily.archive_dir, paths.archive_dir)
    result, new = backfill(DAYS[0], DAYS[-1], paths=paths, out=io.StringIO(), deliver=False)
    assert result.success
    for day in DAYS:
        assert query(paths, RANKING, [day]) == per_day[day], day
    keys = "select alert_key, message from ops.alerts order by 1"
    assert query(paths, keys) == query(daily, keys)
    assert new == len(query(daily, keys))  # alerts in the range, recorded in one pass
    again, new_again = backfill(DAYS[0], DAYS[-1], paths=paths, out=io.StringIO(), deliver=False)
    assert again.success and new_again == 0 and query(paths, keys) == query(daily, keys)
