"""A day's refresh writes only its day (the per-day marts are incremental), and must give exactly
what a full rebuild through that day gives: rankings, costs, alerts and the published views. On
the demo archive and on a generated history (scripts/perf_history.py); the day-by-day replay of
real Lambda catalogs against a one-pass backfill is in test_replay_alerts.py."""

from __future__ import annotations

import io
import json
import re
import shutil
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import duckdb
import pytest

from pipelines.defs.dbt import FULL_TEST_START, incremental_models, state_dir
from pipelines.refresh import run_refresh
from tests.conftest import DEMO_DAY, copy_home, query
from warehouse import publish
from warehouse.paths import Paths

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


def commands(folders) -> list[str]:
    """The dbt commands of these run folders (`<time>-<run>-<step>-<command>`), sorted."""
    return sorted(f.name.rsplit("-", 1)[1] for f in folders)


def dbt_folder(paths, step: str, command: str = "build") -> Path:
    """The newest folder of a dbt command of a step (pipelines/defs/dbt.py names them
    `<time>-<run>-<step>-<command>`)."""
    return max((paths.home / "dbt_runs").glob(f"*-{step}-{command}"))


def results(folder: Path) -> dict[str, str]:
    """unique id -> status of every node a dbt command ran (its run_results.json)."""
    ran = json.loads((folder / "run_results.json").read_text())["results"]
    return {r["unique_id"]: r["status"] for r in ran}


def passed(ran: dict[str, str], test: str) -> bool:
    return any(u.startswith(f"test.gpuledger.{test}") and s == "pass" for u, s in ran.items())


def unit_tests(ran: dict[str, str]) -> list[str]:
    return [u for u in ran if u.startswith("unit_test.")]


STEP = "gpuledger_dbt"  # the one dbt step of a run (pipelines/defs/dbt.py)
STATE = "manifest.json"
EDIT = "\n-- an edit since"
RANK_TEST = "unique_columns_fct_rank_changes_workload_class__day"  # a per-day mart's test


def mark_changed(paths, step: str, model: str) -> None:
    """Make the step's kept state (the manifest of its last successful build) differ from the
    project in `model`'s SQL, as after an edit of that model: dbt's state:modified compares a
    model's SQL as written (`raw_code`)."""
    path = state_dir(paths.home, step) / STATE
    manifest = json.loads(path.read_text())
    (uid,) = [u for u, n in manifest["nodes"].items() if n["name"] == model]
    manifest["nodes"][uid]["raw_code"] += EDIT
    path.write_text(json.dumps(manifest))


def test_the_next_day_incrementally_equals_a_full_rebuild_and_a_rerun_changes_nothing(
    next_day, tmp_path, monkeypatch
):
    # the day's run is the module's (next_day, below): the demo's copy, NEXT built incrementally;
    # its home is read here, and the rerun runs on a copy of it
    home, log, ran = next_day.home, next_day.log, next_day.commands
    run_log = newest_run_log(home)
    assert "rebuilding" not in run_log
    # dbt was asked what changed since the step's last successful build (state:modified+
    # against the manifest kept then): nothing; once for the run (one dbt step)
    asked = (dbt_folder(home, STEP, "ls") / "dbt.log").read_text()
    assert "No nodes selected" in asked
    assert ran == ["build", "ls"]
    # the copy's first command took up the parse state copied with the home (dbt knows the
    # warehouse by its file name in its folder, the same in every home: pipelines/dbt_command.py),
    # and so did the build after it
    assert "Unable to do partial parsing" not in asked
    assert "Partial parsing enabled, no changes found, skipping parsing" in asked
    built_log = (dbt_folder(home, STEP) / "dbt.log").read_text()
    assert "Unable to do partial parsing" not in built_log
    # the build's manifest is kept: the next run's question compares against it
    kept = (state_dir(home.home, STEP) / STATE).read_bytes()
    assert kept == (dbt_folder(home, STEP) / STATE).read_bytes()
    assert "changed since the step's last successful build" not in run_log
    # every data test runs as dbt runs it, the views and seeds are built; the unit tests (they
    # test the SQL, which did not change) are left to the builds where something changed
    built = dbt_folder(home, STEP)
    ran = results(built)
    for node in ("model.gpuledger.stg_page_snapshots", "seed.gpuledger.workload_classes"):
        assert ran[node] == "success", node
    for test in ("accepted_values_stg_price_observations_pricing_model",
                 "unique_columns_stg_page_snapshots_source__url__fetched_at",
                 "unique_columns_int_price_snapshots_daily_day__source__provider"):  # fmt: skip
        assert passed(ran, test), test
    assert len([u for u in ran if u.startswith("test.")]) > 40
    assert unit_tests(ran) == []
    assert passed(ran, RANK_TEST)  # a per-day mart's test, in the same build
    assert "emitted no result" not in log  # every check of the step gave its result
    assert query(home, "select count(*) from marts.fct_gpu_rankings_daily where day = ?",
                 [NEXT])[0][0] > 100  # fmt: skip
    # the price rows' tests check every row (no filter on when a snapshot was loaded)
    assert "loaded_at" not in compiled_test(built, "accepted_values_stg_price_obse")
    # the as-of view's uniqueness test checks the day the marts read now (a past day's rows
    # were checked when its marts were built)
    snapshots_test = "unique_columns_int_price_snapshots_daily"
    window = rf"day between date '{NEXT}'\s+and date '{NEXT}'"
    assert re.search(window, compiled_test(built, snapshots_test))
    incremental = next_day.incremental
    # the same day again: nothing changes, no alert is recorded twice; the published copy is
    # now the previous one brought up to date, and equal to the copy of the whole file
    # (the demo's 110 MB would be copied whole, cheaper below SYNC_MIN_BYTES: updated instead)
    monkeypatch.setattr(publish, "SYNC_MIN_BYTES", 0)
    again = copy_home(home, tmp_path / "again")
    before = set((again.home / "dbt_runs").iterdir())
    refresh(again, NEXT)
    assert publish.publication(again)["method"] == "sync"
    assert differences(incremental, snapshot(again, tmp_path / "rerun")) == {}
    # dbt was asked once again
    assert commands(set((again.home / "dbt_runs").iterdir()) - before) == ["build", "ls"]
    # every dbt command of the rerun took up the warehouse's parse state of its command (dbt
    # would otherwise parse the whole project anew: the state `make manifest` wrote has
    # another profile)
    for step, command in ((STEP, "ls"), (STEP, "build")):
        text = (dbt_folder(again, step, command) / "dbt.log").read_text()
        assert "Unable to do partial parsing" not in text, (step, command)
    assert (again.home / "dbt_parse" / "partial_parse.msgpack").exists()


