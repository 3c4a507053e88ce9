"""Publishing the read-only copy: atomic, checked, and never leaving a broken or half copy."""

from __future__ import annotations

import errno
import json
import os
import stat
import time
from datetime import date
from pathlib import Path

import duckdb
import pytest

from warehouse import publish
from warehouse.paths import Paths

DAY = date(2026, 8, 22)


def working_db(paths: Paths, price: float, with_views: bool = True) -> None:
    """A small warehouse with a mart table and an analytics view over it."""
    paths.home.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(paths.db_path))
    try:
        con.execute("create schema if not exists marts")
        con.execute("create or replace table marts.prices as select 'h100' gpu, ? usd", [price])
        if with_views:
            con.execute("create schema if not exists analytics")
            con.execute("create or replace view analytics.prices as select * from marts.prices")
    finally:
        con.close()


def read_price(path: Path) -> float:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute("select usd from analytics.prices").fetchone()[0]
    finally:
        con.close()


def test_publish_copies_checks_and_describes(tmp_path):
    paths = Paths(tmp_path)
    working_db(paths, 2.95)
    done = publish.publish(paths, DAY, "run-1")
    assert done.views == {"prices": 1}
    assert read_price(paths.published_db_path) == 2.95
    # readers get a file they cannot write to by accident
    assert not stat.S_IMODE(paths.published_db_path.stat().st_mode) & 0o222
    manifest = json.loads((paths.published_dir / "PUBLISHED.json").read_text())
    assert manifest["run_id"] == "run-1" and manifest["as_of"] == "2026-08-22"
    assert manifest["size_bytes"] == paths.published_db_path.stat().st_size
    # where the time went, in order (the scale run reports them at three years of history)
    assert list(done.phases) == ["checkpoint", "copy", "check", "flush", "rename"]
    assert manifest["phases"] == done.phases and all(v >= 0 for v in done.phases.values())
    # the parts are within the whole (each figure is rounded to the millisecond: half of one
    # per figure either way)
    assert sum(done.phases.values()) <= done.seconds + 0.0005 * (len(done.phases) + 1)
    assert list(paths.published_dir.glob(".*.tmp")) == []


def test_a_reader_keeps_its_snapshot_while_a_new_copy_is_published(tmp_path):
    paths = Paths(tmp_path)
    working_db(paths, 2.95)
    publish.publish(paths, DAY, "run-1")
    reader = publish.connect(paths)
    try:
        working_db(paths, 2.49)
        publish.publish(paths, DAY, "run-2")  # the reader's open file does not stop it
        assert reader.execute("select usd from analytics.prices").fetchone()[0] == 2.95
    finally:
        reader.close()
    # once the process's connections to the old copy are closed, a new one sees the new run
    # (DuckDB shares one open database between a process's connections to the same path)
    assert read_price(paths.published_db_path) == 2.49


def test_a_copy_without_analytics_views_is_not_published(tmp_path):
    paths = Paths(tmp_path)
    working_db(paths, 2.95)
    publish.publish(paths, DAY, "run-1")
    paths.db_path.unlink()
    working_db(paths, 9.99, with_views=False)
    with pytest.raises(publish.PublishError, match="no views in schema analytics"):
        publish.publish(paths, DAY, "run-2")
    assert read_price(paths.published_db_path) == 2.95
    assert publish.publication(paths)["run_id"] == "run-1"
    assert list(paths.published_dir.glob(".*.tmp")) == []


def test_a_view_that_does_not_answer_is_not_published(tmp_path):
    paths = Paths(tmp_path)
    working_db(paths, 2.95)
    publish.publish(paths, DAY, "run-1")
    con = duckdb.connect(str(paths.db_path))
    con.execute("create view analytics.broken as select * from marts.prices")
    con.execute("drop table marts.prices")
    con.execute("create table marts.other as select 1 as x")
    con.close()
    with pytest.raises(publish.PublishError, match="does not answer"):
        publish.publish(paths, DAY, "run-2")
    assert read_price(paths.published_db_path) == 2.95


