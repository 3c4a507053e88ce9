"""Shared fixtures and helpers: real captures, a real HTTP server on 127.0.0.1, the demo warehouse
built once per session (tests take copies), and the query, CLI and dbt runners every file uses."""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import duckdb
import pytest

from warehouse import publish
from warehouse.paths import Paths

FIXTURES = Path(__file__).parent / "fixtures"
SKYPILOT = FIXTURES / "skypilot"
COREWEAVE = FIXTURES / "coreweave"
OUTPUT = Path(__file__).parent / "_output"

# Nothing a test does may touch the repository's own warehouse/ folder. (Removed when the
# process ends: each pytest worker makes one.)
os.environ["GPULEDGER_HOME"] = tempfile.mkdtemp(prefix="gpuledger-test-home-")
atexit.register(shutil.rmtree, os.environ["GPULEDGER_HOME"], ignore_errors=True)


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    content_type: str = "application/octet-stream"
    delay_s: float = 0.0
    etag: bool = True
    headers: dict[str, str] = field(default_factory=dict)
    # Answers before this route's own, one per request: (status, headers), e.g. a 429 first.
    before: list[tuple[int, dict[str, str]]] = field(default_factory=list)


@dataclass
class LocalServer:
    """A real HTTP server. Routes map a path to what it answers; `hits` counts requests per path."""

    routes: dict[str, Route] = field(default_factory=dict)
    hits: Counter = field(default_factory=Counter)
    port: int = 0

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def serve_file(self, path: str, file: Path, content_type: str = "text/plain") -> str:
        self.routes[path] = Route(file.read_bytes(), 200, content_type)
        return self.url(path)


def _handler(server: LocalServer):
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            path = self.path.split("?", 1)[0]
            server.hits[path] += 1
            route = server.routes.get(path)
            if route is None:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if route.before:
                status, headers = route.before.pop(0)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if route.delay_s:
                time.sleep(route.delay_s)
            etag = '"' + hashlib.sha256(route.body).hexdigest()[:16] + '"'
            since = route.headers.get("Last-Modified")
            if route.status == 200 and (
                (route.etag and self.headers.get("If-None-Match") == etag)
                or (since and self.headers.get("If-Modified-Since") == since)
            ):
                self.send_response(304)
                self.send_header("ETag", etag)
                self.end_headers()
                return
            self.send_response(route.status)
            self.send_header("Content-Type", route.content_type)
            self.send_header("Content-Length", str(len(route.body)))
            if route.etag:
                self.send_header("ETag", etag)
            for name, value in route.headers.items():
                self.send_header(name, value)
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(route.body)

        def log_message(self, *args):
            pass

    return Handler


@pytest.fixture
def http_server():
    state = LocalServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.port = httpd.server_address[1]
    # a short poll interval: shutdown() waits for one, at the end of every test that serves
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


# ---------------------------------------------------------------- helpers every test file shares


def query(db: Path | Paths, sql: str, params=None) -> list[tuple]:
    """Rows of one query on a working warehouse, read-only: `db` is its Paths, its home folder or
    the .duckdb file itself."""
    if isinstance(db, Paths) or db.is_dir():
        db = (db if isinstance(db, Paths) else Paths(db)).db_path
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def published_rows(paths: Paths, sql: str, params=None) -> list[tuple]:
    """Rows of one query on the published copy, as the analysts' commands read it."""
    con = publish.connect(paths)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def gpuledger(
    home: Path | Paths, *args: str, stdin: str | None = None, timeout: int = 900
) -> subprocess.CompletedProcess:
    """The `gpuledger` command in its own process, on the warehouse in `home`."""
    folder = home.home if isinstance(home, Paths) else home
    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli", *args],
        env={**os.environ, "GPULEDGER_HOME": str(folder)},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def dbt(project: Path, db_path: Path, *args: str, target: Path) -> subprocess.CompletedProcess:
    """The dbt command of this environment on `project` against the DuckDB file `db_path`."""
    return subprocess.run(
        [str(Path(sys.executable).parent / "dbt"), *args, "--project-dir", str(project),
         "--profiles-dir", str(project), "--target-path", str(target)],
        env={**os.environ, "GPULEDGER_DB_PATH": str(db_path)},
        capture_output=True,
        text=True,
        timeout=600,
    )  # fmt: skip


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (closed once this returns)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- headless Chromium


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found := shutil.which(name):
            return found
    if os.environ.get("CI"):
        pytest.fail("no Chromium: `make test` installs Debian's chromium package")
    pytest.skip("no Chromium on this machine (make test installs it as root)")


