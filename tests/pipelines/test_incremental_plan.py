"""When a build of the per-day marts writes its window, and when it rebuilds them whole."""

from __future__ import annotations

import dataclasses
import json
from datetime import date

import duckdb

from pipelines import incremental
from pipelines.defs.resources import DBT_PROJECT
from pipelines.incremental import Node

D = date(2026, 8, 22)


def warehouse(newest: date = D) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("create schema marts")
    for t in ("fct_offers", "fct_costs"):
        days = (newest - date(2026, 8, 1)).days + 1
        con.execute(f"create table marts.{t} as select date '2026-08-01' + cast(i as integer) "
                    f"as day from range(0, {days}) t(i)")  # fmt: skip
    return con


NODES = {
    "fct_offers": Node("a", True, "model", "incremental"),
    "fct_costs": Node("b", True, "model", "incremental"),
    "stg_prices": Node("c", False, "model", "view"),
    "workload_classes": Node("d", False, "seed", "seed"),
}


def tables(con) -> set[str]:
    rows = con.execute("select table_name from information_schema.tables "
                       "where table_schema = 'marts'").fetchall()  # fmt: skip
    return {r[0] for r in rows}


def test_first_build_rebuilds_everything_and_then_only_the_changed_marts():
    con = warehouse()
    first = incremental.prepare(con, NODES, D)  # nothing recorded yet
    assert first.rebuild == ("fct_costs", "fct_offers") and first.full
    assert first.env["GPULEDGER_TEST_START"] == incremental.FULL_TEST_START
    incremental.record(con, NODES)
    con.execute("create table marts.fct_offers as select date '2026-08-22' as day")
    con.execute("create table marts.fct_costs as select date '2026-08-22' as day")
    day = incremental.prepare(con, NODES, D)
    assert day.rebuild == () and not day.full and day.changed == ()
    assert day.env == {"GPULEDGER_AS_OF": "2026-08-22", "GPULEDGER_WINDOW_START": "2026-08-22",
                       "GPULEDGER_TEST_START": ""}  # fmt: skip
    assert day.args() == ["--exclude", "resource_type:unit_test"]  # no SQL changed
    # a seed the costs are built from changes: its fingerprint and the costs' change
    edited = {**NODES, "workload_classes": Node("d2", False, "seed", "seed"),
              "fct_costs": Node("b2", True, "model", "incremental")}  # fmt: skip
    plan = incremental.prepare(con, edited, D)
    assert plan.rebuild == ("fct_costs",) and plan.changed == ("fct_costs", "workload_classes")
    assert tables(con) == {"fct_offers"}  # dropped, so dbt builds it over every day
    assert plan.args() == []  # unit tests run


def test_a_changed_view_over_the_marts_has_its_data_tests_check_every_day():
    """The windowed data tests check every day when a view of the build changed, though no mart
    is rebuilt: the view's new definition applies to every day it shows."""
    con = warehouse()
    incremental.record(con, NODES)
    assert incremental.prepare(con, NODES, D).env["GPULEDGER_TEST_START"] == ""
    view_changed = {**NODES, "stg_prices": Node("c2", False, "model", "view")}
    plan = incremental.prepare(con, view_changed, D)
    assert plan.rebuild == () and plan.changed == ("stg_prices",)
    assert plan.env["GPULEDGER_TEST_START"] == incremental.FULL_TEST_START
    assert tables(con) == {"fct_offers", "fct_costs"}  # no mart dropped


def test_a_long_range_up_to_the_newest_day_is_built_whole_a_short_one_is_not():
    con = warehouse()
    incremental.record(con, NODES)
    short = incremental.prepare(con, NODES, D, start=date(2026, 8, 20))
    assert short.rebuild == () and short.env["GPULEDGER_WINDOW_START"] == "2026-08-20"
    long = incremental.prepare(con, NODES, D, start=date(2026, 6, 1))
    assert long.rebuild == ("fct_costs", "fct_offers") and "up to the newest" in long.why
    # later days already built: rebuilding whole through D would lose them, so the range is
    # written incrementally
    con2 = warehouse(newest=date(2026, 8, 30))
    incremental.record(con2, NODES)
    kept = incremental.prepare(con2, NODES, D, start=date(2026, 6, 1))
    assert kept.rebuild == () and tables(con2) == {"fct_offers", "fct_costs"}


