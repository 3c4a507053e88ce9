"""What analysts run against the published copy: one query, an interactive shell, exports.

Every connection here is read-only and to the published copy (warehouse/publish.py), so none of it
can block or break a refresh, and none of it can change the warehouse; `sql` and `shell` connect
without file access unless asked (warehouse/sandbox.py).
"""

from __future__ import annotations

import contextlib
import csv
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

import duckdb

from warehouse import publish, sandbox
from warehouse.paths import Paths

FORMATS = ("table", "csv", "json")
EXPORT_FORMATS = ("parquet", "csv")


class QueryError(Exception):
    """The query failed in DuckDB; the message is DuckDB's, prefixed with the query's start."""


def analytics_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [
        r[0]
        for r in con.execute(
            "select view_name from duckdb_views() where schema_name = ? order by 1",
            [publish.ANALYTICS_SCHEMA],
        ).fetchall()
    ]


def run_sql(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    out: TextIO = sys.stdout,
    fmt: str = "table",
    max_rows: int = 1000,
) -> int:
    """Run the statements of `sql` in order and print the last one's result; return the number
    of rows. A statement the sandbox refuses (warehouse/sandbox.py) is named with the reason."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error:
        statements = None  # DuckDB's own parser error, from running the text as it is
    cur = None
    for statement in statements or [sql]:
        try:
            cur = con.execute(statement)
        except duckdb.Error as exc:
            refused = None if isinstance(statement, str) else sandbox.refusal(statement, exc, con)
            if refused:
                raise QueryError(refused) from exc
            head = " ".join(sql.split())[:80]
            raise QueryError(f"{head!r}: {exc}") from exc
    try:
        columns = [d[0] for d in cur.description] if cur and cur.description else []
        rows = cur.fetchall() if columns else []
    except duckdb.Error as exc:
        head = " ".join(sql.split())[:80]
        raise QueryError(f"{head!r}: {exc}") from exc
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
    elif fmt == "json":
        records = [dict(zip(columns, r, strict=True)) for r in rows]
        out.write(json.dumps(records, default=str, indent=2) + "\n")
    else:
        out.write(render_table(columns, rows, max_rows) + "\n")
    return len(rows)


def render_table(columns: list[str], rows: list[tuple], max_rows: int = 1000) -> str:
    if not columns:
        return "(no result)"
    shown = rows[:max_rows]
    cells = [[_text(v) for v in r] for r in shown]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip()
    rule = "  ".join("-" * w for w in widths)
    body = ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    more = (
        [f"... {len(rows) - max_rows} more rows (use --max-rows)"] if len(rows) > max_rows else []
    )
    return "\n".join([line, rule, *body, *more, f"({len(rows)} rows)"])


def _text(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def export(
    con: duckdb.DuckDBPyConnection, fmt: str, out_dir: Path, views: Iterable[str] = ()
) -> dict[str, tuple[Path, int]]:
    """Write each analytics view (or the named ones) to OUT_DIR/<view>.<fmt>; return paths, rows."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"export format {fmt!r}: use one of {', '.join(EXPORT_FORMATS)}")
    known = analytics_views(con)
    wanted = list(views) or known
    unknown = sorted(set(wanted) - set(known))
    if unknown:
        raise ValueError(
            f"no such analytics view: {', '.join(unknown)} (views: {', '.join(known)})"
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    options = "format parquet, compression zstd" if fmt == "parquet" else "format csv, header true"
    written = {}
    for view in wanted:
        target = out_dir / f"{view}.{fmt}"
        tmp = out_dir / f".{view}.{fmt}.tmp"
        con.execute(
            f"copy (select * from {publish.ANALYTICS_SCHEMA}.\"{view}\") to '{_sql_str(tmp)}' "
            f"({options})"
        )
        tmp.replace(target)
        rows = con.execute(f'select count(*) from {publish.ANALYTICS_SCHEMA}."{view}"').fetchone()
        written[view] = (target, rows[0])
    return written


def _sql_str(path: Path) -> str:
    return str(path).replace("'", "''")


SHELL_HELP = """Statements end with ';'. Dot commands:
  .tables          the analytics views (the stable interface) and the other schemas' tables
  .describe VIEW   the columns of a view or table
  .format F        table | csv | json
  .help            this text
  .quit            leave (so does end of input)"""


def shell(
    paths: Paths, stdin: TextIO = sys.stdin, out: TextIO = sys.stdout, allow_files: bool = False
) -> int:
    """A small read-only SQL shell on the published copy, without file access unless
    `allow_files` (warehouse/sandbox.py); returns how many statements failed."""
    con = sandbox.connect(paths, allow_files)
    interactive = stdin.isatty()
    if interactive:
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401  (line editing and history for input())
    pub = publish.publication(paths) or {}
    out.write(
        f"gpuledger shell: read-only DuckDB on {paths.published_db_path}"
        f"{', local files allowed' if allow_files else ', no file access (--allow-files)'}\n"
        f"published {pub.get('published_at', '?')}, as of {pub.get('as_of', '?')}. "
        "'.help' for help.\n"
    )
    fmt, buffer, failures = "table", [], 0
    try:
        while True:
            prompt = "gpuledger> " if not buffer else "      ...> "
            line = _read(stdin, prompt if interactive else None)
            if line is None:
                break
            stripped = line.strip()
            if not buffer and stripped.startswith("."):
                command, _, arg = stripped.partition(" ")
                if command in (".quit", ".exit"):
                    break
                if command == ".help":
                    out.write(SHELL_HELP + "\n")
                elif command == ".tables":
                    _tables(con, out)
                elif command == ".describe" and arg:
                    failures += _run(con, f"describe {arg.strip().rstrip(';')}", out, fmt)
                elif command == ".format" and arg.strip() in FORMATS:
                    fmt = arg.strip()
                else:
                    out.write(f"unknown command {stripped!r}; .help lists them\n")
                    failures += 1
                continue
            buffer.append(line)
            if stripped.endswith(";"):
                failures += _run(con, "\n".join(buffer), out, fmt)
                buffer = []
        if "".join(buffer).strip():
            failures += _run(con, "\n".join(buffer), out, fmt)
    finally:
        con.close()
    return failures


def _read(stdin: TextIO, prompt: str | None) -> str | None:
    if prompt is not None:
        try:
            return input(prompt)
        except EOFError:
            return None
    line = stdin.readline()
    return None if line == "" else line.rstrip("\n")


def _run(con, sql: str, out: TextIO, fmt: str) -> int:
    try:
        run_sql(con, sql, out, fmt)
        return 0
    except QueryError as exc:
        out.write(f"error: {exc}\n")
        return 1


def _tables(con, out: TextIO) -> None:
    rows = con.execute(
        """select table_schema, table_name, table_type from information_schema.tables
           where table_schema not in ('information_schema', 'pg_catalog')
           order by table_schema <> 'analytics', table_schema, table_name"""
    ).fetchall()
    out.write(render_table(["schema", "name", "type"], rows, max_rows=10_000) + "\n")


ANALYST_README = Path(__file__).resolve().parent / "README.md"


def documented_queries(readme: Path = ANALYST_README) -> list[tuple[str, str]]:
    """The example queries of the analysts' README, as (view, sql): what tests and the benchmark
    run, so the documentation cannot drift from what works."""
    import re

    found = []
    for sql in re.findall(r"```sql\n(.*?)```", readme.read_text(encoding="utf-8"), re.S):
        view = re.search(r"\banalytics\.(\w+)", sql)
        found.append((view.group(1) if view else "", sql.strip()))
    return found