def test_a_new_home_s_first_build_takes_up_the_parse_state_make_manifest_wrote(demo_build):
    """The demo's home began empty: its one build (no kept state, so no `dbt ls` before it) took
    up the parse state `make manifest` wrote (dagster-dbt puts it in the command's folder), the
    warehouse named alike there and in the home (pipelines/dbt_command.py), and did not parse the
    project whole."""
    paths, _ = demo_build
    (first,) = sorted((paths.home / "dbt_runs").glob(f"*-{STEP}-*"))
    assert first.name.endswith("-build")
    log = (first / "dbt.log").read_text()
    assert "Unable to do partial parsing" not in log
    assert "Partial parsing enabled, no changes found, skipping parsing" in log


@dataclass
class NextDay:
    home: Paths  # read only: a test that runs again takes a copy
    log: str  # what the refresh printed
    commands: list[str]  # the dbt commands it ran
    incremental: Path  # its warehouses copied aside: what every rebuild must equal


@pytest.fixture(scope="module")
def next_day(demo_next_day, tmp_path_factory) -> NextDay:
    """The demo's copy with NEXT built incrementally (the demo was built through DEMO_DAY; the
    session's demo_next_day, tests/conftest.py), what it printed and ran, and a snapshot of it.
    The first test reads this run and reruns NEXT on a copy; each rebuild below takes a copy of
    it and must equal the snapshot (the two rebuilds were one test of three refreshes in a row,
    this one first)."""
    folder = tmp_path_factory.mktemp("next-day")
    home = demo_next_day.home
    incremental = snapshot(home, folder / "incremental")
    return NextDay(home, demo_next_day.log, demo_next_day.dbt_commands, incremental)


EVERY_DAY = rf"day between date '{FULL_TEST_START}'\s+and date '{NEXT}'"


