"""The content-addressed snapshot archive."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from sources._internal.archive import Archive, sha256_hex

T1 = datetime(2026, 8, 1, 8, tzinfo=UTC)
T2 = datetime(2026, 8, 2, 8, tzinfo=UTC)


def test_same_bytes_stored_once_each_fetch_recorded(tmp_path):
    archive = Archive(tmp_path)
    a = archive.put("s", "http://h/p", T1, b"page", 200, "text/html")
    b = archive.put("s", "http://h/p", T2, b"page", 200, "text/html")
    assert a.sha256 == b.sha256 == sha256_hex(b"page")
    assert len(list((tmp_path / "objects").rglob("*"))) == 2  # one folder, one object
    assert [s.fetched_at for s in archive.snapshots("s")] == [
        "2026-08-01T08:00:00.000000+00:00",
        "2026-08-02T08:00:00.000000+00:00",
    ]
    assert archive.read(a.sha256) == b"page"


def test_same_event_twice_is_a_no_op(tmp_path):
    archive = Archive(tmp_path)
    archive.put("s", "http://h/p", T1, b"page")
    archive.put("s", "http://h/p", T1, b"page")
    assert len(list(archive.snapshots())) == 1


def test_corrupted_object_is_detected(tmp_path):
    archive = Archive(tmp_path)
    snap = archive.put("s", "http://h/p", T1, b"page")
    (tmp_path / snap.archive_path).write_bytes(b"tampered")
    with pytest.raises(ValueError, match="corrupted"):
        archive.read(snap.sha256)


def test_naive_timestamps_are_refused(tmp_path):
    with pytest.raises(ValueError, match="timezone"):
        Archive(tmp_path).put("s", "http://h/p", datetime(2026, 8, 1), b"x")


def test_copy_from_and_latest(tmp_path):
    src = Archive(tmp_path / "a")
    src.put("s", "http://h/p", T1, b"one")
    src.put("s", "http://h/p", T2, b"two")
    dst = Archive(tmp_path / "b")
    assert dst.copy_from(src, origin="demo") == 2
    assert dst.copy_from(src, origin="demo") == 0
    latest = dst.latest("s", "http://h/p")
    assert (dst.read(latest.sha256), latest.origin) == (b"two", "demo")


def test_lookups_follow_the_index_as_it_grows_and_is_replaced(tmp_path):
    """`latest` and the once-per-key check read lookups kept beside the parsed index; lines
    another process appends, an older page imported after a newer one, and an index replaced
    by another file are all seen as a scan of the whole file would see them."""
    archive = Archive(tmp_path)
    archive.put("s", "http://h/p", T2, b"two")
    assert archive.latest("s", "http://h/p").fetched_at.startswith("2026-08-02")
    # an import of an older fetch, recorded after: the newest fetch stays the latest
    archive.put("s", "http://h/p", T1, b"one", origin="import")
    assert archive.read(archive.latest("s", "http://h/p").sha256) == b"two"
    # another process appends a newer fetch of the page (its own line, its own object)
    other = Archive(tmp_path)
    event = {
        "source": "s", "url": "http://h/p", "fetched_at": "2026-08-03T08:00:00.000000+00:00",
        "http_status": 200, "content_type": "", "size_bytes": 5, "sha256": sha256_hex(b"three"),
    }  # fmt: skip
    line = json.dumps(event) + "\n"
    other._write_object(sha256_hex(b"three"), b"three")
    with (tmp_path / "index.jsonl").open("a") as fh:
        fh.write(line)
    assert archive.read(archive.latest("s", "http://h/p").sha256) == b"three"
    assert archive.latest("s", "http://h/other") is None
    # the same event again is still a no-op, whoever wrote it first
    archive.put("s", "http://h/p", datetime(2026, 8, 3, 8, tzinfo=UTC), b"three")
    assert len(list(archive.snapshots("s"))) == 3
    # the index replaced by another (a restored backup): the lookups are those of the new file
    restored = tmp_path / "restored.jsonl"
    restored.write_text((tmp_path / "index.jsonl").read_text().splitlines(True)[1])
    restored.replace(tmp_path / "index.jsonl")
    assert archive.read(archive.latest("s", "http://h/p").sha256) == b"one"
    assert len(list(archive.snapshots())) == 1


def test_a_source_s_snapshots_are_its_own_in_index_order_as_the_index_grows(tmp_path):
    """snapshots(source) reads a per-source list kept beside the parsed index: the same events,
    in the same order, as filtering the whole index, also after lines are appended."""
    archive = Archive(tmp_path)
    archive.put("a", "http://h/1", T2, b"a1")
    archive.put("b", "http://h/2", T1, b"b1")
    archive.put("a", "http://h/1", T1, b"a0", origin="import")
    assert [(s.source, s.sha256) for s in archive.snapshots("a")] == [
        ("a", sha256_hex(b"a1")), ("a", sha256_hex(b"a0"))
    ]  # fmt: skip
    archive.put("b", "http://h/3", T2, b"b2")
    archive.put("a", "http://h/4", T2, b"a2")
    for source in ("a", "b"):
        assert list(archive.snapshots(source)) == [
            s for s in archive.snapshots() if s.source == source
        ]
    assert [s.url for s in archive.snapshots("b")] == ["http://h/2", "http://h/3"]
    assert list(archive.snapshots("none")) == []