def test_fingerprints_of_the_project_follow_what_each_mart_is_built_from():
    fps = incremental.fingerprints(DBT_PROJECT.manifest_path, DBT_PROJECT.project_dir)
    daily = {n for n, node in fps.items() if node.daily}
    assert daily == {
        "fct_gpu_offers_daily", "fct_workload_cost_inputs_daily", "fct_workload_costs_daily",
        "fct_gpu_rankings_daily", "fct_gpu_price_rankings_daily", "fct_rank_changes",
        "fct_alert_candidates", "fct_class_leaders_daily", "fct_coverage_daily",
        "fct_provider_spread_daily", "fct_api_break_even_daily",
    }  # fmt: skip
    # stored incremental, but for the two views computed from them as they are read
    views = {"fct_workload_costs_daily", "fct_gpu_rankings_daily"}
    assert all(fps[n].materialized == "incremental" for n in daily - views)
    assert all(fps[n].materialized == "view" for n in views)
    assert fps["workload_classes"].kind == "seed" and fps["fct_gpu_specs"].materialized == "table"
    assert fps["dim_gpu"].materialized == "view"  # the gpu_catalog seed's rows as they are
    assert len({node.fingerprint for node in fps.values()}) == len(fps)


def test_the_seeds_tests_are_left_out_only_while_the_whole_project_is_unchanged():
    """A data test whose every parent is a seed tests a file of the repository: it is left out
    while the project (models, seeds, tests, macros, settings) is as at the last successful build,
    and runs again after any change, a changed test definition included."""
    whole = incremental.project(DBT_PROJECT.manifest_path, DBT_PROJECT.project_dir)
    assert len(whole.seed_tests) == 22
    assert "unique_workload_classes_workload_class" in whole.seed_tests
    assert "accepted_values_gpu_catalog_variant__sxm__pcie__nvl__nvl72__superchip__oam" in (
        whole.seed_tests
    )
    # both parents seeds: left out; a parent that is a model (built from raw data): never
    assert "relationships_workload_classes_model_ref__model_ref__ref_model_reference_" in (
        whole.seed_tests
    )
    assert not any("dim_gpu" in t or "stg_" in t or "fct_" in t for t in whole.seed_tests)
    con = warehouse()
    first = incremental.prepare(con, NODES, D, whole=whole)  # nothing recorded yet
    assert first.skipped_tests == () and first.env["GPULEDGER_PROJECT_DIGEST"] == whole.digest
    incremental.record(con, NODES, whole)
    con.execute("create table marts.fct_offers as select date '2026-08-22' as day")
    con.execute("create table marts.fct_costs as select date '2026-08-22' as day")
    day = incremental.prepare(con, NODES, D, whole=whole)
    assert day.skipped_tests == whole.seed_tests
    # one argument: dbt reads a space-separated union in it (several values would be commands)
    assert day.args() == ["--exclude", " ".join(["resource_type:unit_test", *whole.seed_tests])]
    edited = incremental.Project("another digest", whole.seed_tests)  # e.g. a test's YAML
    assert incremental.prepare(con, NODES, D, whole=edited).skipped_tests == ()
    seed_changed = {**NODES, "workload_classes": Node("d2", False, "seed", "seed")}
    assert incremental.prepare(con, seed_changed, D, whole=whole).skipped_tests == ()


def test_the_project_digest_follows_every_node_and_macro(tmp_path):
    import json
    import shutil

    manifest = json.loads(DBT_PROJECT.manifest_path.read_text(encoding="utf-8"))
    project_dir = tmp_path / "dbt"
    shutil.copytree(DBT_PROJECT.project_dir / "macros", project_dir / "macros")
    shutil.copy(DBT_PROJECT.project_dir / "dbt_project.yml", project_dir / "dbt_project.yml")
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    base = incremental.project(path, project_dir).digest
    assert incremental.project(path, project_dir).digest == base  # stable
    test = next(u for u, n in manifest["nodes"].items() if n["resource_type"] == "test")
    severity = manifest["nodes"][test]["config"]["severity"]
    manifest["nodes"][test]["config"]["severity"] = "warn" if severity != "warn" else "error"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    assert incremental.project(path, project_dir).digest != base
    manifest["nodes"][test]["config"]["severity"] = severity
    path.write_text(json.dumps(manifest), encoding="utf-8")
    assert incremental.project(path, project_dir).digest == base
    (project_dir / "macros" / "as_of_date.sql").write_text("{# edited #}", encoding="utf-8")
    assert incremental.project(path, project_dir).digest != base


