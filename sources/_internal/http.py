"""The one HTTP client every source uses.

Honest User-Agent, a timeout on every call, retries with backoff on 5xx / 429 / timeouts (never on
other 4xx), robots.txt respected, a per-host rate limit, conditional GET (ETag / Last-Modified)
and a size cap. Credentials, where a source needs them, come from environment variables only.
"""

from __future__ import annotations

import os
import threading
import time
import urllib.robotparser
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

USER_AGENT = os.environ.get(
    "GPULEDGER_USER_AGENT",
    "gpuledger/0.1 (GPU price and benchmark ledger; polite daily fetch; contact via project owner)",
)
DEFAULT_TIMEOUT_S = float(os.environ.get("GPULEDGER_HTTP_TIMEOUT_S", "20"))
DEFAULT_MAX_BYTES = int(os.environ.get("GPULEDGER_HTTP_MAX_BYTES", str(50 * 1024 * 1024)))
DEFAULT_MIN_INTERVAL_S = float(os.environ.get("GPULEDGER_HTTP_MIN_INTERVAL_S", "1.0"))
RETRY_STATUSES = (429, 500, 502, 503, 504)
MAX_RETRY_AFTER_S = float(os.environ.get("GPULEDGER_HTTP_MAX_RETRY_AFTER_S", "60"))


DNS_FAILED = "DNS lookup failed for"


class _PoliteRetry(Retry):
    """urllib3's Retry, honouring Retry-After on 429/503 but never sleeping longer than the cap:
    a server asking for an hour gets reported as failed instead of stalling the daily run."""

    def get_retry_after(self, response):
        seconds = super().get_retry_after(response)
        if seconds is not None and seconds > MAX_RETRY_AFTER_S:
            raise _RetryAfterTooLong(seconds)
        return seconds


class _RetryAfterTooLong(Exception):
    def __init__(self, seconds: float):
        self.seconds = seconds
        super().__init__(f"server asked to retry after {seconds:g}s (cap {MAX_RETRY_AFTER_S:g}s)")


class FetchError(Exception):
    """A fetch that did not produce a usable response. The message names the URL and the cause."""

    def __init__(self, url: str, reason: str, status: int | None = None):
        self.url = url
        self.reason = reason
        self.status = status
        super().__init__(f"{url}: {reason}")


@dataclass(frozen=True)
class FetchResult:
    url: str
    status: int
    content: bytes
    content_type: str
    fetched_at: datetime
    etag: str | None = None
    last_modified: str | None = None

    @property
    def not_modified(self) -> bool:
        return self.status == 304


