"""The dbt project as Dagster assets: staging -> intermediate -> marts, with dbt tests as checks.

One Dagster step builds the whole project through dagster-dbt's `DbtCliResource` (a dbt child
process per command): the day's records among the per-day marts (incremental models tagged
`day_record`, which store their rows by day) are partitioned by day, every other model, seed and
view is one asset.
What must be rebuilt when its definition changes is dbt's own state comparison: after each
successful whole build, dbt's manifest of that build is kept (`<home>/dbt_state/<step>/
manifest.json`); the next build asks dbt which of its models and seeds differ from it or are built
from one that does (`dbt ls --select state:modified+ --state ...`). A per-day mart among them
(incremental: a build writes only its window of days) is rebuilt over every day first (`dbt build
--full-refresh` of it and of the changed models and seeds it is built from, no tests); with no kept
manifest (a first build, or a warehouse built before this layout) every per-day mart is. The step's
`dbt build` then writes the window and runs every data test, as dbt runs them: the tests of the
per-day marts and of the views over them check the window's days (`where: "__daily_window__"`),
every day when anything of the project changed; unit tests (which test the SQL, not the data) run
when something changed, as dbt recommends for production builds. The question (`ls`) is asked in
the run's process through dbt's documented programmatic invocation (`dbtRunner`), where
dagster-dbt's resource has already imported dbt; the builds run as dbt processes of their own
through `DbtCliResource` (a dbt process costs 2-4 s of start-up, parse and wrap-up on this 2-core
machine).

The day and the window reach dbt as environment variables (`GPULEDGER_AS_OF`,
`GPULEDGER_WINDOW_START`, read by macros/as_of_date.sql and macros/daily_window.sql), not `--vars`:
dbt re-parses the whole project when `--vars` change (9.6 s against 3.7 s for a partial parse on
this machine, for each dbt command), and only the files that read a changed environment variable
at parse time (none: the macros read them when a node runs). dbt's parse state is kept with the
warehouse (`<home>/dbt_parse/partial_parse.msgpack`, put in each command's target folder, where
dbt reads it), one for every command (`ls` and `build` parse the same project with the same
profile), so each command parses only what changed. dbt runs in the warehouse's folder and knows
the warehouse by its file name (pipelines/dbt_command.py): the state, which records the profile,
serves every home, so a copied home's first command takes up the state copied with it, and a new
home's the one `make manifest` wrote.
"""

import contextlib
import json
import os
import shutil
from datetime import UTC, date, datetime
from pathlib import Path

import dagster as dg
from dagster_dbt import DagsterDbtTranslator, DbtCliResource, dbt_assets
from dbt.cli.main import dbtRunner

from pipelines.dbt_command import DB_PATH_VAR
from pipelines.defs.partitions import DAILY, SINGLE_RUN, window_of
from pipelines.defs.resources import DBT_PROJECT, GpuledgerResource

KEEP_DBT_RUNS = 12
PARSE_STATE = "partial_parse.msgpack"
DBT_STEP = "gpuledger_dbt"  # the Dagster step (and op) that builds the dbt project
DBT_LAYERS = ("staging", "intermediate", "marts", "analytics")
PARTITIONED_TAG = "day_record"  # the per-day marts partitioned by day (LayerTranslator)
FULL_TEST_START = "1970-01-01"  # the data tests' window when the step changed: every day


class LayerTranslator(DagsterDbtTranslator):
    """dbt assets grouped as the project is layered: a group per models folder (staging,
    intermediate, marts, analytics) and `reference` for the seeds; descriptions stay dbt's own."""

    def get_asset_spec(self, manifest, unique_id, project) -> dg.AssetSpec:
        """The per-day marts tagged `day_record` in dbt (an incremental model storing its rows by
        day: the day's offers, its options and ranks, its alert candidates) are partitioned by
        day: what an operator follows day by day. The other per-day marts (coverage, rankings of
        prices, spreads, break-even, leaders, rank changes, price disagreements) summarize them in
        the same dbt command over the same window, and the views and tables built from them hold
        no day of their own: one asset each, rebuilt with the marts. (A range run records a
        planned and a done materialization per partitioned asset and day: 365 days of 22 per-day
        assets were 8,030 of each, of the 10 per-day marts 3,650, of these 3 1,095.)"""
        spec = super().get_asset_spec(manifest, unique_id, project)
        node = manifest["nodes"].get(unique_id) or {}
        if (
            PARTITIONED_TAG in node.get("tags", [])
            and node.get("config", {}).get("materialized") == "incremental"
        ):
            return spec.replace_attributes(partitions_def=DAILY)
        return spec

    def get_group_name(self, dbt_resource_props) -> str:
        fqn = dbt_resource_props.get("fqn") or []
        if dbt_resource_props.get("resource_type") == "seed":
            return "reference"
        if len(fqn) > 2 and fqn[1] in DBT_LAYERS:
            return fqn[1]
        return super().get_group_name(dbt_resource_props) or "dbt"