def headless(*args: str) -> subprocess.CompletedProcess:
    profile = tempfile.mkdtemp(prefix="gpuledger-chromium-")
    try:
        return subprocess.run(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={profile}", "--virtual-time-budget=20000",
             *args],
            capture_output=True, text=True, timeout=180,
        )  # fmt: skip
    finally:
        shutil.rmtree(profile, ignore_errors=True)


# ---------------------------------------------------------------- the demo warehouse, built once

DEMO_DAY = date(2026, 8, 22)  # the demo archive's newest capture day


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory) -> tuple[Paths, str]:
    """`make run` offline on the shipped demo archive, once per session: the warehouse, its
    published copy and report, and what the run printed. Tests never change it: they take a copy.

    With several workers (xdist) the first one to need it builds it in the session's shared
    temporary folder under a file lock; the others wait for it and read it."""
    from filelock import FileLock

    from pipelines.refresh import run_refresh

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # a worker's basetemp is below the session's one
        shared = shared.parent
    paths = Paths(shared / "demo-build")
    summary = shared / "demo-build.summary.txt"
    with FileLock(str(shared / "demo-build.lock")):
        if not summary.exists():
            out = io.StringIO()
            result = run_refresh(DEMO_DAY, offline=True, paths=paths, out=out)
            assert result.success, out.getvalue()
            summary.write_text(out.getvalue(), encoding="utf-8")
    return paths, summary.read_text(encoding="utf-8")


@dataclass
class NextDayBuild:
    """The demo's home with the day after DEMO_DAY built incrementally (see demo_next_day)."""

    home: Paths  # read only: a test that changes it takes a copy (copy_home)
    run_id: str  # the run's id in the home's Dagster storage
    log: str  # what the refresh printed
    dbt_commands: list[str]  # the dbt commands the run started, sorted ("build", "ls")


@pytest.fixture(scope="session")
def demo_next_day(demo_build, tmp_path_factory) -> NextDayBuild:
    """A copy of the demo home with the next day (DEMO_DAY + 1) refreshed offline, as a day's
    scheduled run does after the demo's (incrementally, alerts recorded but not delivered), once
    per session and shared by the workers as demo_build is. Its spare copy is brought up to date
    rather than replaced (SYNC_MIN_BYTES 0; the demo's 110 MB would otherwise be copied whole),
    so that a rerun on a copy publishes by updating it."""
    from filelock import FileLock

    from pipelines.refresh import run_refresh

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    folder = shared / "next-day-build"
    record = shared / "next-day-build.json"
    with FileLock(str(shared / "next-day-build.lock")):
        if not record.exists():
            paths = copy_demo(demo_build, folder)
            before = set((paths.home / "dbt_runs").iterdir())
            out = io.StringIO()
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(publish, "SYNC_MIN_BYTES", 0)
                result = run_refresh(DEMO_DAY + timedelta(days=1), offline=True, paths=paths,
                                     out=out, extra_config={"deliver_alerts": False})  # fmt: skip
            assert result.success, out.getvalue()
            ran = sorted(f.name.rsplit("-", 1)[1]
                         for f in set((paths.home / "dbt_runs").iterdir()) - before)  # fmt: skip
            record.write_text(json.dumps(
                {"run_id": result.run_id, "log": out.getvalue(), "dbt_commands": ran}
            ), encoding="utf-8")  # fmt: skip
    kept = json.loads(record.read_text(encoding="utf-8"))
    return NextDayBuild(Paths(folder), kept["run_id"], kept["log"], kept["dbt_commands"])


def copy_home(source: Paths, folder: Path) -> Paths:
    """A private copy of a home (warehouse, archive, published copy, Dagster home)."""
    shutil.copytree(source.home, folder, symlinks=True, dirs_exist_ok=True)
    return Paths(folder)


def copy_demo(demo_build: tuple[Paths, str], folder: Path) -> Paths:
    """A private copy of the demo home (warehouse, archive, published copy, Dagster home)."""
    return copy_home(demo_build[0], folder)


@pytest.fixture
def demo_copy(demo_build, tmp_path) -> Paths:
    """A copy of the demo home for a test that changes it (a rerun, an import, a rebuild)."""
    return copy_demo(demo_build, tmp_path / "demo")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files with the most `slow` tests first. Each worker takes a whole file (--dist loadfile),
    so the longest files then run beside each other rather than one of them alone at the end.
    The sort is stable: a file's tests keep their order and stay together. xdist keeps this
    order only with --no-loadscope-reorder (pyproject.toml); by default it hands out the files
    with the most tests first. Measured: make test's pytest 908.5 s with xdist's order (14:35),
    851.9 s with this one (15:22), against 835.5 s for the suite's 1,671 test-seconds split
    evenly over the two workers."""
    slow = Counter(item.path for item in items if item.get_closest_marker("slow"))
    items.sort(key=lambda item: -slow[item.path])
