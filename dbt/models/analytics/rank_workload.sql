{{
    config(
        materialized='table_macro',
        parameters=[
            ['model', none], ['input_len', none], ['output_len', none], ['concurrency', '1'],
            ['precision', none], ['slo_p95_ttft_ms', none], ['slo_p99_e2e_ms', none],
            ['pricing_models', "['on_demand']"], ['day', none],
            ['kv_cache_precision', "'bf16'"], ['target_utilization', '0.6'],
            ['overhead_usd_per_hour', '0.0'], ['quality_pass_rate', '1.0'],
            ['output_unit', none], ['runtime_overhead_gb', '4.0'], ['headroom', '0.2'],
            ['max_gpus', '8'], ['class_kind', "'llm_serving'"], ['tokens_per_output', none],
            ['flops_per_output_tflop', none], ['image_steps', none],
            ['workload_class', "'custom'"],
        ],
    )
}}
-- analytics.rank_workload(model := ..., input_len := ..., output_len := ..., ...): every GPU
-- option (and model API for that model) for a workload an analyst describes, on one day, with
-- the columns of analytics.workload_costs_daily and the same rules: memory fit, matching runs,
-- the calibrated roofline, evidence grade, SLO, eligibility, costs and ranks come from the
-- workload model's macros (macros/workload_model.sql) that the class marts are built with, so a
-- seeded class's parameters give that class's rows. Parameters (p_<name> here; the table macro
-- materialization explains why) are the seed's columns (workload_classes.csv); defaults: the
-- checkpoint's precision, concurrency 1, no SLO, on-demand prices, the day the first screen shows.
-- Wrong parameters stop the query with an error that names the parameter and the reason.
with models as (
    select
        list(
            model_ref
            order by model_ref
        ) as known,
        -- the image models: those with a cost per denoising step (model_reference.csv)
        coalesce(
            list(
                model_ref
                order by model_ref
            ) filter (where flops_per_image_step_tflop is not null),
            []
        ) as image_models,
        -- the longest sequence each checkpoint serves, where its config is known
        map_from_entries(
            list((model_ref, max_context_tokens)) filter (where max_context_tokens is not null)
        ) as contexts
    from {{ ref('model_reference') }}
),

shown as (
    -- the first screen's day (warehouse/queries/coverage.py): the newest covered day
    select c.day
    from {{ ref('coverage_daily') }} as c
    order by c.is_covered desc, c.day desc
    limit 1
),

-- the first and the newest priced day, for the error below: ordered and limited, DuckDB reads only
-- the row groups that can hold them (min() and max() read every offer of every day: 670,318 rows
-- in the scale run's year, and growing with the history)
priced as (
    select
        (
            select o.day from {{ ref('fct_gpu_offers_daily') }} as o
            order by o.day
            limit 1
        ) as first_day,
        (
            select o.day from {{ ref('fct_gpu_offers_daily') }} as o
            order by o.day desc
            limit 1
        ) as last_day
),

-- the parameters as a row (p_<name>: see the table macro materialization)
asked as (
    select
        p_model as model_ref,
        coalesce(cast(p_day as date), (select s.day from shown as s)) as day,
        p_class_kind as class_kind,
        p_input_len as input_len,
        p_output_len as output_len,
        p_concurrency as concurrency,
        p_precision as precision,
        p_kv_cache_precision as kv_cache_precision,
        p_slo_p95_ttft_ms as slo_p95_ttft_ms,
        p_slo_p99_e2e_ms as slo_p99_e2e_ms,
        p_pricing_models as pricing_models,
        p_target_utilization as target_utilization,
        p_overhead_usd_per_hour as overhead_usd_per_hour,
        p_quality_pass_rate as quality_pass_rate,
        -- (default: the unit a workload of the kind is costed per)
        coalesce(
            p_output_unit,
            case p_class_kind when 'training' then 'sample' when 'image_generation' then 'image' end,
            'request'
        ) as output_unit,
        p_tokens_per_output as tokens_per_output,
        p_flops_per_output_tflop as flops_per_output_tflop,
        p_image_steps as image_steps,
        p_runtime_overhead_gb as runtime_overhead_gb,
        p_headroom as headroom,
        p_max_gpus as max_gpus,
        p_workload_class as workload_class,
        list_filter(
            p_pricing_models,
            lambda x: x not in (
                'on_demand', 'spot', 'reserved_6m', 'reserved_1y', 'reserved_3y', 'dynamic',
                'marketplace', 'inference'
            )
        ) as unknown_pricing_models,
        len(list_filter(p_pricing_models, lambda x: x is not null)) as n_pricing_models
),

-- the asked day's GPU offers, counted per pricing model: joined on the day, DuckDB reads only that
-- day's row groups (a correlated exists() read every day's); with none under the asked pricing
-- models, the query would answer with no GPU row (and none at all for a model no API serves)
day_pricing as (
    select
        o.pricing_model,
        count(*) as n
    from {{ ref('fct_gpu_offers_daily') }} as o, asked as a
    where o.day = a.day
    group by o.pricing_model
),