def run_window(context, gpuledger: GpuledgerResource) -> tuple[date, date]:
    """The first and last day this run builds: the asset's partition (range), else the run's
    partition tags (an unpartitioned asset in a partitioned run), else the resource's as-of day
    (and window start)."""
    window = window_of(context) if context.assets_def.partitions_def else None
    if window:
        return window
    tags = context.run.tags
    if "dagster/partition" in tags:
        day = date.fromisoformat(tags["dagster/partition"])
        return day, day
    if "dagster/asset_partition_range_start" in tags:
        return (
            date.fromisoformat(tags["dagster/asset_partition_range_start"]),
            date.fromisoformat(tags["dagster/asset_partition_range_end"]),
        )
    as_of = gpuledger.as_of_date()
    return gpuledger.window_start_date() or as_of, as_of


def state_dir(home: Path, step: str) -> Path:
    """Where the manifest of the step's last successful whole build is kept (dbt's `--state`)."""
    return home / "dbt_state" / step


class DbtStep:
    """One dbt step of a run: its commands' folders under `<home>/dbt_runs/` (the newest
    KEEP_DBT_RUNS kept), named `<time>-<run>-<step>-<command>`, and the step's kept state."""

    def __init__(self, dbt: DbtCliResource, home: Path, step: str, run_id: str):
        # absolute: dbt runs in the warehouse's folder (pipelines/dbt_command.py)
        self.dbt, self.home, self.step, self.run_id = dbt, home.resolve(), step, run_id
        self.runs_dir = self.home / "dbt_runs"
        self.state = state_dir(self.home, self.step)
        self.parse_dir = self.home / "dbt_parse"

    def target(self, command: str) -> Path:
        """A new folder for a dbt command, holding this warehouse's parse state (dbt takes up
        `partial_parse.msgpack` in its target folder; dagster-dbt then leaves it be)."""
        stamp = f"{datetime.now(UTC):%Y%m%dT%H%M%S%f}-{self.run_id[:8]}"
        folder = self.runs_dir / f"{stamp}-{self.step}-{command}"
        state = self.parse_dir / PARSE_STATE
        if state.exists():
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(state, folder / PARSE_STATE)
        return folder

    def kept_parse_state(self, target: Path) -> None:
        """After a command: its parse state (dbt's, or the one it took up) is the next one's."""
        if (target / PARSE_STATE).exists():
            self.parse_dir.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(target / PARSE_STATE, self.parse_dir / PARSE_STATE)

    def modified(self) -> set[str] | None:
        """The models and seeds that differ from the step's last successful whole build, or are
        built from one that does (dbt's state:modified+); None when no build was kept.

        Asked of dbt in this process (`dbtRunner`, dbt's documented programmatic invocation):
        dagster-dbt's resource has already imported dbt here to set up its adapter, so the
        question costs its parse and selection (0.3-1.1 s) instead of a dbt process of its own
        (2-6 s depending on the hour, most of it dbt's start-up). It writes nothing but its log,
        graph summary and parse state in its folder; the build that follows still runs as its
        own process through `DbtCliResource`."""
        if not (self.state / "manifest.json").exists():
            return None
        target = self.target("ls")
        # --no-write-json: the names are the answer; the question's own manifest (and semantic
        # manifest, graph) would be written only to be deleted with its folder
        args = [
            "ls", "--no-write-json", "--quiet", "--select", "state:modified+",
            "--state", str(self.state), "--resource-type", "model", "--resource-type", "seed",
            "--output", "name", "--project-dir", str(self.dbt.project_dir),
            "--profiles-dir", str(self.dbt.profiles_dir or self.dbt.project_dir),
            "--target-path", str(target), "--log-path", str(target),
        ]  # fmt: skip
        with warehouse_named_by_file():
            result = dbtRunner().invoke(args)
        if not result.success:
            why = result.exception or "see its log"
            raise RuntimeError(
                f"dbt ls (what changed since the step's last successful build, against "
                f"{self.state / 'manifest.json'}) failed: {why}; its log: {target / 'dbt.log'} "
                "(a kept manifest dbt cannot read can be removed: the next run then rebuilds "
                "every per-day mart over every day)"
            )
        self.kept_parse_state(target)
        return {name.strip() for name in result.result}

    def full_refresh(self, models: list[str]) -> None:
        """Build these incremental models over every day (`dbt build --full-refresh`, no tests),
        with what they are built from that changed too (state:modified+ among their parents, in
        order: a mart reading a column its changed parent gains reads the parent built anew, not
        the one the last build left); their materializations and tests come from the step's
        build that follows."""
        target = self.target("rebuild")
        parents = " ".join(f"state:modified+,+{m}" for m in models)
        self.dbt.cli(
            ["build", "--full-refresh", "--select", parents, "--state", str(self.state),
             "--exclude-resource-type", "test", "--exclude-resource-type", "unit_test"],
            target_path=target,
        ).wait()  # fmt: skip
        self.kept_parse_state(target)

    def keep_state(self, target: Path) -> None:
        """After a successful whole build: its manifest is the next build's state."""
        self.state.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(target / "manifest.json", self.state / "manifest.json")


