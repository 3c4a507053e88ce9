"""A day's refresh writes only its day (the per-day marts are incremental), and must give exactly
what a full rebuild through that day gives: rankings, costs, alerts and the published views. On
the demo archive and on a generated history (scripts/perf_history.py); the day-by-day replay of
real Lambda catalogs against a one-pass backfill is in test_replay_alerts.py."""

from __future__ import annotations

import io
import re
import shutil
from datetime import timedelta
from pathlib import Path

import duckdb
import pytest

from pipelines.incremental import FULL_TEST_START
from pipelines.refresh import run_refresh
from tests.conftest import DEMO_DAY, query
from warehouse import publish

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DAILY_MARTS = (
    "fct_gpu_offers_daily", "fct_workload_cost_inputs_daily", "fct_workload_costs_daily",
    "fct_gpu_rankings_daily",
    "fct_gpu_price_rankings_daily", "fct_rank_changes", "fct_alert_candidates",
    "fct_class_leaders_daily", "fct_coverage_daily", "fct_provider_spread_daily",
    "fct_api_break_even_daily",
)  # fmt: skip
NEXT = DEMO_DAY + timedelta(days=1)


def refresh(paths, day):
    out = io.StringIO()
    result = run_refresh(day, offline=True, paths=paths, out=out,
                         extra_config={"deliver_alerts": False})  # fmt: skip
    assert result.success, out.getvalue()
    return out.getvalue()


def newest_run_log(paths) -> str:
    """The newest run's log file (the refresh prints a line per step; Dagster's messages, such as
    a rebuild's, are in the run's log)."""
    return max((paths.home / "logs").glob("run-*.log")).read_text()


def snapshot(paths, folder):
    """The working and the published warehouse as they are now, copied aside."""
    folder.mkdir()
    shutil.copy(paths.db_path, folder / "work.duckdb")
    shutil.copy(paths.published_db_path, folder / "published.duckdb")
    return folder


def differences(a, b) -> dict[str, tuple[int, int]]:
    """Per table or view: (rows only in a, rows only in b); empty when identical."""
    con = duckdb.connect()
    try:
        con.execute(f"attach '{a / 'work.duckdb'}' as a (read_only)")
        con.execute(f"attach '{b / 'work.duckdb'}' as b (read_only)")
        con.execute(f"attach '{a / 'published.duckdb'}' as pa (read_only)")
        con.execute(f"attach '{b / 'published.duckdb'}' as pb (read_only)")
        views = [r[0] for r in con.execute(
            "select table_name from information_schema.tables where table_catalog = 'pa' "
            f"and table_schema = '{publish.ANALYTICS_SCHEMA}'").fetchall()]  # fmt: skip
        pairs = [(f"a.marts.{t}", f"b.marts.{t}") for t in DAILY_MARTS]
        pairs += [("a.ops.alerts", "b.ops.alerts")]
        pairs += [(f"pa.analytics.{v}", f"pb.analytics.{v}") for v in views]
        found = {}
        for x, y in pairs:
            only_x = con.execute(f"select count(*) from (from {x} except all from {y})").fetchone()
            only_y = con.execute(f"select count(*) from (from {y} except all from {x})").fetchone()
            if only_x[0] or only_y[0]:
                found[x] = (only_x[0], only_y[0])
        assert len(views) >= 9
        return found
    finally:
        con.close()


def compiled_test(run_folder, prefix: str) -> str:
    """The SQL dbt ran for the data test whose file name starts with `prefix`."""
    (found,) = (run_folder / "run").rglob(f"{prefix}*.sql")
    return found.read_text()


def unchanged_materializations(paths) -> set[str]:
    """The assets the newest run recorded as left unchanged (status metadata `unchanged`)."""
    import dagster as dg

    from pipelines.event_storage import open_instance

    with open_instance(paths.dagster_home) as instance:
        run = instance.get_runs(limit=1)[0]
        records = instance.get_records_for_run(
            run.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION, limit=1000
        ).records
    return {
        r.asset_key.to_user_string()
        for r in records
        if (status := r.asset_materialization.metadata.get("status")) is not None
        and status.value == "unchanged"
    }


