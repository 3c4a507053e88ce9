"""dbt in gpuledger's dbt worker: the same events as from a child process, failures named, the
DuckDB file free for the next connection afterwards, and a worker that dies or is stopped
failing only its command."""

import os

import duckdb
import pytest
from dagster_dbt.errors import DagsterDbtCliRuntimeError

from pipelines.defs.dbt_worker import DbtWorker, WorkerDbtResource
from pipelines.defs.resources import dbt_resource


def tiny_project(tmp_path, models: dict[str, str]):
    project = tmp_path / "tiny"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text(
        "name: tiny\nversion: '1.0'\nconfig-version: 2\nprofile: tiny\nmodel-paths: [models]\n"
    )
    db_file = tmp_path / "tiny.duckdb"
    (project / "profiles.yml").write_text(
        f"tiny:\n  target: t\n  outputs:\n    t:\n      type: duckdb\n      path: '{db_file}'\n"
        "      settings:\n        memory_limit: 300MB\n"
    )
    for name, sql in models.items():
        (project / "models" / f"{name}.sql").write_text(sql + "\n")
    resource = WorkerDbtResource(
        project_dir=str(project),
        profiles_dir=str(project),
        dbt_executable=dbt_resource().dbt_executable,
    )
    return resource, db_file


def test_a_build_in_the_worker_reports_each_model_and_leaves_the_file_free(tmp_path):
    dbt, db_file = tiny_project(
        tmp_path,
        {"prices": "select 'h100' as gpu, 2.5 as usd union all select 'a100', 1.2",
         "cheapest": "select gpu, usd from {{ ref('prices') }} order by usd limit 1"},
    )  # fmt: skip
    invocation = dbt.cli(["build"], manifest=None, target_path=tmp_path / "target")
    events = list(invocation.stream_raw_events())  # what dagster-dbt turns into materializations
    assert invocation.is_successful()
    assert invocation.process.returncode == 0
    results = {
        e.raw_event["data"]["node_info"]["unique_id"]: e.raw_event["data"]["status"]
        for e in events
        if e.raw_event["info"]["name"] == "LogModelResult"
    }
    assert results == {"model.tiny.prices": "OK", "model.tiny.cheapest": "OK"}
    assert all(e.raw_event["info"]["level"] != "debug" for e in events)
    # dbt-duckdb's database is closed: this process may open the file (with another configuration)
    con = duckdb.connect(str(db_file), config={"memory_limit": "200MB"})
    assert con.execute("select gpu, usd::double from main.cheapest").fetchall() == [("a100", 1.2)]
    con.close()
    assert (tmp_path / "target" / "run_results.json").exists()


def test_a_failing_model_fails_the_command_naming_the_model_and_the_reason(tmp_path):
    dbt, db_file = tiny_project(
        tmp_path,
        {"prices": "select 'h100' as gpu, 2.5 as usd",
         "broken": "select gpu from {{ ref('prices') }} join no_such_table using (gpu)"},
    )  # fmt: skip
    with pytest.raises(DagsterDbtCliRuntimeError) as failed:
        dbt.cli(["build"], manifest=None, target_path=tmp_path / "target").wait()
    text = str(failed.value)
    assert "broken" in text and "no_such_table" in text and "does not exist" in text
    # the model before it was built; the file is free for the next writer
    con = duckdb.connect(str(db_file), config={"memory_limit": "200MB"})
    assert con.execute("select usd::double from main.prices").fetchall() == [(2.5,)]
    con.close()
    # and the next command in the same process runs
    (tmp_path / "tiny" / "models" / "broken.sql").write_text("select 1 as fixed\n")
    assert dbt.cli(["build"], manifest=None, target_path=tmp_path / "t2").wait().is_successful()


def test_a_command_dbt_refuses_is_an_error_not_a_hang(tmp_path):
    dbt, _ = tiny_project(tmp_path, {"prices": "select 1 as x"})
    with pytest.raises(DagsterDbtCliRuntimeError) as failed:
        dbt.cli(["build", "--no-such-flag"], manifest=None, target_path=tmp_path / "t").wait()
    assert "no-such-flag" in str(failed.value) or "No such option" in str(failed.value)


def test_commands_run_in_one_worker_process_each_with_its_own_environment(tmp_path, monkeypatch):
    # the as-of day and the window reach dbt as environment variables set by the step
    dbt, db_file = tiny_project(
        tmp_path, {"day": "select '{{ env_var('TINY_AS_OF') }}' as as_of, 1 as n"}
    )
    pids = []
    for day in ("2026-08-23", "2026-08-24"):
        monkeypatch.setenv("TINY_AS_OF", day)
        invocation = dbt.cli(["build"], manifest=None, target_path=tmp_path / day)
        assert invocation.wait().is_successful()
        pids.append(DbtWorker.get().pid)
        con = duckdb.connect(str(db_file), read_only=True)
        assert con.execute("select as_of from main.day").fetchall() == [(day,)]
        con.close()
    assert pids[0] == pids[1] != os.getpid()


SLOW = "select sum(i * i % 7) as s from range(2000000000) as t(i)"


def _stop_during_slow_model(tmp_path, stop) -> tuple[str, int | None]:
    """A build whose second model runs for many seconds, stopped by `stop(invocation)` as soon as
    dbt reports the model started: (the error, the worker's pid)."""
    slow = "{{ config(materialized='table') }}" + f"{SLOW} -- {{{{ ref('prices') }}}}"
    dbt, _ = tiny_project(tmp_path, {"prices": "select 2.5 as usd", "slow": slow})
    invocation = dbt.cli(["build"], manifest=None, target_path=tmp_path / "target")
    pid = DbtWorker.get().pid
    with pytest.raises(DagsterDbtCliRuntimeError) as failed:
        for event in invocation.stream_raw_events():
            node = event.raw_event["data"].get("node_info", {}).get("unique_id")
            if event.raw_event["info"]["name"] == "LogStartLine" and node == "model.tiny.slow":
                stop(invocation)
    assert invocation.process.returncode == 2
    return str(failed.value), pid


def test_a_worker_killed_during_a_command_fails_it_and_the_next_command_gets_a_new_worker(
    tmp_path,
):
    text, pid = _stop_during_slow_model(tmp_path, lambda _: os.kill(DbtWorker.get().pid, 9))
    assert "worker process ended during the command" in text and "exit code -9" in text
    # the next command runs in a new worker; the model built before the kill is there
    dbt, db_file = tiny_project(tmp_path / "again", {"fast": "select 1 as fast"})
    assert dbt.cli(["build"], manifest=None, target_path=tmp_path / "t2").wait().is_successful()
    assert DbtWorker.get().pid not in (pid, None)
    con = duckdb.connect(str(tmp_path / "tiny.duckdb"), read_only=True)
    assert con.execute("select usd::double from main.prices").fetchall() == [(2.5,)]
    con.close()


def test_a_stopped_run_ends_the_worker_not_the_process(tmp_path):
    # Dagster asks the dbt invocation to stop (SIGINT) when the run is stopped
    text, pid = _stop_during_slow_model(tmp_path, lambda inv: inv.process.send_signal(2))
    assert "worker process ended during the command" in text
    assert DbtWorker.get().pid != pid
