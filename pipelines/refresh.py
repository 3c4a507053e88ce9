"""Run the daily_refresh job in-process, the same job the schedule runs."""

from __future__ import annotations

import sys
from datetime import date
from typing import Any

from warehouse import db, publish
from warehouse.paths import Paths, prepare_environment


def run_refresh(
    as_of: date,
    offline: bool = False,
    paths: Paths | None = None,
    extra_config: dict[str, Any] | None = None,
    out=sys.stdout,
    assets: list[str] | None = None,
):
    """Execute daily_refresh for `as_of`; print a per-source summary; return the Dagster result.

    `assets` (keys such as "marts/source_health") runs only those assets and what they depend
    on, as one would materialize them in the Dagster UI; by default the whole job runs."""
    paths = prepare_environment(paths)
    import dagster as dg

    from pipelines.definitions import defs

    config = {"as_of": as_of.isoformat(), "offline": offline, "home": str(paths.home)}
    config.update(extra_config or {})
    job = defs.resolve_job_def("daily_refresh")
    selection = None
    if assets:
        wanted = dg.AssetSelection.assets(*(dg.AssetKey.from_user_string(a) for a in assets))
        closure = wanted.upstream().required_multi_asset_neighbors()
        selection = sorted(closure.resolve(defs.resolve_asset_graph()))
    with dg.DagsterInstance.get() as instance:
        result = job.execute_in_process(
            run_config={
                "resources": {"gpuledger": {"config": config}},
                "loggers": {"console": {"config": {"log_level": "INFO"}}},
            },
            instance=instance,
            raise_on_error=False,
            asset_selection=selection,
        )
    _print_summary(paths, result.run_id, out)
    pub = publish.publication(paths)
    if pub and pub["run_id"] == result.run_id:
        print(f"published for readers: {pub['path']}; report: {paths.report_path}", file=out)
    else:
        print("nothing published: readers keep the previous copy", file=out)
    if not result.success:
        failed = [e.step_key for e in result.all_events if e.is_step_failure]
        print(f"refresh {result.run_id} FAILED in step(s): {', '.join(failed)}", file=out)
    return result


def _print_summary(paths: Paths, run_id: str, out) -> None:
    con = db.connect(paths.db_path)
    try:
        db.ensure_raw_schema(con)
        rows = con.execute(
            """
            select source, count(*) filter (where fetch_status in ('fetched', 'not_modified')),
                   count(*) filter (where fetch_status = 'failed'),
                   bool_or(used_archive),
                   any_value(fetch_error) filter (where fetch_error is not null)
            from raw.source_runs where run_id = ? group by 1 order by 1
            """,
            [run_id],
        ).fetchall()
        validations = dict(
            con.execute(
                "select source, count(*) filter (where not success) from raw.snapshot_validations "
                "group by 1"
            ).fetchall()
        )
    finally:
        con.close()
    print(f"refresh {run_id}:", file=out)
    for source, ok, failed, used_archive, error in rows:
        line = f"  {source}: {ok} fetched, {failed} failed"
        if used_archive:
            line += "; using archived snapshots"
        if error:
            line += f" (e.g. {error})"
        if validations.get(source):
            line += f"; {validations[source]} snapshot(s) failed validation, kept out of the marts"
        print(line, file=out)
