"""Fault injection: each case breaks one thing on purpose, then checks that nothing already held was
lost, that the bad item was kept with its reason, and that the next run recovers.

Run alone with `pytest -m faults`; `make test` runs it with the rest. The fault table of
docs/testing.md lists what each case observes.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import pickle
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from datetime import date
from pathlib import Path

import duckdb
import pytest

import sources
from pipelines import alerts
from pipelines.defs.resources import GpuledgerResource
from pipelines.ingest import ingest_source
from pipelines.refresh import run_refresh
from sources import benchmark_files
from sources._internal.archive import Archive
from tests.conftest import DEMO_DAY, FIXTURES, SKYPILOT, Route, free_port, query
from tests.pipelines.test_alerts import CANDIDATES, Hook
from warehouse import publish
from warehouse.paths import Paths

pytestmark = pytest.mark.faults

LOG = logging.getLogger("gpuledger.faults")
LAMBDA = SKYPILOT / "v7_lambda_vms@11580132.csv"
CATALOG = "/catalogs/v7/lambda/vms.csv"
GOOD_RESULT = FIXTURES / "benchmarks" / "llmperf" / "summary" / "lepton_70b.json"
DAY = DEMO_DAY


# ---------------------------------------------------------------- helpers: one source, in-process


def settings(home: Path, url: str | None = None, **overrides) -> GpuledgerResource:
    config = {
        "home": str(home),
        "seed_demo_archive": False,
        "http_min_interval_s": 0.0,
        "http_retries": 1,
        "http_timeout_s": 5.0,
        "url_overrides": {"skypilot": [url]} if url else {},
    }
    config.update(overrides)
    return GpuledgerResource(**config)


def ingest(home: Path, url: str, **overrides):
    run_id = f"fault-{uuid.uuid4().hex[:8]}"
    summary = ingest_source(sources.skypilot, settings(home, url, **overrides), run_id, LOG)
    return run_id, summary


def held(home: Path) -> dict[str, int]:
    """What the warehouse and the archive hold: none of it may shrink under a fault."""
    archive = Archive(home / "archive")
    return {
        "archive_events": len(list(archive.snapshots())),
        "archive_objects": sum(p.is_file() for p in (home / "archive" / "objects").rglob("*")),
        **{
            t: query(home, f"select count(*) from raw.{t}")[0][0]
            for t in ("page_snapshots", "price_observations", "snapshot_validations")
        },
    }


def run_status(home: Path, run_id: str) -> list[tuple]:
    return query(
        home,
        "select url, fetch_status, fetch_error, used_archive from raw.source_runs where run_id = ?",
        [run_id],
    )


@pytest.fixture
def loaded(http_server, tmp_path):
    """A warehouse that already holds one good capture of the Lambda catalog."""
    http_server.serve_file(CATALOG, LAMBDA, "text/csv")
    url = http_server.url(CATALOG)
    _, summary = ingest(tmp_path, url)
    assert summary.fetched == 1 and summary.snapshots_loaded == 1 and summary.passed
    return tmp_path, url


# ---------------------------------------------------------------- network and HTTP faults


def _down(server, monkeypatch):
    return f"http://127.0.0.1:{free_port()}{CATALOG}", {}, "connection refused by 127.0.0.1"


def _dns(server, monkeypatch):
    real = socket.getaddrinfo

    def resolver(host, *args, **kwargs):
        if host == "prices.provider.test":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    return f"http://prices.provider.test{CATALOG}", {}, "DNS lookup failed for prices.provider.test"


def _timeout(server, monkeypatch):
    server.routes["/slow.csv"] = Route(LAMBDA.read_bytes(), 200, "text/csv", delay_s=2.0)
    return server.url("/slow.csv"), {"http_timeout_s": 0.5, "http_retries": 0}, "timed out"


def _status(code: int):
    def make(server, monkeypatch):
        server.routes[f"/{code}.csv"] = Route(b"busy", code, "text/plain")
        return server.url(f"/{code}.csv"), {}, f"HTTP {code}"

    return make


NETWORK_FAULTS = {
    "network down": _down,
    "DNS failure": _dns,
    "timeout": _timeout,
    "HTTP 429": _status(429),
    "HTTP 500": _status(500),
    "HTTP 503": _status(503),
}


@pytest.mark.parametrize("fault", NETWORK_FAULTS)
def test_network_fault_keeps_what_is_held_and_the_next_run_recovers(
    fault, loaded, http_server, monkeypatch
):
    home, good_url = loaded
    before = held(home)
    bad_url, overrides, reason = NETWORK_FAULTS[fault](http_server, monkeypatch)

    run_id, summary = ingest(home, bad_url, **overrides)
    # the failure is reported with the URL and the reason, the source falls back to its archive
    assert len(summary.fetch_failures) == 1
    assert bad_url in summary.fetch_failures[0] and reason in summary.fetch_failures[0]
    assert summary.used_archive and summary.snapshots_loaded == 0
    [(url, status, error, used_archive)] = run_status(home, run_id)
    assert (url, status, used_archive) == (bad_url, "failed", True) and reason in error
    assert held(home) == before  # nothing lost, nothing half-written

    monkeypatch.undo()
    run_id, summary = ingest(home, good_url)
    assert summary.fetch_failures == [] and summary.fetched == 1
    assert run_status(home, run_id)[0][1] in ("fetched", "not_modified")
    assert summary.snapshots_loaded == 1 and summary.passed  # today's capture is in


def test_429_with_retry_after_is_waited_out_within_the_run(loaded, http_server):
    home, _ = loaded
    http_server.routes["/busy.csv"] = Route(
        LAMBDA.read_bytes(), 200, "text/csv", before=[(429, {"Retry-After": "1"})]
    )
    url = http_server.url("/busy.csv")
    began = time.monotonic()
    run_id, summary = ingest(home, url)
    assert time.monotonic() - began >= 1.0
    assert summary.fetch_failures == [] and summary.snapshots_loaded == 1
    assert http_server.hits["/busy.csv"] == 2
    assert run_status(home, run_id)[0][1] == "fetched"


# ---------------------------------------------------------------- pages that changed or are empty


@pytest.mark.parametrize(
    "fault, body, reason",
    [
        (
            "layout change",
            LAMBDA.read_bytes().replace(b"Price", b"HourlyCost", 1),
            "Price",
        ),
        ("empty page", b"", "empty"),
    ],
)
def test_a_changed_or_empty_page_is_archived_quarantined_and_replaced_next_run(
    fault, body, reason, loaded, http_server
):
    home, good_url = loaded
    before = held(home)
    http_server.routes[CATALOG] = Route(body, 200, "text/csv")
    _, summary = ingest(home, good_url)
    assert summary.fetched == 1 and not summary.passed
    # the page is kept byte for byte, and its verdict says why it was refused
    newest = Archive(home / "archive").latest("skypilot", good_url)
    assert Archive(home / "archive").read(newest.sha256) == body
    verdict = query(
        home,
        """select success, failed_expectations from raw.snapshot_validations
           where snapshot_sha256 = ?""",
        [newest.sha256],
    )
    assert len(verdict) == 1 and verdict[0][0] is False and reason in verdict[0][1]
    accepted = query(
        home,
        """select count(*) from raw.price_observations as p
           join raw.snapshot_validations as v using (source, snapshot_url, snapshot_fetched_at)
           where v.success""",
    )[0][0]
    assert accepted == before["price_observations"]  # the earlier good rows still stand

    http_server.routes[CATALOG] = Route(LAMBDA.read_bytes(), 200, "text/csv")
    _, summary = ingest(home, good_url)
    assert summary.snapshots_loaded == 1 and summary.passed


# ---------------------------------------------------------------- the disk fills while archiving


def test_disk_full_while_archiving_leaves_no_torn_object_and_recovers(
    loaded, http_server, monkeypatch
):
    home, url = loaded
    before = held(home)
    index_before = (home / "archive" / "index.jsonl").read_bytes()
    http_server.routes[CATALOG] = Route(LAMBDA.read_bytes() + b"\n", 200, "text/csv")

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    run_id, summary = ingest(home, url)
    monkeypatch.undo()
    assert summary.fetched == 0 and summary.used_archive
    [(_, status, error, _)] = run_status(home, run_id)
    assert status == "failed" and "could not be archived" in error and "No space left" in error
    objects = home / "archive" / "objects"
    assert [p.name for p in objects.rglob(".tmp-*")] == []  # no half-written object
    assert (home / "archive" / "index.jsonl").read_bytes() == index_before
    assert held(home) == before

    _, summary = ingest(home, url)
    assert summary.fetched == 1 and summary.snapshots_loaded == 1 and summary.passed


def test_a_torn_index_line_does_not_stop_the_archive(loaded, http_server):
    home, url = loaded
    index = home / "archive" / "index.jsonl"
    with index.open("ab") as fh:
        fh.write(b'{"source": "skypilot", "url": "http://torn')  # a crash mid-append
    assert len(list(Archive(home / "archive").snapshots())) == 1
    http_server.routes[CATALOG] = Route(LAMBDA.read_bytes() + b"\n", 200, "text/csv")
    _, summary = ingest(home, url)
    assert summary.fetched == 1 and summary.snapshots_loaded == 1
    assert len(list(Archive(home / "archive").snapshots())) == 2


# ---------------------------------------------------------------- hostile and broken files


def inbox_settings(home: Path) -> GpuledgerResource:
    return settings(home, offline=True, url_overrides={"benchmark_files": []})


def test_hostile_and_broken_files_in_the_inbox_are_refused_kept_and_explained(tmp_path):
    home = tmp_path / "home"
    inbox = home / "inbox"
    inbox.mkdir(parents=True)
    outside = tmp_path / "outside.json"
    outside.write_text('{"not": "yours"}')
    marker = tmp_path / "code-ran"
    good_file = GOOD_RESULT
    shutil.copy(good_file, inbox / "good.json")
    # a truncated file, a 200 MB file (sparse), a name with traversal in it, a symlink out,
    # a pickle and a YAML file that would run a command if anything deserialized them
    (inbox / "truncated.json").write_bytes(good_file.read_bytes()[:700])
    with (inbox / "huge.json").open("wb") as fh:
        fh.truncate(200 * 1024 * 1024)
    shutil.copy(good_file, inbox / "runs\\..\\..\\..\\escape.json")
    # a name starting with a dot is an upload in progress by convention: left alone, untouched
    (inbox / "..\\..\\partial.json").write_bytes(b"{")
    (inbox / "link.json").symlink_to(outside)

    class Exploit:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    (inbox / "results.pkl").write_bytes(pickle.dumps(Exploit()))
    (inbox / "results.yaml").write_text(f'!!python/object/apply:os.system ["touch {marker}"]\n')

    summary = ingest_source(benchmark_files, inbox_settings(home), "fault-inbox", LOG)

    assert not marker.exists()  # no code from data ran
    assert outside.read_text() == '{"not": "yours"}'  # nothing outside the home was touched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "outside.json"]
    left = [p.name for p in inbox.iterdir()]
    assert sorted(left) == ["..\\..\\partial.json", "ingested", "rejected"]  # all accounted for
    kept = {p.name: p for p in (inbox / "rejected").rglob("*") if p.is_file()}
    reasons = {n: kept[n].read_text() for n in kept if n.endswith(".reason.txt")}
    assert "210 MB is over the 67 MB cap" in reasons["huge.json.reason.txt"]
    assert kept["huge.json"].stat().st_size == 200 * 1024 * 1024  # refused, not lost
    assert "symlink" in reasons["link.json.reason.txt"]
    assert kept["link.json"].is_symlink()
    ingested = {p.name for p in (inbox / "ingested").rglob("*") if p.is_file()}
    assert "good.json" in ingested
    # the traversal name stays a plain file inside the inbox, with its separators neutralised
    assert "runs_.._.._.._escape.json" in ingested
    quarantined = dict(
        query(
            home, "select snapshot_url, reason from raw.quarantine where source = 'benchmark_files'"
        )
    )
    assert any("truncated.json" in u for u in quarantined)
    truncated = next(r for u, r in quarantined.items() if "truncated.json" in u)
    assert "line" in truncated and "column" in truncated
    for name in ("results.pkl", "results.yaml"):
        assert any(name in u for u in quarantined), name
    loaded = query(home, "select count(*) from raw.benchmark_runs")[0][0]
    # the good file's one run; four files loaded: good, truncated, pickle, YAML (the traversal-named
    # copy has the good file's bytes and is archived once)
    assert loaded == 1 and summary.snapshots_loaded == 4

    # the next run finds nothing new and loses nothing
    again = ingest_source(benchmark_files, inbox_settings(home), "fault-inbox-2", LOG)
    assert again.snapshots_loaded == 0
    assert query(home, "select count(*) from raw.benchmark_runs")[0][0] == loaded


def test_the_same_file_ingested_twice_at_once_is_archived_once(tmp_path):
    home = tmp_path / "home"
    file = tmp_path / "run.json"  # bytes of its own, so the demo archive does not hold them
    file.write_bytes(GOOD_RESULT.read_bytes() + b"\n")
    env = {**os.environ, "GPULEDGER_HOME": str(home)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "pipelines.cli", "ingest", "--no-build", str(file)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    digest = hashlib.sha256(file.read_bytes()).hexdigest()
    events = [s for s in Archive(home / "archive").snapshots() if s.sha256 == digest]
    assert len(events) == 1  # one archived copy, no duplicate event
    assert Archive(home / "archive").read(digest) == file.read_bytes()


# ---------------------------------------------------------------- alerts: the webhook is down


def test_webhook_down_keeps_alerts_pending_and_delivers_them_once_when_back(tmp_path, monkeypatch):
    from http.server import HTTPServer
    from threading import Thread

    db = tmp_path / "w.duckdb"
    con = duckdb.connect(str(db))
    con.execute(CANDIDATES)
    con.close()
    port = free_port()
    monkeypatch.setenv("GPULEDGER_ALERT_SINKS", "webhook")
    monkeypatch.setenv("GPULEDGER_ALERT_WEBHOOK_URL", f"http://127.0.0.1:{port}/hook")
    monkeypatch.setenv("GPULEDGER_ALERT_WEBHOOK_RETRIES", "1")
    new, counts = alerts.run_alerts(db, tmp_path, date(2026, 3, 13), LOG)
    assert new == 2 and counts == {"webhook": {"delivered": 0, "failed": 2}}
    pending = alerts.list_alerts(db)
    assert [r["delivered_to"] for r in pending] == ["", ""]
    assert all("refused" in r["last_error"] or "connect" in r["last_error"] for r in pending)

    Hook.script, Hook.received = [], []
    server = HTTPServer(("127.0.0.1", port), Hook)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        new, counts = alerts.run_alerts(db, tmp_path, date(2026, 3, 13), LOG)
        assert new == 0 and counts == {"webhook": {"delivered": 2, "failed": 0}}
        new, counts = alerts.run_alerts(db, tmp_path, date(2026, 3, 13), LOG)
        assert counts == {"webhook": {"delivered": 0, "failed": 0}}  # never twice
    finally:
        server.shutdown()
    assert len(Hook.received) == 2
    assert {r["delivered_to"] for r in alerts.list_alerts(db)} == {"webhook"}


# ---------------------------------------------------------------- a killed refresh, a reader


HOLDER = r"""
import json, os, sys, time
import duckdb
path, stop, ready, out = sys.argv[1:5]
con = duckdb.connect(path, read_only=True)
Q = "select count(*), sum(cost_per_accepted_output) from analytics.workload_costs_daily"
first = con.execute(Q).fetchall()
open(ready, "w").close()
n, errors = 0, []
while not os.path.exists(stop):
    try:
        now = con.execute(Q).fetchall()
        if now != first:
            errors.append(f"snapshot changed: {first} -> {now}")
    except Exception as exc:
        errors.append(repr(exc))
    n += 1
    time.sleep(0.05)
