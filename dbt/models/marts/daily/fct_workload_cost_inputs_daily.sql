-- What the economics of a workload option are computed from, per (day, workload class, option):
-- every GPU offer of an allowed pricing model (and every model API serving the class's model)
-- with its price, the class's parameters, the throughput evidence, whether it is eligible (and
-- why not) and its ranks. The costs themselves are the view fct_workload_costs_daily, computed
-- from these columns as they are read (macros/economics.sql, with_cost_measures): stored, the
-- seven measures computed from the price and the throughput were 60 % of this table and 38 % of
-- the warehouse file every day's publication copies (365 days of the scale run: the costs 369 MB
-- with them, 148 MB without; the file 578 MB).
--   gpus_needed, fit: int_workload_memory_fit; throughput: fct_throughput_evidence.
--   Model APIs: cost per request = (input_len x input price + output_len x output price) / 1e6.
-- An option is eligible when it fits, the offer has at least gpus_needed GPUs, there is
-- evidence, no measured run breaks the SLO and the calibrated latency model does not expect it
-- broken (estimated_broken); otherwise ineligible_reason says why.
-- The ranks are computed here, once: every eligible option with a cost ranked by cost per accepted
-- output (option_rank: GPU offers and model APIs together) and each GPU by its best offer
-- (gpu_rank, GPU offers only; null on the other offers of that GPU and on APIs); null where the
-- option is not eligible. Ties break by the USD price per GPU-hour, then gpu_id, then option key:
-- deterministic. fct_gpu_rankings_daily is the ranked rows of the costs.
with classes as (
    select
        *,
        string_split(pricing_models, '|') as allowed_pricing_models
    from {{ ref('int_workload_classes_joined') }}
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
        cast(null as double) as api_cost_per_request
    from {{ ref('fct_gpu_offers_daily') }} as o
    inner join classes as c
        on list_contains(c.allowed_pricing_models, o.pricing_model)
    inner join {{ ref('fct_throughput_evidence') }} as e
        on c.workload_class = e.workload_class and o.gpu_id = e.gpu_id
        and o.day >= e.evidence_from and (e.evidence_until is null or o.day < e.evidence_until)
    where o.gpu_id is not null and o.price_usd_per_gpu_hour is not null
        and {{ in_window('o.day') }}
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
        false as is_stale,
        0 as days_since_observed,
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
        (c.input_len * a.input_usd_per_mtok + c.output_len * a.output_usd_per_mtok) / 1e6
            as api_cost_per_request
    from {{ ref('int_model_api_prices_daily') }} as a
    inner join classes as c
        on a.workload_class = c.workload_class
    where {{ in_window('a.day') }}
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
                when not fits then 'does not fit on 8 GPUs of this model (memory)'
                when option_kind = 'gpu_offer' and offer_gpu_count < gpus_needed
                    then
                        'offer has ' || offer_gpu_count || ' GPU(s); the class needs ' || gpus_needed
                when option_kind = 'gpu_offer' and evidence is null
                    then
                        'no throughput evidence: no matching benchmark run, '
                        || 'and no estimate without the GPU''s '
                        || coalesce(estimate_missing, 'specs')
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
-- in day order: a full build writes each day's rows together, so that reading a few days (a later
-- build's window, the publication's update) skips the other days' row groups (DuckDB keeps no
-- order through a join: unsorted, a day's rows lay in 3-4 of the 41 row groups at 365 days, and
-- the sort takes ~6 s of a 365-day build)
order by c.day