def test_the_next_day_incrementally_equals_a_full_rebuild_and_a_rerun_changes_nothing(
    demo_copy, tmp_path, monkeypatch
):
    # the demo's 110 MB would be copied whole (cheaper below SYNC_MIN_BYTES): update it instead,
    # so that the rerun's published copy is the previous one brought up to date
    monkeypatch.setattr(publish, "SYNC_MIN_BYTES", 0)
    log = refresh(demo_copy, NEXT)  # the demo was built through DEMO_DAY: NEXT is incremental
    assert "rebuilding" not in newest_run_log(demo_copy)
    # views and seeds that would come out the same are left as they are: the project is as the
    # demo's build left it, so they are not handed to dbt at all (pipelines/incremental.py
    # unchanged()), and Dagster records them unchanged; their data tests still run. A view
    # whose SQL reads the as-of day is built anew.
    built = sorted((demo_copy.home / "dbt_runs").iterdir())[-2]
    lines = (built / "dbt.log").read_text()
    for name in ("view model staging.stg_page_snapshots", "seed file reference.workload_classes"):
        assert name not in lines, name
    test = "accepted_values_stg_price_observations_pricing_model"
    assert re.search(rf"PASS {test}\w* \.* \[", lines)
    # but not those that what they name implies (raw's keys and NOT NULL columns, a mart's or a
    # seed's own test, a view's own QUALIFY; pipelines/incremental.py implied_tests()): 21 of
    # this step and 8 of the per-day marts' step, by name in the log
    implied = "unique_columns_stg_page_snapshots_source__url__fetched_at"
    assert implied not in lines
    assert "unique_columns_int_price_snapshots_daily_day__source__provider" not in lines
    assert re.search(r"view model intermediate\.int_price_snapshots_daily \.* \[\S*OK\S* in", lines)
    run_log = max((demo_copy.home / "logs").glob("run-*.log")).read_text()
    assert "22 data tests of the seeds left out" in run_log
    said = dict(re.findall(r"- (gpuledger_\w+) - (\d+) data tests left out, implied by", run_log))
    assert said == {"gpuledger_dbt_models": "21", "gpuledger_daily_marts": "8"}
    assert "runs although it names what implies it" not in run_log
    left = re.search(r"(\d+) views and seeds left as they are \(.*?\): (.*)", run_log)
    assert left and {"stg_page_snapshots", "workload_classes"} <= set(left[2].split(", "))
    assert "int_price_snapshots_daily" not in left[2].split(", ")
    assert unchanged_materializations(demo_copy) >= {"staging/stg_page_snapshots",
                                                     "reference/workload_classes"}  # fmt: skip
    assert "emitted no result" not in log  # Dagster's note on each: in the run's log only
    assert query(demo_copy, "select count(*) from marts.fct_gpu_rankings_daily where day = ?",
                 [NEXT])[0][0] > 100  # fmt: skip
    # the data tests over every price observation check the snapshots loaded since the demo's
    # build began (less an hour); dbt ran them with that filter
    # (said by the step that runs them, not by the per-day marts' step)
    assert run_log.count("data tests over every price observation check the snapshots") == 1
    assert "loaded_at >= timestamptz" in compiled_test(built, "accepted_values_stg_price_obse")
    incremental = snapshot(demo_copy, tmp_path / "incremental")
    # the same day again: nothing changes, no alert is recorded twice; the published copy is
    # now the previous one brought up to date, and equal to the copy of the whole file
    refresh(demo_copy, NEXT)
    assert publish.publication(demo_copy)["method"] == "sync"
    assert differences(incremental, snapshot(demo_copy, tmp_path / "rerun")) == {}
    # once more without the record of the step's last whole build, so that the implied tests
    # run (nothing else of the project changed): the as-of view's uniqueness test, left out
    # above (its own QUALIFY implies it), checks the day the marts read now (a past day's rows
    # were checked when its marts were built); nothing changes either
    con = duckdb.connect(str(demo_copy.db_path))
    con.execute(
        "delete from ops.dbt_fingerprints where model = '(project built by gpuledger_dbt_models)'"
    )
    con.close()
    refresh(demo_copy, NEXT)
    snapshots_test = "unique_columns_int_price_snapshots_daily"
    window = rf"day between date '{NEXT}'\s+and date '{NEXT}'"
    tested = sorted((demo_copy.home / "dbt_runs").iterdir())[-2]
    assert re.search(window, compiled_test(tested, snapshots_test))
    assert differences(incremental, snapshot(demo_copy, tmp_path / "rerun2")) == {}
    # both dbt commands of the rerun took up the warehouse's parse state (dbt would otherwise
    # parse the whole project anew: the state `make manifest` wrote has another profile)
    assert (demo_copy.home / "partial_parse.msgpack").exists()
    reruns = sorted((demo_copy.home / "dbt_runs").iterdir())[-2:]
    assert ["Unable to do partial parsing" in (run / "dbt.log").read_text() for run in reruns] == [
        False,
        False,
    ]
    # forget what was built: every per-day mart is rebuilt over every day through NEXT
    con = duckdb.connect(str(demo_copy.db_path))
    con.execute("delete from ops.dbt_fingerprints")
    con.close()
    refresh(demo_copy, NEXT)
    assert "rebuilding 9 per-day marts over every day" in newest_run_log(demo_copy)
    # without a recorded project every view goes to dbt, which leaves one whose stamp is that
    # of this build as it is (macros/unchanged_relations.sql); the as-of view too: the same day
    lines = (sorted((demo_copy.home / "dbt_runs").iterdir())[-2] / "dbt.log").read_text()
    for name in ("view model staging.stg_page_snapshots", "seed file reference.workload_classes",
                 "view model intermediate.int_price_snapshots_daily"):  # fmt: skip
        assert re.search(rf"{re.escape(name)} \.* \[\S*unchanged\S* in", lines), name
    # and with nothing recorded, every price row is tested, and the implied tests run again
    assert "loaded_at" not in compiled_test(
        sorted((demo_copy.home / "dbt_runs").iterdir())[-2], "unique_columns_stg_price_obser"
    )
    assert re.search(rf"PASS {implied} \.* \[", lines)
    # and the as-of view's rows of every day
    every_day = rf"day between date '{FULL_TEST_START}'\s+and date '{NEXT}'"
    assert re.search(every_day, compiled_test(
        sorted((demo_copy.home / "dbt_runs").iterdir())[-2], snapshots_test
    ))  # fmt: skip
    rebuilt = publish.publication(demo_copy)
    assert rebuilt["method"] == "copy"
    assert rebuilt["why"] == "per-day marts were rebuilt whole since the spare was made"
    full = snapshot(demo_copy, tmp_path / "full")
    assert differences(incremental, full) == {}
    days = "select count(distinct day) from marts.fct_gpu_rankings_daily"
    assert query(full / "work.duckdb", days) == query(incremental / "work.duckdb", days)


