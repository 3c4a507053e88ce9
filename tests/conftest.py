"""Shared fixtures: real captures and a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
SKYPILOT = FIXTURES / "skypilot"
COREWEAVE = FIXTURES / "coreweave"
OUTPUT = Path(__file__).parent / "_output"

# Nothing a test does may touch the repository's own warehouse/ folder.
os.environ["GPULEDGER_HOME"] = tempfile.mkdtemp(prefix="gpuledger-test-home-")


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
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