def test_a_changed_model_is_rebuilt_over_every_day_and_equals_the_incremental_day(
    next_day, tmp_path, monkeypatch
):
    monkeypatch.setattr(publish, "SYNC_MIN_BYTES", 0)  # as above: the spare brought up to date
    home = copy_home(next_day.home, tmp_path / "home")
    incremental = next_day.incremental
    # a model edited since the last build (its SQL in the kept state differs): it and what
    # is built from it are rebuilt over every day, the run's log says which, the marts not
    # built from it are written for the day only, and every day's rows are tested
    mark_changed(home, STEP, "fct_workload_cost_inputs_daily")
    # and a table it reads, edited too (as when a mart starts reading a column its parent gains)
    mark_changed(home, STEP, "int_model_api_prices_daily")
    refresh(home, NEXT)
    said = re.search(r"rebuilding (\d+) per-day marts over every day, their definition changed "
                     r"since the step's last successful build \(dbt state:modified\+.*?\): (.*)",
                     newest_run_log(home))  # fmt: skip
    assert said, newest_run_log(home)[-3000:]
    rebuilt = said[2].split(", ")
    assert {"fct_workload_cost_inputs_daily", "fct_rank_changes"} <= set(rebuilt)
    assert "fct_gpu_offers_daily" not in rebuilt and int(said[1]) == len(rebuilt)
    full_run = results(dbt_folder(home, STEP, "rebuild"))
    assert full_run["model.gpuledger.fct_workload_cost_inputs_daily"] == "success"
    # the per-day marts it rebuilt over every day are the ones the log names
    per_day = {u for u in full_run if u.removeprefix("model.gpuledger.") in incremental_models()}
    assert per_day == {f"model.gpuledger.{m}" for m in rebuilt}
    # beside them, only what they are built from that changed: the edited table first, then
    # the views over the edited mart that the rebuilt marts read; no test
    order = [u.removeprefix("model.gpuledger.") for u in full_run if u.startswith("model.")]
    assert order.index("int_model_api_prices_daily") < order.index("fct_workload_cost_inputs_daily")
    assert set(order) - set(rebuilt) == {
        "int_model_api_prices_daily",
        "fct_workload_costs_daily",
        "fct_gpu_rankings_daily",
    }
    assert not [u for u in full_run if u.startswith(("test.", "unit_test."))]
    marts_build = dbt_folder(home, STEP)
    assert re.search(EVERY_DAY, compiled_test(marts_build, RANK_TEST))
    assert unit_tests(results(marts_build))  # the SQL changed: its unit tests run
    assert publish.publication(home)["why"] == (
        "per-day marts were rebuilt whole since the spare was made"
    )
    assert differences(incremental, snapshot(home, tmp_path / "changed")) == {}


def test_with_no_kept_state_every_per_day_mart_is_rebuilt_over_every_day_and_equals_the_day(
    next_day, tmp_path, monkeypatch
):
    monkeypatch.setattr(publish, "SYNC_MIN_BYTES", 0)  # as above: the spare brought up to date
    home = copy_home(next_day.home, tmp_path / "home")
    incremental = next_day.incremental
    # forget what was built (no kept state): every per-day mart is rebuilt over every day
    # through NEXT, every data test checks every day, the unit tests run
    shutil.rmtree(home.home / "dbt_state")
    refresh(home, NEXT)
    # 10 per-day marts (9 before fct_price_disagreements held two sources of an offer against
    # each other)
    assert "rebuilding 10 per-day marts over every day, no earlier build of this step is kept" in (
        newest_run_log(home)
    )
    built = dbt_folder(home, STEP)
    snapshots_test = "unique_columns_int_price_snapshots_daily"
    assert re.search(EVERY_DAY, compiled_test(built, snapshots_test))
    assert unit_tests(results(built))
    rebuilt = publish.publication(home)
    assert rebuilt["method"] == "copy"
    assert rebuilt["why"] == "per-day marts were rebuilt whole since the spare was made"
    full = snapshot(home, tmp_path / "full")
    assert differences(incremental, full) == {}
    days = "select count(distinct day) from marts.fct_gpu_rankings_daily"
    assert query(full / "work.duckdb", days) == query(incremental / "work.duckdb", days)


def test_only_a_whole_build_of_a_step_keeps_its_state(demo_copy):
    """The kept manifest tells the next build what changed since, so only a whole build of the
    step keeps it, not a run of a few of its models (the others, changed, were not built)."""
    kept = state_dir(demo_copy.home, STEP) / STATE
    mark_changed(demo_copy, STEP, "stg_price_observations")
    older = kept.read_text()
    out = io.StringIO()
    result = run_refresh(NEXT, offline=True, paths=demo_copy, out=out,
                         assets=["marts/source_health"],
                         extra_config={"deliver_alerts": False})  # fmt: skip
    assert result.success, out.getvalue()
    assert kept.read_text() == older
    refresh(demo_copy, NEXT)  # the whole job: every model of the step is built, its state kept
    manifest = json.loads(kept.read_text())
    (node,) = [n for n in manifest["nodes"].values() if n["name"] == "stg_price_observations"]
    assert not node["raw_code"].endswith(EDIT)


def test_a_bad_price_row_in_a_snapshot_loaded_since_the_last_build_fails_its_test(demo_copy):
    """The price rows' tests check every row: a snapshot that arrived with an unknown pricing
    model fails the build, named."""
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
        r"  gpuledger_dbt: \d+ of \d+ ERROR creating sql incremental model "
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
    assert failed == {"gpuledger_dbt"}
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
    shutil.rmtree(demo_copy.home / "dbt_state")  # forget what was built: every mart whole
    refresh(demo_copy, days[-1])
    assert "rebuilding 10 per-day marts over every day" in newest_run_log(demo_copy)
    assert differences(incremental, snapshot(demo_copy, tmp_path / "full")) == {}
