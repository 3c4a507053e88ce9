-- Roofline estimate per (workload class, GPU): the performance model's raw figure, before the
-- benchmark runs calibrate it (fct_throughput_evidence). LLM serving, on a unit of
-- n = gpus_needed GPUs serving B = concurrency sequences, with the DuckDB macros of
-- macros/performance_model.sql (the same code predicts every benchmark run):
--   output tokens/s = 1 / (decode step / B + prefill per output token) x tp_factor, where a
--     decode step takes the longer of reading the weights it touches plus B sequences' KV cache
--     at the bandwidth efficiency, and its FLOPs at the compute efficiency (a mixture of experts
--     reads its active experts per token, at most all), and each output token carries
--     2 x active parameters x input / output FLOPs of prefill; tp_factor: PCIe-only units lose
--     pcie_tp_efficiency per doubling.
--   decode_bound_per_s (decode alone, bandwidth) and compute_bound_per_s (all FLOPs at the
--     compute efficiency) are kept to show which side dominates (`bound`). Without the GPU's
--     TFLOPS or bandwidth, no estimate (estimate_missing says which).
--   latency of one request: ttft_est_ms (its prefill FLOPs at the compute efficiency plus one
--   decode step), tpot_est_ms (one decode step), e2e_est_ms = TTFT + output x TPOT.
-- Training (LoRA): samples/s = n x TFLOPS x compute_efficiency / (4 x parameters x tokens per
--   sample)  [forward 2P, backward through frozen weights 2P, per token].
-- Image generation: images/s = n x TFLOPS x compute_efficiency / TFLOP per image (class seed).
-- TFLOPS of the class precision: FP8 for fp8/int8/fp4 where known (FP4 at the FP8 rate, a floor),
-- else FP16/BF16 (int4 is weight-only: its math runs in 16 bits). One row
-- per evidence epoch: the specs known by its first day (int_gpu_specs_by_epoch).
-- One definition with analytics.rank_workload: main.wl_roofline (macros/workload_model.sql).
select *
from {{ workload_macro('roofline') }}(
    {{ table_name(ref('int_workload_classes_joined')) }},
    {{ table_name(ref('int_workload_memory_fit')) }},
    {{ table_name(ref('dim_gpu')) }},
    {{ table_name(ref('int_evidence_epochs')) }},
    {{ table_name(ref('int_gpu_specs_by_epoch')) }}
)
