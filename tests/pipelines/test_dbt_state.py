"""dbt through dagster-dbt's DbtCliResource as gpuledger's dbt step runs it (pipelines/defs/dbt.py):
each model reported, failures named, the DuckDB file free afterwards, the window reaching each
command through the environment, and what changed since the step's last successful build found
by dbt's own state comparison (state:modified+ against the kept manifest).

The dbt projects here are constructed fixtures (a few lines of SQL and one seed written by the
test), not gpuledger's project: the real project's state comparison is exercised on the demo
warehouse in tests/integration/test_incremental.py and test_demo_archive.py."""

import json

import duckdb
import pytest
from dagster_dbt import DagsterDbtCliRuntimeError, DbtCliResource

from pipelines.defs.dbt import DbtStep, prune_run_folders, state_dir
from pipelines.defs.resources import dbt_resource

INCREMENTAL = """{{ config(materialized='incremental', incremental_strategy='delete+insert',
                     unique_key='day') }}
select day, usd from {{ ref('prices') }}
{% if is_incremental() %}where day = {{ env_var('TINY_AS_OF') }}{% endif %}"""


def tiny_project(tmp_path, models: dict[str, str], seeds: dict[str, str] | None = None):
    """A constructed dbt project of `models` (name -> SQL) and `seeds` (name -> CSV text)."""
    project = tmp_path / "tiny"
    (project / "models").mkdir(parents=True)
    (project / "seeds").mkdir()
    (project / "dbt_project.yml").write_text(
        "name: tiny\nversion: '1.0'\nconfig-version: 2\nprofile: tiny\nmodel-paths: [models]\n"
        "seed-paths: [seeds]\n"
    )
    db_file = tmp_path / "tiny.duckdb"
    (project / "profiles.yml").write_text(
        f"tiny:\n  target: t\n  outputs:\n    t:\n      type: duckdb\n      path: '{db_file}'\n"
        "      settings:\n        memory_limit: 300MB\n"
    )
    for name, sql in models.items():
        (project / "models" / f"{name}.sql").write_text(sql + "\n")
    for name, text in (seeds or {}).items():
        (project / "seeds" / f"{name}.csv").write_text(text)
    resource = DbtCliResource(
        project_dir=str(project),
        profiles_dir=str(project),
        dbt_executable=dbt_resource().dbt_executable,
    )
    return resource, db_file


