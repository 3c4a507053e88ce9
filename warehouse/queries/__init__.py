"""The read queries behind the CLI's `rank`, `explain` and `sources`: `prices` (GPUs by USD per
GPU-hour, source health) and `workloads` (cost per accepted output per class, the calculation
behind one cell, each class's leader). They read the published copy only and never import Dagster.
"""

from __future__ import annotations

import duckdb

from warehouse import paths as wpaths
from warehouse import publish


class WarehouseMissing(Exception):
    """Nothing published yet, or the published copy lacks the tables a query needs."""


class NotFound(Exception):
    """The workload class, GPU or day asked for is not in the warehouse."""


def connect_published() -> duckdb.DuckDBPyConnection:
    """A read-only connection to the published copy of the current GPULEDGER_HOME."""
    try:
        return publish.connect(wpaths.current())
    except publish.NotPublished as exc:
        raise WarehouseMissing(str(exc)) from exc
