"""The dbt project as Dagster assets: staging -> intermediate -> marts, with dbt tests as checks."""

import dataclasses
import functools
import json
import logging
import os
import shutil
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import dagster as dg
from dagster_dbt import DagsterDbtTranslator, DbtCliResource, dbt_assets
from dagster_duckdb import DuckDBResource

from pipelines import incremental
from pipelines.defs.partitions import DAILY, SINGLE_RUN, window_of
from pipelines.defs.resources import DBT_PROJECT, GpuledgerResource, warehouse_connection

KEEP_DBT_RUNS = 7
PARSE_STATE = "partial_parse.msgpack"
DBT_LAYERS = ("staging", "intermediate", "marts", "analytics")


@functools.cache
def _manifest() -> dict:
    return json.loads(DBT_PROJECT.manifest_path.read_text(encoding="utf-8"))


class LayerTranslator(DagsterDbtTranslator):
    """dbt assets grouped as the project is layered: a group per models folder (staging,
    intermediate, marts, analytics) and `reference` for the seeds; descriptions stay dbt's own."""

    def get_group_name(self, dbt_resource_props) -> str:
        fqn = dbt_resource_props.get("fqn") or []
        if dbt_resource_props.get("resource_type") == "seed":
            return "reference"
        if len(fqn) > 2 and fqn[1] in DBT_LAYERS:
            return fqn[1]
        return super().get_group_name(dbt_resource_props) or "dbt"


class LeftOutChecks(logging.Filter):
    """Dagster warns, on its own logger and so on the console, of every blocking check that gave
    no result in its step (when a later step of the run starts). The data tests left out on
    purpose (the seeds' and the implied ones, unchanged project) are reported by their step, in
    the run's log; their warnings are dropped, for every step of the run."""

    names: frozenset[str] = frozenset()
    run_id: str = ""

    def left_out(self, run_id: str, names) -> None:
        """The tests a step of `run_id` left out, beside those of its earlier steps."""
        if run_id != self.run_id:
            self.run_id, self.names = run_id, frozenset()
        self.names = self.names | frozenset(names)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "emitted no result" not in message:
            return True
        return not any(f":{name}'" in message for name in self.names)


LEFT_OUT = LeftOutChecks()
logging.getLogger("dagster._core.execution.plan.active").addFilter(LEFT_OUT)


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