def test_views_and_seeds_left_as_they_are_only_while_nothing_they_show_can_differ():
    """A view or seed is not handed to dbt when dbt would leave it as it is: the project is the
    one of the step's last successful whole build, nothing of this build changed, it is in the
    warehouse with its stamp, and its compiled SQL reads no setting. The project's real views
    and seeds."""
    whole = incremental.project(DBT_PROJECT.manifest_path, DBT_PROJECT.project_dir)
    current = incremental.fingerprints(DBT_PROJECT.manifest_path, DBT_PROJECT.project_dir)
    selected = set(current)
    con = duckdb.connect()
    for schema in ("staging", "intermediate", "reference", "marts"):
        con.execute(f"create schema {schema}")
    for name in ("stg_price_observations", "stg_gpu_specs"):
        con.execute(f"create view staging.{name} as select 1 as x")
        con.execute(f"comment on view staging.{name} is 'stamp'")
    con.execute("create view staging.stg_fx_rates as select 1 as x")  # built without a stamp
    # reads the as-of day when compiled (macros/as_of_date.sql): its SQL differs day by day
    con.execute("create view intermediate.int_price_snapshots_daily as select 1 as x")
    con.execute("comment on view intermediate.int_price_snapshots_daily is 'stamp'")
    con.execute("create table reference.workload_classes as select 1 as x")
    con.execute("comment on table reference.workload_classes is 'stamp'")
    con.execute("create table marts.fct_gpu_specs as select 1 as x")  # a table model: built
    con.execute("comment on table marts.fct_gpu_specs is 'stamp'")

    def unchanged(plan, project=whole, step="models"):
        return incremental.unchanged(
            con, DBT_PROJECT.manifest_path, selected, plan, project, step
        )  # fmt: skip

    day = incremental.Plan((), (), {})
    assert unchanged(day) == ()  # no build recorded the project yet
    # another step's whole build (in the same run, say) does not vouch for this step's views:
    # they carry the stamp of the project this step last built them with
    incremental.record(con, current, whole, built=("marts", whole.digest))
    assert unchanged(day) == ()
    incremental.record(con, current, whole, built=("models", "the project before"))
    assert unchanged(day) == ()
    incremental.record(con, current, whole, built=("models", whole.digest))
    kept = (
        "model.gpuledger.stg_gpu_specs",
        "model.gpuledger.stg_price_observations",
        "seed.gpuledger.workload_classes",
    )
    assert unchanged(day) == kept
    # the as-of views are found from their macros, recursively (as_of_date reads env_var)
    manifest = json.loads(DBT_PROJECT.manifest_path.read_text(encoding="utf-8"))
    reads = sorted(
        uid.split(".")[-1]
        for uid, n in manifest["nodes"].items()
        if n["config"].get("materialized") == "view" and incremental._reads_settings(manifest, uid)
    )
    assert reads == ["int_evidence_epochs", "int_gpu_specs_by_epoch",
                     "int_gpu_specs_resolved", "int_price_observations_accepted",
                     "int_price_snapshots_daily"]  # fmt: skip
    # (int_fx_rates_usd reads the as-of day too, and is a table: built every day)
    assert manifest["nodes"]["model.gpuledger.int_fx_rates_usd"]["config"]["materialized"] == (
        "table"
    )
    # not in this build's selection: not its to leave out
    assert incremental.unchanged(
        con, DBT_PROJECT.manifest_path, selected - {"stg_gpu_specs"}, day, whole, "models"
    ) == kept[1:]  # fmt: skip
    # anything changed in this build, a rebuild, another project: everything goes to dbt
    assert unchanged(incremental.Plan((), ("stg_gpu_specs",), {})) == ()
    assert unchanged(incremental.Plan(("fct_gpu_offers_daily",), (), {})) == ()
    assert unchanged(day, incremental.Project("another digest", whole.seed_tests)) == ()
    assert unchanged(day, None) == ()
    # a dropped view is built again
    con.execute("drop view staging.stg_gpu_specs")
    assert unchanged(day) == kept[1:]
    # dbt's arguments: the nodes left out by name, and their data tests kept in (`empty`)
    args = day.args(left_as_they_are=kept[1:])
    assert args == ["--exclude", "resource_type:unit_test stg_price_observations workload_classes",
                    "--indirect-selection", "empty"]  # fmt: skip