def rows(db_file, sql: str) -> list[tuple]:
    con = duckdb.connect(str(db_file), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_the_project_s_dbt_resource_is_dagster_dbt_s_own():
    assert type(dbt_resource()) is DbtCliResource


def test_a_build_reports_each_model_and_leaves_the_file_free(tmp_path):
    dbt, db_file = tiny_project(
        tmp_path,
        {"prices": "select 'h100' as gpu, 2.5 as usd union all select 'a100', 1.2",
         "cheapest": "select gpu, usd from {{ ref('prices') }} order by usd limit 1"},
    )  # fmt: skip
    invocation = dbt.cli(["build"], manifest=None, target_path=tmp_path / "target")
    events = list(invocation.stream_raw_events())  # what dagster-dbt turns into materializations
    assert invocation.is_successful()
    results = {
        e.raw_event["data"]["node_info"]["unique_id"]: e.raw_event["data"]["status"]
        for e in events
        if e.raw_event["info"]["name"] == "LogModelResult"
    }
    assert results == {"model.tiny.prices": "OK", "model.tiny.cheapest": "OK"}
    # dbt ran in its own process, which has ended: this process may open the file to write
    con = duckdb.connect(str(db_file), config={"memory_limit": "200MB"})
    assert con.execute("select gpu, usd::double from main.cheapest").fetchall() == [("a100", 1.2)]
    con.close()
    assert (tmp_path / "target" / "run_results.json").exists()


def test_a_failing_model_fails_the_command_naming_the_model_and_the_reason(tmp_path):
    dbt, _ = tiny_project(
        tmp_path,
        {"prices": "select 'h100' as gpu, 2.5 as usd",
         "broken": "select gpu from {{ ref('prices') }} join no_such_table using (gpu)"},
    )  # fmt: skip
    with pytest.raises(DagsterDbtCliRuntimeError) as failed:
        dbt.cli(["build"], manifest=None, target_path=tmp_path / "target").wait()
    text = str(failed.value)
    assert "broken" in text and "no_such_table" in text


def test_a_command_dbt_refuses_is_an_error_not_a_hang(tmp_path):
    dbt, _ = tiny_project(tmp_path, {"prices": "select 1 as x"})
    with pytest.raises(DagsterDbtCliRuntimeError) as failed:
        dbt.cli(["build", "--no-such-flag"], manifest=None, target_path=tmp_path / "t").wait()
    assert "no-such-flag" in str(failed.value) or "No such option" in str(failed.value)


def test_each_command_reads_the_day_from_its_environment(tmp_path, monkeypatch):
    # the as-of day and the window reach dbt as environment variables set by the step
    dbt, db_file = tiny_project(
        tmp_path, {"day": "select '{{ env_var('TINY_AS_OF') }}' as as_of, 1 as n"}
    )
    for day in ("2026-08-23", "2026-08-24"):
        monkeypatch.setenv("TINY_AS_OF", day)
        assert dbt.cli(["build"], manifest=None, target_path=tmp_path / day).wait()
        assert rows(db_file, "select as_of from main.day") == [(day,)]


def test_what_changed_since_the_last_kept_build_is_dbt_s_state_modified(tmp_path, monkeypatch):
    monkeypatch.setenv("TINY_AS_OF", "1")
    dbt, _ = tiny_project(
        tmp_path,
        {"prices": "select day, usd from {{ ref('quotes') }}",
         "daily": INCREMENTAL,
         "other": "select 1 as x"},
        {"quotes": "day,usd\n1,2.5\n2,1.2\n"},
    )  # fmt: skip
    home = tmp_path / "home"
    step = DbtStep(dbt, home, "tiny_step", "run00001")
    assert step.modified() is None  # nothing kept: the caller rebuilds everything
    target = step.target("build")
    assert dbt.cli(["build"], manifest=None, target_path=target).wait()
    step.keep_state(target)
    assert (state_dir(home, "tiny_step") / "manifest.json").exists()
    assert step.modified() == set()
    # a second question parses only what changed (dbt's parse state of `ls`, kept per command)
    assert step.modified() == set()
    asked = max((home / "dbt_runs").glob("*-tiny_step-ls"))
    assert "Unable to do partial parsing" not in (asked / "dbt.log").read_text()
    # a model's SQL edited: it and what is built from it
    project = tmp_path / "tiny"
    (project / "models" / "prices.sql").write_text(
        "select day, usd * 1.0 as usd from {{ ref('quotes') }}\n"
    )
    assert step.modified() == {"prices", "daily"}
    # a seed's rows edited: the seed and everything built from it
    (project / "seeds" / "quotes.csv").write_text("day,usd\n1,2.5\n2,1.3\n")
    assert step.modified() == {"quotes", "prices", "daily"}


def test_a_kept_state_dbt_cannot_read_fails_the_question_naming_it(tmp_path, monkeypatch):
    # the question is asked in this process (dbtRunner): a kept manifest cut off mid-write is an
    # error naming the question, the manifest and its log, not an empty answer ("nothing
    # changed") that would leave a changed per-day mart unrebuilt
    monkeypatch.setenv("TINY_AS_OF", "1")
    dbt, _ = tiny_project(tmp_path, {"prices": "select 1 as x"})
    home = tmp_path / "home"
    step = DbtStep(dbt, home, "tiny_step", "run00001")
    target = step.target("build")
    assert dbt.cli(["build"], manifest=None, target_path=target).wait()
    step.keep_state(target)
    kept = state_dir(home, "tiny_step") / "manifest.json"
    kept.write_text(kept.read_text()[:200])
    with pytest.raises(RuntimeError) as failed:
        step.modified()
    text = str(failed.value)
    assert text.startswith("dbt ls (what changed since the step's last successful build")
    assert str(kept) in text and "dbt.log" in text
    assert "the next run then rebuilds every per-day mart over every day" in text


def test_a_changed_incremental_model_is_rebuilt_over_every_day(tmp_path, monkeypatch):
    dbt, db_file = tiny_project(
        tmp_path,
        {"prices": "select day, usd from {{ ref('quotes') }}", "daily": INCREMENTAL},
        {"quotes": "day,usd\n1,2.5\n2,1.2\n"},
    )
    monkeypatch.setenv("TINY_AS_OF", "2")
    step = DbtStep(dbt, tmp_path / "home", "tiny_step", "run00002")
    first = step.target("build")
    assert dbt.cli(["build"], manifest=None, target_path=first).wait()
    step.keep_state(first)  # as the pipeline keeps a whole build's manifest
    # the seed's day 1 changes; an incremental build of day 2 leaves day 1 as it was
    (tmp_path / "tiny" / "seeds" / "quotes.csv").write_text("day,usd\n1,9.0\n2,1.2\n")
    assert dbt.cli(["build"], manifest=None, target_path=step.target("build")).wait()
    assert rows(db_file, "select day, usd from main.daily order by day") == [(1, 2.5), (2, 1.2)]
    # rebuilt over every day, as the pipeline does for a model whose definition changed: after
    # what it is built from that changed since the kept build (the seed, the view over it), in
    # that order, and no test
    step.full_refresh(["daily"])
    assert rows(db_file, "select day, usd from main.daily order by day") == [(1, 9.0), (2, 1.2)]
    ran = json.loads(
        (max((tmp_path / "home" / "dbt_runs").glob("*-rebuild")) / "run_results.json").read_text()
    )
    assert [r["unique_id"] for r in ran["results"]] == [
        "seed.tiny.quotes",
        "model.tiny.prices",
        "model.tiny.daily",
    ]


def test_only_the_newest_command_folders_are_kept(tmp_path):
    runs = tmp_path / "dbt_runs"
    for i in range(5):
        (runs / f"2026120{i}T000000-run-step-build").mkdir(parents=True)
    prune_run_folders(runs, keep=2)
    assert sorted(p.name for p in runs.iterdir()) == [
        "20261203T000000-run-step-build",
        "20261204T000000-run-step-build",
    ]