def _build(context, dbt: DbtCliResource, gpuledger: GpuledgerResource, duckdb: DuckDBResource):
    # dbt's profile reads the warehouse path from the environment; this run's resource decides it.
    os.environ["GPULEDGER_DB_PATH"] = str(gpuledger.paths.db_path)
    started = datetime.now(UTC)  # before dbt reads anything: see incremental.new_since()
    start, as_of = run_window(context, gpuledger)
    # The day (and the per-day marts' window) reach dbt as environment variables, not --vars: a
    # changed variable re-parses only what reads it, a changed --vars the whole project (~2 s).
    selected = {key.path[-1] for key in context.selected_asset_keys}
    fps = incremental.fingerprints(DBT_PROJECT.manifest_path, DBT_PROJECT.project_dir)
    whole = incremental.project(DBT_PROJECT.manifest_path, DBT_PROJECT.project_dir)
    current = {name: node for name, node in fps.items() if name in selected}
    step = context.assets_def.node_def.name
    with warehouse_connection(duckdb) as con:
        plan = incremental.prepare(con, current, as_of, start, whole=whole)
        # views and seeds dbt would leave as they are: not handed to dbt (~30 ms of dbt's work
        # each, and their events), recorded here as unchanged; their data tests still run
        kept = () if context.is_subset else incremental.unchanged(
            con, DBT_PROJECT.manifest_path, selected, plan, whole, step
        )  # fmt: skip
        since = None if context.is_subset else incremental.new_since(con, step, whole, plan)
        # data tests that cannot fail while what implies them holds (raw's keys, a mart's test)
        implied, implied_runs = (
            ((), {}) if context.is_subset
            else incremental.implied_tests(con, selected, plan, whole, step)
        )  # fmt: skip
    plan = dataclasses.replace(plan, implied_tests=implied)
    if plan.full:
        context.log.info(
            f"rebuilding {len(plan.rebuild)} per-day marts over every day, {plan.why}: "
            f"{', '.join(plan.rebuild)}"
        )
    LEFT_OUT.left_out(context.run_id, plan.skipped_tests + plan.implied_tests)
    if plan.skipped_tests:
        context.log.info(
            f"{len(plan.skipped_tests)} data tests of the seeds left out: the project is as it "
            "was at the last successful build"
        )
    if implied:
        context.log.info(
            f"{len(implied)} data tests left out, implied by raw's keys and NOT NULL columns, "
            "by data tests of this build or of the seeds, or by a view's own QUALIFY (the project "
            "is as at this step's last successful whole build): " + ", ".join(implied)
        )
    for test, why in sorted(implied_runs.items()):
        context.log.warning(f"data test {test} runs although it names what implies it: {why}")
    if kept:
        context.log.info(
            f"{len(kept)} views and seeds left as they are (the project and their SQL are as "
            "at the last successful build): " + ", ".join(uid.split(".")[-1] for uid in kept)
        )
    # the data tests over every price observation: the snapshots loaded since (else every row)
    plan.env["GPULEDGER_NEW_SINCE"] = since.isoformat() if since else ""
    if since and _windowed_tests_of(selected):
        context.log.info(
            "data tests over every price observation check the snapshots loaded or validated "
            f"since {since.isoformat(timespec='seconds')} (this step's last whole build, less "
            f"{incremental.CLOCK_SLACK}); the rows before were checked then"
        )
    os.environ.update(plan.env)
    # dbt's per-run target folder (manifest, run results, logs) lives with the warehouse, and only
    # the last few are kept: one folder per daily run would otherwise grow without end.
    runs_dir = gpuledger.paths.home / "dbt_runs"
    target = runs_dir / f"{datetime.now(UTC):%Y%m%dT%H%M%S%f}-{context.run_id[:8]}"
    # no JSON artifacts: dbt wrote its 2 MB manifest twice and the run results every command
    # (~0.6 s of each); Dagster's event log holds every node's result and dbt.log its lines
    args = ["build", "--no-write-json", *plan.args(left_as_they_are=kept)]
    if context.is_subset:
        # A few models materialized on their own: run only the tests whose every parent is among
        # them (a relationships test to a model not built here would fail on a fresh warehouse).
        args += ["--indirect-selection", "cautious"]
    # dbt's parse state of this warehouse's last run: dagster-dbt would hand dbt the one `make
    # manifest` wrote, whose profile (the warehouse path) differs, so dbt re-parsed the whole
    # project every time (~2 s a command); dbt checks the state and re-parses what changed.
    parse_state = gpuledger.paths.home / PARSE_STATE
    if parse_state.exists():
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(parse_state, target / PARSE_STATE)
    try:
        # dbt runs in the dbt worker process (pipelines/defs/dbt_worker.py); its events are
        # queued here and Dagster records them at its pace while dbt goes on
        events = dbt.cli(args, context=context, target_path=target).stream()
        yield from _with_unchanged_outputs(context, events, kept)
        if (target / PARSE_STATE).exists():
            shutil.copyfile(target / PARSE_STATE, parse_state)
    finally:
        prune_run_folders(runs_dir, keep=KEEP_DBT_RUNS)
    # The project's digest (which lets the next build leave out the seeds' tests) is recorded
    # only by a whole build of the step that loads the seeds and runs their tests: a subset run
    # without them must not vouch for seeds it did not test.
    seeds_tested = not context.is_subset and any(n.kind == "seed" for n in current.values())
    # A whole build of the step leaves every view and seed of it with this project's stamp: the
    # next build of the step may leave them out of dbt (incremental.unchanged).
    with warehouse_connection(duckdb) as con:
        incremental.record(
            con,
            current,
            whole if seeds_tested else None,
            built=None if context.is_subset else (step, whole.digest),
            started=started,
        )


