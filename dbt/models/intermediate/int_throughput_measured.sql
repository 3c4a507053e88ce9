-- Measured throughput evidence per (workload class, GPU): the accepted benchmark runs that match
-- the class, per run, with their SLO verdict. Matching rules (vars in dbt_project.yml):
--   - LLM serving classes: inference runs measuring output tokens; training classes: training or
--     fine-tuning runs; image classes: image-generation runs;
--   - the run's model has parameters within params_match_factor of the class model's (same size
--     class: a 70B run for a 70B class), the class precision, and is a mixture of experts exactly
--     when the class's model is (MoE and dense runs are never mixed);
--   - input and output lengths and concurrency within measured_match_factor of the class's; a run
--     without a concurrency (offline throughput scripts) matches only batch classes (>= 64);
--   - a resolved GPU, a GPU count, a positive throughput, not a duplicate export of another run,
--     not a setup its own file outperformed under the same conditions (fct_benchmark_runs).
-- SLO per run: p95 TTFT against the class target (p99 when the run has no p95: if the p99 meets
-- the target so does the p95; if it does not, unknown), p99 end-to-end against its target.
with classes as (
    select * from {{ ref('int_workload_classes_joined') }}
),

runs as (
    select *
    from {{ ref('fct_benchmark_runs') }}
    where gpu_id is not null
        and gpu_count > 0
        and duplicate_of is null
        and outperformed_by is null
        and coalesce(output_units_per_s, output_tokens_per_s) > 0
),

matched as (
    select
        c.workload_class,
        r.gpu_id,
        r.run_key,
        r.ingested_date,
        r.file_path,
        r.format,
        r.gpu_count as run_gpu_count,
        r.model_id,
        r.precision,
        r.input_len,
        r.output_len,
        r.concurrency,
        case when c.class_kind = 'llm_serving' then r.output_tokens_per_s else r.output_units_per_s end
            as outputs_per_s,
        case when c.class_kind = 'llm_serving' then r.output_tokens_per_s else r.output_units_per_s end
        / r.gpu_count as outputs_per_s_per_gpu,
        r.success_rate,
        r.ttft_p95_ms,
        r.ttft_p99_ms,
        r.e2e_p99_ms,
        case
            when c.slo_p95_ttft_ms is null then 'none'
            when r.ttft_p95_ms is not null
                then
                    case when r.ttft_p95_ms <= c.slo_p95_ttft_ms then 'met' else 'broken' end
            when r.ttft_p99_ms is not null and r.ttft_p99_ms <= c.slo_p95_ttft_ms then 'met'
            else 'unknown'
        end as ttft_slo,
        case
            when c.slo_p99_e2e_ms is null then 'none'
            when r.e2e_p99_ms is null then 'unknown'
            when r.e2e_p99_ms <= c.slo_p99_e2e_ms then 'met'
            else 'broken'
        end as e2e_slo
    from classes as c
    inner join runs as r
        on r.model_params_b between c.params_b / {{ var('params_match_factor') }}
        and c.params_b * {{ var('params_match_factor') }}
        and c.precision = r.precision
        and coalesce(r.is_moe, false) = coalesce(c.is_moe, false)
        and (
            (
                c.class_kind = 'llm_serving' and r.run_kind = 'inference' and r.output_unit = 'tokens'
                and r.input_len between c.input_len / {{ var('measured_match_factor') }}
                and c.input_len * {{ var('measured_match_factor') }}
                and r.output_len between c.output_len / {{ var('measured_match_factor') }}
                and c.output_len * {{ var('measured_match_factor') }}
                and (
                    r.concurrency between c.concurrency / {{ var('measured_match_factor') }}
                    and c.concurrency * {{ var('measured_match_factor') }}
                    or (r.concurrency is null and c.concurrency >= 64)
                )
            )
            or (c.class_kind = 'training' and r.run_kind in ('training', 'fine_tuning'))
            -- an image run counts only at the class's number of denoising steps
            or (
                c.class_kind = 'image_generation' and r.run_kind = 'image_generation'
                and r.image_steps = c.image_steps
            )
        )
)

select
    *,
    ttft_slo = 'broken' or e2e_slo = 'broken' as breaks_slo
from matched