def test_the_price_rows_tests_check_the_snapshots_loaded_since_the_step_s_last_whole_build():
    """The data tests over every price observation check the rows of snapshots loaded (or
    validated) since this step's last successful whole build began, less an hour for a clock set
    back; every row when there is no such build, it was another project or another step's, or
    anything in this build changed."""
    from datetime import UTC, datetime

    whole = incremental.project(DBT_PROJECT.manifest_path, DBT_PROJECT.project_dir)
    con = warehouse()
    day = incremental.Plan((), (), {})
    assert incremental.new_since(con, "models", whole, day) is None  # never built
    began = datetime(2026, 8, 22, 6, 0, 5, tzinfo=UTC)
    incremental.record(con, NODES, whole, built=("marts", whole.digest), started=began)
    assert incremental.new_since(con, "models", whole, day) is None  # another step's build
    incremental.record(con, NODES, whole, built=("models", "the project before"), started=began)
    assert incremental.new_since(con, "models", whole, day) is None  # another project
    incremental.record(con, NODES, whole, built=("models", whole.digest), started=began)
    since = incremental.new_since(con, "models", whole, day)
    assert since == datetime(2026, 8, 22, 5, 0, 5, tzinfo=UTC)
    # the row keeps when the build began, not when it was recorded
    assert (
        con.execute(
            "select built_at from ops.dbt_fingerprints where model = '(project built by models)'"
        ).fetchone()[0]
        == began
    )
    assert incremental.new_since(con, "models", whole, incremental.Plan((), ("stg_x",), {})) is None
    assert incremental.new_since(con, "models", whole, incremental.Plan(("fct_x",), (), {})) is None
    assert incremental.new_since(con, "models", None, day) is None
    # the project's tests that take the window: the price rows', and no other
    manifest = json.loads(DBT_PROJECT.manifest_path.read_text(encoding="utf-8"))
    windowed = sorted(
        n["name"]
        for n in manifest["nodes"].values()
        if n["resource_type"] == "test" and "__new_snapshots__" in (n["config"].get("where") or "")
    )
    assert windowed == [
        "accepted_values_stg_price_observations_pricing_model__on_demand__spot__reserved_1y__reserved_3y__marketplace__inference",
        "not_null_stg_price_observations_gpu_count",
        "not_null_stg_price_observations_price_per_hour",
        "unique_columns_int_price_observations_accepted_source__snapshot_url__snapshot_fetched_at__row_index",
        "unique_columns_stg_price_observations_source__snapshot_url__snapshot_fetched_at__row_index",
    ]


IMPLIED_BY_RAW = {
    # staging view test -> the raw constraint it checks again (warehouse/db.py)
    "unique_columns_stg_page_snapshots_source__url__fetched_at":
        ("page_snapshots", "primary key", ("source", "url", "fetched_at")),
    "unique_columns_stg_source_runs_run_id__source__url":
        ("source_runs", "primary key", ("run_id", "source", "url")),
    "not_null_stg_page_snapshots_snapshot_sha256": ("page_snapshots", "not null", ("sha256",)),
    "not_null_stg_snapshot_validations_is_success":
        ("snapshot_validations", "not null", ("success",)),
    "not_null_stg_benchmark_runs_run_key":
        ("benchmark_runs", "not null", ("snapshot_sha256", "run_ref")),
}  # fmt: skip


