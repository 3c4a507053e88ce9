"""The run's resource: what a run finds alive is left out of Python's full collections while it
runs, and handed back when it ends (pipelines/defs/resources.py, long_lived)."""

from __future__ import annotations

import gc
import weakref

import dagster as dg

from pipelines.defs.resources import GpuledgerResource


class _Cycle:
    """An object only a reference cycle keeps: freed by the cyclic collector alone."""

    def __init__(self) -> None:
        self.me = self


def test_a_run_leaves_what_it_found_to_the_end_and_collects_its_own_cycles(tmp_path):
    gc.collect()
    assert gc.get_freeze_count() == 0
    found = _Cycle()
    found_ref = weakref.ref(found)
    seen: dict[str, object] = {}

    @dg.asset
    def probe(gpuledger: GpuledgerResource) -> None:
        nonlocal found
        seen["frozen"] = gc.get_freeze_count() > 0
        found = None  # only its cycle keeps it now
        made = _Cycle()
        made_ref = weakref.ref(made)
        del made
        gc.collect()
        seen["found_alive"] = found_ref() is not None
        seen["made_alive"] = made_ref() is not None

    result = dg.materialize([probe], resources={"gpuledger": GpuledgerResource(home=str(tmp_path))})
    assert result.success
    # during the run: the object from before it was not collected, the run's own cycle was
    assert seen == {"frozen": True, "found_alive": True, "made_alive": False}
    # after it: nothing is left frozen, and the object from before is collected
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert found_ref() is None


def test_a_failed_run_hands_back_what_it_left_out(tmp_path):
    seen: dict[str, bool] = {}

    @dg.asset
    def fails(gpuledger: GpuledgerResource) -> None:
        seen["frozen"] = gc.get_freeze_count() > 0
        raise RuntimeError("the step fails")

    result = dg.materialize(
        [fails],
        resources={"gpuledger": GpuledgerResource(home=str(tmp_path))},
        raise_on_error=False,
    )
    assert not result.success
    assert seen == {"frozen": True}
    assert gc.get_freeze_count() == 0