day_offers as (
    select
        coalesce(sum(p.n), 0) as n_offers,
        coalesce(sum(p.n) filter (where list_contains(a.pricing_models, p.pricing_model)), 0)
            as n_offers_asked,
        string_agg(
            p.pricing_model || ' ' || p.n, ', '
            order by p.pricing_model
        ) as priced_as
    from day_pricing as p, asked as a
),

-- One row when every parameter holds; otherwise error() stops the query with the reason.
checked as (
    select a.*
    from asked as a, models as m, priced as pr, day_offers as d
    where
        case
            when a.model_ref is null or not list_contains(m.known, a.model_ref)
                then error(
                        'rank_workload: model := ' || coalesce('''' || a.model_ref || '''', 'null')
                        || ' is not a known model; known: ' || array_to_string(m.known, ', ')
                    )
            when not coalesce(a.class_kind in ('llm_serving', 'training', 'image_generation'), false)
                then error(
                        'rank_workload: class_kind := '
                        || coalesce('''' || a.class_kind || '''', 'null')
                        || ' is not a workload kind; known: llm_serving, training, image_generation'
                    )
            -- an image model generates images, and only an image model does (a cost per step)
            when a.class_kind = 'image_generation' and not list_contains(m.image_models, a.model_ref)
                then error(
                        'rank_workload: model := ''' || a.model_ref || ''' is not an image model; '
                        || 'class_kind := ''image_generation'' takes '
                        || array_to_string(m.image_models, ', ')
                    )
            when a.class_kind <> 'image_generation' and list_contains(m.image_models, a.model_ref)
                then error(
                        'rank_workload: model := ''' || a.model_ref || ''' is an image model: ask '
                        || 'with class_kind := ''image_generation'' and image_steps'
                    )
            when
                a.class_kind = 'image_generation' and a.flops_per_output_tflop is null
                and not coalesce(a.image_steps > 0, false)
                then {{ parameter_error(
                    'rank_workload', 'image_steps',
                    'must be a positive number of denoising steps per image (or give '
                    ~ 'flops_per_output_tflop, the TFLOP of one image)'
                ) }}
            when a.class_kind = 'training' and not coalesce(a.tokens_per_output > 0, false)
                then {{ parameter_error(
                    'rank_workload', 'tokens_per_output',
                    'must be a positive number of tokens per training sample'
                ) }}
            when a.class_kind = 'llm_serving' and not coalesce(a.input_len > 0, false)
                then {{ parameter_error(
                    'rank_workload', 'input_len',
                    'must be a positive number of prompt tokens'
                ) }}
            when a.class_kind = 'llm_serving' and not coalesce(a.output_len > 0, false)
                then {{ parameter_error(
                    'rank_workload', 'output_len',
                    'must be a positive number of output tokens'
                ) }}
            -- longer than the model's context window: no serving stack takes the request
            when
                a.class_kind = 'llm_serving'
                and a.input_len + a.output_len > coalesce(m.contexts[a.model_ref], cast('infinity' as double))
                then error(
                        'rank_workload: input_len + output_len := '
                        || cast(a.input_len + a.output_len as varchar) || ' tokens exceed the '
                        || 'context window of ' || a.model_ref || ', '
                        || cast(m.contexts[a.model_ref] as varchar)
                        || ' tokens (max_position_embeddings of its published config)'
                    )
            when
                a.class_kind = 'training'
                and a.tokens_per_output > coalesce(m.contexts[a.model_ref], cast('infinity' as double))
                then error(
                        'rank_workload: tokens_per_output := '
                        || cast(a.tokens_per_output as varchar) || ' exceeds the context window of '
                        || a.model_ref || ', ' || cast(m.contexts[a.model_ref] as varchar)
                        || ' tokens (max_position_embeddings of its published config)'
                    )
            when not coalesce(a.concurrency > 0, false)
                then {{ parameter_error(
                    'rank_workload', 'concurrency',
                    'must be a positive number of requests in flight'
                ) }}
            -- what the kind of workload is costed by, given in a wrong unit or range: the
            -- throughput divides by it; or given to a kind it does not apply to, where it would be
            -- left out of the answer without a word
            {%- for parameter, kind, what in [
                ('input_len', 'llm_serving', 'leave it out'),
                ('output_len', 'llm_serving', 'leave it out'),
                ('tokens_per_output', 'training', 'tokens per training sample'),
                ('image_steps', 'image_generation', 'denoising steps per image'),
                ('flops_per_output_tflop', 'image_generation', 'TFLOP per image'),
            ] %}
            when a.class_kind <> '{{ kind }}' and a.{{ parameter }} is not null
                then {{ parameter_error(
                    'rank_workload', parameter,
                    "applies only to class_kind := '" ~ kind ~ "' (" ~ what ~ ")"
                ) }}
            {%- endfor %}
            when
                a.image_steps is not null
                and not (a.image_steps > 0 and a.image_steps = floor(a.image_steps))
                then {{ parameter_error(
                    'rank_workload', 'image_steps',
                    'must be a whole positive number of denoising steps per image'
                ) }}
            when a.flops_per_output_tflop is not null and not (a.flops_per_output_tflop > 0)
                then {{ parameter_error(
                    'rank_workload', 'flops_per_output_tflop',
                    'must be a positive number of TFLOP per image'
                ) }}
            -- the KV cache's bytes per value (macros/economics.sql): unknown, the memory fit
            -- would have no KV cache and no GPU would fit
            when
                a.class_kind = 'llm_serving'
                and not coalesce(
                    lower(a.kv_cache_precision) in ('fp32', 'bf16', 'fp16', 'fp8', 'int8', 'int4', 'fp4'),
                    false
                )
                then error(
                        'rank_workload: kv_cache_precision := '
                        || coalesce('''' || a.kv_cache_precision || '''', 'null')
                        || ' is not a precision; known: fp32, bf16, fp16, fp8, int8, int4, fp4'
                    )
            -- a latency target of 0 ms or less: no run or estimate could keep it
            when a.slo_p95_ttft_ms is not null and not (a.slo_p95_ttft_ms > 0)
                then {{ parameter_error(
                    'rank_workload', 'slo_p95_ttft_ms',
                    'must be a positive number of milliseconds (or null: no target)'
                ) }}
            when a.slo_p99_e2e_ms is not null and not (a.slo_p99_e2e_ms > 0)
                then {{ parameter_error(
                    'rank_workload', 'slo_p99_e2e_ms',
                    'must be a positive number of milliseconds (or null: no target)'
                ) }}
            -- the rows are keyed by it: without one, no GPU option would join its evidence
            when a.workload_class is null
                then {{ parameter_error(
                    'rank_workload', 'workload_class',
                    "must name the workload (default 'custom'): its rows are keyed by it"
                ) }}
            -- the cost per output divides by these, or subtracts: outside their range the
            -- numbers would be infinite, negative or too low, and still ranked
            when not coalesce(a.target_utilization > 0 and a.target_utilization <= 1, false)
                then {{ parameter_error(
                    'rank_workload', 'target_utilization',
                    'must be above 0 and at most 1 (the share of each rented hour the GPUs do'
                    ~ ' useful work)'
                ) }}
            when not coalesce(a.quality_pass_rate > 0 and a.quality_pass_rate <= 1, false)
                then {{ parameter_error(
                    'rank_workload', 'quality_pass_rate',
                    'must be above 0 and at most 1 (the share of outputs accepted)'
                ) }}
            when not coalesce(a.overhead_usd_per_hour >= 0, false)
                then {{ parameter_error(
                    'rank_workload', 'overhead_usd_per_hour',
                    'must be 0 or more (USD an hour on top of the GPUs)'
                ) }}
            when not coalesce(a.headroom >= 0 and a.headroom < 1, false)
                then {{ parameter_error(
                    'rank_workload', 'headroom',
                    'must be at least 0 and below 1 (the share of GPU memory kept free)'
                ) }}
            when not coalesce(a.runtime_overhead_gb >= 0, false)
                then {{ parameter_error(
                    'rank_workload', 'runtime_overhead_gb',
                    'must be 0 or more (GB per GPU)'
                ) }}
            -- the unit the cost is given per (macros/economics.sql) fits the kind of workload
            when
                not (
                    (a.class_kind = 'llm_serving' and a.output_unit in ('request', '1m_tokens'))
                    or (a.class_kind = 'training' and a.output_unit = 'sample')
                    or (a.class_kind = 'image_generation' and a.output_unit = 'image')
                )
                then error(
                        'rank_workload: output_unit := ''' || a.output_unit || ''' is not a unit of '
                        || a.class_kind || ' workloads; known: '
                        || case a.class_kind
                            when 'llm_serving' then 'request, 1m_tokens'
                            when 'training' then 'sample'
                            else 'image'
                        end
                    )
            -- (null: as in the seed, no limit below the 8 GPUs of one node)
            when a.max_gpus is not null and not (a.max_gpus >= 1)
                then error(
                        'rank_workload: max_gpus := ' || cast(a.max_gpus as varchar)
                        || ' must be at least 1 GPU (the largest unit tried is 8)'
                    )
            when a.max_gpus is not null and a.max_gpus <> floor(a.max_gpus)
                then {{ parameter_error(
                    'rank_workload', 'max_gpus',
                    'must be a whole number of GPUs (the largest unit tried is 8)'
                ) }}
            when
                a.precision is not null
                and lower(a.precision) not in ('fp32', 'bf16', 'fp16', 'fp8', 'int8', 'int4', 'fp4')
                then error(
                        'rank_workload: precision := ''' || a.precision
                        || ''' is not a precision; known: fp32, bf16, fp16, fp8, int8, int4, fp4'
                    )
            when a.pricing_models is null or a.n_pricing_models = 0
                then {{ parameter_error(
                    'rank_workload', 'pricing_models',
                    'names no pricing model'
                ) }}
            when len(a.unknown_pricing_models) > 0
                then error(
                        'rank_workload: pricing_models has '
                        || array_to_string(a.unknown_pricing_models, ', ')
                        || ', not a pricing model; known: on_demand, spot, reserved_6m, '
                        || 'reserved_1y, reserved_3y, dynamic, marketplace, inference'
                    )
            -- (no priced day at all: error() of a message built from the null first and newest
            -- day would be null, and return rather than raise)
            when a.day is null or pr.first_day is null
                then error('rank_workload: the warehouse has no priced day yet')
            when d.n_offers = 0
                then error(
                        'rank_workload: day := ' || cast(a.day as varchar)
                        || ' has no GPU prices; priced days run from '
                        || cast(pr.first_day as varchar) || ' to ' || cast(pr.last_day as varchar)
                    )
            when d.n_offers_asked = 0
                then error(
                        'rank_workload: pricing_models := ' || cast(a.pricing_models as varchar)
                        || ' matches no GPU offer on ' || cast(a.day as varchar)
                        || '; that day''s offers by pricing model: ' || d.priced_as
                    )
            else true
        end
),

-- The workload as a row of int_workload_classes_joined: the seed's columns (their types) and
-- its model's architecture.
workload as (
    select
        cast(k.workload_class as varchar) as workload_class,
        cast(null as varchar) as description,
        cast(k.class_kind as varchar) as class_kind,
        m.model_ref,
        cast(coalesce(k.precision, m.native_precision) as varchar) as precision,
        cast(k.kv_cache_precision as varchar) as kv_cache_precision,
        cast(k.input_len as double) as input_len,
        cast(k.output_len as double) as output_len,
        cast(k.concurrency as double) as concurrency,
        cast(k.slo_p95_ttft_ms as double) as slo_p95_ttft_ms,
        cast(k.slo_p99_e2e_ms as double) as slo_p99_e2e_ms,
        cast(k.target_utilization as double) as target_utilization,
        cast(k.overhead_usd_per_hour as double) as overhead_usd_per_hour,
        cast(k.quality_pass_rate as double) as quality_pass_rate,
        cast(k.output_unit as varchar) as output_unit,
        cast(k.tokens_per_output as double) as tokens_per_output,
        -- an image's TFLOP: as given, else its steps times the model's TFLOP per step
        cast(
            coalesce(k.flops_per_output_tflop, k.image_steps * m.flops_per_image_step_tflop) as double
        ) as flops_per_output_tflop,
        cast(k.image_steps as integer) as image_steps,
        cast(k.runtime_overhead_gb as double) as runtime_overhead_gb,
        cast(k.headroom as double) as headroom,
        cast(k.max_gpus as integer) as max_gpus,
        array_to_string(k.pricing_models, '|') as pricing_models,
        m.params_b,
        m.active_params_b,
        m.is_moe,
        m.layers,
        m.kv_layers,
        m.kv_heads,
        m.head_dim,
        m.kv_values_per_layer
    from checked as k
    inner join {{ ref('model_reference') }} as m
        on k.model_ref = m.model_ref
),

-- the evidence epoch the day falls in, and the newest run epoch by its start
epoch as (
    select e.*
    from {{ ref('int_evidence_epochs') }} as e, checked as k
    where e.evidence_from <= k.day and (e.evidence_until is null or k.day < e.evidence_until)
),

run_epoch as (
    select max(r.ingested_date) as calibrated_from
    from {{ ref('fct_benchmark_run_efficiency') }} as r, epoch as e
    where r.efficiency > 0 and r.ingested_date <= e.evidence_from
    having count(*) > 0
),

-- (the CTEs below are read by name, through query_table in the macros they are passed to)
fit as (
    select * from {{ workload_macro('memory_fit') }}('workload', {{ table_name(ref('dim_gpu')) }})
),

matched as (  -- noqa: ST03
    select *
    from {{ workload_macro('runs_matched') }}('workload', {{ table_name(ref('fct_benchmark_runs')) }})
),

roofline as (  -- noqa: ST03
    select * from {{ workload_macro('roofline') }}(
        'workload', 'fit', {{ table_name(ref('dim_gpu')) }}, 'epoch',
        {{ table_name(ref('int_gpu_specs_by_epoch')) }}
    )
),

-- wl_calibrated's call of the calibration, for one workload at one run epoch: main.gl_calibration
-- with the workload's conditions as wl_calibrated gives them (an image workload: one image at a
-- time, no prompt or output tokens), without the lateral join over workloads and epochs that
-- the marts need (a third of this query's time)
calibrated as (  -- noqa: ST03
    select
        re.calibrated_from,
        w.workload_class,
        cal.*
    from run_epoch as re, workload as w,
        main.gl_calibration(
            {{ table_name(ref('fct_benchmark_run_efficiency')) }}, {{ table_name(ref('dim_gpu')) }},
            (
                select case w1.class_kind when 'llm_serving' then 'inference' else w1.class_kind end
                from workload as w1
            ),
            (select w1.active_params_b from workload as w1),
            (select coalesce(w1.concurrency, 1) from workload as w1),
            (select coalesce(w1.input_len, 0) from workload as w1),
            (select coalesce(w1.output_len, 1) from workload as w1),
            (select w1.precision from workload as w1),
            (select w1.is_moe from workload as w1),
            (select re1.calibrated_from from run_epoch as re1),
            null, null, null
        ) as cal
    where w.class_kind in ('llm_serving', 'image_generation')
),

evidence as (
    select * from {{ workload_macro('evidence') }}(
        'workload', 'fit', 'epoch', 'matched', 'roofline', 'calibrated'
    )
),

offers as (  -- noqa: ST03
    select o.*
    from {{ ref('fct_gpu_offers_daily') }} as o, checked as k
    where o.day = k.day
),

api_prices as (  -- noqa: ST03
    select a.*
    from {{ ref('int_model_api_prices_daily') }} as a, checked as k
    where a.day = k.day and a.model_ref = k.model_ref
),

-- offers and API prices are the day's already: the window is every day
inputs as (  -- noqa: ST03
    select * from {{ workload_macro('cost_inputs') }}(
        'workload', 'offers', 'evidence', 'api_prices', date '0001-01-01', date '9999-12-31'
    )
),

costs as (
    select * from {{ workload_macro('cost_measures') }}('inputs')
),

-- what the costs do not already show of the GPU's fit and evidence (columns named: DuckDB prints
-- an EXCLUDE list in no fixed order, and this macro's text must be the same on every build for
-- publishing to compare it)
fit_shown as (
    select
        gpu_id as gpu_id_fit,
        memory_gb,
        headroom,
        weights_gb,
        kv_cache_gb,
        runtime_overhead_gb_per_gpu,
        required_gb,
        usable_gb_per_gpu,
        fits
    from fit
),

evidence_shown as (
    select
        gpu_id as gpu_id_evidence,
        evidence_from,
        evidence_until,
        measured_per_gpu_outputs_per_s,
        slo_margin,
        ttft_p95_est_ms,
        e2e_p99_est_ms,
        n_runs_matched,
        n_runs_used,
        runs_breaking_slo,
        worst_ttft_p95_ms,
        worst_e2e_p99_ms,
        memory_bandwidth_gb_s,
        tflops,
        bandwidth_efficiency,
        compute_efficiency,
        decode_bound_per_s,
        compute_bound_per_s,
        estimate_bound,
        interconnect,
        tp_factor,
        ttft_est_ms,
        tpot_est_ms,
        raw_estimate_outputs_per_s,
        calibration_factor,
        calibration_source,
        calibration_runs,
        calibration_p10,
        calibration_p90,
        calibration_nearest_runs,
        calibration_nearest_weight,
        calibration_comparable_gpus,
        estimate_missing
    from evidence
),

-- analytics.workload_costs_daily's columns; then the rest of what the class marts keep of an option
-- (the FX rate, success and quality, the throughput's p10-p90); then its GPU's memory fit
-- (int_workload_memory_fit) and evidence (fct_throughput_evidence) for the day: how each figure
-- was reached, as `gpuledger explain` shows it (null on model APIs)
ranked as (
    select
        c.day,
        c.workload_class,
        c.option_kind,
        c.option_key,
        c.gpu_id,
        c.provider,
        c.offer_id,
        c.region,
        c.pricing_model,
        c.offer_gpu_count,
        c.offer_price_per_hour,
        c.currency,
        c.price_usd_per_gpu_hour,
        c.gpus_needed,
        c.evidence,
        c.runs_used,
        c.unit_outputs_per_s,
        c.accepted_fraction,
        c.slo_status,
        c.target_utilization,
        c.overhead_usd_per_hour,
        c.effective_hourly_cost,
        c.accepted_outputs_per_hour,
        c.accepted_output_tokens_per_hour,
        c.tokens_per_dollar,
        c.cost_per_1m_accepted_tokens,
        c.cost_per_accepted_output,
        c.cost_per_accepted_output_p10,
        c.cost_per_accepted_output_p90,
        c.output_unit,
        c.is_eligible,
        c.ineligible_reason,
        c.option_rank,
        c.gpu_rank,
        c.is_stale,
        c.days_since_observed,
        c.observed_at,
        c.source,
        c.snapshot_url,
        c.snapshot_sha256,
        c.snapshot_fetched_at,
        c.fx_usd_per_unit,
        c.fx_rate_date,
        c.success_fraction,
        c.success_source,
        c.quality_pass_rate,
        c.unit_outputs_per_s_p10,
        c.unit_outputs_per_s_p90,
        f.*,
        e.*
    from costs as c
    left join fit_shown as f
        on c.gpu_id = f.gpu_id_fit
    left join evidence_shown as e
        on c.gpu_id = e.gpu_id_evidence
)

select
    r.day,
    r.workload_class,
    r.option_kind,
    r.option_key,
    r.gpu_id,
    r.provider,
    r.offer_id,
    r.region,
    r.pricing_model,
    r.offer_gpu_count,
    r.offer_price_per_hour,
    r.currency,
    r.price_usd_per_gpu_hour,
    r.gpus_needed,
    r.evidence,
    r.runs_used,
    r.unit_outputs_per_s,
    r.accepted_fraction,
    r.slo_status,
    r.target_utilization,
    r.overhead_usd_per_hour,
    r.effective_hourly_cost,
    r.accepted_outputs_per_hour,
    r.accepted_output_tokens_per_hour,
    r.tokens_per_dollar,
    r.cost_per_1m_accepted_tokens,
    r.cost_per_accepted_output,
    r.cost_per_accepted_output_p10,
    r.cost_per_accepted_output_p90,
    r.output_unit,
    r.is_eligible,
    r.ineligible_reason,
    r.option_rank,
    r.gpu_rank,
    r.is_stale,
    r.days_since_observed,
    r.observed_at,
    r.source,
    r.snapshot_url,
    r.snapshot_sha256,
    r.snapshot_fetched_at,
    r.fx_usd_per_unit,
    r.fx_rate_date,
    r.success_fraction,
    r.success_source,
    r.quality_pass_rate,
    r.unit_outputs_per_s_p10,
    r.unit_outputs_per_s_p90,
    r.memory_gb,
    r.headroom,
    r.weights_gb,
    r.kv_cache_gb,
    r.runtime_overhead_gb_per_gpu,
    r.required_gb,
    r.usable_gb_per_gpu,
    r.fits,
    r.evidence_from,
    r.evidence_until,
    r.measured_per_gpu_outputs_per_s,
    r.slo_margin,
    r.ttft_p95_est_ms,
    r.e2e_p99_est_ms,
    r.n_runs_matched,
    r.n_runs_used,
    r.runs_breaking_slo,
    r.worst_ttft_p95_ms,
    r.worst_e2e_p99_ms,
    r.memory_bandwidth_gb_s,
    r.tflops,
    r.bandwidth_efficiency,
    r.compute_efficiency,
    r.decode_bound_per_s,
    r.compute_bound_per_s,
    r.estimate_bound,
    r.interconnect,
    r.tp_factor,
    r.ttft_est_ms,
    r.tpot_est_ms,
    r.raw_estimate_outputs_per_s,
    r.calibration_factor,
    r.calibration_source,
    r.calibration_runs,
    r.calibration_p10,
    r.calibration_p90,
    r.calibration_nearest_runs,
    r.calibration_nearest_weight,
    r.calibration_comparable_gpus,
    r.estimate_missing
from ranked as r
order by r.option_rank nulls last, r.gpu_id nulls last, r.option_key