def test_the_project_s_implied_tests_name_raw_constraints_and_tests_that_exist():
    """29 data tests name what implies them: the 15 of the staging views over raw's keys and
    NOT NULL columns, the 8 uniqueness tests of analysts' views over a mart's own test or the
    primary key of its contract, the 2 of the per-day views over the stored cost inputs (the
    costs, the rankings) over the inputs' own, the 3 of dim_gpu (the gpu_catalog seed's rows)
    over the seed's, and int_price_snapshots_daily's uniqueness over the view's own QUALIFY.
    Every claim is read (no problem), every raw claim holds on a warehouse made by
    warehouse/db.py, and every test named checks the same columns upstream, in the same step
    or among the seeds' tests."""
    from warehouse.db import ensure_raw_schema

    whole = incremental.project(DBT_PROJECT.manifest_path, DBT_PROJECT.project_dir)
    implied = {item.test: item for item in whole.implied}
    assert len(implied) == 29
    assert [t for t, item in implied.items() if item.problem] == []
    # the one implied by its model's own SQL names nothing else
    daily = implied["unique_columns_int_price_snapshots_daily_day__source__provider"]
    assert daily.models == {"int_price_snapshots_daily"}
    assert (daily.raw, daily.marts, daily.tests) == ((), (), ())
    assert sum(1 for item in implied.values() if item.raw) == 15
    for test, claim in IMPLIED_BY_RAW.items():
        assert implied[test].raw == (claim,) and implied[test].tests == ()
    costs = implied["unique_columns_workload_costs_daily_day__workload_class__option_key"]
    assert costs.models == {"workload_costs_daily"} and costs.raw == ()
    # the views show the stored inputs' rows one to one, the rankings some of them (the costs
    # are computed from the inputs' columns, the ranks are the inputs' own)
    inputs = "unique_columns_fct_workload_cost_inputs_daily_day__workload_class__option_key"
    assert [name for name, _ in costs.tests] == [inputs]
    mart = implied["unique_columns_fct_workload_costs_daily_day__workload_class__option_key"]
    ranked = implied["unique_columns_fct_gpu_rankings_daily_day__workload_class__option_key"]
    assert mart.models == {"fct_workload_costs_daily"} and ranked.models == {
        "fct_gpu_rankings_daily"
    }  # fmt: skip
    assert mart.tests == ranked.tests == ((inputs, frozenset({"fct_workload_cost_inputs_daily"})),)
    assert dict(implied["unique_columns_gpus_gpu_id"].tests) == {
        "unique_gpu_catalog_gpu_id": {"gpu_catalog"},
    }  # fmt: skip
    assert implied["unique_columns_gpus_gpu_id"].marts == (
        ("fct_gpu_specs", "primary key", ("gpu_id",)),
    )
    health = implied["unique_columns_analytics_source_health_source"]
    assert health.marts == (("source_health", "primary key", ("source",)),) and health.tests == ()
    assert dict(implied["not_null_dim_gpu_gpu_id"].tests) == {
        "not_null_gpu_catalog_gpu_id": {"gpu_catalog"}
    }  # fmt: skip
    assert {name for item in implied.values() for name, _ in item.tests} & set(whole.seed_tests)
    # the seeds' tests are not among them, and no implied test names another implied test
    assert not set(implied) & set(whole.seed_tests)
    assert not {name for item in implied.values() for name, _ in item.tests} & set(implied)
    # on a warehouse as gpuledger makes it, with a whole build of each step recorded, every one
    # is left out of its step; each step leaves out only its own
    con = duckdb.connect()
    ensure_raw_schema(con)
    _marts_with_keys(con)
    current = incremental.fingerprints(DBT_PROJECT.manifest_path, DBT_PROJECT.project_dir)
    daily = {n for n, node in current.items() if node.daily} | {
        "workload_costs_daily", "cheapest_gpu_daily", "rank_changes", "coverage_daily",
        "provider_spread_daily", "api_break_even_daily", "gpu_price_history",
        "int_model_api_prices_daily",
    }  # fmt: skip
    day = incremental.Plan((), (), {})
    incremental.record(con, current, whole, built=("models", whole.digest))
    incremental.record(con, current, whole, built=("marts", whole.digest))
    models_left, runs = incremental.implied_tests(con, set(current) - daily, day, whole, "models")
    marts_left, marts_runs = incremental.implied_tests(con, daily, day, whole, "marts")
    assert runs == {} and marts_runs == {}
    assert len(models_left) == 21 and len(marts_left) == 8
    assert "unique_columns_int_price_snapshots_daily_day__source__provider" in models_left
    # dim_gpu's tests are left out with the seeds' only while a build vouched for the seeds
    assert "unique_dim_gpu_gpu_id" in models_left
    con.execute("delete from ops.dbt_fingerprints where model = '(project)'")
    _, runs = incremental.implied_tests(con, set(current) - daily, day, whole, "models")
    assert runs == {}  # the seeds' tests run in this build (the seeds are in its selection)
    without_seeds = set(current) - daily - {"gpu_catalog"}
    _, runs = incremental.implied_tests(con, without_seeds, day, whole, "models")
    assert runs["unique_dim_gpu_gpu_id"] == (
        "test unique_gpu_catalog_gpu_id does not run in this build"
    )
    incremental.record(con, current, whole)
    assert set(models_left) | set(marts_left) == set(implied)
    assert "unique_columns_gpus_gpu_id" in models_left
    assert "unique_columns_workload_costs_daily_day__workload_class__option_key" in marts_left


