-- Every accepted benchmark run known on the as-of day (its file ingested on or before it), with
-- the canonical GPU, per-GPU throughput, the run's success rate, its model (model_reference via
-- int_benchmark_models_resolved: parameters, active parameters, MoE) and size class: the measured
-- evidence the economics read.
--   MLPerf runs carry their benchmark's facts (mlperf_benchmarks): the Server p99 limits and the
--     run's verdict against them (benchmark_slo), and the image benchmark's denoising steps.
--   precision: the run's own (file, path or operator); else the published checkpoint's
--     (precision_source = model_checkpoint: a run that names no quantization served the weights
--     as published, e.g. gpt-oss in MXFP4); other_scenario: another scenario's of the same MLPerf
--     system; submitter_documentation: the format the submitter documents serving in where the
--     record names the checkpoint's (MLPerf v4.1's TensorRT harness, sources/benchmarks/
--     mlperf_summary.py).
--   success_rate: completed / attempted where the tool counted both; else goodput / request
--     throughput where it measured goodput; else null (the tool did not count failures).
--   input_len / output_len: the run's own; else (an MLPerf round summary's record) its
--     benchmark's dataset means (mlperf_benchmarks), said by input_len_source / output_len_source.
--   organization: who published the run (the MLPerf submitter; else the publishing repository's
--     owner, benchmark_publishers); round, system, division, suite: MLPerf's.
--   A run exported twice (the JSON and a CSV flattening of it, AIPerf's JSON and CSV, vLLM's
--   printed report and a CSV of it, an MLPerf result in the round summary and in the results
--   tree) is kept once (measurement_key below); the richer format (JSON, the printed report, the
--   MLPerf log) is canonical and the others point to it through duplicate_of.
with accepted as (
    select *
    from ({{ accepted_rows(ref('stg_benchmark_runs'), 'benchmark_runs') }})
    where ingested_date <= {{ as_of_date() }}
    -- the same file ingested again with other hardware hints: the newest ingestion speaks for it
    qualify dense_rank() over (
            partition by snapshot_sha256
            order by snapshot_fetched_at desc, snapshot_url asc
        ) = 1
),

resolved as (
    select
        runs.* replace (
            coalesce(models.params_b, runs.model_params_b) as model_params_b,
            coalesce(runs.precision, models.native_precision) as precision,
            coalesce(runs.input_len, bench.mean_input_tokens) as input_len,
            coalesce(runs.output_len, bench.mean_output_tokens) as output_len,
            case
                when
                    runs.precision is not null
                    and runs.precision_source in ('other_scenario', 'submitter_documentation')
                    then runs.precision_source
                when runs.precision is not null then 'run'
                when models.native_precision is not null then 'model_checkpoint'
            end as precision_source,
            coalesce(runs.organization, publishers.organization) as organization
        ),
        case
            when runs.input_len is null and bench.mean_input_tokens is not null
                then 'benchmark_mean'
            when runs.input_len is not null then 'run'
        end as input_len_source,
        case
            when runs.output_len is null and bench.mean_output_tokens is not null
                then 'benchmark_mean'
            when runs.output_len is not null then 'run'
        end as output_len_source,
        models.model_ref,
        coalesce(models.active_params_b, models.params_b, runs.model_params_b) as model_active_params_b,
        models.is_moe,
        bench.benchmark as mlperf_benchmark,
        bench.server_ttft_p99_ms as benchmark_ttft_p99_limit_ms,
        bench.server_tpot_p99_ms as benchmark_tpot_p99_limit_ms,
        bench.image_steps,
        names.gpu_id,
        case
            when runs.gpu_name_raw is null then runs.hardware_source
            else names.resolution
        end as gpu_resolution,
        names.unresolved_reason as gpu_unresolved_reason
    from accepted as runs
    left join {{ ref('int_benchmark_models_resolved') }} as models
        on runs.model_id = models.model_id
    -- an Interactive result is its benchmark's interactive variant (llama2-70b-99 Interactive ->
    -- llama2-70b-interactive-99, llama3.1-8b Interactive -> llama3.1-8b-interactive)
    left join {{ ref('mlperf_benchmarks') }} as bench
        on runs.tool like 'mlperf%'
        and bench.benchmark = case
            when runs.scenario = 'Interactive'
                then regexp_replace(lower(runs.model_id), '^(.*?)(-99(\.9)?)?$', '\1-interactive\2')
            else lower(runs.model_id)
        end
    left join {{ ref('benchmark_publishers') }} as publishers
        on runs.organization is null
        and regexp_matches(runs.file_path, publishers.path_pattern)
    left join {{ ref('int_gpu_names_resolved') }} as names
        on names.provider = 'benchmark'
        and runs.gpu_name_raw = names.gpu_name_raw
        and names.offer_id = ''
        and names.gpu_memory_gb is null
),

