"""What a person sees while a run works: one line per step with its elapsed time, and a bar while
a step with many parts runs (the sources being ingested, the dbt models being built). Everything
else (Dagster's, dbt's and Great Expectations' own logs) goes to the run's log file, whose path is
printed; `--verbose` shows it on the console too. Errors always print in full.

Both are Dagster loggers (`progress`, `run_log`), configured per run by `pipelines/refresh.py`.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
from tqdm import tqdm

STEP_LABELS = {
    "raw_tables": "raw tables",
    "gpuledger_dbt": "dbt models, per-day marts of the day and tests",
    "ops__alerts": "alerts",
    "ops__published_warehouse": "publish for readers",
    "ops__report": "report",
}


# The console as it was before the run (see console_kept()); None: sys.stderr.
_CONSOLE: io.TextIOBase | None = None


@contextlib.contextmanager
def console_kept() -> Iterator[None]:
    """While a run executes, Dagster captures the process's stderr (file descriptor 2) into the
    run's compute log and mirrors that file to the console with `tail -F`, which it stops when
    the run ends: a line written in the last second (the last step's) could miss the console
    (dagster-io/dagster#23336; it happened to the `report` line). The progress lines go to a
    duplicate of the console's descriptor taken before the run, which the capture leaves alone."""
    global _CONSOLE
    try:
        sys.stderr.flush()
        fd = os.dup(sys.stderr.fileno())
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        yield  # no descriptor (a test's captured stream): write to sys.stderr
        return
    stream = os.fdopen(fd, "w", buffering=1, encoding="utf-8", errors="replace")
    _CONSOLE = stream
    try:
        yield
    finally:
        _CONSOLE = None
        stream.close()


DBT_STEPS = ("gpuledger_dbt",)
INGEST_STEP = "ingest"  # every source, one asset each (pipelines/defs/ingest.py)


class ProgressHandler(logging.Handler):
    """Turns Dagster's step events into progress lines; the ingest step's bar counts sources."""

    def __init__(self, stream, n_sources: int, n_models: dict[str, int]):
        super().__init__(logging.DEBUG)
        self.stream, self.n_sources, self.n_models = stream, n_sources, n_models
        self.interactive = hasattr(stream, "isatty") and stream.isatty()
        self.run_started = time.perf_counter()
        self.started: dict[str, float] = {}
        self.bar: tqdm | None = None
        self.ingest_started: float | None = None
        self.ingested = 0

    def _line(self, text: str) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        total = time.perf_counter() - self.run_started
        print(f"[{total:6.1f} s] {text}", file=self.stream, flush=True)

    def _bar(self, desc: str, total: int) -> None:
        if self.interactive and self.bar is None:
            self.bar = tqdm(total=total, desc=desc, file=self.stream, leave=False, ncols=80)

    def emit(self, record: logging.LogRecord) -> None:
        meta = getattr(record, "dagster_meta", None) or {}
        event = meta.get("dagster_event")
        if event is None:
            return
        kind, step = event.event_type_value, event.step_key or ""
        now = time.perf_counter()
        if step == INGEST_STEP:
            if kind == "STEP_START":
                self.ingest_started = now
                self._bar("ingest", self.n_sources)
            elif kind == "ASSET_MATERIALIZATION":
                self.ingested += 1
                if self.bar is not None:
                    self.bar.update(1)
            elif kind == "STEP_SUCCESS":
                took = now - (self.ingest_started or now)
                self._line(f"ingest: {self.ingested} sources fetched or read, checked, "
                           f"loaded ({took:.1f} s)")  # fmt: skip
            elif kind == "STEP_FAILURE":
                self._line(f"ingest FAILED after {self.ingested} sources: {event.message}")
                failure = getattr(event.event_specific_data, "error", None)
                if failure is not None:
                    print(failure.message.strip(), file=self.stream, flush=True)
            return
        label = STEP_LABELS.get(step, step)
        if kind == "STEP_START":
            self.started[step] = now
            if step in DBT_STEPS:
                self._bar("dbt", self.n_models.get(step, 0))
        elif kind == "ASSET_MATERIALIZATION" and step in DBT_STEPS:
            if self.bar is not None:
                self.bar.update(1)
        elif kind == "STEP_SUCCESS":
            self._line(f"{label} ({now - self.started.get(step, now):.1f} s)")
        elif kind == "STEP_FAILURE":
            self._line(f"{label} FAILED after {now - self.started.get(step, now):.1f} s:")
            print(event.message or "", file=self.stream, flush=True)
            failure = getattr(event.event_specific_data, "error", None)
            if failure is not None:
                print(failure.to_string(), file=self.stream, flush=True)


def _counts() -> tuple[int, dict[str, int]]:
    """Sources, and the models and seeds each dbt step builds (the progress bars' totals)."""
    import sources
    from pipelines.defs.dbt import DBT_STEP, gpuledger_dbt

    models = {DBT_STEP: len(gpuledger_dbt.keys)}
    return len(sources.REGISTRY), models


@dg.logger(
    config_schema={"enabled": dg.Field(bool, default_value=False)},
    description="One line per step with its elapsed time, bars while sources load and dbt builds.",
)
def progress_logger(init_context: dg.InitLoggerContext) -> logging.Logger:
    logger = logging.getLogger(f"gpuledger.progress.{id(init_context)}")
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    if init_context.logger_config["enabled"]:
        n_sources, n_models = _counts()
        logger.addHandler(ProgressHandler(_CONSOLE or sys.stderr, n_sources, n_models))
    return logger


@dg.logger(
    config_schema={"path": dg.Field(str, default_value="")},
    description="Every message of the run (Dagster's, dbt's, GX's) in the run's log file.",
)
def run_log_logger(init_context: dg.InitLoggerContext) -> logging.Logger:
    logger = logging.getLogger(f"gpuledger.run_log.{id(init_context)}")
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    path = init_context.logger_config["path"]
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(path, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        logger.addHandler(handler)
    return logger
