{#- The workload model as DuckDB table macros: one definition of how a workload is fitted,
    matched to runs, estimated, graded and costed. The class marts call them with the seeded
    classes (int_workload_memory_fit, int_throughput_measured, int_throughput_estimated,
    int_throughput_calibrated, fct_throughput_evidence, fct_workload_cost_inputs_daily,
    fct_workload_costs_daily); analytics.rank_workload calls them with one workload an analyst
    describes. Each takes the relations it reads as names (query_table): the marts pass their
    refs, rank_workload its own one-row workload and the day's offers. A workload relation has
    the columns of int_workload_classes_joined: the seed's (workload_classes.csv) and its model's
    architecture (model_reference.csv). Created before any model is built (on-run-start), after
    the performance model's macros they call (macros/performance_model.sql).

    A model that calls one of them names it through workload_macro(), so that dbt's state
    comparison (state:modified) sees a change of the macro's SQL as a change of the model and
    rebuilds the per-day marts built from it. -#}
{% macro create_workload_macros() %}
{#- Memory fit (see int_workload_memory_fit). -#}
create or replace macro main.wl_memory_fit(workloads_table, gpus_table) as table
{{ workload_memory_fit_sql() }};

{#- The accepted benchmark runs that match each workload (see int_throughput_measured). -#}
create or replace macro main.wl_runs_matched(workloads_table, runs_table) as table
{{ workload_runs_matched_sql() }};

{#- The roofline per workload, GPU and evidence epoch (see int_throughput_estimated). -#}
create or replace macro main.wl_roofline(workloads_table, fit_table, gpus_table, epochs_table, specs_table) as table
{{ workload_roofline_sql() }};

{#- The runs' calibration per workload, GPU and run epoch (see int_throughput_calibrated). -#}
create or replace macro main.wl_calibrated(workloads_table, efficiency_runs_table, gpus_table, run_epochs_table) as table
{{ workload_calibrated_sql() }};

{#- Graded throughput evidence per workload, GPU and evidence epoch (fct_throughput_evidence). -#}
create or replace macro main.wl_evidence(workloads_table, fit_table, epochs_table, matched_runs_table, roofline_table, calibrated_table) as table
{{ workload_evidence_sql() }};

{#- Every option of each workload on the days from day_from to day_to, with what its cost is
    computed from, its eligibility and its ranks (fct_workload_cost_inputs_daily). -#}
create or replace macro main.wl_cost_inputs(workloads_table, offers_table, evidence_table, api_prices_table, day_from, day_to) as table
{{ workload_cost_inputs_sql() }};

{#- The costs of options from their stored inputs (fct_workload_costs_daily). -#}
create or replace macro main.wl_cost_measures(options_table) as table
{{ with_cost_measures('query_table(options_table)') }};
{% endmacro %}

{#- A workload macro's name, as a model calls it (`from {{ workload_macro('memory_fit') }}(...)`).
    The branch never renders: it is there so that dbt records the macro's SQL among the model's
    dependencies (dbt reads every call in a macro, rendered or not), and a change of that SQL
    marks the model modified. -#}
{#- A relation's name as a workload macro takes it: schema and name without the database, quoted
    as a string, so that a view calling a macro also reads right in a copy attached under another
    name (the published copy, a comparison of two builds; DuckDB binds a view's own references to
    the catalog it sits in, not a name inside a string); render(): the relation itself, also under
    `dbt run --empty` (which wraps a ref in a subquery) and in a unit test (its input's name). -#}
{% macro table_name(relation) -%}
'{{ relation.include(database=false).render() }}'
{%- endmacro %}


{% macro workload_macro(name) -%}
{%- if false -%}
{{ workload_memory_fit_sql() }}{{ workload_runs_matched_sql() }}{{ workload_roofline_sql() }}
{{ workload_calibrated_sql() }}{{ workload_evidence_sql() }}{{ workload_cost_inputs_sql() }}
{{ with_cost_measures('') }}{{ create_workload_macros() }}{{ create_performance_macros() }}
{%- endif -%}
main.wl_{{ name }}
{%- endmacro %}


{#- Memory fit of each workload on each GPU, with its terms in GB:
      weights_gb   = parameters x bytes per parameter of the precision
                     (bf16/fp16 2, fp8/int8 1, int4/fp4 0.5)
      kv_cache_gb  = kv_layers x kv_values_per_layer x KV bytes x (input + output tokens)
                     x concurrency: every sequence at its full context (LLM serving only)
      runtime_overhead_gb per GPU (activations, CUDA graphs, the engine itself)
      usable_gb_per_gpu = GPU memory x (1 - headroom)
    gpus_needed = the smallest power of two up to max_gpus (at most 8) with
      weights + KV cache + n x runtime overhead <= n x usable memory; null = does not fit on one
      node of this GPU (multi-node units are not ranked). -#}
{% macro workload_memory_fit_sql() %}
with terms as (
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
    from query_table(workloads_table) as c
    cross join query_table(gpus_table) as g
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
{% endmacro %}


{#- Matching rules (vars in dbt_project.yml): LLM serving workloads take inference runs measuring
    output tokens, training workloads training or fine-tuning runs, image workloads image runs at
    their number of steps; the run's model within params_match_factor of the workload's, its
    precision, a mixture of experts exactly when the workload's model is; lengths and concurrency
    within measured_match_factor (a run without a concurrency matches only batch workloads, >= 64).
    `runs` are fct_benchmark_runs' rows. SLO per run: p95 TTFT against the target (p99 when the
    run has no p95: if the p99 meets the target so does the p95; if not, unknown), p99 end-to-end
    against its target. -#}
{% macro workload_runs_matched_sql() %}
with runs as (
    select *
    from query_table(runs_table)
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
    from query_table(workloads_table) as c
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
            -- an image run counts only at the workload's number of denoising steps
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
{% endmacro %}


{#- The roofline (see int_throughput_estimated for the formulas): `fit` is wl_memory_fit's rows,
    `epochs` int_evidence_epochs' (the epochs to estimate for), `specs` int_gpu_specs_by_epoch's. -#}
{% macro workload_roofline_sql() %}
with inputs as (
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
    from query_table(workloads_table) as c
    inner join query_table(fit_table) as f
        on c.workload_class = f.workload_class
    inner join query_table(gpus_table) as g
        on f.gpu_id = g.gpu_id
    cross join query_table(epochs_table) as ep
    left join query_table(specs_table) as s
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
{% endmacro %}


{#- The calibration of each (LLM-serving or image workload, GPU) at each run epoch of
    `run_epochs` (a column calibrated_from): main.gl_calibration over `efficiency_runs`
    (fct_benchmark_run_efficiency's rows) and `gpus` (dim_gpu's). See int_throughput_calibrated. -#}
{% macro workload_calibrated_sql() %}
with classes as (
    -- an image workload's conditions: one image at a time, no prompt or output tokens. (Columns
    -- named, no * REPLACE or EXCLUDE: DuckDB prints their lists in no fixed order, and a macro's
    -- text must be the same on every build for publishing to compare it.)
    select
        workload_class,
        active_params_b,
        precision,
        is_moe,
        coalesce(input_len, 0) as input_len,
        coalesce(output_len, 1) as output_len,
        coalesce(concurrency, 1) as concurrency,
        case class_kind when 'llm_serving' then 'inference' else class_kind end as run_kind
    from query_table(workloads_table)
    where class_kind in ('llm_serving', 'image_generation')
)

select
    e.calibrated_from,
    c.workload_class,
    cal.gpu_id,
    cal.grade,
    cal.calibration_source,
    cal.efficiency,
    cal.efficiency_p10,
    cal.efficiency_p90,
    cal.n_runs,
    cal.stack,
    cal.nearest_runs,
    -- how near the nearest run is (1 = the workload's own conditions; below exp(-4), a distance
    -- over 2, the runs are far from it and say little about it)
    cal.nearest_weight,
    cal.comparable_gpus,
    cal.ttft_ratio,
    cal.e2e_ratio
from classes as c
cross join query_table(run_epochs_table) as e,
    lateral main.gl_calibration(
        efficiency_runs_table, gpus_table, c.run_kind,
        c.active_params_b, c.concurrency, c.input_len, c.output_len, c.precision, c.is_moe,
        e.calibrated_from, null, null, null
    ) as cal
{% endmacro %}


{#- Graded evidence per workload, GPU and evidence epoch (see fct_throughput_evidence for the
    grades and rules): `fit` wl_memory_fit's rows, `epochs` int_evidence_epochs', `matched_runs`
    wl_runs_matched's, `roofline` wl_roofline's, `calibrated` wl_calibrated's. -#}
{% macro workload_evidence_sql() %}
with measured as (
    select
        ep.evidence_from,
        runs.workload_class,
        runs.gpu_id,
        count(*) as n_runs_matched,
        count(*) filter (where not runs.breaks_slo) as n_runs_used,
        median(runs.outputs_per_s_per_gpu) filter (where not runs.breaks_slo) as per_gpu_outputs_per_s,
        quantile_cont(runs.outputs_per_s_per_gpu, 0.1) filter (where not runs.breaks_slo)
            as per_gpu_outputs_per_s_p10,
        quantile_cont(runs.outputs_per_s_per_gpu, 0.9) filter (where not runs.breaks_slo)
            as per_gpu_outputs_per_s_p90,
        avg(runs.success_rate) filter (where not runs.breaks_slo) as mean_success_rate,
        count(runs.success_rate) filter (where not runs.breaks_slo) as n_runs_with_success,
        string_agg(
            runs.run_key, ' | '
            order by runs.run_key) filter (where not runs.breaks_slo)
            as runs_used,
        string_agg(
            runs.run_key, ' | '
            order by runs.run_key) filter (where runs.breaks_slo)
            as runs_breaking_slo,
        max(runs.ttft_p95_ms) filter (where not runs.breaks_slo) as worst_ttft_p95_ms,
        max(runs.e2e_p99_ms) filter (where not runs.breaks_slo) as worst_e2e_p99_ms,
        bool_or(runs.ttft_slo = 'unknown' or runs.e2e_slo = 'unknown') filter (where not runs.breaks_slo)
            as any_slo_unknown,
        bool_and(runs.ttft_slo = 'none' and runs.e2e_slo = 'none') as no_slo
    from query_table(epochs_table) as ep
    inner join query_table(matched_runs_table) as runs
        on ep.evidence_from >= runs.ingested_date
    group by all
),

estimates as (
    select
        e.*,
        c.class_kind,
        c.slo_p95_ttft_ms,
        c.slo_p99_e2e_ms,
        cal.grade as calibration_grade,
        cal.calibration_source,
        cal.efficiency as calibration_efficiency,
        cal.efficiency_p10,
        cal.efficiency_p90,
        cal.n_runs as calibration_runs,
        cal.nearest_runs,
        cal.nearest_weight,
        cal.comparable_gpus,
        e.ttft_est_ms * cal.ttft_ratio as ttft_p95_est_ms,
        e.e2e_est_ms * cal.e2e_ratio as e2e_p99_est_ms
    from query_table(roofline_table) as e
    inner join query_table(workloads_table) as c
        on e.workload_class = c.workload_class
    asof left join query_table(calibrated_table) as cal
        on e.workload_class = cal.workload_class and e.gpu_id = cal.gpu_id
        and e.evidence_from >= cal.calibrated_from
)

select
    f.workload_class,
    f.gpu_id,
    ep.evidence_from,
    ep.evidence_until,
    f.gpus_needed,
    f.fits,
    case
        when m.n_runs_matched > 0 then 'measured'
        when e.unit_outputs_per_s is not null then coalesce(e.calibration_grade, 'estimated')
    end as evidence,
    case
        when m.n_runs_used > 0 then m.per_gpu_outputs_per_s * f.gpus_needed
        when m.n_runs_matched > 0 then null
        else e.unit_outputs_per_s * coalesce(e.calibration_efficiency, 1.0)
    end as unit_outputs_per_s,
    -- the p10-p90 interval of that throughput: the spread of the measured runs used, or the
    -- roofline x the calibration's p10 and p90 efficiencies (null for the uncalibrated model:
    -- nothing measures how far off it is)
    case
        when m.n_runs_used > 0 then m.per_gpu_outputs_per_s_p10 * f.gpus_needed
        when m.n_runs_matched > 0 then null
        else e.unit_outputs_per_s * e.efficiency_p10
    end as unit_outputs_per_s_p10,
    case
        when m.n_runs_used > 0 then m.per_gpu_outputs_per_s_p90 * f.gpus_needed
        when m.n_runs_matched > 0 then null
        else e.unit_outputs_per_s * e.efficiency_p90
    end as unit_outputs_per_s_p90,
    case when m.n_runs_used > 0 then m.per_gpu_outputs_per_s end as measured_per_gpu_outputs_per_s,
    case
        when m.n_runs_used > 0 then coalesce(m.mean_success_rate, 1.0)
        when m.n_runs_matched is null and e.unit_outputs_per_s is not null then 1.0
    end as success_fraction,
    case
        when m.n_runs_used > 0 and m.n_runs_with_success > 0 then 'measured'
        when m.n_runs_used > 0 then 'not counted by the tool (taken as 1)'
        when e.unit_outputs_per_s is not null then 'estimate (taken as 1)'
    end as success_source,
    case
        when m.n_runs_matched > 0 and coalesce(m.n_runs_used, 0) = 0 then 'broken'
        when m.n_runs_used > 0 and m.no_slo then 'none'
        when m.n_runs_used > 0 and not m.any_slo_unknown then 'met'
        when m.n_runs_used > 0 then 'unknown'
        when e.slo_p95_ttft_ms is null and e.slo_p99_e2e_ms is null then 'none'
        when e.ttft_p95_est_ms > e.slo_p95_ttft_ms or e.e2e_p99_est_ms > e.slo_p99_e2e_ms
            then 'estimated_broken'
        when (e.slo_p95_ttft_ms is null or e.ttft_p95_est_ms is not null)
            and (e.slo_p99_e2e_ms is null or e.e2e_p99_est_ms is not null)
            then 'estimated_met'
        else 'unknown'
    end as slo_status,
    case when m.n_runs_matched is null then
            least(
                e.slo_p95_ttft_ms / e.ttft_p95_est_ms,
                e.slo_p99_e2e_ms / e.e2e_p99_est_ms
            ) - 1
    end as slo_margin,
    case when m.n_runs_matched is null then e.ttft_p95_est_ms end as ttft_p95_est_ms,
    case when m.n_runs_matched is null then e.e2e_p99_est_ms end as e2e_p99_est_ms,
    coalesce(m.n_runs_matched, 0) as n_runs_matched,
    coalesce(m.n_runs_used, 0) as n_runs_used,
    m.runs_used,
    m.runs_breaking_slo,
    m.worst_ttft_p95_ms,
    m.worst_e2e_p99_ms,
    e.memory_bandwidth_gb_s,
    e.tflops,
    e.bandwidth_efficiency,
    e.compute_efficiency,
    e.decode_bound_per_s,
    e.compute_bound_per_s,
    e.bound as estimate_bound,
    e.interconnect,
    e.tp_factor,
    e.ttft_est_ms,
    e.tpot_est_ms,
    e.unit_outputs_per_s as raw_estimate_outputs_per_s,
    coalesce(e.calibration_efficiency, 1.0) as calibration_factor,
    case
        when m.n_runs_matched > 0 then null
        when e.calibration_source is not null then e.calibration_source
        when e.unit_outputs_per_s is not null then 'uncalibrated'
    end as calibration_source,
    coalesce(e.calibration_runs, 0) as calibration_runs,
    e.efficiency_p10 as calibration_p10,
    e.efficiency_p90 as calibration_p90,
    e.nearest_runs as calibration_nearest_runs,
    e.nearest_weight as calibration_nearest_weight,
    e.comparable_gpus as calibration_comparable_gpus,
    case when m.n_runs_matched is null then e.estimate_missing end as estimate_missing
from query_table(fit_table) as f
cross join query_table(epochs_table) as ep
left join measured as m
    on f.workload_class = m.workload_class and f.gpu_id = m.gpu_id
    and ep.evidence_from = m.evidence_from
left join estimates as e
    on f.workload_class = e.workload_class and f.gpu_id = e.gpu_id
    and ep.evidence_from = e.evidence_from
{% endmacro %}


{#- Every option of each workload per day (see fct_workload_cost_inputs_daily for the rules):
    `offers` fct_gpu_offers_daily's rows, `evidence` wl_evidence's, `api_prices`
    int_model_api_prices_daily's (per day and model). The ranks are computed here, once. -#}
{% macro workload_cost_inputs_sql() %}
with classes as (
    select
        *,
        string_split(pricing_models, '|') as allowed_pricing_models
    from query_table(workloads_table)
),

gpu_options as not materialized (
    select
        o.day,
        c.workload_class,
        'gpu_offer' as option_kind,
        o.offer_key as option_key,
        o.provider,
        o.offer_id,
        o.region,
        o.zone,
        o.pricing_model,
        o.gpu_id,
        o.gpu_count as offer_gpu_count,
        o.price_per_hour as offer_price_per_hour,
        o.currency,
        o.fx_usd_per_unit,
        o.fx_rate_date,
        o.price_usd_per_gpu_hour,
        o.is_stale,
        o.days_since_observed,
        o.observed_at,
        o.source,
        o.snapshot_url,
        o.snapshot_fetched_at,
        o.snapshot_sha256,
        e.fits,
        e.gpus_needed,
        e.evidence,
        e.unit_outputs_per_s,
        e.unit_outputs_per_s_p10,
        e.unit_outputs_per_s_p90,
        e.success_fraction,
        e.success_source,
        e.slo_status,
        e.runs_used,
        e.estimate_missing,
        c.class_kind,
        c.output_unit,
        c.input_len,
        c.output_len,
        c.tokens_per_output,
        c.quality_pass_rate,
        c.target_utilization,
        c.overhead_usd_per_hour,
        c.max_gpus,
        c.slo_p95_ttft_ms,
        c.slo_p99_e2e_ms,
        false as is_batch_endpoint,
        cast(null as double) as api_cost_per_request
    from query_table(offers_table) as o
    inner join classes as c
        on list_contains(c.allowed_pricing_models, o.pricing_model)
    inner join query_table(evidence_table) as e
        on c.workload_class = e.workload_class and o.gpu_id = e.gpu_id
        and o.day >= e.evidence_from and (e.evidence_until is null or o.day < e.evidence_until)
    where o.gpu_id is not null and o.price_usd_per_gpu_hour is not null
        and o.day between day_from and day_to
),

api_options as not materialized (
    select
        a.day,
        c.workload_class,
        'model_api' as option_kind,
        'api:' || a.source || ':' || a.provider || '/' || a.model_id as option_key,
        a.provider,
        a.model_id as offer_id,
        cast(null as varchar) as region,
        cast(null as varchar) as zone,
        'per_token' as pricing_model,
        cast(null as varchar) as gpu_id,
        cast(null as bigint) as offer_gpu_count,
        cast(null as double) as offer_price_per_hour,
        a.currency,
        a.fx_usd_per_unit,
        a.fx_rate_date,
        cast(null as double) as price_usd_per_gpu_hour,
        -- the catalog's age on the day: carried forward from an earlier day's catalog (stale), or
        -- negative when only a catalog taken later prices the day (int_model_api_prices_daily)
        coalesce(
            date_diff('day', cast(a.snapshot_fetched_at as date), a.day) > 0, false
        ) as is_stale,
        date_diff('day', cast(a.snapshot_fetched_at as date), a.day) as days_since_observed,
        a.snapshot_fetched_at as observed_at,
        a.source,
        a.snapshot_url,
        a.snapshot_fetched_at,
        a.snapshot_sha256,
        true as fits,
        cast(null as integer) as gpus_needed,
        'list_price' as evidence,
        cast(null as double) as unit_outputs_per_s,
        cast(null as double) as unit_outputs_per_s_p10,
        cast(null as double) as unit_outputs_per_s_p90,
        1.0 as success_fraction,
        'API (taken as 1)' as success_source,
        'unknown' as slo_status,
        cast(null as varchar) as runs_used,
        cast(null as varchar) as estimate_missing,
        c.class_kind,
        c.output_unit,
        c.input_len,
        c.output_len,
        c.tokens_per_output,
        c.quality_pass_rate,
        c.target_utilization,
        c.overhead_usd_per_hour,
        c.slo_p95_ttft_ms,
        c.slo_p99_e2e_ms,
        coalesce(a.is_batch_endpoint, false) as is_batch_endpoint,
        (c.input_len * a.input_usd_per_mtok + c.output_len * a.output_usd_per_mtok) / 1e6
            as api_cost_per_request
    from query_table(api_prices_table) as a
    inner join classes as c
        on a.model_ref = c.model_ref and c.class_kind = 'llm_serving'
    where a.day between day_from and day_to
),

options as not materialized (
    select * from gpu_options
    union all by name
    select * from api_options
),

-- The inputs are read twice (the ranks below, the rows themselves): DuckDB would keep every wide
-- row in memory to read it again (a CTE read more than once is materialized), 2.2 GB at 365 days,
-- spilled to disk past the 1 GB limit. Not materialized, each reader computes what it reads (the
-- ranks only the few columns they order by).
inputs as not materialized (
    select
        day,
        workload_class,
        option_kind,
        option_key,
        provider,
        offer_id,
        region,
        zone,
        pricing_model,
        gpu_id,
        offer_gpu_count,
        offer_price_per_hour,
        currency,
        fx_usd_per_unit,
        fx_rate_date,
        price_usd_per_gpu_hour,
        gpus_needed,
        evidence,
        unit_outputs_per_s,
        unit_outputs_per_s_p10,
        unit_outputs_per_s_p90,
        success_fraction,
        success_source,
        quality_pass_rate,
        slo_status,
        runs_used,
        target_utilization,
        overhead_usd_per_hour,
        class_kind,
        output_unit,
        output_len,
        tokens_per_output,
        api_cost_per_request,
        ineligible_reason is null as is_eligible,
        ineligible_reason,
        is_stale,
        days_since_observed,
        observed_at,
        source,
        snapshot_url,
        snapshot_fetched_at,
        snapshot_sha256
    from (
        select
            *,
            case
                -- the largest unit the fit tried (wl_memory_fit: a power of two up to max_gpus, at most 8)
                when not fits
                    then
                        'does not fit on '
                        || case
                            when coalesce(max_gpus, 8) >= 8 then '8 GPUs'
                            when max_gpus >= 4 then '4 GPUs'
                            when max_gpus >= 2 then '2 GPUs'
                            else '1 GPU'
                        end
                        || ' of this model (memory)'
                when option_kind = 'gpu_offer' and offer_gpu_count < gpus_needed
                    then
                        'offer has ' || offer_gpu_count || ' GPU(s); the class needs ' || gpus_needed
                when option_kind = 'gpu_offer' and evidence is null
                    then
                        'no throughput evidence: no matching benchmark run, '
                        || 'and no estimate without the GPU''s '
                        || coalesce(estimate_missing, 'specs')
                -- an API's batch endpoint answers within hours (macros/api_prices.sql)
                when
                    option_kind = 'model_api' and is_batch_endpoint
                    and (slo_p95_ttft_ms is not null or slo_p99_e2e_ms is not null)
                    then 'a batch endpoint (answers asynchronously, within hours): not for a '
                    || 'workload with a latency target'
                when slo_status = 'broken' then 'every matching benchmark run breaks the class SLO'
                when slo_status = 'estimated_broken'
                    then 'estimated to break the class SLO (calibrated latency model; see explain)'
                when option_kind = 'gpu_offer' and not (unit_outputs_per_s > 0) then 'no throughput'
            end as ineligible_reason
        from options
    ) as judged
),

-- The cost per accepted output the ranks order by: the arithmetic of the costs view
-- (macros/economics.sql), on the same values the table stores.
costs as not materialized (
    {{ with_cost_measures('inputs') }}
),

-- The ranks on the few columns they order by, joined back on the grain (day, workload_class,
-- option_key): window functions carrying the wide rows (URLs, hashes, provenance) took twice as
-- long (a full build over 365 days of the scale run: 10 s against 5 s).
ordered as (
    select
        day,
        workload_class,
        option_key,
        gpu_id,
        cost_per_accepted_output,
        price_usd_per_gpu_hour,
        row_number() over (
            partition by day, workload_class
            order by
                cost_per_accepted_output, price_usd_per_gpu_hour nulls last, gpu_id nulls last,
                option_key
        ) as option_rank,
        case when option_kind = 'gpu_offer'
                then
                    row_number() over (
                        partition by day, workload_class, option_kind, gpu_id
                        order by cost_per_accepted_output, price_usd_per_gpu_hour, option_key
                    ) = 1
            else false
        end as is_best_offer_of_gpu
    from costs
    where is_eligible and cost_per_accepted_output is not null
),

ranks as (
    select
        day,
        workload_class,
        option_key,
        option_rank,
        case when is_best_offer_of_gpu then
                row_number() over (
                    partition by day, workload_class, is_best_offer_of_gpu
                    order by cost_per_accepted_output, price_usd_per_gpu_hour, gpu_id
                )
        end as gpu_rank
    from ordered
)

select
    c.*,
    r.option_rank,
    r.gpu_rank
from inputs as c
left join ranks as r
    on c.day = r.day and c.workload_class = r.workload_class and c.option_key = r.option_key
{% endmacro %}