-- One key per measurement. An MLPerf result is its benchmark model, precision, GPU, count and
-- scenario with its throughput (to 0.1 tok/s, as the round summaries round the logs' figures),
-- whichever file kind carries it (a round summary's record, the results tree's log, a log outside
-- the tree, an excerpt of the summary), and across the -99 / -99.9 variants that publish the
-- same measurement twice; the log (with latencies) is canonical. Other runs: the same tool
-- (whatever its output format) and serving stack, model size, precision, GPU, count, lengths,
-- concurrency, request rate and output throughput.
measured as (
    select
        *,
        case
            when tool like 'mlperf%' and scenario is not null and output_tokens_per_s is not null
                then concat_ws(
                        '|', 'mlperf', coalesce(model_ref, lower(model_id)), coalesce(precision, '-'),
                        coalesce(gpu_id, gpu_name_raw, '-'), coalesce(cast(gpu_count as varchar), '-'),
                        scenario, cast(round(output_tokens_per_s, 1) as varchar)
                    )
            else concat_ws(
                    '|',
                    regexp_replace(tool, ' \((csv|console)\)$', ''),
                    coalesce(serving_stack, '-'),
                    coalesce(cast(model_params_b as varchar), '-'),
                    coalesce(precision, '-'),
                    coalesce(gpu_id, gpu_name_raw, '-'),
                    coalesce(cast(gpu_count as varchar), '-'),
                    coalesce(cast(round(input_len) as varchar), '-'),
                    coalesce(cast(round(output_len) as varchar), '-'),
                    coalesce(cast(concurrency as varchar), '-'),
                    coalesce(cast(request_rate as varchar), '-'),
                    coalesce(cast(round(output_tokens_per_s, 1) as varchar), '-')
                )
        end as measurement_key
    from resolved
),

keyed as (
    select
        *,
        case
            when model_params_b is null then null
            when model_params_b < 10 then 'lt10b'
            when model_params_b < 40 then '10-40b'
            when model_params_b < 100 then '40-100b'
            when model_params_b < 300 then '100-300b'
            else 'gt300b'
        end as model_size_class,
        case
            when attempted > 0 and completed is not null then completed / attempted
            when goodput_rps is not null and request_throughput_rps > 0
                then least(goodput_rps / request_throughput_rps, 1.0)
        end as success_rate,
        row_number() over (
            partition by measurement_key
            order by (format like '%csv'), (format = 'mlperf_summary_results'), snapshot_fetched_at, run_key
        ) as measurement_rank,
        first_value(run_key) over (
            partition by measurement_key
            order by (format like '%csv'), (format = 'mlperf_summary_results'), snapshot_fetched_at, run_key
        ) as canonical_run_key
    from measured
),

-- A setup outperformed in its own file: where one file measures several setups (its own names
-- for them, `setup`) of the same model, precision, GPU and count under identical conditions
-- (kind, scenario, lengths, concurrency, request rate), the slower setup is not what a buyer would
-- run on those GPUs. dstack's 8x MI300X served Meta's FP8 checkpoint at a quarter to a third of
-- what AMD's FP8 checkpoint reached on the same GPUs; its authors call Meta's "not at all optimized
-- for Mi300x". Such a run stays here, pointing to the fastest setup's run (outperformed_by) by
-- how much (outperformed_factor); evidence and calibration leave it out. Repeats of one setup are
-- never compared, and neither are runs of different files.
outperformed as (
    select
        a.run_key,
        arg_max(b.run_key, coalesce(b.output_units_per_s, b.output_tokens_per_s)) as outperformed_by,
        max(coalesce(b.output_units_per_s, b.output_tokens_per_s))
        / any_value(coalesce(a.output_units_per_s, a.output_tokens_per_s)) as outperformed_factor
    from keyed as a
    inner join keyed as b
        on a.snapshot_sha256 = b.snapshot_sha256
        and a.setup <> b.setup
        and a.run_kind = b.run_kind
        and a.output_unit = b.output_unit
        and a.model_ref = b.model_ref
        and a.precision = b.precision
        and a.gpu_id = b.gpu_id
        and a.gpu_count = b.gpu_count
        and a.scenario is not distinct from b.scenario
        and a.input_len is not distinct from b.input_len
        and a.output_len is not distinct from b.output_len
        and a.concurrency is not distinct from b.concurrency
        and a.request_rate is not distinct from b.request_rate
        and coalesce(b.output_units_per_s, b.output_tokens_per_s)
        > coalesce(a.output_units_per_s, a.output_tokens_per_s)
    group by a.run_key
),

flagged as (
    select
        keyed.*,
        o.outperformed_by,
        o.outperformed_factor
    from keyed
    left join outperformed as o on keyed.run_key = o.run_key
)

select
    run_key,
    file_path,
    snapshot_sha256 as file_sha256,
    run_ref,
    ingested_date,
    measured_at,
    format,
    tool,
    tool_version,
    run_kind,
    organization,
    round,
    system,
    division,
    suite,
    scenario,
    model_id,
    model_ref,
    model_params_b,
    model_active_params_b,
    is_moe,
    model_size_class,
    model_source,
    precision,
    precision_source,
    mlperf_benchmark,
    image_steps,
    serving_stack,
    serving_stack_version,
    setup,
    gpu_name_raw,
    gpu_id,
    gpu_resolution,
    gpu_unresolved_reason,
    gpu_count,
    hardware_source,
    api_provider,
    tensor_parallel,
    input_len,
    input_len_source,
    output_len,
    output_len_source,
    concurrency,
    request_rate,
    attempted,
    completed,
    failed,
    success_rate,
    goodput_rps,
    duration_s,
    request_throughput_rps,
    output_tokens_per_s,
    output_tokens_per_s / nullif(gpu_count, 0) as output_tokens_per_s_per_gpu,
    total_tokens_per_s,
    total_tokens_per_s / nullif(gpu_count, 0) as total_tokens_per_s_per_gpu,
    output_unit,
    output_units_per_s,
    output_units_per_s / nullif(gpu_count, 0) as output_units_per_s_per_gpu,
    ttft_mean_ms,
    ttft_p50_ms,
    ttft_p95_ms,
    ttft_p99_ms,
    tpot_mean_ms,
    tpot_p50_ms,
    tpot_p95_ms,
    tpot_p99_ms,
    itl_mean_ms,
    itl_p50_ms,
    itl_p95_ms,
    itl_p99_ms,
    e2e_mean_ms,
    e2e_p50_ms,
    e2e_p95_ms,
    e2e_p99_ms,
    time_to_complete_s,
    percentile_source,
    -- an MLPerf Server run against its benchmark's own p99 limits (mlperf_benchmarks)
    case
        when scenario <> 'Server' or benchmark_ttft_p99_limit_ms is null then null
        when ttft_p99_ms > benchmark_ttft_p99_limit_ms or tpot_p99_ms > benchmark_tpot_p99_limit_ms
            then 'broken'
        when ttft_p99_ms is not null and tpot_p99_ms is not null then 'met'
    end as benchmark_slo,
    benchmark_ttft_p99_limit_ms,
    benchmark_tpot_p99_limit_ms,
    case
        when output_tokens_per_s is null then null
        when measurement_rank = 1 then null
        else canonical_run_key
    end as duplicate_of,
    outperformed_by,
    outperformed_factor,
    {{ as_of_date() }} as as_of_date,
    -- what the economics need to use a run on a GPU: model size, precision, GPU and count
    coalesce(
        hardware_source <> 'api'
        and model_params_b is not null and precision is not null
        and gpu_id is not null and gpu_count > 0,
        false
    ) as is_resolved
from flagged
