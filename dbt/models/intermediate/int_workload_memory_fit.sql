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
with classes as (
    select * from {{ ref('int_workload_classes_joined') }}
),

terms as (
    select
        c.workload_class,
        g.gpu_id,
        g.memory_gb,
        c.headroom,
        c.max_gpus,
        c.params_b * {{ bytes_per_value('c.precision') }} as weights_gb,
        case
            when c.class_kind = 'llm_serving'
                then
                    c.kv_layers * c.kv_values_per_layer * {{ bytes_per_value('c.kv_cache_precision') }}
                    * (c.input_len + c.output_len) * c.concurrency / 1e9
            else 0.0
        end as kv_cache_gb,
        cast(c.runtime_overhead_gb as double) as runtime_overhead_gb_per_gpu,
        g.memory_gb * (1 - c.headroom) as usable_gb_per_gpu
    from classes as c
    cross join {{ ref('dim_gpu') }} as g
),

fits as (
    select
        t.*,
        (
            select min(n.n)
            from (values (1), (2), (4), (8)) as n (n)
            where n.n <= least(t.max_gpus, 8)
                and t.weights_gb + t.kv_cache_gb + n.n * t.runtime_overhead_gb_per_gpu
                <= n.n * t.usable_gb_per_gpu
        ) as gpus_needed
    from terms as t
)

select
    workload_class,
    gpu_id,
    memory_gb,
    headroom,
    round(weights_gb, 3) as weights_gb,
    round(kv_cache_gb, 3) as kv_cache_gb,
    runtime_overhead_gb_per_gpu,
    round(weights_gb + kv_cache_gb + coalesce(gpus_needed, 1) * runtime_overhead_gb_per_gpu, 3)
        as required_gb,
    round(usable_gb_per_gpu, 3) as usable_gb_per_gpu,
    gpus_needed,
    gpus_needed is not null as fits
from fits
