"""The connection `gpuledger sql` and `gpuledger shell` give analysts: the published copy,
read-only, with DuckDB's access to anything outside that file switched off.

DuckDB reads and writes files from SQL (`read_csv('/etc/passwd')`, `COPY ... TO`, `EXPORT
DATABASE`, `ATTACH`), installs and loads extensions, and lets `SET` change all of that. On a
shared deployment the analysts' commands should answer questions about the warehouse and nothing
else, so by default they connect with the settings DuckDB documents for untrusted SQL
("Securing DuckDB", DuckDB 2.0 operations manual):

    enable_external_access = false     no files, URLs, ATTACH of files, COPY, EXPORT, INSTALL/LOAD
    autoinstall/autoload_known_extensions = false   no extension fetched or loaded behind a query
    allow_community_extensions = false
    lock_configuration = true          no SET/RESET/PRAGMA can turn any of it back on

`--allow-files` opens the same copy with external access on (local files readable and writable,
ATTACH of other files, extensions installed explicitly); the warehouse itself stays read-only and
the configuration stays locked. The analytics views read only tables of the warehouse, so they
answer the same either way.
"""

from __future__ import annotations

import re

import duckdb

from warehouse.paths import Paths
from warehouse.publish import NotPublished

LOCKED = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "lock_configuration": True,
}
WITH_FILES = {**LOCKED, "enable_external_access": True}

FILE_SUFFIX = re.compile(r"\.(csv|tsv|txt|parquet|json|jsonl|ndjson|gz|zst|xlsx)$", re.I)
ALLOW_FILES_HINT = "run with --allow-files to read or write local files"

# Why a statement of each kind needs what the sandbox switches off (DuckDB's statement types).
_NEEDS = {
    "COPY": "COPY reads or writes a file",
    "EXPORT": "EXPORT DATABASE writes files",
    "PRAGMA": "this PRAGMA (IMPORT DATABASE) reads files",
    "ATTACH": "ATTACH opens another database file",
    "CREATE": "it reaches outside the warehouse (a secret is stored in a file)",
}


def connect(paths: Paths, allow_files: bool = False) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the published copy, sandboxed unless `allow_files`."""
    path = paths.published_db_path
    if not path.exists():
        raise NotPublished(
            f"no published warehouse at {path}; run `gpuledger refresh` (or `make run`) first"
        )
    try:
        return duckdb.connect(
            str(path), read_only=True, config=WITH_FILES if allow_files else LOCKED
        )
    except duckdb.Error as exc:
        raise NotPublished(f"cannot open the published warehouse {path}: {exc}") from exc


def _names_a_file(message: str) -> bool:
    """DuckDB's answer to `from 'data/x.csv'` when replacement scans of files are off."""
    found = re.match(r"Catalog Error: Table with name (\S+) does not exist", message)
    return bool(found) and ("/" in found.group(1) or FILE_SUFFIX.search(found.group(1)) is not None)


def files_allowed(con: duckdb.DuckDBPyConnection) -> bool:
    return con.execute("select current_setting('enable_external_access')").fetchone()[0]


def refusal(
    statement: duckdb.Statement, exc: duckdb.Error, con: duckdb.DuckDBPyConnection
) -> str | None:
    """What to tell the analyst when the sandbox refused `statement` (None when DuckDB failed
    for another reason: a typo, a missing column, a write to the read-only copy)."""
    text = " ".join(statement.query.split()).rstrip(";")
    shown = text if len(text) <= 80 else text[:77] + "..."
    words = text.split(maxsplit=1)
    verb = words[0].upper() if words else ""
    kind = statement.type.name
    if isinstance(exc, duckdb.InvalidInputException) and "configuration has been locked" in str(
        exc
    ):
        why = (
            f"{verb} would change a setting of the connection, and its settings are locked "
            "(they keep file access and extensions off)"
        )
    elif isinstance(exc, duckdb.PermissionException):
        if kind == "LOAD":
            why = f"{verb} of an extension is switched off (extensions can read files and URLs)"
        elif kind in _NEEDS:
            why = _NEEDS[kind]
        else:
            why = "the query reads a file or URL (read_csv, read_parquet, read_json, glob, ...)"
        why += ", and this connection has no access outside the published warehouse"
    elif (
        isinstance(exc, duckdb.CatalogException)
        and _names_a_file(str(exc))
        and not files_allowed(con)
    ):
        why = (
            "the query reads a file by its path (DuckDB's replacement scan), and this connection "
            "has no access outside the published warehouse"
        )
    else:
        return None
    hint = "; " + ALLOW_FILES_HINT if not files_allowed(con) else ""
    cause = str(exc).splitlines()[0]
    return f"refused {verb} ({shown!r}): {why}{hint}. DuckDB said: {cause}"
