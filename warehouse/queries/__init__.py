"""The read queries behind the CLI's `rank`, `explain` and `sources`: `prices` (GPUs by USD per
GPU-hour, source health), `workloads` (cost per accepted output per class, the calculation
behind one cell) and `leaders` (each class's leader). They read the published copy only and
never import Dagster.
"""

from __future__ import annotations

import duckdb

from warehouse import paths as wpaths
from warehouse import publish


class WarehouseMissing(Exception):
    """Nothing published yet, or the published copy lacks the tables a query needs."""


class NotFound(Exception):
    """The workload class, GPU or day asked for is not in the warehouse."""


def short_run_key(run_key: str) -> str:
    """A run as `explain` and `estimate` name it: its file's sha256 cut to 12 characters, then
    its reference within the file (a run's key is `<file sha256>:<run reference>`,
    stg_benchmark_runs), so that the runs of one file stay told apart."""
    sha, sep, ref = run_key.partition(":")
    return f"{sha[:12]}..{sep}{ref}" if len(sha) > 12 else run_key


def connect_published() -> duckdb.DuckDBPyConnection:
    """A read-only connection to the published copy of the current GPULEDGER_HOME."""
    try:
        return publish.connect(wpaths.current())
    except publish.NotPublished as exc:
        raise WarehouseMissing(str(exc)) from exc
