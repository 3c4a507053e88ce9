"""gpuledger imports only what Dagster, dagster-dbt, dbt and dbt-duckdb export and document: a scan
of every Python file of the project (pipelines, sources, warehouse, scripts, tests).

Allowed, precisely:
- `dagster` and its integration packages (`dagster_duckdb`, `dagster_postgres`, ...): any module
  or name none of whose dotted parts starts with `_` (Dagster keeps its internals in `dagster._*`);
- `dagster_dbt`: the package itself only, and names it exports at its top level
  (`from dagster_dbt import DbtCliResource`), not its modules (`dagster_dbt.asset_utils`,
  `dagster_dbt.core...`);
- `dbt`: only `dbt.cli.main` (`dbtRunner`, dbt's documented programmatic invocation); nothing of
  dbt-duckdb (`dbt.adapters.duckdb...`), of `dbt.adapters...connections`, or of dbt's other
  modules;
- any other installed package (altair, duckdb, great_expectations, ...): no module or name with
  a dotted part that starts with `_` (`altair.utils._importers`): a package's private parts
  change without notice; gpuledger's own packages (`sources._internal`) are its own to use;
- and no source text that names a private Dagster module (`dagster._...`, e.g. a logger's or an
  `importlib` name)."""

import ast
import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("pipelines", "sources", "warehouse", "scripts", "tests")
# gpuledger's own top-level modules: its packages, and the scripts and test modules that import
# each other by name (scripts/perf_run.py imports perf_measure)
OWN_MODULES = frozenset(
    {*FOLDERS, "conftest"}
    | {p.stem for folder in ("scripts",) for p in (ROOT / folder).glob("*.py")}
)
ALLOWED_DBT_MODULES = frozenset({"dbt.cli.main"})
PRIVATE_DAGSTER = re.compile(r"\bdagster\._")


def _refusal(module: str, names: list[str]) -> str | None:
    """Why importing `names` from `module` (or `module` itself when `names` is empty) is refused,
    or None."""
    top = module.split(".")[0]
    if top == "dagster_dbt":
        if module != "dagster_dbt":
            return f"{module} is not dagster_dbt's top level"
        exported = importlib.import_module("dagster_dbt")
        for name in names:
            attr = getattr(exported, name, None)
            if name.startswith("_") or attr is None or type(attr).__name__ == "module":
                return f"dagster_dbt does not export {name} at its top level"
        return None
    if top == "dagster" or top.startswith("dagster_"):
        private = [p for p in [*module.split("."), *names] if p.startswith("_")]
        return f"{module}: private part {private[0]}" if private else None
    if top in ("dbt", "dbt_common") or top.startswith("dbt_"):
        if module in ALLOWED_DBT_MODULES:
            return None
        if module.startswith("dbt.adapters.duckdb"):
            return f"{module} is dbt-duckdb's internals"
        if module.startswith("dbt.adapters") and "connections" in module.split("."):
            return f"{module} is a dbt adapter's connection internals"
        return f"{module} is not among the dbt modules allowed ({', '.join(ALLOWED_DBT_MODULES)})"
    if top in OWN_MODULES or module == "__future__":
        return None
    private = [p for p in [*module.split("."), *names] if p.startswith("_")]
    return f"{module}: private part {private[0]} of {top}" if private else None


def refused_imports(source: str, filename: str = "<source>") -> list[str]:
    """Every refused import of a Python source (at any depth: function bodies too), and every
    mention of a private Dagster module in its text."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if why := _refusal(alias.name, []):
                    found.append(f"{filename}:{node.lineno}: {why}")
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and (why := _refusal(node.module, [a.name for a in node.names]))
        ):
            found.append(f"{filename}:{node.lineno}: {why}")
    for number, line in enumerate(source.splitlines(), 1):
        if PRIVATE_DAGSTER.search(line):
            found.append(f"{filename}:{number}: names a private Dagster module")
    return found


def project_files() -> list[Path]:
    return sorted(
        p
        for folder in FOLDERS
        for p in (ROOT / folder).rglob("*.py")
        if p.resolve() != Path(__file__).resolve()
    )


def test_the_project_imports_only_what_the_frameworks_export():
    files = project_files()
    assert len(files) > 100
    found = [
        problem
        for path in files
        for problem in refused_imports(
            path.read_text(encoding="utf-8"), str(path.relative_to(ROOT))
        )
    ]
    assert found == []


def test_the_scan_refuses_each_kind_of_private_import():
    """Constructed sources, one per kind of import the rule refuses (and the ones it allows)."""
    refused = {
        "from dagster._core.events import DagsterEventType": "private part _core",
        "import dagster._core.instance.ref": "private part _core",
        "from dagster import _check": "private part _check",
        "from dagster_dbt.asset_utils import get_manifest_and_translator_from_dbt_assets": (
            "not dagster_dbt's top level"
        ),
        "from dagster_dbt.core.dbt_cli_invocation import DbtCliInvocation": "top level",
        "from dagster_dbt import core": "does not export core",
        "from dagster_dbt import no_such_name": "does not export no_such_name",
        "from dbt.adapters.duckdb.connections import DuckDBConnectionManager": "dbt-duckdb",
        "from dbt.adapters.sql.connections import SQLConnectionManager": "connection internals",
        "from dbt_common.events.functions import msg_to_dict": "not among the dbt modules",
        "logging.getLogger('dagster._core.execution.plan.active')": "private Dagster module",
        "from altair.utils._importers import vl_version_for_vl_convert": (
            "private part _importers of altair"
        ),
        "import great_expectations.core._docs_decorators": "private part _docs_decorators",
        "from duckdb import _private_name": "private part _private_name of duckdb",
    }
    for source, why in refused.items():
        problems = refused_imports(source)
        assert problems and all("<source>:1: " in p for p in problems), source
        assert any(why in p for p in problems), (source, problems)
    for allowed in (
        "import dagster as dg",
        "from dagster import AssetKey, DagsterInstance",
        "from dagster_dbt import DagsterDbtTranslator, DbtCliResource, dbt_assets",
        "from dagster_duckdb import DuckDBResource",
        "from dbt.cli.main import dbtRunner",
        "import altair as alt",
        "from sources._internal.http import HttpClient",
        "from __future__ import annotations",
    ):
        assert refused_imports(allowed) == [], allowed
