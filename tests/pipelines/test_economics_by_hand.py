"""The method's arithmetic on small hand-computed cases, through the independent recalculation
(scripts/verify_economics.py) that the integration tests hold the dbt marts to; the same cases
run as dbt unit tests (dbt/models/marts/_economics__unit_tests.yml) here too."""

from __future__ import annotations

import math
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


MODEL_70B = {"params_b": "70.6", "active_params_b": "70.6", "layers": "80", "kv_layers": "80",
             "kv_heads": "8", "head_dim": "128", "kv_values_per_layer": "2048",
             "is_moe": "false"}  # fmt: skip
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


V = {"bandwidth_efficiency": 0.6, "compute_efficiency": 0.4, "pcie_tp_efficiency": 0.7}
SPEC = {"memory_bandwidth_gb_s": 3350.0, "fp16_tflops": 989.4, "fp8_tflops": 1978.9}


def test_roofline_prefill_and_decode_add_up():
    per_s, ttft, e2e = ve.roofline(CHAT_70B, MODEL_70B, 2, SPEC, "nvlink", V)
    kv_token = 2 * 80 * 8 * 128 * 2
    # a decode step of 32 sequences on 2 GPUs: the weights (70.6 GB in fp8) and 32 KV caches at
    # the mean context 1024 + 128, at 2 x 3350 GB/s x 0.6; its FLOPs take less
    step_bytes = (70.6e9 + 32 * kv_token * (1024 + 128)) / (2 * 3350e9 * 0.6)
    step_flops = 32 * 2 * 70.6e9 / (2 * 1978.9e12 * 0.4)
    assert step_bytes > step_flops
    prefill = 2 * 70.6e9 * 1024 / 256 / (2 * 1978.9e12 * 0.4)  # per output token
    assert per_s == pytest.approx(1 / (step_bytes / 32 + prefill))
    assert ttft == pytest.approx((2 * 70.6e9 * 1024 / (2 * 1978.9e12 * 0.4) + step_bytes) * 1000)
    assert e2e == pytest.approx(ttft + 256 * step_bytes * 1000)
    assert (
        ve.roofline(CHAT_70B, MODEL_70B, 2, {"memory_bandwidth_gb_s": 3350.0}, "nvlink", V) is None
    )


def test_pcie_units_pay_for_tensor_parallelism_and_nvlink_units_do_not():
    nvlink = ve.roofline(CHAT_70B, MODEL_70B, 4, SPEC, "nvlink", V)[0]
    pcie = ve.roofline(CHAT_70B, MODEL_70B, 4, SPEC, "pcie", V)[0]
    assert pcie / nvlink == pytest.approx(0.7**2)
    assert ve.tp_factor(8, "pcie", V) == pytest.approx(0.7**3)
    assert ve.tp_factor(2, "nvlink_bridge", V) == 1.0
    assert ve.tp_factor(8, "nvlink_bridge", V) == pytest.approx(0.7**2)
    assert ve.tp_factor(1, "pcie", V) == 1.0


TP = {**V, "tp_headroom": 0.2, "tp_runtime_overhead_gb": 4.0}


def test_a_run_on_more_gpus_than_its_weights_need_serves_replicas():
    """A benchmark run's tensor-parallel degree: the fewest GPUs (a power of two, at most the
    run's) whose memory less 20 % and 4 GB holds the weights. On a 96 GB card that room is
    72.8 GB, on a 48 GB one 34.4 GB."""
    # Llama 2 70B in FP4 (35.0 GB) on 8 RTX PRO 6000: 8 replicas of one GPU
    assert ve.tp_degree(8, 70.0, 0.5, 96.0, TP) == 1
    # Qwen3 235B in FP4 (117.5 GB): 117.5 / 72.8 = 1.6 -> pairs
    assert ve.tp_degree(8, 235.0, 0.5, 96.0, TP) == 2
    # Llama 3.1 405B in FP8 on 48 GB cards: 405 / 34.4 = 11.8 -> 16, but the run has 8
    assert ve.tp_degree(8, 405.0, 1.0, 48.0, TP) == 8
    assert ve.tp_degree(1, 405.0, 1.0, 48.0, TP) == 1
    # only the replica's GPUs pay the PCIe cost; all 8 GPUs' bandwidth counts either way
    whole = ve.serving(8, 1597.0, 1000.0, 70.0, 70.0, "fp4", 256, 0.0, 222, 294, "pcie", TP)[0]
    replicas = ve.serving(8, 1597.0, 1000.0, 70.0, 70.0, "fp4", 256, 0.0, 222, 294, "pcie", TP,
                          tp=1)[0]  # fmt: skip
    assert replicas / whole == pytest.approx(1 / 0.7**3)
    nvlink = ve.serving(8, 1597.0, 1000.0, 70.0, 70.0, "fp4", 256, 0.0, 222, 294, "nvlink", TP,
                        tp=1)[0]  # fmt: skip
    assert nvlink == pytest.approx(replicas)


