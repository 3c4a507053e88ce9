"""When the per-day marts may be built for a window of days, and when they must be rebuilt whole.

The per-day marts (dbt/models/marts/daily/, tag `daily`) are incremental: a build writes only its
window of days (a Dagster partition or range), because a past day's ranking never changes with
later data. It does change when what computes it changes: a model's SQL, a seed (a workload
class, a GPU's specs), a macro or a dbt setting. So every per-day mart has a fingerprint: the
checksum dbt keeps of its file and its YAML config and contract (columns, types, constraints), of
every model and seed it is built from (recursively), of the macros and of dbt_project.yml. A
mart's constraints are DuckDB's only if its table was created with them, so a new constraint
rebuilds it. The fingerprints of the last successful build are stored in the
warehouse (`ops.dbt_fingerprints`); before a build, a mart whose fingerprint differs (or that was
never built by this code) is dropped, so dbt builds it over every day, and the build's data tests
then check whole tables instead of the window (as they do when a view over the marts changed).
Raw data is not in the fingerprint: data that arrives late for past days is built with
`gpuledger backfill` over those days.

Every model and seed has a fingerprint, so a day's build also leaves out the unit tests when no
SQL, seed or setting changed (they test the SQL, not the data). The whole project has a digest as
well (every model, seed, test and macro, and dbt_project.yml): dbt leaves a view or seed that
carries the stamp of this digest as it is (macros/unchanged_relations.sql), and while the digest
is the one of the last successful build, the data tests whose every parent is a seed are left out
(a seed's rows are the repository's file: they pass as they passed). The data tests of the views
still run: a view over raw data shows each day's new rows.

Some data tests cannot fail while the SQL is the one they last passed with: a staging view passes
a raw table's key or NOT NULL column through unchanged, and DuckDB enforces the key and the NOT
NULL on every load; an analysts' view is a projection of a mart whose own test, run in the same
build, checks the same columns; dim_gpu is the gpu_catalog seed's rows, whose own tests check
them; a view whose SQL ends in QUALIFY row_number() over (partition by the columns) = 1 keeps
one row per those columns whatever its input. Such a test names what implies it (`meta:
implied_by`, see Implied) and is left out of a
step's build while the project is the one of the step's last successful whole build, nothing of
the build changed, and everything it names holds now (the raw constraint is in the warehouse,
the named test runs in this build or is a seed's). Any change to the project runs it again,
which checks the claim of projection against the data.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb

from warehouse.db import insert_rows

DAILY_TAG = "daily"
FULL_TEST_START = "1970-01-01"  # the data tests' window after a full rebuild: every day
# A backfill of at least this many days that reaches the newest built day rebuilds the marts whole.
WHOLE_RANGE_DAYS = 30


def _digest(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _settings_digest(project_dir: Path) -> str:
    files = sorted((project_dir / "macros").rglob("*.sql")) + [project_dir / "dbt_project.yml"]
    return _digest(
        *(f"{p.relative_to(project_dir)}:{p.read_text(encoding='utf-8')}" for p in files)
    )


@dataclass(frozen=True)
class Node:
    fingerprint: str
    daily: bool
    kind: str  # model | seed
    materialized: str


def fingerprints(manifest_path: Path, project_dir: Path) -> dict[str, Node]:
    """name -> fingerprint (and kind) of every model and seed of the manifest."""
    manifest = json.loads(Path(manifest_path).read_text(encoding="utf-8"))
    nodes = manifest["nodes"]
    settings = _settings_digest(Path(project_dir))
    memo: dict[str, str] = {}

    def of(uid: str) -> str:
        if uid not in memo:
            node = nodes[uid]
            parents = sorted(p for p in node.get("depends_on", {}).get("nodes", []) if p in nodes)
            memo[uid] = _digest(
                node["checksum"]["checksum"], _shape(node), *(of(p) for p in parents)
            )
        return memo[uid]

    return {
        node["name"]: Node(
            _digest(of(uid), settings),
            DAILY_TAG in node.get("tags", []),
            node["resource_type"],
            node.get("config", {}).get("materialized", ""),
        )
        for uid, node in nodes.items()
        if node["resource_type"] in ("model", "seed")
    }


def _shape(node: dict) -> str:
    """What a node's YAML says of the relation it builds beside its SQL: its config (the
    materialization, an enforced contract) and its contract's columns, types and constraints
    (NOT NULL, CHECK, primary key), which DuckDB holds only if the table was created with them."""
    columns = [
        [name, column.get("data_type"), column.get("constraints") or []]
        for name, column in sorted((node.get("columns") or {}).items())
    ]
    return json.dumps(
        [node.get("config"), node.get("constraints") or [], columns], sort_keys=True, default=str
    )


PROJECT_ROW = "(project)"  # ops.dbt_fingerprints' row for the digest of the whole project


@dataclass(frozen=True)
class Implied:
    """A data test and what implies it (its `meta: implied_by`, one claim per item):

    - `raw.<table> primary key (<column>, ...)`: the raw table's primary key is these columns;
    - `raw.<table> not null (<column>, ...)`: each of these raw columns is NOT NULL;
    - `marts.<table> primary key (...)` / `marts.<table> not null (...)`: the same of a mart
      whose contract has DuckDB enforce them (dbt constraints) on every write;
    - `test <name>`: another data test of the project, which checks the same thing upstream;
    - `qualify (<column>, ...)`: the test's model keeps one row per these columns by its own SQL
      (read when the project is read, see _qualify_problem); nothing to check in a warehouse.

    `models`: the models the test reads (the step that builds them runs it). `tests`: each named
    test's models. `problem`: why the claims cannot be used (then the test always runs)."""

    test: str
    models: frozenset[str]
    # (table, "primary key" | "not null", columns)
    raw: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    tests: tuple[tuple[str, frozenset[str]], ...] = ()
    problem: str = ""
    marts: tuple[tuple[str, str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class Project:
    """The digest of the whole dbt project, its data tests whose every parent is a seed, and
    its data tests that name what implies them."""

    digest: str
    seed_tests: tuple[str, ...]
    implied: tuple[Implied, ...] = field(default=())


_CONSTRAINT_CLAIM = re.compile(r"(raw|marts)\.(\w+) (primary key|not null) \((\w+(?:, *\w+)*)\)")
_TEST_CLAIM = re.compile(r"test (\w+)")
_QUALIFY_CLAIM = re.compile(r"qualify \((\w+(?:, *\w+)*)\)")
_JINJA_EXPRESSION = re.compile(r"\{\{.*?\}\}", re.DOTALL)


def _qualify_problem(sql: str, columns: tuple[str, ...]) -> str:
    """Why `sql` (a model's code) may give two rows with the same `columns` ("" if it cannot):
    it must be one SELECT (no UNION and the like at its top) whose QUALIFY is row_number() over
    (partition by exactly these columns) = 1, and whose select list shows those columns as they
    are (`*` without EXCLUDE, REPLACE or RENAME, or the bare column; no other expression named
    like one of them). Read with DuckDB's own parser; a `{{ ... }}` of dbt's becomes a name."""
    if "{%" in sql:
        return "its model's SQL has Jinja blocks: not read"
    text = _JINJA_EXPRESSION.sub("__dbt__", sql)
    try:
        with duckdb.connect() as con:
            parsed = json.loads(con.execute("select json_serialize_sql(?)", [text]).fetchone()[0])
    except duckdb.Error as exc:
        return f"its model's SQL cannot be read: {exc}"
    if parsed.get("error") or len(parsed.get("statements", [])) != 1:
        return f"its model's SQL cannot be read: {parsed.get('error_message', 'not one statement')}"
    node = parsed["statements"][0]["node"]
    if node.get("type") != "SELECT_NODE":
        return "its model's SQL is not one SELECT at its top"
    qualify = node.get("qualify") or {}
    sides = [qualify.get("left") or {}, qualify.get("right") or {}]
    window = next((x for x in sides if x.get("type") == "WINDOW_ROW_NUMBER"), None)
    one = next((x for x in sides if x.get("class") == "CONSTANT"), None)
    if (
        qualify.get("type") != "COMPARE_EQUAL"
        or window is None
        or one is None
        or (one.get("value") or one.get("literal") or {}).get("text") != "1"
        or window.get("filter_expr") is not None
    ):
        return "its model's SQL does not end in QUALIFY row_number() over (...) = 1"
    partitions = window.get("partitions") or []
    names = [p.get("column_names", [""])[-1] for p in partitions if p.get("class") == "COLUMN_REF"]
    if len(names) != len(partitions) or sorted(names) != sorted(columns):
        return f"its QUALIFY partitions by ({', '.join(names)}), not ({', '.join(columns)})"
    shown: set[str] = set()
    for item in node.get("select_list", []):
        alias = item.get("alias") or ""
        if item.get("class") == "STAR" and not item.get("expr"):
            if item.get("exclude_list") or item.get("replace_list") or item.get("rename_list"):
                return "its select list's * excludes, replaces or renames columns"
            if item.get("qualified_exclude_list"):
                return "its select list's * excludes columns"
            shown.update(columns)
        elif item.get("class") == "COLUMN_REF" and item["column_names"][-1] in columns:
            if alias and alias != item["column_names"][-1]:
                return f"its select list names column {item['column_names'][-1]} {alias}"
            shown.add(item["column_names"][-1])
        elif alias in columns:
            return f"its select list computes a column named {alias}"
    if missing := sorted(set(columns) - shown):
        return f"its select list does not show {', '.join(missing)}"
    return ""


def _implied(manifest: dict) -> tuple[Implied, ...]:
    """The project's data tests with `meta: implied_by`, their claims read (not yet checked
    against a warehouse: see implied_tests())."""
    nodes = manifest["nodes"]
    tests = {n["name"]: n for n in nodes.values() if n["resource_type"] == "test"}

    def models_of(node: dict) -> frozenset[str]:
        parents = node.get("depends_on", {}).get("nodes", [])
        return frozenset(nodes[p]["name"] for p in parents if p in nodes)

    found = []
    for name, node in sorted(tests.items()):
        claims = (node.get("config", {}).get("meta") or {}).get("implied_by")
        if claims is None:
            continue
        raw, marts, named, problems, own = [], [], [], [], []
        if node.get("config", {}).get("severity", "error").lower() != "error":
            problems.append("its severity is not error (a warning would go unseen)")
        for claim in claims if isinstance(claims, list) else [claims]:
            text = str(claim).strip()
            if m := _CONSTRAINT_CLAIM.fullmatch(text):
                columns = tuple(c.strip() for c in m.group(4).split(","))
                (raw if m.group(1) == "raw" else marts).append((m.group(2), m.group(3), columns))
            elif (m := _TEST_CLAIM.fullmatch(text)) and m.group(1) in tests:
                other = tests[m.group(1)]
                if (other.get("config", {}).get("meta") or {}).get("implied_by") is not None:
                    problems.append(f"{text!r} is itself left out by what implies it")
                named.append((m.group(1), models_of(other)))
            elif m := _QUALIFY_CLAIM.fullmatch(text):
                columns = tuple(c.strip() for c in m.group(1).split(","))
                parents = [
                    nodes[p] for p in node.get("depends_on", {}).get("nodes", []) if p in nodes
                ]
                if len(parents) != 1 or parents[0].get("resource_type") != "model":
                    problems.append(f"{text!r}: the test reads not one model")
                elif why := _qualify_problem(parents[0].get("raw_code") or "", columns):
                    problems.append(f"{text!r}: {why}")
                else:
                    own.append(columns)
            else:
                problems.append(f"{text!r} is neither a constraint nor a test of the project")
        if not raw and not marts and not named and not own and not problems:
            problems.append("implied_by names nothing")
        found.append(
            Implied(
                name,
                models_of(node),
                tuple(raw),
                tuple(named),
                "; ".join(problems),
                tuple(marts),
            )
        )
    return tuple(found)


def project(manifest_path: Path, project_dir: Path) -> Project:
    manifest = json.loads(Path(manifest_path).read_text(encoding="utf-8"))
    nodes = {**manifest["nodes"], **manifest.get("unit_tests", {})}
    parts = []
    for uid in sorted(nodes):
        node = nodes[uid]
        parts.append(
            json.dumps(
                {
                    "uid": uid,
                    "checksum": node.get("checksum"),
                    "config": node.get("config"),
                    "test": node.get("test_metadata"),
                    "code": node.get("raw_code"),
                    "depends_on": node.get("depends_on"),
                    "shape": _shape(node),
                    "given": node.get("given"),
                    "expect": node.get("expect"),
                },
                sort_keys=True,
                default=str,
            )
        )
    seeds = {uid for uid, n in manifest["nodes"].items() if n["resource_type"] == "seed"}
    seed_tests = sorted(
        n["name"]
        for n in manifest["nodes"].values()
        if n["resource_type"] == "test"
        and (parents := n.get("depends_on", {}).get("nodes", []))
        and set(parents) <= seeds
    )
    return Project(
        _digest(_settings_digest(Path(project_dir)), *parts), tuple(seed_tests), _implied(manifest)
    )


def _ensure(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("create schema if not exists ops")
    con.execute(
        """create table if not exists ops.dbt_fingerprints (
               model varchar primary key, fingerprint varchar not null,
               built_at timestamptz not null)"""
    )


@dataclass(frozen=True)
class Plan:
    """What one dbt build does. `rebuild`: the per-day marts built over every day (dropped first,
    their definition changed); `changed`: every model and seed whose fingerprint changed; `env`:
    the window and the data tests' start, for dbt."""

    rebuild: tuple[str, ...]
    changed: tuple[str, ...]
    env: dict[str, str]
    why: str = ""
    # data tests left out: their parents are seeds and the project is as at the last build
    skipped_tests: tuple[str, ...] = ()
    # data tests left out: what implies them holds (implied_tests())
    implied_tests: tuple[str, ...] = ()

    @property
    def full(self) -> bool:
        return bool(self.rebuild)

    def args(self, left_as_they_are: tuple[str, ...] = ()) -> list[str]:
        """dbt's arguments: unit tests test the SQL, so they run when some SQL changed. Views and
        seeds `left_as_they_are` (unique ids, see unchanged()) are left out, not their data
        tests: dbt's indirect selection then leaves the tests of a node left out in (`empty`:
        only what the selection names, and it names every test)."""
        excluded = ([] if self.changed else ["resource_type:unit_test"]) + list(self.skipped_tests)
        excluded += self.implied_tests
        excluded += [uid.split(".", 2)[2] for uid in left_as_they_are]
        # one argument: dbt reads a space-separated union of selectors in it
        args = ["--exclude", " ".join(excluded)] if excluded else []
        return args + (["--indirect-selection", "empty"] if left_as_they_are else [])


def prepare(
    con: duckdb.DuckDBPyConnection,
    current: dict[str, Node],
    as_of: date,
    start: date | None = None,
    schema: str = "marts",
    whole: Project | None = None,
) -> Plan:
    """Drop the per-day marts whose fingerprint changed; return the plan for dbt."""
    _ensure(con)
    stored = dict(con.execute("select model, fingerprint from ops.dbt_fingerprints").fetchall())
    same_project = whole is not None and stored.get(PROJECT_ROW) == whole.digest
    existing = {
        r[0]
        for r in con.execute(
            "select table_name from information_schema.tables where table_schema = ?", [schema]
        ).fetchall()
    }
    changed = sorted(n for n, node in current.items() if stored.get(n) != node.fingerprint)
    marts = [n for n, node in current.items() if node.materialized == "incremental"]
    rebuild = sorted(n for n in marts if n in changed or n not in existing)
    why = "their definition changed (SQL, seeds, macros or settings)" if rebuild else ""
    if start is not None and (as_of - start).days + 1 >= WHOLE_RANGE_DAYS and not rebuild:
        # A long range up to the newest day built: writing every day in one statement equals
        # writing the range (a day never depends on later data) and costs a third of deleting
        # and re-inserting it; the days before the range come out as they were.
        newest = [
            con.execute(f'select max(day) from {schema}."{m}"').fetchone()[0]
            for m in marts
            if m in existing
        ]
        if all(day is None or day <= as_of for day in newest):
            rebuild = sorted(marts)
            why = f"a range of {(as_of - start).days + 1} days up to the newest: built whole"
    for model in rebuild:
        con.execute(f'drop table if exists {schema}."{model}"')
    env = {
        "GPULEDGER_AS_OF": as_of.isoformat(),
        "GPULEDGER_WINDOW_START": (start or as_of).isoformat(),
        # the windowed data tests check every day when a mart was rebuilt or a view over the
        # marts changed (a view's new definition applies to every day it shows)
        "GPULEDGER_TEST_START": FULL_TEST_START if rebuild or changed else "",
    }
    if whole is not None:
        env["GPULEDGER_PROJECT_DIGEST"] = whole.digest
    skipped = whole.seed_tests if same_project and not changed else ()
    return Plan(tuple(rebuild), tuple(changed), env, why, tuple(skipped))


def record(
    con: duckdb.DuckDBPyConnection,
    current: dict[str, Node],
    whole: Project | None = None,
    built: tuple[str, str] | None = None,
    started: datetime | None = None,
) -> None:
    """After a successful build: these fingerprints are what the warehouse now holds. `whole`:
    the project, vouched for by a build that loaded the seeds and ran their tests. `built`:
    (step, project digest) of a whole build of one step, whose every view and seed now carries
    the stamp of that project (see unchanged()); its row's time is when the build `started`
    (what was loaded before then, its data tests have checked: see new_since())."""
    _ensure(con)
    now = datetime.now(UTC)
    rows = [[n, node.fingerprint, now] for n, node in sorted(current.items())]
    if whole is not None:
        rows.append([PROJECT_ROW, whole.digest, now])
    if rows:  # one statement: executemany ran one a row (~60, ~0.1 s of every dbt step)
        insert_rows(con, "insert or replace into ops.dbt_fingerprints", rows, key=(0,))
    if built is not None:
        con.execute(
            "insert or replace into ops.dbt_fingerprints values (?, ?, coalesce(?, now()))",
            [_built_row(built[0]), built[1], started],
        )


# Before the last successful build started: a clock set back by NTP (or by hand) must not make
# a snapshot loaded after that start look older than it.
CLOCK_SLACK = timedelta(hours=1)


def new_since(
    con: duckdb.DuckDBPyConnection, step: str, whole: Project | None, plan: Plan
) -> datetime | None:
    """Since when the data tests over every price observation (`where: __new_snapshots__`,
    macros/daily_window.sql) check only the rows of snapshots loaded or validated anew: the
    start of this step's last successful whole build, less CLOCK_SLACK, while the project is the
    one it built and nothing in this build changed. Their rows are written once (raw keeps a
    snapshot's rows as they were loaded) and each view is a row-by-row reading of them, so a
    row tested once passes again as long as the SQL is the same. None (every row): no such
    build, another project, or a change in this build (then the per-day marts' tests check
    whole tables too: GPULEDGER_TEST_START)."""
    if whole is None or plan.changed or plan.rebuild:
        return None
    _ensure(con)
    row = con.execute(
        "select fingerprint, built_at from ops.dbt_fingerprints where model = ?", [_built_row(step)]
    ).fetchone()
    if row is None or row[0] != whole.digest:
        return None
    return row[1] - CLOCK_SLACK


def _built_row(step: str) -> str:
    return f"(project built by {step})"


def _reads_settings(manifest: dict, uid: str) -> bool:
    """Whether the node's SQL reads an environment variable when compiled (the as-of day, the
    window): its compiled SQL can differ from one build to the next with the project unchanged.
    Found in its own code or in any macro it calls, recursively. (dbt vars come from
    dbt_project.yml, which is in the project's digest; the pipeline passes none.)"""
    macros = manifest.get("macros", {})
    node = manifest["nodes"][uid]
    if _reads_a_setting(node.get("raw_code") or ""):
        return True
    seen: set[str] = set()
    todo = list(node.get("depends_on", {}).get("macros", []))
    while todo:
        name = todo.pop()
        if name in seen or name not in macros:
            continue
        seen.add(name)
        if _reads_a_setting(macros[name].get("macro_sql") or ""):
            return True
        todo.extend(macros[name].get("depends_on", {}).get("macros", []))
    return False


def _reads_a_setting(sql: str) -> bool:
    return "env_var(" in sql


def unchanged(
    con: duckdb.DuckDBPyConnection,
    manifest_path: Path,
    selected: set[str],
    plan: Plan,
    whole: Project | None,
    step: str,
) -> tuple[str, ...]:
    """The views and seeds of this build that dbt would leave as they are (the stamp of
    macros/unchanged_relations.sql) and that need not be handed to dbt at all: the project is
    the one of this step's last successful whole build (so every view and seed of the step
    carries that project's stamp) and nothing of this build changed, the relation is in the
    warehouse with a stamp, and its SQL reads no setting (the as-of day) when compiled. Their
    data tests still run. Returns their dbt unique ids."""
    if whole is None or plan.changed or plan.rebuild:
        return ()
    _ensure(con)
    stored = con.execute(
        "select fingerprint from ops.dbt_fingerprints where model = ?", [_built_row(step)]
    ).fetchone()
    if stored is None or stored[0] != whole.digest:
        return ()
    stamped = {
        (schema, name, kind)
        for schema, name, kind in con.execute(
            """select schema_name, view_name, 'view' from duckdb_views()
               where not internal and coalesce(comment, '') <> ''
               union all
               select schema_name, table_name, 'seed' from duckdb_tables()
               where coalesce(comment, '') <> ''"""
        ).fetchall()
    }
    manifest = json.loads(Path(manifest_path).read_text(encoding="utf-8"))
    found = []
    for uid, node in manifest["nodes"].items():
        if node["name"] not in selected:
            continue
        kind = (
            "seed"
            if node["resource_type"] == "seed"
            else "view"
            if node["resource_type"] == "model" and node["config"].get("materialized") == "view"
            else None
        )
        if kind is None or (kind == "view" and _reads_settings(manifest, uid)):
            continue
        if (node["schema"], node.get("alias") or node["name"], kind) in stamped:
            found.append(uid)
    return tuple(sorted(found))


def implied_tests(
    con: duckdb.DuckDBPyConnection,
    selected: set[str],
    plan: Plan,
    whole: Project | None,
    step: str,
) -> tuple[tuple[str, ...], dict[str, str]]:
    """The data tests of this build (their models among `selected`) that may be left out because
    what implies them holds: the project is the one of this step's last successful whole build
    and nothing of this build changed (so each ran, and passed, with this SQL), every
    constraint it names (of raw, or of a mart's contract) is in the warehouse, and every test
    it names runs in this build (its models are built here, and it is not itself left out) or
    is a seed's test that passed with this project (ops.dbt_fingerprints' project row).
    Returns (left out, {test: why it runs all the same}) for the tests whose claims do not
    hold."""
    if whole is None or not whole.implied or plan.changed or plan.rebuild:
        return (), {}
    _ensure(con)
    stored = dict(con.execute("select model, fingerprint from ops.dbt_fingerprints").fetchall())
    if stored.get(_built_row(step)) != whole.digest:
        return (), {}
    keys: dict[str, set[frozenset[str]]] = {}
    not_null: dict[str, set[str]] = {}
    for schema, table, kind, columns in con.execute(
        """select schema_name, table_name, constraint_type, constraint_column_names
           from duckdb_constraints()
           where database_name = current_database() and schema_name in ('raw', 'marts')
             and constraint_type in ('PRIMARY KEY', 'NOT NULL')"""
    ).fetchall():
        if kind == "PRIMARY KEY":
            keys.setdefault(f"{schema}.{table}", set()).add(frozenset(columns))
        else:
            not_null.setdefault(f"{schema}.{table}", set()).update(columns)
    # a seed's test holds while a build that loaded the seeds and ran (or, unchanged, left out)
    # their tests vouched for this project: the seeds' files are the ones they passed with
    seeds_hold = set(whole.seed_tests) if stored.get(PROJECT_ROW) == whole.digest else set()
    skipped = set(plan.skipped_tests)
    left, runs = [], {}
    for item in whole.implied:
        if not item.models <= selected:
            continue  # another step's test
        why = item.problem
        claims = [(f"raw.{t}", k, c) for t, k, c in item.raw]
        claims += [(f"marts.{t}", k, c) for t, k, c in item.marts]
        for table, kind, columns in claims:
            if why:
                break
            if kind == "primary key" and frozenset(columns) not in keys.get(table, set()):
                why = f"{table} has no primary key ({', '.join(columns)})"
            elif kind == "not null" and (gaps := set(columns) - not_null.get(table, set())):
                why = f"{table}.{sorted(gaps)[0]} may be null"
        for name, models in item.tests:
            if why:
                break
            if name in seeds_hold:
                continue
            if not models <= selected or name in skipped:
                why = f"test {name} does not run in this build"
        if why:
            runs[item.test] = why
        else:
            left.append(item.test)
    return tuple(left), runs