def test_only_a_whole_build_with_the_seeds_vouches_for_the_project(demo_copy):
    """The project's digest lets the next build leave out the seeds' tests, so only a build
    that loaded the seeds and ran their tests records it, not a run of a few marts."""
    from pipelines import incremental
    from pipelines.defs.resources import DBT_PROJECT

    digest = incremental.project(DBT_PROJECT.manifest_path, DBT_PROJECT.project_dir).digest
    row = "select fingerprint from ops.dbt_fingerprints where model = ?"
    con = duckdb.connect(str(demo_copy.db_path))
    con.execute("update ops.dbt_fingerprints set fingerprint = 'older' where model = ?",
                [incremental.PROJECT_ROW])  # fmt: skip
    con.close()
    out = io.StringIO()
    result = run_refresh(NEXT, offline=True, paths=demo_copy, out=out,
                         assets=["marts/source_health"],
                         extra_config={"deliver_alerts": False})  # fmt: skip
    assert result.success, out.getvalue()
    assert query(demo_copy, row, [incremental.PROJECT_ROW]) == [("older",)]
    refresh(demo_copy, NEXT)  # the whole job: the seeds' tests run (the recorded digest differs)
    assert query(demo_copy, row, [incremental.PROJECT_ROW]) == [(digest,)]


