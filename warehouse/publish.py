"""The read-only copy of the warehouse that analysts, the CLI's read commands and the report use.

DuckDB lets no other process open a database file while a writer holds it, not even read-only, and
a reader holding it would make the refresh fail. So nobody but the refresh opens the working file.
After each successful run the refresh publishes a copy: it checkpoints the working file while
holding its lock, copies it beside the published one, checks every analytics view of the copy
while flushing it to disk, and renames it over the published file. The rename is atomic: a new
connection sees the old copy or the new one, never a half-written file, and a session already
open keeps reading the copy it opened (its file stays on disk until it closes). A run that fails
before publishing leaves the last published copy as it was.

A day's run changes a few days of the marts and a few snapshots of raw data; above
`SYNC_MIN_BYTES` the copy a publication replaces is kept as the spare and the next publication
brings it up to date instead of copying the whole file (warehouse/spare_sync.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb

from warehouse import spare_sync
from warehouse.paths import Paths

ANALYTICS_SCHEMA = "analytics"
MANIFEST_NAME = "PUBLISHED.json"
_TMP_GLOB = ".gpuledger.duckdb.*.tmp"
SPARE_NAME = ".gpuledger.spare.duckdb"  # the previous published copy, updated in place next time
_NEXT_SPARE = ".gpuledger.spare.next"  # the copy being replaced, while its name is published
# Below this size the whole copy is the cheaper way: updating the spare costs about a second
# whatever the size (a few queries per table), copying ~2 ms per MB. Measured (scale run,
# 2026-12-02 13:58 UTC, a day after a day): 97 MB copy 0.11 s / update 2.2 s; 519 MB copy 0.26 s /
# update 1.06 s; 1.5 GB copy 1.9-4.0 s / update 1.2 s. Since the costs are views over their stored
# inputs the file holds 216 MB at 365 days and 572 MB at three years (scale run 2026-12-03 21:06
# UTC): every size copies, 0.06-0.18 s.
SYNC_MIN_BYTES = 1 << 30


class NotPublished(Exception):
    """No published copy yet (no successful run), or it cannot be opened."""


class PublishError(Exception):
    """The copy could not be made or failed its check; the published copy is unchanged."""


@dataclass(frozen=True)
class Publication:
    path: str
    published_at: str
    as_of: str
    run_id: str
    size_bytes: int
    seconds: float
    views: dict[str, int]
    # seconds per part: checkpoint, copy or sync, check (the flush runs beside it), flush, rename,
    # and spare when a backfill's publication made the next one's spare
    phases: dict[str, float] = field(default_factory=dict)
    # "sync": the spare brought up to date; "copy": the whole file, for `why`
    method: str = "copy"
    why: str = ""
    # per table the groups of rows (days, snapshots, key values) the sync replaced (tables
    # with none are left out)
    synced: dict[str, int] = field(default_factory=dict)


def publish(paths: Paths, as_of: date, run_id: str, spare_now: bool = False) -> Publication:
    """Copy the working warehouse to `paths.published_db_path` atomically; describe it.

    `spare_now` (a backfill's publication): when this publication copied the whole file and
    the next would update a spare, the spare is made now from the published copy. A backfill
    rewrites the per-day marts whole, so the spare it leaves (the copy published before it) is
    of no use and the next day's run would copy the whole file again (3.3 s of a 16 s run at
    three years of history); the backfill, which runs for minutes, pays it instead."""
    began = time.perf_counter()
    target = paths.published_db_path
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(target.parent)
    tmp = target.parent / f".gpuledger.duckdb.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    spare = target.parent / SPARE_NAME
    phases: dict[str, float] = {}
    synced: dict[str, int] = {}
    mark = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        phases[name] = round(now - mark, 3)
        mark = now

    try:
        # The connection holds the working file's lock: no other process writes while we copy,
        # and after CHECKPOINT the file alone (no WAL) is the whole database.
        con = duckdb.connect(str(paths.db_path))
        try:
            con.execute("CHECKPOINT")
            lap("checkpoint")
            why = _spare_unusable(spare, target, paths.db_path)
            if why is None:
                try:
                    why = spare_sync.sync(con, spare, synced)
                except (OSError, duckdb.Error) as exc:
                    why = f"the spare copy could not be updated: {exc}"
            if why is None:
                staged = spare
                lap("sync")
            else:
                synced.clear()
                staged = tmp
                _copy(paths.db_path, tmp)
                lap("copy")
        finally:
            con.close()
        # The copy is flushed to disk while it is checked (the check reads it from memory): at
        # three years each took about 0.6 s and 1 s one after the other. Both end before the
        # rename, so the published name only ever points at a checked file that is on disk.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="publish-fsync") as pool:
            flushed = pool.submit(_flush, staged)
            try:
                views = check(staged)
                lap("check")
            finally:
                flushed.result()
                lap("flush")  # what the flush took beyond the check
        staged.chmod(0o444)
        # the copy being replaced becomes the next publication's spare (readers of it keep it)
        kept = _keep_replaced(target)
        os.replace(staged, target)
        if kept is not None:
            # published all the same if this fails: the next publication copies the whole file
            with contextlib.suppress(OSError):
                os.replace(kept, spare)
        _fsync_dir(target.parent)
        lap("rename")
        if spare_now and staged == tmp and target.stat().st_size >= SYNC_MIN_BYTES:
            _make_spare(target, spare)
            lap("spare")
    except (OSError, duckdb.Error) as exc:
        raise PublishError(f"could not publish {paths.db_path} to {target}: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)
    publication = Publication(
        path=str(target),
        published_at=datetime.now(UTC).isoformat(timespec="seconds"),
        as_of=as_of.isoformat(),
        run_id=run_id,
        size_bytes=target.stat().st_size,
        seconds=round(time.perf_counter() - began, 3),
        views=views,
        phases=phases,
        method="sync" if staged == spare else "copy",
        why=why or "",
        synced=synced,
    )
    _write_json(target.parent / MANIFEST_NAME, asdict(publication))
    return publication


def check(db_file: Path) -> dict[str, int]:
    """Open a copy read-only and count the rows of every analytics view (all must answer)."""
    con = duckdb.connect(str(db_file), read_only=True)
    try:
        names = [
            r[0]
            for r in con.execute(
                "select view_name from duckdb_views() where schema_name = ? order by 1",
                [ANALYTICS_SCHEMA],
            ).fetchall()
        ]
        if not names:
            raise PublishError(f"{db_file}: no views in schema {ANALYTICS_SCHEMA}")
        try:
            return {
                n: con.execute(f'select count(*) from {ANALYTICS_SCHEMA}."{n}"').fetchone()[0]
                for n in names
            }
        except duckdb.Error as exc:
            raise PublishError(f"{db_file}: an analytics view does not answer: {exc}") from exc
    finally:
        con.close()


def connect(paths: Paths) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the published copy."""
    path = paths.published_db_path
    if not path.exists():
        raise NotPublished(
            f"no published warehouse at {path}; run `gpuledger refresh` (or `make run`) first"
        )
    try:
        return duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise NotPublished(f"cannot open the published warehouse {path}: {exc}") from exc


