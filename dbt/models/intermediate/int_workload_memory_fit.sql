-- Memory fit of each workload class on each canonical GPU, with its terms in GB:
--   weights_gb   = parameters x bytes per parameter of the class precision
--                  (bf16/fp16 2, fp8/int8 1, int4/fp4 0.5)
--   kv_cache_gb  = kv_layers x kv_values_per_layer x KV bytes x (input + output tokens)
--                  x concurrency: every sequence at its full context (LLM serving only)
--   runtime_overhead_gb per GPU (activations, CUDA graphs, the engine itself)
--   usable_gb_per_gpu = GPU memory x (1 - headroom)
-- gpus_needed = the smallest power of two up to the class's max_gpus (at most 8) with
--   weights + KV cache + n x runtime overhead <= n x usable memory; null = does not fit on one
--   node of this GPU (multi-node units are not ranked).
-- One definition with analytics.rank_workload: main.wl_memory_fit (macros/workload_model.sql).
select *
from {{ workload_macro('memory_fit') }}(
    {{ table_name(ref('int_workload_classes_joined')) }},
    {{ table_name(ref('dim_gpu')) }}
)
