"""The shared HTTP client against a real server on 127.0.0.1."""

from __future__ import annotations

import socket
import time

import pytest

from sources._internal.http import FetchError, HttpClient
from tests.conftest import Route


def client(**kw) -> HttpClient:
    kw.setdefault("min_interval_s", 0.0)
    kw.setdefault("backoff_s", 0.01)
    kw.setdefault("timeout_s", 2.0)
    return HttpClient(**kw)


def test_ok_body_type_etag_and_user_agent(http_server):
    http_server.routes["/p.csv"] = Route(b"a,b\n1,2\n", 200, "text/csv")
    result = client().get(http_server.url("/p.csv"))
    assert (result.status, result.content, result.content_type) == (200, b"a,b\n1,2\n", "text/csv")
    assert result.etag and result.fetched_at.tzinfo is not None
    assert http_server.hits["/robots.txt"] == 1  # asked once, 404 = allowed


def test_conditional_get_returns_not_modified(http_server):
    http_server.routes["/p"] = Route(b"same")
    c = client()
    first = c.get(http_server.url("/p"))
    second = c.get(http_server.url("/p"), etag=first.etag)
    assert second.not_modified and second.content == b""


@pytest.mark.parametrize("status", [500, 503, 429])
def test_server_errors_are_retried_then_reported(http_server, status):
    http_server.routes["/p"] = Route(b"busy", status)
    with pytest.raises(FetchError) as err:
        client(retries=2).get(http_server.url("/p"))
    assert http_server.hits["/p"] == 3
    assert http_server.url("/p") in str(err.value)


def test_client_errors_are_not_retried(http_server):
    with pytest.raises(FetchError) as err:
        client(retries=3).get(http_server.url("/missing"))
    assert http_server.hits["/missing"] == 1
    assert err.value.status == 404


def test_robots_txt_is_respected(http_server):
    http_server.routes["/robots.txt"] = Route(
        b"User-agent: *\nDisallow: /private/\n", 200, "text/plain"
    )
    http_server.routes["/private/p"] = Route(b"x")
    with pytest.raises(FetchError, match="robots.txt"):
        client().get(http_server.url("/private/p"))
    assert http_server.hits["/private/p"] == 0


def test_size_cap(http_server):
    http_server.routes["/big"] = Route(b"x" * 5000)
    with pytest.raises(FetchError, match="cap"):
        client(max_bytes=1000).get(http_server.url("/big"))


def test_timeout(http_server):
    http_server.routes["/slow"] = Route(b"x", delay_s=1.5)
    with pytest.raises(FetchError, match="timed out|gave up|failed"):
        client(timeout_s=0.3, retries=0).get(http_server.url("/slow"))


def test_connection_refused_names_the_url():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/p"
    with pytest.raises(FetchError) as err:
        client(retries=0).get(url)
    assert url in str(err.value)
    assert "connection refused by 127.0.0.1" in str(err.value)


def test_dns_failure_names_the_url(monkeypatch):
    def no_dns(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(
        socket, "getaddrinfo", no_dns
    )  # the resolver fails; nothing leaves the host
    url = "http://prices.provider.test/p"
    with pytest.raises(FetchError) as err:
        client(retries=0).get(url)
    assert (
        str(err.value)
        == f"{url}: DNS lookup failed for prices.provider.test (network down or unknown host)"
    )


def test_a_host_whose_name_did_not_resolve_is_not_asked_again_in_the_run(monkeypatch, http_server):
    asked = []

    def no_dns(host, *args, **kwargs):
        asked.append(host)
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    resolve = socket.getaddrinfo
    monkeypatch.setattr(
        socket, "getaddrinfo",
        lambda host, *a, **kw: resolve(host, *a, **kw) if host == "127.0.0.1" else no_dns(host),
    )  # fmt: skip
    http = client(retries=0, respect_robots=False)
    first, second = "http://catalogs.provider.test/a.csv", "http://catalogs.provider.test/b.csv"
    with pytest.raises(FetchError) as err:
        http.get(first)
    assert str(err.value) == (
        f"{first}: DNS lookup failed for catalogs.provider.test (network down or unknown host)"
    )
    looked_up = len(asked)
    assert looked_up >= 1
    with pytest.raises(FetchError) as err:
        http.get(second)
    assert str(err.value) == (
        f"{second}: DNS lookup failed for catalogs.provider.test (network down or unknown host); "
        "not asked again in this run"
    )
    assert len(asked) == looked_up  # the resolver was not asked for the second URL
    # another host of the same run is asked as usual, and a new run asks the first host again
    http_server.routes["/ok"] = Route(b"fine", 200, "text/plain")
    assert http.get(http_server.url("/ok")).content == b"fine"
    with pytest.raises(FetchError) as err:
        client(retries=0, respect_robots=False).get(second)
    assert "not asked again" not in str(err.value) and len(asked) > looked_up


def test_unsupported_scheme():
    with pytest.raises(FetchError, match="scheme"):
        client().get("file:///etc/passwd")


def test_429_honours_retry_after_then_succeeds(http_server):
    http_server.routes["/p"] = Route(b"ok", before=[(429, {"Retry-After": "1"})])
    started = time.monotonic()
    result = client(retries=2).get(http_server.url("/p"))
    assert result.content == b"ok"
    assert http_server.hits["/p"] == 2
    assert time.monotonic() - started >= 1.0  # waited as asked


def test_retry_after_beyond_the_cap_fails_fast(http_server):
    http_server.routes["/p"] = Route(b"ok", before=[(503, {"Retry-After": "3600"})])
    started = time.monotonic()
    with pytest.raises(FetchError, match="retry after 3600s"):
        client(retries=2).get(http_server.url("/p"))
    assert time.monotonic() - started < 5


def test_conditional_get_by_last_modified(http_server):
    stamp = "Sat, 22 Aug 2026 06:00:00 GMT"
    http_server.routes["/p"] = Route(b"x", etag=False, headers={"Last-Modified": stamp})
    c = client()
    first = c.get(http_server.url("/p"))
    assert (first.status, first.last_modified, first.etag) == (200, stamp, None)
    second = c.get(http_server.url("/p"), last_modified=first.last_modified)
    assert second.not_modified and second.last_modified == stamp
