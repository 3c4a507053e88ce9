-- Every resolved LLM-serving benchmark run that measured output tokens, and every resolved
-- image-generation run, predicted by the performance model under the run's own conditions (its
-- model, precision, lengths, batch, GPU and GPU count; macros/performance_model.sql, the code the
-- classes use) and how far the run got:
--   efficiency = measured outputs/s / predicted   (1 = the roofline at the default bandwidth and
--     compute efficiencies; 0.5 = half of it). An image run's prediction is its GPUs' dense
--     TFLOPS at the compute efficiency over the image's FLOPs (the model's FLOPs per denoising
--     step x the run's steps, e.g. MLPerf's 20); its measured/predicted columns are in images/s.
--   ttft_ratio  = measured TTFT p95 (p99 when the tool gives no p95) / predicted TTFT
--   e2e_ratio   = measured end-to-end p99 / predicted (TTFT + output x time per token)
--   tpot_ratio  = measured median time per output token / predicted
-- The batch a run kept in flight: its concurrency, unless by Little's law (completed requests/s x
-- mean end-to-end latency) its clients kept fewer in flight (InferenceX's agentic traces
-- pause between turns: a run at concurrency 1 had 0.33 in flight, the server idle 2/3 of the
-- time, and its tokens/s counts that time); else, for a run at a request rate, Little's law
-- (rate x mean end-to-end latency, at least 1); else (offline scripts and runs that send every
-- prompt at once) its number of requests, at most the var offline_batch (the engine's default
-- number of sequences in flight).
-- KV cache at 2 bytes per value (the files do not say; BF16 is the engines' default). The GPU's
-- specs are those known on the as-of day (fct_gpu_specs). system_key groups the runs of one
-- system and setup (the MLPerf submitter's system, else the result folder; GPU and count):
-- verification predicts each run without the runs of its system and file. organization, round,
-- scenario and the serving stack come from fct_benchmark_runs (grouped cross-validation; MLPerf's
-- Offline = max throughput, Server / Interactive = throughput under latency limits).
with runs as (
    select * from {{ ref('fct_benchmark_runs') }}
    where is_resolved
        and run_kind = 'inference'
        and output_unit = 'tokens'
        and duplicate_of is null
        -- a setup its own file shows beaten under the same conditions (fct_benchmark_runs)
        and outperformed_by is null
        and output_tokens_per_s > 0
        and input_len >= 0  -- 0: generation without a prompt (llama-bench's tg runs)
        and output_len > 0
        -- a run in which requests failed (over 1 %) timed a failing server, not its capacity:
        -- dstack's gpt-oss-120b run asking 32,784 tokens completed 380 of 500 at 7.5 tok/s
        and coalesce(success_rate, 1) >= 0.99
),

conditions as (
    select
        r.*,
        g.vendor,
        g.family,
        g.memory_gb,
        g.architecture,
        g.interconnect,
        s.memory_bandwidth_gb_s,
        {{ tflops_for('r.precision', 's') }} as tflops,
        m.kv_layers * m.kv_values_per_layer * 2.0 as kv_bytes_per_token,
        case
            when r.concurrency > 0 and r.request_throughput_rps > 0 and r.e2e_mean_ms > 0
                then least(r.concurrency, r.request_throughput_rps * r.e2e_mean_ms / 1000.0)
            when r.concurrency > 0 then r.concurrency
            when r.request_rate > 0 and coalesce(r.e2e_mean_ms, r.e2e_p50_ms) > 0
                then greatest(r.request_rate * coalesce(r.e2e_mean_ms, r.e2e_p50_ms) / 1000.0, 1.0)
            when r.request_rate is null
                then least(
                        coalesce(r.attempted, r.completed, {{ var('offline_batch') }}),
                        {{ var('offline_batch') }}
                    )
        end as batch,
        case
            when r.concurrency > 0 and r.request_throughput_rps > 0 and r.e2e_mean_ms > 0
                and r.request_throughput_rps * r.e2e_mean_ms / 1000.0 < r.concurrency
                then 'little_law'
            when r.concurrency > 0 then 'concurrency'
            when r.request_rate > 0 and coalesce(r.e2e_mean_ms, r.e2e_p50_ms) > 0 then 'little_law'
            when r.request_rate is null then 'offline_default'
        end as batch_source,
        -- an MLPerf system is its submitter's system, whichever file carries it
        coalesce(r.organization || '/' || r.system, regexp_replace(r.file_path, '/[^/]*$', ''))
        || '|' || r.gpu_id || '|' || r.gpu_count as system_key
    from runs as r
    inner join {{ ref('dim_gpu') }} as g
        on r.gpu_id = g.gpu_id
    inner join {{ ref('int_benchmark_models_resolved') }} as m
        on r.model_id = m.model_id
    left join {{ ref('fct_gpu_specs') }} as s
        on r.gpu_id = s.gpu_id
    where m.kv_layers is not null
),

predicted as (
    select
        *,
        main.gl_weights_read_gb(
            model_params_b, model_active_params_b, batch, {{ bytes_per_value('precision') }}
        )
            as weights_read_gb,
        -- the tensor-parallel degree of each replica: as the run's file states it, else the
        -- fewest GPUs that hold the weights (gl_tp_degree, macros/performance_model.sql); a run
        -- on more GPUs serves replicas, and only a replica's GPUs pay the PCIe cost (its GPUs'
        -- bandwidth and FLOPS count whole either way)
        coalesce(
            -- (least() of a null and a number is the number in DuckDB)
            case when tensor_parallel > 0 then least(tensor_parallel, gpu_count) end,
            main.gl_tp_degree(gpu_count, model_params_b, {{ bytes_per_value('precision') }}, memory_gb)
        ) as tp_gpus
    from conditions
    where batch is not null and memory_bandwidth_gb_s is not null and tflops is not null
),

bounds as (
    select
        *,
        main.gl_tokens_per_s(
            gpu_count, memory_bandwidth_gb_s, tflops, weights_read_gb, model_active_params_b, batch,
            kv_bytes_per_token, input_len, output_len, interconnect, tp_gpus := tp_gpus
        ) as predicted_per_s,
        main.gl_decode_tokens_per_s(
            gpu_count,
            memory_bandwidth_gb_s,
            weights_read_gb,
            batch,
            kv_bytes_per_token,
            input_len,
            output_len
        ) as decode_bound_per_s,
        main.gl_compute_tokens_per_s(gpu_count, tflops, model_active_params_b, input_len, output_len)
            as compute_bound_per_s,
        main.gl_ttft_ms(
            gpu_count, memory_bandwidth_gb_s, tflops, weights_read_gb, model_active_params_b, batch,
            kv_bytes_per_token, input_len, output_len, interconnect, tp_gpus := tp_gpus
        ) as ttft_est_ms,
        main.gl_tpot_ms(
            gpu_count, memory_bandwidth_gb_s, tflops, weights_read_gb, model_active_params_b, batch,
            kv_bytes_per_token, input_len, output_len, interconnect, tp_gpus := tp_gpus
        ) as tpot_est_ms
    from predicted
),

tokens as (
    select
        run_key,
        file_path,
        system_key,
        ingested_date,
        tool,
        organization,
        round,
        scenario,
        serving_stack,
        serving_stack_version,
        model_id,
        model_ref,
        model_params_b,
        model_active_params_b,
        is_moe,
        precision,
        precision_source,
        gpu_id,
        vendor,
        family,
        memory_gb,
        architecture,
        interconnect,
        gpu_count,
        gpu_resolution,
        input_len,
        output_len,
        batch,
        batch_source,
        output_tokens_per_s as measured_tokens_per_s,
        predicted_per_s as predicted_tokens_per_s,
        case
            when decode_bound_per_s <= compute_bound_per_s then 'memory_bandwidth' else 'compute'
        end as bound,
        tp_gpus,
        main.gl_tp_factor(tp_gpus, interconnect) as tp_factor,
        output_tokens_per_s / predicted_per_s as efficiency,
        ttft_est_ms,
        tpot_est_ms,
        ttft_est_ms + output_len * tpot_est_ms as e2e_est_ms,
        coalesce(ttft_p95_ms, ttft_p99_ms) / ttft_est_ms as ttft_ratio,
        e2e_p99_ms / (ttft_est_ms + output_len * tpot_est_ms) as e2e_ratio,
        coalesce(tpot_p50_ms, tpot_mean_ms, itl_p50_ms, itl_mean_ms) / tpot_est_ms as tpot_ratio
    from bounds
),

image_runs as (
    select
        r.*,
        g.vendor,
        g.family,
        g.memory_gb,
        g.architecture,
        g.interconnect,
        m.flops_per_image_step_tflop * r.image_steps as tflop_per_image,
        {{ tflops_for('r.precision', 's') }} as tflops
    from {{ ref('fct_benchmark_runs') }} as r
    inner join {{ ref('dim_gpu') }} as g
        on r.gpu_id = g.gpu_id
    inner join {{ ref('int_benchmark_models_resolved') }} as m
        on r.model_id = m.model_id
    inner join {{ ref('fct_gpu_specs') }} as s
        on r.gpu_id = s.gpu_id
    where r.is_resolved
        and r.run_kind = 'image_generation'
        and r.duplicate_of is null
        and r.output_units_per_s > 0
        and r.image_steps > 0
        and m.flops_per_image_step_tflop > 0
),

images as (
    select
        run_key,
        file_path,
        coalesce(organization || '/' || system, regexp_replace(file_path, '/[^/]*$', ''))
        || '|' || gpu_id || '|' || gpu_count as system_key,
        ingested_date,
        tool,
        organization,
        round,
        scenario,
        serving_stack,
        serving_stack_version,
        model_id,
        model_ref,
        model_params_b,
        model_active_params_b,
        is_moe,
        precision,
        precision_source,
        gpu_id,
        vendor,
        family,
        memory_gb,
        architecture,
        interconnect,
        gpu_count,
        gpu_resolution,
        0.0 as input_len,
        1.0 as output_len,
        1.0 as batch,
        cast(null as varchar) as batch_source,
        output_units_per_s as measured_tokens_per_s,
        gpu_count * tflops * {{ var('compute_efficiency') }} / tflop_per_image as predicted_tokens_per_s,
        'compute' as bound,
        cast(null as double) as tp_gpus,
        1.0 as tp_factor,
        output_units_per_s / (gpu_count * tflops * {{ var('compute_efficiency') }} / tflop_per_image)
            as efficiency,
        cast(null as double) as ttft_est_ms,
        cast(null as double) as tpot_est_ms,
        cast(null as double) as e2e_est_ms,
        cast(null as double) as ttft_ratio,
        cast(null as double) as e2e_ratio,
        cast(null as double) as tpot_ratio
    from image_runs
    where tflops > 0
)

select
    'inference' as run_kind,
    *
from tokens
union all
select
    'image_generation' as run_kind,
    *
from images
