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
        {{ tflops_for('c.precision', 's') }} as tflops,
        case
            when lower(c.precision) in ('fp8', 'int8', 'fp4') and s.fp8_tflops is not null
                then s.fp8_tflops_source
            else s.fp16_tflops_source
        end as tflops_source,
        g.interconnect,
        main.gl_tp_factor(f.gpus_needed, g.interconnect) as tp_factor,
        c.is_moe,
        main.gl_weights_read_gb(
            c.params_b, c.active_params_b, c.concurrency, {{ bytes_per_value('c.precision') }}
        ) as weights_read_gb,
        c.concurrency,
        c.input_len,
        c.output_len,
        c.params_b,
        c.active_params_b,
        c.tokens_per_output,
        c.flops_per_output_tflop,
        c.kv_layers * c.kv_values_per_layer * {{ bytes_per_value('c.kv_cache_precision') }}
            as kv_bytes_per_token
    from classes as c
    inner join {{ ref('int_workload_memory_fit') }} as f
        on c.workload_class = f.workload_class
    inner join {{ ref('dim_gpu') }} as g
        on f.gpu_id = g.gpu_id
    cross join {{ ref('int_evidence_epochs') }} as ep
    left join {{ ref('int_gpu_specs_by_epoch') }} as s
        on f.gpu_id = s.gpu_id and ep.evidence_from = s.evidence_from
    where f.gpus_needed is not null
),

bounds as (
    select
        *,
        case when class_kind = 'llm_serving' and memory_bandwidth_gb_s is not null then
                main.gl_decode_tokens_per_s(
                    gpus_needed, memory_bandwidth_gb_s, weights_read_gb, concurrency,
                    kv_bytes_per_token, input_len, output_len
                ) * tp_factor
        end as decode_bound_per_s,
        case
            when tflops is null then null
            when class_kind = 'llm_serving'
                then
                    main.gl_compute_tokens_per_s(gpus_needed, tflops, active_params_b, input_len, output_len)
                    * tp_factor
            when class_kind = 'training'
                then
                    gpus_needed * tflops * 1e12 * {{ var('compute_efficiency') }} * tp_factor
                    / (4.0 * params_b * 1e9 * tokens_per_output)
            when class_kind = 'image_generation' then
                gpus_needed * tflops * {{ var('compute_efficiency') }} / flops_per_output_tflop
        end as compute_bound_per_s,
        case when class_kind = 'llm_serving' and tflops is not null and memory_bandwidth_gb_s is not null then
                main.gl_ttft_ms(
                    gpus_needed, memory_bandwidth_gb_s, tflops, weights_read_gb, active_params_b,
                    concurrency, kv_bytes_per_token, input_len, output_len, interconnect
                )
        end as ttft_est_ms,
        case when class_kind = 'llm_serving' and memory_bandwidth_gb_s is not null and tflops is not null then
                main.gl_tpot_ms(
                    gpus_needed, memory_bandwidth_gb_s, tflops, weights_read_gb, active_params_b,
                    concurrency, kv_bytes_per_token, input_len, output_len, interconnect
                )
        end as tpot_est_ms
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
    cast({{ var('bandwidth_efficiency') }} as double) as bandwidth_efficiency,
    cast({{ var('compute_efficiency') }} as double) as compute_efficiency,
    kv_bytes_per_token,
    interconnect,
    tp_factor,
    decode_bound_per_s,
    compute_bound_per_s,
    ttft_est_ms,
    tpot_est_ms,
    ttft_est_ms + output_len * tpot_est_ms as e2e_est_ms,
    -- an estimate needs both the bandwidth and the dense TFLOPS (estimate_missing says which
    -- is missing); training and image generation are compute-bound
    case
        when class_kind = 'llm_serving'
            then
                case when memory_bandwidth_gb_s is not null and tflops is not null then
                        main.gl_tokens_per_s(
                            gpus_needed, memory_bandwidth_gb_s, tflops, weights_read_gb, active_params_b,
                            concurrency, kv_bytes_per_token, input_len, output_len, interconnect
                        )
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
