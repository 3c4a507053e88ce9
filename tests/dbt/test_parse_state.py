"""A new day does not change how dbt parses the project: the day reaches dbt as an environment
variable, read only when a node runs, so a daily build reuses the last parse whole."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).parents[2] / "dbt"
DBT = Path(sys.executable).parent / "dbt"

pytestmark = pytest.mark.slow


def _parse(target: Path, day: str, db: Path) -> list[str]:
    env = {**os.environ, "GPULEDGER_DB_PATH": str(db), "GPULEDGER_AS_OF": day,
           "GPULEDGER_WINDOW_START": day}  # fmt: skip
    done = subprocess.run(
        [str(DBT), "--log-format", "json", "--log-level", "debug", "parse",
         "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT),
         "--target-path", str(target)],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]
    return [json.loads(line)["info"]["msg"] for line in done.stdout.splitlines() if line]


def test_the_next_day_reuses_the_parse_state_whole(tmp_path):
    first, second = tmp_path / "day1", tmp_path / "day2"
    _parse(first, "2026-08-22", tmp_path / "w.duckdb")
    second.mkdir()
    shutil.copyfile(first / "partial_parse.msgpack", second / "partial_parse.msgpack")
    messages = _parse(second, "2026-08-23", tmp_path / "w.duckdb")
    assert "Partial parsing enabled, no changes found, skipping parsing" in messages
    assert not [m for m in messages if "files changed" in m and " 0 files changed" not in m]
