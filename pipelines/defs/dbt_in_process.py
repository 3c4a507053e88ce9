"""dbt run inside the Dagster step's process instead of as a child process.

dagster-dbt starts dbt as a child process for every command and reads its JSON log from stdout.
Each child pays Python's start and dbt's imports again (~1.4 s here; in this process, where
Dagster has already imported dbt's common packages, they take 0.1 s) and the daily refresh runs
two dbt commands. dbt's programmatic entry point (`dbtRunner`, dbt's documented way to invoke it
from Python) runs the same command in this process; its events go to a callback instead of a pipe.

`InProcessDbtResource.cli` does what `DbtCliResource.cli` does (the same selection for the asset
subset, the same target and log folders, the same `DbtCliInvocation`, so dagster-dbt turns dbt's
events into materializations and check results exactly as before) except how dbt is started: on a
thread of this process, handing over each event dbt's stdout would have carried (info level and
above, as dicts like the JSON lines), which also reach the run's log. dbt's own log (dbt.log in
the target folder) holds the same info-level events, not dbt's debug events: written in this
process, the debug log cost ~1 s of a daily refresh's ~10 s of dbt (the demo, two runs each way;
a child process wrote it on the other core); `dbt build` by hand in dbt/ writes it where needed.

Two things differ from a child process and are handled here:
- dbt-duckdb keeps its DuckDB database open after the command (a class-level environment); it is
  closed when dbt ends, or the next connection of this process with another configuration (the
  assets' DuckDBResource, the publish step) would be refused.
- dbt keeps process-wide state (its flags, its event manager), so one command runs at a time.
A command cannot be stopped half way: when the run is stopped, the step stops waiting and dbt's
thread ends with the process.
"""

from __future__ import annotations

import importlib.metadata
import os
import queue
import threading
from collections.abc import Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from dagster import get_dagster_logger
from dagster_dbt import DagsterDbtTranslator, DbtCliResource
from dagster_dbt.asset_utils import (
    extract_runtime_selection_from_args,
    get_updated_cli_invocation_params_for_context,
)
from dagster_dbt.core.dbt_cli_invocation import DbtCliInvocation
from dagster_dbt.dagster_dbt_translator import validate_opt_translator
from dagster_dbt.dbt_manifest import validate_manifest
from packaging import version

logger = get_dagster_logger()
_ONE_AT_A_TIME = threading.Lock()
_END = object()


class DbtThread:
    """A dbt command on a thread of this process, with what `DbtCliInvocation` asks of a child
    process: `args`, `wait()`, `returncode`, `send_signal()`."""

    def __init__(self, args: Sequence[str]):
        self.args = ["dbt", *args]
        self.returncode: int | None = None
        self.events: queue.SimpleQueue = queue.SimpleQueue()
        self.failure: str | None = None
        self.drained = False
        self._thread = threading.Thread(target=self._run, name="dbt", daemon=True)
        self._thread.start()

    def _on_event(self, msg) -> None:
        from dbt_common.events.functions import msg_to_dict

        # what dbt's stdout carries at its default level; the debug events go to dbt.log only
        if msg.info.level != "debug":
            self.events.put(msg_to_dict(msg))

    def _run(self) -> None:
        try:
            with _ONE_AT_A_TIME:
                from dbt.cli.main import dbtRunner

                try:
                    result = dbtRunner(callbacks=[self._on_event]).invoke(list(self.args[1:]))
                finally:
                    close_dbt_duckdb()
            if result.exception is not None:
                self.failure = f"dbt stopped: {result.exception}"
                self.returncode = 2
            else:
                self.returncode = 0 if result.success else 1
        except BaseException as exc:  # anything dbt raised past its own handling
            self.failure = f"dbt stopped: {type(exc).__name__}: {exc}"
            self.returncode = 2
        finally:
            self.events.put(_END)

    def wait(self, timeout: float | None = None) -> int | None:
        self._thread.join(timeout)
        return self.returncode

    def poll(self) -> int | None:
        return None if self._thread.is_alive() else self.returncode

    def send_signal(self, _signal) -> None:
        """dbt in this process cannot be interrupted; the thread ends with the process."""