def test_the_published_copy_is_the_checkpointed_working_file_byte_for_byte(tmp_path):
    paths = Paths(tmp_path)
    working_db(paths, 2.95)
    publication = publish.publish(paths, DAY, "run-1")
    published = paths.published_db_path.read_bytes()
    assert published == paths.db_path.read_bytes()  # after CHECKPOINT the file is the database
    assert publication.size_bytes == len(published) > 0
    assert paths.published_db_path.stat().st_mode & 0o777 == 0o444


def test_disk_full_while_copying_leaves_the_published_copy_and_no_debris(tmp_path, monkeypatch):
    paths = Paths(tmp_path)
    working_db(paths, 2.95)
    publish.publish(paths, DAY, "run-1")
    working_db(paths, 2.49)
    real_copy = publish._copy

    def copy_until_full(src, dst):
        real_copy(src, dst)  # the partial file exists, as it would on a full disk
        raise OSError(errno.ENOSPC, "No space left on device", str(dst))

    monkeypatch.setattr(publish, "_copy", copy_until_full)
    with pytest.raises(publish.PublishError, match="No space left on device"):
        publish.publish(paths, DAY, "run-2")
    assert read_price(paths.published_db_path) == 2.95
    assert list(paths.published_dir.glob(".*.tmp")) == []
    monkeypatch.undo()
    publish.publish(paths, DAY, "run-3")  # the next run recovers
    assert read_price(paths.published_db_path) == 2.49


def test_the_copy_is_on_disk_and_checked_before_its_name_is_published(tmp_path, monkeypatch):
    """The copy is flushed to disk while it is checked; the rename waits for both."""
    paths = Paths(tmp_path)
    working_db(paths, 2.95)
    events = []
    real_flush, real_check, real_replace = publish._flush, publish.check, os.replace

    def slow_flush(path):
        time.sleep(0.3)  # longer than the check: a rename not waiting for it would come first
        real_flush(path)
        events.append("flushed")

    def check(path):
        views = real_check(path)
        events.append("checked")
        return views

    def replace(src, dst):
        events.append(f"renamed to {Path(dst).name}")
        real_replace(src, dst)

    monkeypatch.setattr(publish, "_flush", slow_flush)
    monkeypatch.setattr(publish, "check", check)
    monkeypatch.setattr(os, "replace", replace)
    publish.publish(paths, DAY, "run-1")
    assert events[:3] == ["checked", "flushed", "renamed to gpuledger.duckdb"]


def test_a_copy_that_cannot_be_flushed_is_not_published(tmp_path, monkeypatch):
    paths = Paths(tmp_path)
    working_db(paths, 2.95)
    publish.publish(paths, DAY, "run-1")
    working_db(paths, 2.49)

    def failing_disk(path):
        raise OSError(errno.EIO, "Input/output error", str(path))

    monkeypatch.setattr(publish, "_flush", failing_disk)
    with pytest.raises(publish.PublishError, match="Input/output error"):
        publish.publish(paths, DAY, "run-2")
    assert read_price(paths.published_db_path) == 2.95
    assert publish.publication(paths)["run_id"] == "run-1"
    assert list(paths.published_dir.glob(".*.tmp")) == []


def test_copies_left_by_a_killed_run_are_removed_when_old(tmp_path):
    paths = Paths(tmp_path)
    working_db(paths, 2.95)
    paths.published_dir.mkdir(parents=True)
    old = paths.published_dir / ".gpuledger.duckdb.123.dead.tmp"
    fresh = paths.published_dir / ".gpuledger.duckdb.456.live.tmp"
    old.write_bytes(b"half a database")
    fresh.write_bytes(b"another run's copy in progress")
    an_hour_ago = time.time() - 7200
    os.utime(old, (an_hour_ago, an_hour_ago))
    publish.publish(paths, DAY, "run-1")
    assert not old.exists() and fresh.exists()


def test_readers_get_a_clear_error_before_the_first_publication(tmp_path):
    with pytest.raises(publish.NotPublished, match="no published warehouse at .*gpuledger refresh"):
        publish.connect(Paths(tmp_path))
    assert publish.publication(Paths(tmp_path)) is None