def test_a_mixture_of_experts_reads_its_active_experts_per_token():
    moe = {**MODEL_70B, "params_b": "117", "active_params_b": "5.1", "is_moe": "true"}
    one = ve.serving(1, 4800.0, 1978.9, 117.0, 5.1, "fp4", 1, 0.0, 0, 128, "nvlink", V)[0]
    # one sequence touches 5.1B parameters (2.55 GB in fp4) per step; 64 touch them all
    assert one == pytest.approx(1 / (5.1e9 * 0.5 / (4800e9 * 0.6)))
    full = ve.serving(1, 4800.0, 1978.9, 117.0, 5.1, "fp4", 64, 0.0, 0, 128, "nvlink", V)[0]
    assert full == pytest.approx(64 / (117e9 * 0.5 / (4800e9 * 0.6)))
    assert ve.is_moe(moe) and not ve.is_moe(MODEL_70B)


def _eff(key, kind, vendor, arch, eff, batch=32, moe=False, ttft=None, stack="vllm"):
    run = {"input_len": 1024, "output_len": 256, "precision": "fp8", "run_key": key}
    return {"run": run, "run_kind": "tokens", "kind": (vendor, kind), "vendor": vendor,
            "architecture": arch, "active": 70.0, "stack": stack,
            "batch": batch, "moe": moe, "efficiency": eff, "ttft_ratio": ttft,
            "e2e_ratio": None}  # fmt: skip


CLASS_70B = {**CHAT_70B, "concurrency": "32"}
M70 = {**MODEL_70B, "active_params_b": "70"}
# the same runs as the dbt unit test calibration_by_the_runs_on_each_kind_of_gpu
RUNS = [
    _eff("r1", "FA", "v", "x", 0.5, ttft=2.0),
    _eff("r2", "FA", "v", "x", 0.2, batch=64, ttft=8.0),
    _eff("r5", "FA", "v", "x", 0.9, stack="trtllm"),
    _eff("r3", "FC", "v", "x", 0.8, moe=True),
    _eff("r4", "FE", "w", "y", 0.1),
]
CAL_VARS = {"calibration_quantile": "0.6", "calibration_prior_weight": "5"}
LN = math.log
# r2 ran twice the class's batch (exp(-2 ln 2)) in the high-concurrency regime (exp(-2)); r3 is
# MoE against a dense class (exp(-2))
W2, W3 = 0.25 * math.exp(-2), math.exp(-2)


def _shrink(n: float, q: float, above: float) -> float:
    return (n * q + 5 * above) / (n + 5)


def test_a_gpu_with_runs_is_calibrated_at_the_frontier_of_its_best_stack():
    gpu = {"family": "FA", "memory_gb": "80", "vendor": "v", "architecture": "x"}
    cal = ve.calibration(CLASS_70B, M70, gpu, RUNS, CAL_VARS)
    # weighted 0.6 quantiles: all runs 0.5; vendor v, generation (v, x), kind FA: 0.9; FA on
    # TensorRT-LLM 0.9 (r5 alone), on vLLM 0.5; each shrunk toward the level above by its
    # effective number of runs (sum w)^2 / sum w^2
    n_v = (2 + W2 + W3) ** 2 / (2 + W2**2 + W3**2)
    n_k = (2 + W2) ** 2 / (2 + W2**2)
    vendor = _shrink(n_v, LN(0.9), LN(0.5))
    generation = _shrink(n_v, LN(0.9), vendor)
    kind = _shrink(n_k, LN(0.9), generation)
    trtllm = _shrink(1, LN(0.9), kind)
    vllm = _shrink((1 + W2) ** 2 / (1 + W2**2), LN(0.5), kind)
    assert trtllm > vllm
    assert cal["grade"] == "calibrated" and cal["source"] == "this_gpu_kind"
    assert cal["efficiency"] == pytest.approx(math.exp(trtllm)) == pytest.approx(0.765970, 1e-5)
    assert cal["ttft_ratio"] == pytest.approx(math.exp((LN(2) + W2 * LN(8)) / (1 + W2)))
    # one run on a kind is pulled toward its generation, not followed: FC's 0.8 (MoE run), as
    # a kind and again as the kind on vLLM
    fc = {"family": "FC", "memory_gb": "48", "vendor": "v", "architecture": "x"}
    fc_cal = ve.calibration(CLASS_70B, M70, fc, RUNS, CAL_VARS)
    fc_kind = _shrink(1, LN(0.8), generation)
    assert fc_cal["efficiency"] == pytest.approx(math.exp(_shrink(1, LN(0.8), fc_kind)))
    assert 0.684 < fc_cal["efficiency"] < 0.8


