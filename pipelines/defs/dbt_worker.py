"""dbt run by a worker process forked from the Dagster step's, kept for the process's commands.

dagster-dbt starts dbt as a child process for every command and reads its JSON log from stdout.
Each child pays Python's start and dbt's imports again (~1.4 s here) and the daily refresh runs
two dbt commands. dbt's programmatic entry point (`dbtRunner`, dbt's documented way to invoke it
from Python) runs a command without a new interpreter; its events go to a callback.

Until 2026-12-03 gpuledger ran `dbtRunner` on a thread of the step's process. dbt's Python work
then shared one interpreter lock with Dagster's handling of its events (for every node a
materialization or a check result, each written to the event log): on 2 cores the unpartitioned
build of a day at 365 days took 3.8-5.0 s of dbt's own time beside Dagster against 2.3-3.0 s alone,
and the step 4.4-5.3 s. So a worker process runs dbt: forked from this process when its first dbt
command starts (dbt's modules are imported already: no interpreter start, no imports) and kept for
the next commands (dbt's caches stay warm: a command after the first takes about a third less).
Commands, with their environment and working folder, go to it over a pipe; each dbt event comes
back. Days run in turn on a kept 365-day warehouse (not the first of a process): that step
2.9-3.8 s, the day 8.8-10.4 s against 11.9-13.3 s on the thread.

`WorkerDbtResource.cli` does what `DbtCliResource.cli` does (the same selection for the asset
subset, the same target and log folders, the same `DbtCliInvocation`, so dagster-dbt turns dbt's
events into materializations and check results exactly as before) except how dbt is started:
handing over each event dbt's stdout would have carried (info level and above, as dicts like the
JSON lines), which also reach the run's log. dbt's own log (dbt.log in the target folder) holds
the same info-level events, not dbt's debug events (~1 s of a daily refresh's dbt when written
in the step's process); `dbt build` by hand in dbt/ writes it where needed.

What the worker takes care of:
- dbt-duckdb keeps its DuckDB database open after a command (a class-level environment); the
  worker closes it when the command ends, or the step's next connection to the file (the assets'
  DuckDBResource, the publish step) would find it locked by another process.
- dbt keeps process-wide state (its flags, its event manager), so one command runs at a time.
- It is forked while the step holds no connection to the warehouse (the step closes its own
  before dbt), so it inherits no open DuckDB database of the file it writes.
- If it dies during a command (killed, out of memory) the command fails saying so and the next
  command forks a new one; a stopped run ends it; it ends when this process does (a daemon
  process, and its pipe closes).
"""

from __future__ import annotations

import atexit
import gc
import importlib.metadata
import multiprocessing
import os
import queue
import signal
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


class DbtProcess:
    """A dbt command run by this process's dbt worker (`DbtWorker`), with what
    `DbtCliInvocation` asks of a child process: `args`, `wait()`, `returncode`, `send_signal()`.
    A thread of this process hands the command over and relays the worker's events."""

    def __init__(self, args: Sequence[str]):
        self.args = ["dbt", *args]
        self.returncode: int | None = None
        self.events: queue.SimpleQueue = queue.SimpleQueue()
        self.failure: str | None = None
        self.drained = False
        # forked here, on the step's thread, not on the relay's (see the module's text)
        self._worker = DbtWorker.get()
        self._thread = threading.Thread(target=self._relay, name="dbt", daemon=True)
        self._thread.start()

    def _relay(self) -> None:
        worker = self._worker
        try:
            with _ONE_AT_A_TIME:
                worker.send(list(self.args[1:]))
                while True:
                    kind, payload = worker.receive()
                    if kind == "event":
                        self.events.put(payload)
                        continue
                    self.returncode, self.failure = payload
                    break
        except (EOFError, OSError) as exc:
            # the worker died (killed, out of memory) or was stopped: this command failed,
            # the next one starts a new worker
            worker.discard()
            self.failure = (
                f"dbt stopped: its worker process ended during the command "
                f"(exit code {worker.exitcode()}; {type(exc).__name__})"
            )
            self.returncode = 2
        except Exception as exc:  # a reply that cannot be read: the worker's state is unknown
            worker.discard()
            self.failure = f"dbt stopped: the worker's reply could not be read: {exc!r}"
            self.returncode = 2
        finally:
            self.events.put(_END)

    def wait(self, timeout: float | None = None) -> int | None:
        self._thread.join(timeout)
        return self.returncode

    def poll(self) -> int | None:
        return None if self._thread.is_alive() else self.returncode

    def send_signal(self, _signal) -> None:
        """The run is stopped: end the worker (DuckDB keeps what was committed); the next
        command starts a new one."""
        self._worker.discard()