@contextlib.contextmanager
def warehouse_named_by_file():
    """The warehouse named by its file name while dbt is asked in this process, as the build's
    dbt process names it (pipelines/dbt_command.py): the parse state records the profile, and
    the same profile lets the question take up the build's parse state (and the build the
    question's). The question opens no connection, so the folder it runs in does not matter."""
    db = os.environ.get(DB_PATH_VAR, "")
    if not os.path.isabs(db):
        yield
        return
    os.environ[DB_PATH_VAR] = os.path.basename(db)
    try:
        yield
    finally:
        os.environ[DB_PATH_VAR] = db


def incremental_models() -> set[str]:
    """The names of the project's incremental models (the per-day marts), from its manifest."""
    manifest = json.loads(DBT_PROJECT.manifest_path.read_text(encoding="utf-8"))
    return {
        n["name"]
        for n in manifest["nodes"].values()
        if n["resource_type"] == "model" and n["config"].get("materialized") == "incremental"
    }


def _build(context, dbt: DbtCliResource, gpuledger: GpuledgerResource):
    # dbt's profile reads the warehouse path from the environment; this run's resource decides it.
    os.environ["GPULEDGER_DB_PATH"] = str(gpuledger.paths.db_path)
    start, as_of = run_window(context, gpuledger)
    step = DbtStep(dbt, gpuledger.paths.home, context.assets_def.op.name, context.run_id)
    selected = {key.path[-1] for key in context.selected_asset_keys}
    incremental = sorted(selected & incremental_models())
    found = step.modified()
    changed = selected if found is None else selected & found
    rebuild = [m for m in incremental if m in changed]
    first = found is None and bool(incremental)
    if rebuild:
        why = (
            "no earlier build of this step is kept (dbt_state)"
            if found is None
            else "their definition changed since the step's last successful build (dbt "
            "state:modified+: SQL, seeds, macros or settings)"
        )
        context.log.info(
            f"rebuilding {len(rebuild)} per-day marts over every day, {why}: {', '.join(rebuild)}"
        )
    elif changed:
        context.log.info(
            f"{len(changed)} models and seeds changed since the step's last successful build "
            f"(dbt state:modified+): {', '.join(sorted(changed))}"
        )
    os.environ.update(
        {
            "GPULEDGER_AS_OF": as_of.isoformat(),
            "GPULEDGER_WINDOW_START": start.isoformat(),
            # the windowed data tests check every day when something of the step changed
            "GPULEDGER_TEST_START": FULL_TEST_START if changed else "",
        }
    )
    try:
        if rebuild and not first:
            step.full_refresh(rebuild)
        args = ["build"]
        if first:
            args.append("--full-refresh")
        if not changed:
            args += ["--exclude-resource-type", "unit_test"]
        if context.is_subset:
            # A few models materialized on their own: run only the tests whose every parent is
            # among them (a relationships test to a model not built here would fail on a fresh
            # warehouse).
            args += ["--indirect-selection", "cautious"]
        target = step.target("build")
        yield from dbt.cli(args, context=context, target_path=target).stream()
        step.kept_parse_state(target)
        if not context.is_subset:
            # a subset did not build every changed node: the next whole build compares anew
            step.keep_state(target)
    finally:
        prune_run_folders(step.runs_dir, keep=KEEP_DBT_RUNS)


@dbt_assets(
    manifest=DBT_PROJECT.manifest_path,
    project=DBT_PROJECT,
    dagster_dbt_translator=LayerTranslator(),
    # the day's records are partitioned by day (LayerTranslator); a range is built in one run
    backfill_policy=SINGLE_RUN,
    name=DBT_STEP,
)
def gpuledger_dbt(
    context: dg.AssetExecutionContext, dbt: DbtCliResource, gpuledger: GpuledgerResource
):
    """The whole dbt project in one step: staging, intermediate, the dimension and evidence marts
    and the seeds (not partitioned: small, rebuilt whole as data arrives), the per-day marts (a
    run writes its partition's or range's days; the day's records among them one partition per
    day) and the views over them."""
    yield from _build(context, dbt, gpuledger)


def prune_run_folders(runs_dir: Path, keep: int) -> None:
    """Delete all but the newest `keep` run folders (names sort by start time)."""
    if not runs_dir.exists():
        return
    folders = sorted(p for p in runs_dir.iterdir() if p.is_dir())
    for old in folders[:-keep] if keep > 0 else folders:
        shutil.rmtree(old, ignore_errors=True)