@dbt_assets(
    manifest=DBT_PROJECT.manifest_path,
    project=DBT_PROJECT,
    dagster_dbt_translator=LayerTranslator(),
    exclude=f"tag:{incremental.DAILY_TAG}+",
)
def gpuledger_dbt_models(
    context: dg.AssetExecutionContext,
    dbt: DbtCliResource,
    gpuledger: GpuledgerResource,
    duckdb: DuckDBResource,
):
    """Staging, intermediate, the dimension and evidence marts and the seeds: not partitioned
    (small, rebuilt whole as data arrives)."""
    yield from _build(context, dbt, gpuledger, duckdb)


@dbt_assets(
    manifest=DBT_PROJECT.manifest_path,
    project=DBT_PROJECT,
    dagster_dbt_translator=LayerTranslator(),
    # the per-day marts and what is built from them (views over them), so that the two dbt
    # assets are one step each: nothing not partitioned depends on a partitioned model
    select=f"tag:{incremental.DAILY_TAG}+",
    partitions_def=DAILY,
    backfill_policy=SINGLE_RUN,
    name="gpuledger_daily_marts",
)
def gpuledger_daily_marts(
    context: dg.AssetExecutionContext,
    dbt: DbtCliResource,
    gpuledger: GpuledgerResource,
    duckdb: DuckDBResource,
):
    """The per-day marts, one partition per day: a run writes its partition's (range's) days;
    with the views built from them."""
    yield from _build(context, dbt, gpuledger, duckdb)


def _windowed_tests_of(models: set[str]) -> list[str]:
    """The data tests of these models that check only the snapshots loaded since the step's
    last whole build (`where: "__new_snapshots__"`)."""
    nodes = _manifest()["nodes"].values()
    return [
        n["name"]
        for n in nodes
        if n["resource_type"] == "test"
        and "__new_snapshots__" in (n["config"].get("where") or "")
        and (n.get("attached_node") or "").split(".")[-1] in models
    ]


def _with_unchanged_outputs(context, events: Iterator, unique_ids) -> Iterator:
    """dbt's events, with an output for each view or seed left as it is, as dagster-dbt yields
    one for a node dbt reports unchanged: the asset is current (a view reads its tables when
    queried; a seed is the repository's file) and what is built from it runs. Each comes as
    soon as the assets it is built from in this step have come (Dagster takes a step's assets
    in the order they depend on each other), so before any of its data tests' results."""
    manifest = _manifest()
    translator = LayerTranslator()
    selected = context.selected_asset_keys
    waiting = {}
    for uid in unique_ids:
        key = translator.get_asset_spec(manifest, uid, DBT_PROJECT).key
        if key in selected:
            waiting[key] = uid
    deps = context.assets_def.asset_deps
    done: set = set()

    def ready() -> Iterator[dg.Output]:
        while True:
            now = [k for k in waiting if all(p in done for p in deps.get(k, ()) if p in selected)]
            if not now:
                return
            for key in sorted(now, key=lambda k: k.to_user_string()):
                uid = waiting.pop(key)
                done.add(key)
                yield dg.Output(
                    value=None,
                    output_name=key.to_python_identifier(),
                    metadata={"unique_id": uid, "status": "unchanged"},
                )

    yield from ready()
    for event in events:
        yield event
        if isinstance(event, dg.Output):
            done.add(context.assets_def.keys_by_output_name[event.output_name])
            yield from ready()
    # a node they are built from that dbt did not report (none in a whole build)
    for key, uid in sorted(waiting.items(), key=lambda kv: kv[0].to_user_string()):
        yield dg.Output(
            value=None,
            output_name=key.to_python_identifier(),
            metadata={"unique_id": uid, "status": "unchanged"},
        )


def prune_run_folders(runs_dir: Path, keep: int) -> None:
    """Delete all but the newest `keep` run folders (names sort by start time)."""
    if not runs_dir.exists():
        return
    folders = sorted(p for p in runs_dir.iterdir() if p.is_dir())
    for old in folders[:-keep] if keep > 0 else folders:
        shutil.rmtree(old, ignore_errors=True)