def publication(paths: Paths) -> dict | None:
    """What PUBLISHED.json says of the current copy (None before the first publication)."""
    manifest = paths.published_dir / MANIFEST_NAME
    if not manifest.exists():
        return None
    return json.loads(manifest.read_text(encoding="utf-8"))


def _copy(src: Path, dst: Path) -> None:
    """shutil.copyfile lets the kernel copy (sendfile on Linux): 1.5 GB in 0.5 s on this
    machine, where reading and writing 16 MB chunks in Python took 2.8-4.8 s."""
    shutil.copyfile(src, dst)


def _make_spare(published: Path, spare: Path) -> None:
    """A copy of the published file as the next publication's spare, on disk before it takes
    the spare's name. Published all the same if this fails: the next publication then copies
    the whole file, as it would have."""
    staging = spare.with_name(spare.name + ".tmp")
    try:
        # the old spare first (a reader holding it keeps it): three files on disk, not four
        spare.unlink(missing_ok=True)
        _copy(published, staging)
        _flush(staging)
        os.replace(staging, spare)
        _fsync_dir(spare.parent)
    except OSError:
        staging.unlink(missing_ok=True)


def _spare_unusable(spare: Path, target: Path, work: Path) -> str | None:
    """Why the spare cannot be updated in place (None: it can)."""
    if work.stat().st_size < SYNC_MIN_BYTES:
        return f"a whole copy is cheaper below {SYNC_MIN_BYTES >> 20} MB"
    if not spare.exists():
        return "no spare copy yet"
    if not target.exists():
        return "nothing published yet"
    if os.path.samefile(spare, target):
        return "the spare is the published copy"
    if _open_here(spare):
        return "this process still has the spare open"
    try:
        spare.chmod(0o644)
    except OSError as exc:
        return f"the spare cannot be made writable: {exc}"
    return None


def _open_here(path: Path) -> bool:
    """Whether this process has the file open (DuckDB's lock does not stop the same process)."""
    fds = Path("/proc/self/fd")
    if not fds.is_dir():
        return True  # cannot tell: take the whole copy
    wanted = os.stat(path)
    for fd in fds.iterdir():
        try:
            st = os.stat(fd)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (wanted.st_dev, wanted.st_ino):
            return True
    return False


def _keep_replaced(target: Path) -> Path | None:
    """A second name for the published copy about to be replaced (None if none or no links)."""
    if not target.exists():
        return None
    kept = target.parent / _NEXT_SPARE
    kept.unlink(missing_ok=True)
    try:
        os.link(target, kept)
    except OSError:
        return None
    return kept


def _flush(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_leftovers(folder: Path) -> None:
    """Copies a killed run left behind (older than an hour, so never a running publication's)."""
    cutoff = time.time() - 3600
    for old in [
        *folder.glob(_TMP_GLOB),
        *folder.glob(_NEXT_SPARE),
        *folder.glob(SPARE_NAME + ".tmp"),
    ]:
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink()
        except OSError:
            pass
