"""`dagster definitions validate` passes and `dagster dev` serves the asset graph on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from tests.conftest import free_port, headless

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def env_for(home: Path) -> dict[str, str]:
    dagster_home = home / "dagster_home"
    dagster_home.mkdir(parents=True, exist_ok=True)
    (dagster_home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    return {**os.environ, "GPULEDGER_HOME": str(home), "DAGSTER_HOME": str(dagster_home)}


def test_definitions_validate(tmp_path):
    done = subprocess.run(
        [str(BIN / "dagster"), "definitions", "validate", "-w", "workspace.yaml"],
        cwd=REPO,
        env=env_for(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "All code locations passed validation" in done.stderr + done.stdout


def test_dagster_dev_serves_the_asset_graph_grouped_by_layer(tmp_path):
    port = free_port()
    proc = subprocess.Popen(
        [str(BIN / "dagster"), "dev", "-w", "workspace.yaml", "-h", "127.0.0.1", "-p", str(port)],
        cwd=REPO,
        env=env_for(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    query = json.dumps({"query": "{ assetNodes { assetKey { path } } }"}).encode()
    keys: set[str] = set()
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and not keys:
            time.sleep(2)
            try:
                req = urllib.request.Request(
                    f"http://127.0.0.1:{port}/graphql",
                    data=query,
                    headers={"Content-Type": "application/json"},
                )
                with urllib.request.urlopen(req, timeout=10) as resp:
                    body = json.loads(resp.read())
            except (OSError, ValueError):
                continue
            nodes = (body.get("data") or {}).get("assetNodes") or []
            keys = {"/".join(n["assetKey"]["path"]) for n in nodes}
        drawn = headless("--dump-dom", f"http://127.0.0.1:{port}/asset-groups")
        assert drawn.returncode == 0, drawn.stderr[-2000:]
        page_text = BeautifulSoup(drawn.stdout, "html.parser").get_text(" ", strip=True)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
    assert {"ingest/skypilot", "raw/price_observations", "marts/fct_gpu_rankings_daily"} <= keys
    # the global lineage page, drawn in headless Chromium, shows the asset groups by layer
    words = set(page_text.split())
    assert {"ingest", "staging", "intermediate", "marts", "analytics", "reference"} <= words
    assert "default" not in words
