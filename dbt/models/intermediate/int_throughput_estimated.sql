-- Roofline estimate per (workload class, GPU), for cells without a matching benchmark run.
-- LLM serving, on a unit of n = gpus_needed GPUs serving B = concurrency sequences:
--   decode (memory-bandwidth bound): output tokens/s = B x n x bandwidth x bandwidth_efficiency
--       / (weights bytes + B x KV bytes per sequence at its mean decode context, input + output/2)
--   compute cap: output tokens/s <= n x dense TFLOPS x compute_efficiency
--       / (2 x active parameters x (input + output) / output)   [prefill and decode FLOPs]
--   the estimate is the smaller; `bound` says which. Without the GPU's TFLOPS, no cap (said).
-- Training (LoRA): samples/s = n x TFLOPS x compute_efficiency / (4 x parameters x tokens per
--   sample)  [forward 2P, backward through frozen weights 2P, per token].
-- Image generation: images/s = n x TFLOPS x compute_efficiency / TFLOP per image (class seed).
-- TFLOPS of the class precision: FP8 for fp8/int8 where known, else FP16/BF16. One row per
-- evidence epoch: the specs known by its first day (int_gpu_specs_by_epoch).
with classes as (
    select * from {{ ref('int_workload_classes_joined') }}
),

inputs as (
    select
        ep.evidence_from,
        c.workload_class,
        c.class_kind,
        f.gpu_id,
        f.gpus_needed,
        f.weights_gb,
        s.memory_bandwidth_gb_s,
        s.memory_bandwidth_gb_s_source,
        case
            when lower(c.precision) in ('fp8', 'int8') then coalesce(s.fp8_tflops, s.fp16_tflops)
            else s.fp16_tflops
        end as tflops,
        case
            when lower(c.precision) in ('fp8', 'int8') and s.fp8_tflops is not null then s.fp8_tflops_source
            else s.fp16_tflops_source
        end as tflops_source,
        c.concurrency,
        c.input_len,
        c.output_len,
        c.params_b,
        c.active_params_b,
        c.tokens_per_output,
        c.flops_per_output_tflop,
        2.0 * c.layers * c.kv_heads * c.head_dim * {{ bytes_per_value('c.kv_cache_precision') }}
            as kv_bytes_per_token
    from classes as c
    inner join {{ ref('int_workload_memory_fit') }} as f
        on c.workload_class = f.workload_class
    cross join {{ ref('int_evidence_epochs') }} as ep
    left join {{ ref('int_gpu_specs_by_epoch') }} as s
        on f.gpu_id = s.gpu_id and ep.evidence_from = s.evidence_from
    where f.gpus_needed is not null
),

bounds as (
    select
        *,
        case when class_kind = 'llm_serving' and memory_bandwidth_gb_s is not null then
                concurrency * gpus_needed * memory_bandwidth_gb_s * 1e9 * {{ var('bandwidth_efficiency') }}
                / (weights_gb * 1e9 + concurrency * kv_bytes_per_token * (input_len + output_len / 2.0))
        end as decode_bound_per_s,
        case
            when tflops is null then null
            when class_kind = 'llm_serving'
                then
                    gpus_needed * tflops * 1e12 * {{ var('compute_efficiency') }}
                    / (2.0 * active_params_b * 1e9 * (input_len + output_len) / output_len)
            when class_kind = 'training'
                then
                    gpus_needed * tflops * 1e12 * {{ var('compute_efficiency') }}
                    / (4.0 * params_b * 1e9 * tokens_per_output)
            when class_kind = 'image_generation' then
                gpus_needed * tflops * {{ var('compute_efficiency') }} / flops_per_output_tflop
        end as compute_bound_per_s
    from inputs
)

select
    evidence_from,
    workload_class,
    gpu_id,
    gpus_needed,
    memory_bandwidth_gb_s,
    memory_bandwidth_gb_s_source,
    tflops,
    tflops_source,
    {{ var('bandwidth_efficiency') }} as bandwidth_efficiency,
    {{ var('compute_efficiency') }} as compute_efficiency,
    kv_bytes_per_token,
    decode_bound_per_s,
    compute_bound_per_s,
    -- an estimate needs every bound it is made of: without the GPU's dense TFLOPS the decode
    -- figure would be uncapped, so no estimate is given (estimate_missing says what is missing)
    case
        -- (DuckDB's least() skips nulls: a missing bound must void the estimate, not vanish)
        when class_kind = 'llm_serving'
            then
                case when decode_bound_per_s is not null and compute_bound_per_s is not null
                        then least(decode_bound_per_s, compute_bound_per_s)
                end
        else compute_bound_per_s
    end as unit_outputs_per_s,
    case
        when class_kind = 'llm_serving' and decode_bound_per_s <= compute_bound_per_s then 'memory_bandwidth'
        when compute_bound_per_s is not null
            and (class_kind <> 'llm_serving' or decode_bound_per_s is not null) then 'compute'
    end as bound,
    nullif(concat_ws(
        ' and ',
        case when class_kind = 'llm_serving' and memory_bandwidth_gb_s is null then 'memory bandwidth' end,
        case when tflops is null then 'dense TFLOPS' end
    ), '') as estimate_missing
from bounds