def close_dbt_duckdb() -> None:
    """Close the DuckDB database dbt-duckdb keeps open in this process after a command."""
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager as manager

    with manager._LOCK:
        if manager._ENV is not None:
            manager._ENV.close()
        manager.close_all_connections()


class InProcessInvocation(DbtCliInvocation):
    """dagster-dbt's invocation, fed from the dbt thread's events instead of a child's stdout."""

    def _stream_stdout(self) -> Iterator[str | dict[str, Any]]:
        process: DbtThread = self.process  # type: ignore[assignment]
        # dagster-dbt reads the output a second time when dbt has ended (is_successful): what
        # was handed over once is not handed over again
        while not process.drained:
            try:
                # a bounded wait, so a stop of the run (Dagster raises it in this thread) is
                # taken within half a second even while dbt prints nothing
                event = process.events.get(timeout=0.5)
            except queue.Empty:
                continue
            if event is _END:
                process.drained = True
                if process.failure:
                    self._error_messages.append(process.failure)
                return
            if event["info"]["level"] == "error":
                self._error_messages.append(event["info"]["msg"])
            yield event


class InProcessDbtResource(DbtCliResource):
    """dagster-dbt's dbt resource, running dbt in this process (see the module's text).

    It opens no handle on dbt's adapter (dagster-dbt opens one before every command, loading the
    project's macros and manifest, ~2 s a command, only for `fetch_row_counts()` and
    `fetch_column_metadata()`, which gpuledger does not call), and takes dbt-core's version from
    the installed package instead of asking a `dbt --version` child (~1 s a command)."""

    @cached_property
    def _cli_version(self) -> version.Version:
        return version.parse(importlib.metadata.version("dbt-core"))

    def _initialize_dbt_core_adapter(self, args):
        return None

    def cli(
        self,
        args: Sequence[str],
        *,
        raise_on_error: bool = True,
        manifest=None,
        dagster_dbt_translator: DagsterDbtTranslator | None = None,
        context=None,
        target_path: Path | None = None,
    ) -> DbtCliInvocation:
        translator = validate_opt_translator(dagster_dbt_translator) or DagsterDbtTranslator()
        manifest = validate_manifest(manifest) if manifest else {}
        cleaned_args, selects, excludes = extract_runtime_selection_from_args(args)
        params = get_updated_cli_invocation_params_for_context(
            context=context,
            manifest=manifest,
            dagster_dbt_translator=translator,
            runtime_selects=selects,
            runtime_excludes=excludes,
        )
        target_path = target_path or self._get_unique_target_path(context=context)
        project_dir = Path(
            params.dbt_project.project_dir if params.dbt_project else self.project_dir
        )
        if not target_path.is_absolute():
            target_path = project_dir / target_path
        profile_args = (["--profile", self.profile] if self.profile else []) + (
            ["--target", self.target] if self.target else []
        )
        dbt_args = [
            *self.global_config_flags,
            *cleaned_args,
            *profile_args,
            *params.selection_args,
            "--project-dir", os.fspath(project_dir),
            "--target-path", os.fspath(target_path),
            "--log-path", os.fspath(target_path),
            "--log-level", "none",  # dbt's text on stdout; its events come by the callback
            "--log-level-file", "info",  # dbt.log: what stdout carried (see the text above)
            "--no-send-anonymous-usage-stats",
        ]  # fmt: skip
        if self.profiles_dir:
            dbt_args += ["--profiles-dir", os.fspath(self.profiles_dir)]
        if params.indirect_selection and "--indirect-selection" not in cleaned_args:
            # dagster-dbt hands this to its child as DBT_INDIRECT_SELECTION, below the command's
            # own flag; here as the flag, unless the command names one
            dbt_args += ["--indirect-selection", params.indirect_selection]
        logger.info(f"Running dbt in this process: `dbt {' '.join(dbt_args)}`.")
        invocation = InProcessInvocation(
            process=DbtThread(dbt_args),  # type: ignore[arg-type]
            manifest=params.manifest,
            dagster_dbt_translator=params.dagster_dbt_translator,
            project_dir=project_dir,
            target_path=target_path,
            raise_on_error=raise_on_error,
            context=context,
            adapter=None,
            cli_version=self._cli_version,
            project=params.dbt_project,
        )
        return invocation
