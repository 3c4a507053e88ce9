"""The method's arithmetic on small hand-computed cases, through the independent recalculation
(scripts/verify_economics.py) that the integration tests hold the dbt marts to; the same cases
run as dbt unit tests (dbt/models/marts/_economics__unit_tests.yml) here too."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import verify_economics as ve  # noqa: E402

from tests.conftest import dbt  # noqa: E402

CLASS = {"target_utilization": "1.0", "overhead_usd_per_hour": "0", "quality_pass_rate": "1.0",
         "output_unit": "1m_tokens", "output_len": "256"}  # fmt: skip


def test_dearer_gpu_with_much_more_throughput_ranks_above_the_cheaper_one():
    cheap = ve.cost_per_output(CLASS, 1, 2.00, 1000, 1.0)
    dearer = ve.cost_per_output(CLASS, 1, 2.00 * 1.4, 1000 * 1.8, 1.0)
    assert dearer < cheap
    assert dearer / cheap == pytest.approx(1.4 / 1.8)


def test_much_dearer_gpu_with_only_a_little_more_throughput_does_not():
    cheap = ve.cost_per_output(CLASS, 1, 2.00, 1000, 1.0)
    dearer = ve.cost_per_output(CLASS, 1, 2.00 * 2.2, 1000 * 1.1, 1.0)
    assert dearer > cheap
    assert dearer / cheap == pytest.approx(2.0)


def test_five_percent_failures_cost_one_over_0_95_more():
    clean = ve.cost_per_output(CLASS, 1, 2.00, 1000, 1.0)
    failing = ve.cost_per_output(CLASS, 1, 2.00, 1000, 0.95)
    assert failing / clean == pytest.approx(1 / 0.95)


def test_cost_per_request_and_overhead_and_utilisation():
    cls = {**CLASS, "target_utilization": "0.5", "overhead_usd_per_hour": "1.0",
           "output_unit": "request"}  # fmt: skip
    # (2 GPUs x 3 USD / 0.5 + 1) = 13 USD/h for 1000 tok/s x 3600 = 3.6M tokens = 14062.5 requests
    assert ve.cost_per_output(cls, 2, 3.0, 1000, 1.0) == pytest.approx(13 / (3.6e6 / 256))


MODEL_70B = {"params_b": "70.6", "active_params_b": "70.6", "layers": "80", "kv_heads": "8",
             "head_dim": "128"}  # fmt: skip
CHAT_70B = {"class_kind": "llm_serving", "precision": "fp8", "kv_cache_precision": "bf16",
            "input_len": "1024", "output_len": "256", "concurrency": "32",
            "runtime_overhead_gb": "4", "headroom": "0.2", "max_gpus": "8"}  # fmt: skip


def test_a_model_that_does_not_fit_on_one_gpu_needs_two():
    n, terms = ve.memory_fit(CHAT_70B, MODEL_70B, 80.0)
    # weights 70.6 GB (fp8); KV 2 x 80 x 8 x 128 x 2 B x 1280 tokens x 32 = 13.42 GB;
    # one GPU: 70.6 + 13.42 + 4 = 88.0 > 64 usable; two: 92.0 <= 128
    assert terms["weights_gb"] == pytest.approx(70.6)
    assert terms["kv_cache_gb"] == pytest.approx(2 * 80 * 8 * 128 * 2 * 1280 * 32 / 1e9)
    assert n == 2
    assert ve.memory_fit(CHAT_70B, MODEL_70B, 141.0)[0] == 1
    assert ve.memory_fit(CHAT_70B, MODEL_70B, 24.0)[0] == 8
    assert ve.memory_fit({**CHAT_70B, "max_gpus": "4"}, MODEL_70B, 24.0)[0] is None


def test_roofline_decode_and_compute_bounds():
    spec = {"memory_bandwidth_gb_s": 3350.0, "fp16_tflops": 989.4, "fp8_tflops": 1978.9}
    v = {"bandwidth_efficiency": 0.6, "compute_efficiency": 0.4}
    got = ve.roofline(CHAT_70B, MODEL_70B, 2, 70.6, spec, v)
    kv_token = 2 * 80 * 8 * 128 * 2
    decode = 32 * 2 * 3350e9 * 0.6 / (70.6e9 + 32 * kv_token * (1024 + 128))
    compute = 2 * 1978.9e12 * 0.4 / (2 * 70.6e9 * (1024 + 256) / 256)
    assert got == pytest.approx(min(decode, compute))
    assert ve.roofline(CHAT_70B, MODEL_70B, 2, 70.6, {"memory_bandwidth_gb_s": 3350.0}, v) is None


def test_the_dbt_unit_tests_of_the_same_cases_pass(tmp_path):
    import duckdb

    from warehouse import db

    path = tmp_path / "unit.duckdb"
    con = duckdb.connect(str(path))
    db.ensure_raw_schema(con)  # dbt's unit tests read column types from the real relations
    con.close()
    for step in (["seed"], ["run", "--empty"], ["test", "--select", "test_type:unit"]):
        done = dbt(ROOT / "dbt", path, *step, target=tmp_path / "target")
        assert done.returncode == 0, done.stdout[-3000:]
    assert "PASS=3" in done.stdout
