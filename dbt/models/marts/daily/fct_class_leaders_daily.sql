-- Per day and workload class: the GPU whose best eligible offer has the lowest cost per accepted
-- output (gpu_rank 1), the runner-up for context, and the cheapest model API for comparison.
with gpus as (
    select * from {{ ref('fct_gpu_rankings_daily') }}
    where option_kind = 'gpu_offer' and gpu_rank is not null and {{ in_window() }}
),

leaders as (
    select * from gpus
    where gpu_rank = 1
),

runners_up as (
    select
        day,
        workload_class,
        gpu_id,
        cost_per_accepted_output
    from gpus
    where gpu_rank = 2
),

counts as (
    select
        day,
        workload_class,
        count(*) as n_gpus_ranked
    from gpus
    group by all
),

best_api as (
    select
        day,
        workload_class,
        provider,
        offer_id,
        cost_per_accepted_output
    from {{ ref('fct_gpu_rankings_daily') }}
    where option_kind = 'model_api' and {{ in_window() }}
    qualify row_number() over (
            partition by day, workload_class
            order by option_rank
        ) = 1
),

select
    l.day,
    l.workload_class,
    l.gpu_id,
    g.display_name as gpu_name,
    l.provider,
    l.offer_id,
    l.region,
    l.pricing_model,
    l.price_usd_per_gpu_hour,
    l.gpus_needed,
    l.effective_hourly_cost,
    l.cost_per_accepted_output,
    l.output_unit,
    l.cost_per_1m_accepted_tokens,
    l.tokens_per_dollar,
    l.evidence,
    l.slo_status,
    l.is_stale,
    l.days_since_observed,
    c.n_gpus_ranked,
    r.gpu_id as runner_up_gpu_id,
    r.cost_per_accepted_output as runner_up_cost_per_accepted_output,
    round(100 * (r.cost_per_accepted_output / l.cost_per_accepted_output - 1), 2) as lead_pct,
    a.provider || ' ' || a.offer_id as best_api,
    a.cost_per_accepted_output as best_api_cost_per_accepted_output,
    l.source,
    l.snapshot_url,
    l.snapshot_sha256
from leaders as l
inner join counts as c on l.day = c.day and l.workload_class = c.workload_class
left join runners_up as r on l.day = r.day and l.workload_class = r.workload_class
left join best_api as a on l.day = a.day and l.workload_class = a.workload_class
left join {{ ref('dim_gpu') }} as g on l.gpu_id = g.gpu_id
order by l.day, l.workload_class