def test_a_bad_price_row_in_a_snapshot_loaded_since_the_last_build_fails_its_test(demo_copy):
    """The price rows' tests check the snapshots loaded since the step's last whole build: a
    snapshot that arrived with an unknown pricing model fails the build, named."""
    con = duckdb.connect(str(demo_copy.db_path))
    url = "https://example.invalid/late-catalog.csv"
    old_url, fetched_at = con.execute(
        "select snapshot_url, snapshot_fetched_at from raw.price_observations "
        "where source = 'skypilot' limit 1"
    ).fetchone()
    # a snapshot loaded now (as ingest loads one: its page row, then its rows)
    con.execute(
        "insert into raw.page_snapshots select * replace (? as url, now() as loaded_at) "
        "from raw.page_snapshots where source = 'skypilot' and url = ? and fetched_at = ?",
        [url, old_url, fetched_at],
    )
    con.execute(
        "insert into raw.price_observations select * replace (? as snapshot_url, "
        "'per_fortnight' as pricing_model) from raw.price_observations "
        "where source = 'skypilot' and snapshot_url = ? and snapshot_fetched_at = ? limit 1",
        [url, old_url, fetched_at],
    )
    con.close()
    out = io.StringIO()
    result = run_refresh(NEXT, offline=True, paths=demo_copy, out=out,
                         extra_config={"deliver_alerts": False})  # fmt: skip
    assert not result.success
    failed = {e.check_name for e in result.get_asset_check_evaluations() if not e.passed}
    assert any(
        name.startswith("accepted_values_stg_price_observations_pricing_model") for name in failed
    ), failed


def test_a_row_a_mart_s_contract_forbids_fails_the_build_and_nothing_is_published(demo_copy):
    """The marts' NOT NULL, CHECK and primary-key checks are constraints of their dbt contracts,
    which DuckDB enforces on every write (dbt/models/marts/*.yml): an accepted snapshot with a
    negative GPU count (no test upstream looks at its sign) stops the build of the day's offers,
    named, writes none of the day's rows, and leaves the published copy as it was."""
    con = duckdb.connect(str(demo_copy.db_path))
    url, newest = con.execute(
        "select snapshot_url, max(snapshot_fetched_at) from raw.price_observations "
        "where source = 'skypilot' group by 1 order by count(*) desc limit 1"
    ).fetchone()
    later = "date_trunc('day', ?::timestamptz) + interval 1 day + interval 1 hour"
    # the same capture again the next morning, as ingest writes one, with one row's count negated
    con.execute(
        f"insert into raw.page_snapshots select * replace ({later} as fetched_at, "
        "now() as loaded_at) from raw.page_snapshots where source = 'skypilot' and url = ? "
        "and fetched_at = ?",
        [newest, url, newest],
    )
    con.execute(
        f"insert into raw.snapshot_validations select * replace ({later} as snapshot_fetched_at, "
        "now() as validated_at) from raw.snapshot_validations where source = 'skypilot' "
        "and snapshot_url = ? and snapshot_fetched_at = ?",
        [newest, url, newest],
    )
    con.execute(
        f"insert into raw.price_observations select * replace ({later} as snapshot_fetched_at, "
        "case when row_index = 0 then -gpu_count else gpu_count end as gpu_count) "
        "from raw.price_observations where source = 'skypilot' and snapshot_url = ? "
        "and snapshot_fetched_at = ?",
        [newest, url, newest],
    )
    (negated,) = con.execute(
        "select count(*) from raw.price_observations where gpu_count < 0"
    ).fetchone()
    con.close()
    assert negated == 1
    published_before = query(
        demo_copy.published_db_path, "select max(day), count(*) from marts.fct_gpu_offers_daily"
    )
    out = io.StringIO()
    result = run_refresh(NEXT, offline=True, paths=demo_copy, out=out,
                         extra_config={"deliver_alerts": False})  # fmt: skip
    assert not result.success
    log = out.getvalue()
    # the console names the step, the model and the constraint (dbt's error, without colours)
    assert re.search(
        r"  gpuledger_daily_marts: \d+ of \d+ ERROR creating sql incremental model "
        r"marts\.fct_gpu_offers_daily",
        log,
    ), log[-3000:]
    assert (
        'Constraint Error: CHECK constraint failed on table "fct_gpu_offers_daily" with '
        "expression CHECK((gpu_count > 0))"
    ) in log
    assert query(demo_copy, "select count(*) from marts.fct_gpu_offers_daily where day = ?",
                 [NEXT]) == [(0,)]  # fmt: skip
    failed = {e.step_key for e in result.all_events if e.event_type_value == "STEP_FAILURE"}
    assert failed == {"gpuledger_daily_marts"}
    assert (
        query(
            demo_copy.published_db_path, "select max(day), count(*) from marts.fct_gpu_offers_daily"
        )
        == published_before
    )