open(out, "w").write(json.dumps([n, errors]))
"""


def raw_counts(paths: Paths) -> dict[str, int]:
    tables = ("page_snapshots", "price_observations", "gpu_specs", "fx_rates", "api_prices",
              "benchmark_runs", "snapshot_validations", "quarantine")  # fmt: skip
    return {t: query(paths, f"select count(*) from raw.{t}")[0][0] for t in tables}


@pytest.mark.slow
def test_a_refresh_killed_mid_run_leaves_the_published_copy_and_the_rerun_recovers(
    demo_copy, tmp_path
):
    """On a copy of the demo warehouse as an offline refresh of DAY left it."""
    paths = demo_copy
    published = publish.publication(paths)
    counts = raw_counts(paths)
    events = len(list(Archive(paths.archive_dir).snapshots()))
    # an analyst holds the published copy open through the whole ordeal
    stop, ready, out = tmp_path / "stop", tmp_path / "ready", tmp_path / "out"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(paths.published_db_path), str(stop), str(ready),
         str(out)], stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert holder.poll() is None and time.monotonic() < deadline, holder.stderr.read()
            time.sleep(0.1)

        runs_dir = paths.home / "dbt_runs"
        dbt_runs_before = set(runs_dir.iterdir())
        env = {**os.environ, "GPULEDGER_HOME": str(paths.home)}
        victim = subprocess.Popen(
            [sys.executable, "-m", "pipelines.cli", "refresh", "--offline", "--as-of",
             DAY.isoformat()],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 300
        # wait until dbt is building (a dbt build's folder: pipelines/defs/dbt.py names them)
        while not any(p.name.endswith("-build") for p in set(runs_dir.iterdir()) - dbt_runs_before):
            assert victim.poll() is None, "the refresh ended before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.2)
        time.sleep(3.0)
        os.killpg(victim.pid, signal.SIGKILL)  # the refresh and its dbt, mid-build
        victim.wait(timeout=60)
        assert victim.returncode == -signal.SIGKILL

        # the published copy is the one before the crash, whole, and still answers
        assert publish.publication(paths) == published
        assert set(publish.check(paths.published_db_path)) == set(published["views"])
        assert len(list(Archive(paths.archive_dir).snapshots())) == events

        log = io.StringIO()
        result = run_refresh(DAY, offline=True, paths=paths, out=log)
        assert result.success, log.getvalue()
        assert publish.publication(paths)["run_id"] == result.run_id
        assert raw_counts(paths) == counts  # no duplicate and no lost row after the rerun
        assert publish.publication(paths)["views"] == published["views"]

        stop.touch()
        holder.wait(timeout=60)
    finally:
        # a failed step must not leave the holder looping (it stops only on the stop file)
        stop.touch()
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=30)
    n, errors = json.loads(out.read_text())
    assert errors == [] and n > 10  # the reader never failed and its snapshot never moved