class DbtWorker:
    """The process that runs this process's dbt commands, one at a time (see the module's
    text): forked at the first command, kept while it lives."""

    _current: DbtWorker | None = None
    _lock = threading.Lock()

    def __init__(self):
        context = multiprocessing.get_context("fork")
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, self._conn), name="gpuledger-dbt", daemon=True
        )
        self._process.start()
        child.close()
        self._send_lock = threading.Lock()

    @classmethod
    def get(cls) -> DbtWorker:
        with cls._lock:
            worker = cls._current
            if worker is None or worker._conn.closed or not worker._process.is_alive():
                worker = cls._current = DbtWorker()
            return worker

    @property
    def pid(self) -> int | None:
        return self._process.pid

    def send(self, args: list[str]) -> None:
        with self._send_lock:
            self._conn.send((args, dict(os.environ), os.getcwd()))

    def receive(self):
        return self._conn.recv()

    def exitcode(self) -> int | None:
        self._process.join(timeout=1)
        return self._process.exitcode

    def discard(self) -> None:
        with DbtWorker._lock:
            if DbtWorker._current is self:
                DbtWorker._current = None
        self.stop()

    def stop(self) -> None:
        if self._process.is_alive():
            self._process.terminate()
        self._conn.close()

    def close(self, timeout: float = 10.0) -> None:
        """End the worker as it ends its own way: its pipe closes, it returns, and its process
        frees what dbt took (the semaphores of dbt's locks; a worker terminated at exit, as
        multiprocessing ends a daemon process, leaves them to Python's resource tracker, which
        warns of them on the user's screen)."""
        self._conn.close()
        self._process.join(timeout)
        if self._process.is_alive():
            self._process.terminate()


@atexit.register
def _close_worker() -> None:
    # registered after multiprocessing's own exit handler, so it runs before it
    with DbtWorker._lock:
        worker, DbtWorker._current = DbtWorker._current, None
    if worker is not None:
        worker.close()


def _serve(conn, parent_end) -> None:
    """The worker: run each command that comes, send its events and its end."""
    parent_end.close()
    # stopped by terminate() whatever handler the parent had set (Dagster sets its own)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # The objects inherited from the parent are never collected here: the collector's passes
    # would write every one of them, copying the pages the worker shares with the parent (what
    # Python's documentation of gc.freeze() advises for a fork without exec).
    gc.freeze()
    from dbt.cli.main import dbtRunner
    from dbt_common.events.functions import msg_to_dict

    def on_event(msg) -> None:
        # what dbt's stdout carries at its default level; the debug events go to dbt.log only
        if msg.info.level != "debug":
            conn.send(("event", msg_to_dict(msg)))

    while True:
        try:
            args, env, cwd = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        try:
            try:
                result = dbtRunner(callbacks=[on_event]).invoke(args)
            finally:
                close_dbt_duckdb()
            if result.exception is not None:
                end = (2, f"dbt stopped: {result.exception}")
            else:
                end = (0 if result.success else 1, None)
        except BaseException as exc:  # anything dbt raised past its own handling
            end = (2, f"dbt stopped: {type(exc).__name__}: {exc}")
        conn.send(("end", end))


def close_dbt_duckdb() -> None:
    """Close the DuckDB database dbt-duckdb keeps open in its process after a command."""
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager as manager

    with manager._LOCK:
        if manager._ENV is not None:
            manager._ENV.close()
        manager.close_all_connections()


class WorkerInvocation(DbtCliInvocation):
    """dagster-dbt's invocation, fed from the worker's events instead of a child's stdout."""

    def _stream_stdout(self) -> Iterator[str | dict[str, Any]]:
        process: DbtProcess = self.process  # type: ignore[assignment]
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


class WorkerDbtResource(DbtCliResource):
    """dagster-dbt's dbt resource, running dbt in the dbt worker (see the module's text).

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
        logger.info(f"Running dbt in the dbt worker process: `dbt {' '.join(dbt_args)}`.")
        invocation = WorkerInvocation(
            process=DbtProcess(dbt_args),  # type: ignore[arg-type]
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