def _marts_with_keys(con) -> None:
    """The two marts whose contract's primary key an analysts' view names, with that key, as
    dbt creates them from the contract (tests/integration/test_incremental.py reads them in a
    warehouse dbt built)."""
    con.execute("create schema if not exists marts")
    con.execute("create table marts.fct_gpu_specs (gpu_id varchar primary key)")
    con.execute("create table marts.source_health (source varchar primary key)")


def test_implied_tests_are_left_out_only_while_what_implies_them_holds():
    """An implied test is left out only when the project is the one of this step's last
    successful whole build, nothing in the build changed, the raw constraint is in this
    warehouse and the test it names runs in this build; else it runs, and the reason is given."""
    from warehouse.db import ensure_raw_schema

    whole = incremental.project(DBT_PROJECT.manifest_path, DBT_PROJECT.project_dir)
    current = incremental.fingerprints(DBT_PROJECT.manifest_path, DBT_PROJECT.project_dir)
    key = "unique_columns_stg_source_runs_run_id__source__url"
    gpus = "unique_columns_gpus_gpu_id"
    selected = {"stg_source_runs", "gpus", "fct_gpu_specs"}
    con = duckdb.connect()
    ensure_raw_schema(con)
    _marts_with_keys(con)
    day = incremental.Plan((), (), {})

    def implied(plan=day, project=whole, step="models", chosen=selected):
        return incremental.implied_tests(con, chosen, plan, project, step)

    assert implied() == ((), {})  # no whole build of this step recorded
    incremental.record(con, current, whole, built=("marts", whole.digest))
    assert implied() == ((), {})  # another step's build
    incremental.record(con, current, whole, built=("models", "the project before"))
    assert implied() == ((), {})  # this step last built another project: its tests ran then
    incremental.record(con, current, whole, built=("models", whole.digest))
    assert implied() == ((gpus, key), {})
    # anything changed or rebuilt in this build, no project: every implied test runs
    assert implied(incremental.Plan((), ("stg_source_runs",), {})) == ((), {})
    assert implied(incremental.Plan(("fct_gpu_offers_daily",), (), {})) == ((), {})
    assert implied(project=None) == ((), {})
    # a test named is not built here (its model is another step's) or is itself left out
    costs = "unique_columns_workload_costs_daily_day__workload_class__option_key"
    mart = "unique_columns_fct_workload_costs_daily_day__workload_class__option_key"
    ranked = "unique_columns_fct_gpu_rankings_daily_day__workload_class__option_key"
    named = "unique_columns_fct_workload_cost_inputs_daily_day__workload_class__option_key"
    incremental.record(con, current, whole, built=("marts", whole.digest))
    views = {"workload_costs_daily", "fct_workload_costs_daily", "fct_gpu_rankings_daily"}
    not_run = {t: f"test {named} does not run in this build" for t in (costs, mart, ranked)}
    assert implied(step="marts", chosen=views) == ((), not_run)
    left_out = dataclasses.replace(day, skipped_tests=(named,))
    inputs = {"fct_workload_cost_inputs_daily"}
    assert implied(left_out, step="marts", chosen=views | inputs)[1] == not_run
    assert implied(step="marts", chosen=views | inputs) == ((ranked, mart, costs), {})
    # a mart made without its contract's key (an older build, by hand): the view's test runs
    con.execute("drop table marts.fct_gpu_specs")
    con.execute("create table marts.fct_gpu_specs (gpu_id varchar)")
    assert implied() == ((key,), {gpus: "marts.fct_gpu_specs has no primary key (gpu_id)"})
    con.execute("drop table marts.fct_gpu_specs")
    con.execute("create table marts.fct_gpu_specs (gpu_id varchar primary key)")
    # a raw table made without its key (by hand, say): its uniqueness test runs
    con.execute("drop table raw.source_runs")
    con.execute("create table raw.source_runs (run_id varchar, source varchar, url varchar)")
    assert implied() == ((gpus,), {key: "raw.source_runs has no primary key (run_id, source, url)"})
    con.execute("drop table raw.page_snapshots")
    con.execute("create table raw.page_snapshots (source varchar, url varchar, sha256 varchar)")
    sha = "not_null_stg_page_snapshots_snapshot_sha256"
    assert implied(chosen={"stg_page_snapshots"})[1][sha] == "raw.page_snapshots.sha256 may be null"
    # dbt's arguments: left out by name, like the seeds' tests
    plan = dataclasses.replace(day, implied_tests=(gpus,))
    assert plan.args() == ["--exclude", f"resource_type:unit_test {gpus}"]