class HttpClient:
    """A polite requests.Session. One instance per run; safe to share between sources."""

    def __init__(
        self,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_bytes: int = DEFAULT_MAX_BYTES,
        min_interval_s: float = DEFAULT_MIN_INTERVAL_S,
        retries: int = 3,
        backoff_s: float = 0.5,
        respect_robots: bool = True,
    ):
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes
        self.min_interval_s = min_interval_s
        self.respect_robots = respect_robots
        self.session = requests.Session()
        self.session.headers["User-Agent"] = USER_AGENT
        retry = _PoliteRetry(
            total=retries,
            connect=1,
            read=retries,
            status=retries,
            backoff_factor=backoff_s,
            status_forcelist=RETRY_STATUSES,
            allowed_methods=frozenset({"GET", "HEAD"}),
            respect_retry_after_header=True,
            raise_on_status=False,
        )
        adapter = HTTPAdapter(max_retries=retry)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        self._last_request: dict[str, float] = {}
        self._robots: dict[str, urllib.robotparser.RobotFileParser | None] = {}
        # hosts whose name did not resolve in this client's run (the resolver asked twice, as
        # urllib3 retries a failed connection once): their other URLs fail at once with that
        # reason, instead of each waiting its polite turn (min_interval_s) to fail the same way
        # (without network, the 17 SkyPilot catalogs on one host took 17 s to fail)
        self._unresolved: dict[str, str] = {}
        self._lock = threading.Lock()

    def _wait_turn(self, host: str) -> None:
        with self._lock:
            last = self._last_request.get(host)
            now = time.monotonic()
            if last is not None and now - last < self.min_interval_s:
                time.sleep(self.min_interval_s - (now - last))
            self._last_request[host] = time.monotonic()

    def _allowed_by_robots(self, url: str) -> bool:
        parts = urlsplit(url)
        base = f"{parts.scheme}://{parts.netloc}"
        if base not in self._robots:
            parser: urllib.robotparser.RobotFileParser | None = urllib.robotparser.RobotFileParser()
            try:
                self._wait_turn(parts.netloc)
                resp = self.session.get(f"{base}/robots.txt", timeout=self.timeout_s)
            except requests.RequestException:
                parser = None  # unreachable robots.txt: the page fetch itself will report the cause
            else:
                if resp.status_code == 200:
                    parser.parse(resp.text.splitlines())
                elif resp.status_code in (401, 403):
                    parser.disallow_all = True
                else:
                    parser.allow_all = True
            self._robots[base] = parser
        parser = self._robots[base]
        return parser is None or parser.can_fetch(USER_AGENT, url)

    def get(
        self, url: str, etag: str | None = None, last_modified: str | None = None
    ) -> FetchResult:
        """GET `url`; FetchError naming the URL on network errors, 4xx/5xx or oversize bodies."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise FetchError(url, f"unsupported URL scheme {parts.scheme!r}")
        host = parts.hostname or ""
        if host in self._unresolved:
            raise FetchError(url, f"{self._unresolved[host]}; not asked again in this run")
        if self.respect_robots and not self._allowed_by_robots(url):
            raise FetchError(url, "disallowed by robots.txt")
        headers = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        self._wait_turn(parts.netloc)
        fetched_at = datetime.now(UTC)
        try:
            resp = self.session.get(url, headers=headers, timeout=self.timeout_s, stream=True)
        except _RetryAfterTooLong as exc:
            raise FetchError(url, str(exc)) from exc
        except requests.exceptions.RetryError as exc:
            raise FetchError(url, f"gave up after retries: {exc}") from exc
        except requests.Timeout as exc:
            raise FetchError(url, f"timed out after {self.timeout_s:g}s") from exc
        except requests.ConnectionError as exc:
            reason = _connection_reason(exc, host)
            if reason.startswith(DNS_FAILED):
                with self._lock:
                    self._unresolved[host] = reason
            raise FetchError(url, reason) from exc
        except requests.RequestException as exc:
            raise FetchError(url, f"request failed: {_short(exc)}") from exc
        with resp:
            if resp.status_code == 304:
                return FetchResult(
                    url,
                    304,
                    b"",
                    resp.headers.get("Content-Type", ""),
                    fetched_at,
                    resp.headers.get("ETag") or etag,
                    resp.headers.get("Last-Modified") or last_modified,
                )
            if resp.status_code >= 400:
                raise FetchError(url, f"HTTP {resp.status_code} {resp.reason}", resp.status_code)
            declared = resp.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > self.max_bytes:
                raise FetchError(
                    url, f"body of {declared} bytes exceeds the cap of {self.max_bytes}"
                )
            chunks, size = [], 0
            try:
                for chunk in resp.iter_content(chunk_size=65536):
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise FetchError(url, f"body exceeds the cap of {self.max_bytes} bytes")
                    chunks.append(chunk)
            except requests.RequestException as exc:
                raise FetchError(url, f"body read failed: {_short(exc)}") from exc
            return FetchResult(
                url=url,
                status=resp.status_code,
                content=b"".join(chunks),
                content_type=resp.headers.get("Content-Type", ""),
                fetched_at=fetched_at,
                etag=resp.headers.get("ETag"),
                last_modified=resp.headers.get("Last-Modified"),
            )


def _connection_reason(exc: Exception, host: str) -> str:
    text = str(exc)
    if "NameResolutionError" in text or "Failed to resolve" in text or "Name or service" in text:
        return f"{DNS_FAILED} {host} (network down or unknown host)"
    if "Connection refused" in text:
        return f"connection refused by {host}"
    if "timed out" in text.lower():
        return f"connection to {host} timed out"
    return f"connection failed: {_short(exc)}"


def _short(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) <= 300 else text[:297] + "..."


def fetch_page(client: HttpClient, url: str, previous=None) -> FetchResult:
    """The default `fetch` of a source: one conditional GET against the last archived snapshot."""
    return client.get(
        url,
        etag=getattr(previous, "etag", None),
        last_modified=getattr(previous, "last_modified", None),
    )