def test_a_gpu_without_runs_takes_its_generation_else_its_vendor():
    same_arch = {"family": "FB", "memory_gb": "80", "vendor": "v", "architecture": "x"}
    other = {"family": "FD", "memory_gb": "80", "vendor": "w", "architecture": "z"}
    stranger = {"family": "FZ", "memory_gb": "80", "vendor": "u", "architecture": "z"}
    cal = ve.calibration(CLASS_70B, M70, same_arch, RUNS, CAL_VARS)
    assert cal["grade"] == "estimated" and cal["source"] == "architecture"
    assert cal["efficiency"] == pytest.approx(0.684642, 1e-5)
    by_vendor = ve.calibration(CLASS_70B, M70, other, RUNS, CAL_VARS)
    assert by_vendor["source"] == "vendor"
    assert by_vendor["efficiency"] == pytest.approx(math.exp((LN(0.1) + 5 * LN(0.5)) / 6))
    by_all = ve.calibration(CLASS_70B, M70, stranger, RUNS, CAL_VARS)
    assert by_all["source"] == "all_gpus" and by_all["efficiency"] == pytest.approx(0.5)
    assert ve.calibration(CLASS_70B, M70, other, [], CAL_VARS) is None


def _run(key, setup, rate, **over):
    run = {"run_key": key, "file_sha256": "f", "run_kind": "inference", "output_unit": "tokens",
           "model_ref": "llama-3.1-405b", "precision": "fp8", "gpu_id": "amd-mi300x-192gb",
           "gpu_count": 8, "scenario": "offline", "input_len": 2048.0, "output_len": 2048.0,
           "concurrency": 4.0, "request_rate": None, "setup": setup,
           "output_units_per_s": rate, "output_tokens_per_s": rate}  # fmt: skip
    return {**run, **over}


def test_a_setup_its_own_file_outperformed_under_the_same_conditions_is_left_out():
    # dstack's line 24 (Meta's checkpoint, 29.17 tok/s) and line 43 (AMD's, 119.80) of one table
    meta, amd = _run("l24", "8xMi300x 1FP8-meta", 29.17), _run("l43", "8xMi300 1FP8-amd", 119.8)
    assert ve.outperformed([meta, amd]) == {"l24"}
    # two repeats of one setup are not two setups: neither is left out
    assert ve.outperformed([_run("a", None, 1654.99), _run("b", None, 1652.86)]) == set()
    assert ve.outperformed([_run("a", "s", 1654.99), _run("b", "s", 1652.86)]) == set()
    # other conditions, another file or another GPU count are not the same measurement
    for change in ({"concurrency": 8.0}, {"input_len": 128.0}, {"file_sha256": "g"},
                   {"gpu_count": 4}, {"precision": "bf16"}, {"scenario": "online"}):  # fmt: skip
        assert ve.outperformed([meta, _run("x", "8xMi300 1FP8-amd", 119.8, **change)]) == set()
    # of three setups, the two slower are left out
    third = _run("l5", "other", 60.0)
    assert ve.outperformed([meta, amd, third]) == {"l24", "l5"}


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
    names = [
        "fct_workload_cost_inputs_daily::cost_per_accepted_output_by_hand",
        "fct_workload_costs_daily::cost_per_accepted_output_by_hand_computed_as_read",
        "fct_workload_cost_inputs_daily::a_batch_endpoint_serves_only_workloads_without_a_latency_target",
        "int_gpu_names_resolved::gpu_identity_keeps_variants_and_memory_apart",
        "int_workload_memory_fit::memory_fit_needs_two_gpus_when_one_is_too_small",
        "int_throughput_calibrated::calibration_by_the_runs_on_each_kind_of_gpu",
        "int_gpu_specs_by_epoch::a_gpu_listed_under_two_names_takes_the_first_name_s_figures",
        # and the other unit tests of the project: two sources of one offer, which price ranks
        "fct_price_disagreements::a_catalog_and_a_page_twenty_and_two_percent_apart",
        "fct_gpu_offers_daily::a_provider_page_stands_over_a_catalog",
        # which sources are kept, stale or down
        "source_health::specs_and_runs_are_kept_prices_expire",
        # a day's model-API prices from the catalog of its time
        "int_model_api_prices_daily::a_day_takes_the_api_catalog_of_its_time",
        "int_model_api_prices_daily::each_page_of_a_source_of_pages_is_a_catalog",
        "fct_model_api_prices::the_as_of_day_takes_the_api_catalog_of_its_time",
        # an undated price of a later catalog stands only so far back (api_price_assumed_days)
        "int_model_api_prices_daily::an_undated_price_of_a_later_catalog_stands_only_so_far_back",
        "fct_model_api_prices::an_undated_price_stands_only_so_far_back",
    ]
    for name in names:
        assert f"PASS {name}" in done.stdout
    assert "15 unit tests" in done.stdout and "FAIL" not in done.stdout