def test_an_implied_test_whose_claims_cannot_be_read_always_runs():
    """A claim that is neither a raw constraint nor a test of the project, a test that would
    warn (a warning left out would go unseen) and a test naming another implied test: each is
    read with its problem, and runs whatever the warehouse holds."""

    def test_node(name, model, meta, severity="ERROR"):
        return {
            "resource_type": "test", "name": name,
            "depends_on": {"nodes": [f"model.p.{model}"]},
            "config": {"meta": meta, "severity": severity},
        }  # fmt: skip

    models = {f"model.p.{m}": {"resource_type": "model", "name": m} for m in ("a", "b")}
    tests = [
        test_node("t_typo", "a", {"implied_by": ["raw.a primary key source, url"]}),
        test_node("t_unknown", "a", {"implied_by": "test no_such_test"}),
        test_node("t_warn", "a", {"implied_by": ["raw.a not null (x)"]}, severity="warn"),
        test_node("t_upstream", "b", {}),
        test_node("t_chain", "a", {"implied_by": ["test t_ok"]}),
        test_node("t_ok", "a", {"implied_by": ["test t_upstream"]}),
        test_node("t_empty", "a", {"implied_by": []}),
        test_node("t_schema", "a", {"implied_by": ["staging.a primary key (x)"]}),
        test_node("t_mart", "a", {"implied_by": ["marts.b primary key (x, y)"]}),
    ]
    manifest = {"nodes": {**models, **{f"test.p.{t['name']}": t for t in tests}}}
    found = {item.test: item for item in incremental._implied(manifest)}
    assert set(found) == {
        "t_typo", "t_unknown", "t_warn", "t_chain", "t_ok", "t_empty", "t_schema", "t_mart"
    }  # fmt: skip
    assert found["t_typo"].problem == (
        "'raw.a primary key source, url' is neither a constraint nor a test of the project"
    )
    assert "neither a constraint nor a test" in found["t_unknown"].problem
    # a constraint of raw or of a mart's contract: no other schema (a view enforces nothing)
    assert "neither a constraint nor a test" in found["t_schema"].problem
    assert found["t_mart"].problem == "" and found["t_mart"].raw == ()
    assert found["t_mart"].marts == (("b", "primary key", ("x", "y")),)
    assert found["t_warn"].problem == "its severity is not error (a warning would go unseen)"
    assert found["t_chain"].problem == "'test t_ok' is itself left out by what implies it"
    assert found["t_empty"].problem == "implied_by names nothing"
    assert found["t_ok"].problem == "" and found["t_ok"].tests == (("t_upstream", {"b"}),)
    whole = incremental.Project("digest", (), tuple(found.values()))
    con = duckdb.connect()
    incremental.record(con, {}, whole, built=("models", "digest"))
    left, runs = incremental.implied_tests(con, {"a", "b"}, incremental.Plan((), (), {}), whole,
                                           "models")  # fmt: skip
    assert left == ("t_ok",)
    assert set(runs) == {
        "t_typo",
        "t_unknown",
        "t_warn",
        "t_chain",
        "t_empty",
        "t_schema",
        "t_mart",
    }
    assert runs["t_mart"] == "marts.b has no primary key (x, y)"  # no such table here
    assert runs["t_warn"] == found["t_warn"].problem