def test_on_a_generated_history_the_next_day_equals_a_full_rebuild(
    demo_copy, tmp_path, monkeypatch
):
    """The same equality on a history generated as the scale run generates it
    (scripts/perf_history.py: providers in SkyPilot's catalog format, prices moving on some days,
    parsed by the real parser, checked by the real GX suite, loaded into raw): ten days after the
    demo's, of which the first nine are built in one backfill and the tenth incrementally, against
    the tenth rebuilt whole."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "scripts"))
    from perf_history import Market, load_history

    from pipelines.backfill import backfill

    days = [DEMO_DAY + timedelta(days=i) for i in range(1, 11)]
    market = Market(providers=6, gpus=4, regions=2, days=days, seed=3)
    # catalogs as if fetched from a server that is not asked again: the runs below are offline
    loaded = load_history(demo_copy, market, "http://127.0.0.1:9")
    # a day: 6 snapshots of 8 offers, with a spot price too at every other provider (3 x 16 + 3 x 8)
    assert (loaded["snapshots"], loaded["price_rows"]) == (60, 720)
    out = io.StringIO()
    result, _ = backfill(days[0], days[-2], paths=demo_copy, out=out, deliver=False)
    assert result.success, out.getvalue()
    refresh(demo_copy, days[-1])
    assert "rebuilding" not in newest_run_log(demo_copy)
    incremental = snapshot(demo_copy, tmp_path / "incremental")
    # the generated offers are priced on the last day (on-demand and, at every other provider,
    # spot), and every move of their on-demand prices within the ten days is in the offers
    priced, moved = query(
        demo_copy,
        """select (select count(*) from marts.fct_gpu_offers_daily
                   where day = ? and provider like 'perf-cloud-%'),
                  (select count(distinct (provider, offer_id, region, price_usd_per_gpu_hour))
                   - count(distinct (provider, offer_id, region))
                   from marts.fct_gpu_offers_daily
                   where provider like 'perf-cloud-%' and pricing_model = 'on_demand')""",
        [days[-1]],
    )[0]
    assert priced == 72
    assert moved == sum(len(set(series)) - 1 for *_, series in market.offers) > 0
    con = duckdb.connect(str(demo_copy.db_path))
    con.execute("delete from ops.dbt_fingerprints")
    con.close()
    refresh(demo_copy, days[-1])
    assert "rebuilding 9 per-day marts over every day" in newest_run_log(demo_copy)
    assert differences(incremental, snapshot(demo_copy, tmp_path / "full")) == {}