def test_a_qualify_claim_holds_only_for_one_row_per_those_columns_by_the_model_s_sql():
    """`qualify (columns)`: the model's SQL is one SELECT ending in QUALIFY row_number() over
    (partition by exactly those columns) = 1 that shows them as they are. The real view holds
    it for its three columns and not for two of them; each way of breaking it is read with its
    problem, and such a test runs."""
    manifest = json.loads(DBT_PROJECT.manifest_path.read_text(encoding="utf-8"))
    view = next(n for n in manifest["nodes"].values() if n["name"] == "int_price_snapshots_daily")[
        "raw_code"
    ]
    problem = incremental._qualify_problem
    assert problem(view, ("day", "source", "provider")) == ""
    assert problem(view, ("source", "provider", "day")) == ""  # the order is not the claim
    assert problem(view, ("day", "source")) == (
        "its QUALIFY partitions by (day, source, provider), not (day, source)"
    )
    ok = "select * from {{ ref('a') }} qualify row_number() over (partition by d, s order by x) = 1"
    assert problem(ok, ("d", "s")) == ""
    assert problem(ok.replace("= 1", "<= 2"), ("d", "s")) == (
        "its model's SQL does not end in QUALIFY row_number() over (...) = 1"
    )
    assert problem(ok.replace("row_number()", "rank()"), ("d", "s")) == (
        "its model's SQL does not end in QUALIFY row_number() over (...) = 1"
    )
    # the QUALIFY inside a subquery, or a UNION on top: the rows it kept may meet others
    assert problem(f"select * from ({ok})", ("d", "s")) == (
        "its model's SQL does not end in QUALIFY row_number() over (...) = 1"
    )
    assert problem(f"select * from b union all {ok}", ("d", "s")) == (
        "its model's SQL is not one SELECT at its top"
    )
    # the columns shown are not the ones partitioned by
    assert problem(ok.replace("select *", "select *, 0 as d"), ("d", "s")) == (
        "its select list computes a column named d"
    )
    assert problem(ok.replace("select *", "select * exclude (d)"), ("d", "s")) == (
        "its select list's * excludes, replaces or renames columns"
    )
    assert problem(ok.replace("select *", "select x as d, s"), ("d", "s")) == (
        "its select list computes a column named d"
    )
    assert problem(ok.replace("select *", "select s"), ("d", "s")) == (
        "its select list does not show d"
    )
    assert problem("{% if x %}" + ok + "{% endif %}", ("d", "s")) == (
        "its model's SQL has Jinja blocks: not read"
    )
    assert problem("select from where", ("d", "s")).startswith("its model's SQL cannot be read")
    # read when the project is read: a test whose claim fails runs, whatever the warehouse holds
    nodes = {
        "model.p.good": {"resource_type": "model", "name": "good", "raw_code": ok},
        "model.p.bad": {
            "resource_type": "model",
            "name": "bad",
            "raw_code": f"select * from ({ok})",
        },
    }
    for model in ("good", "bad"):
        nodes[f"test.p.t_{model}"] = {
            "resource_type": "test", "name": f"t_{model}",
            "depends_on": {"nodes": [f"model.p.{model}"]},
            "config": {"meta": {"implied_by": ["qualify (d, s)"]}, "severity": "ERROR"},
        }  # fmt: skip
    found = {item.test: item for item in incremental._implied({"nodes": nodes})}
    assert found["t_good"].problem == ""
    assert found["t_bad"].problem == (
        "'qualify (d, s)': its model's SQL does not end in QUALIFY row_number() over (...) = 1"
    )
    whole = incremental.Project("digest", (), tuple(found.values()))
    con = duckdb.connect()
    incremental.record(con, {}, whole, built=("models", "digest"))
    left, runs = incremental.implied_tests(
        con, {"good", "bad"}, incremental.Plan((), (), {}), whole, "models"
    )
    assert left == ("t_good",) and runs == {"t_bad": found["t_bad"].problem}
