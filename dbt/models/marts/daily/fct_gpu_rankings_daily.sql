-- The answer, per day and workload class: every eligible option ranked by cost per accepted
-- output (option_rank: GPU offers and model APIs together), and each GPU ranked by its best
-- offer (gpu_rank, GPU offers only; null on the other offers of that GPU and on APIs).
-- Ties break by the USD price per GPU-hour, then gpu_id, then option key: deterministic. Every
-- day ranked is kept: the table is the ranking history.
with eligible as (
    select *
    from {{ ref('fct_workload_costs_daily') }}
    where is_eligible and cost_per_accepted_output is not null
        and {{ in_window() }}
),

-- The ranks are computed on the few columns they order by and joined back on the costs' grain
-- (day, workload_class, option_key): window functions carrying the wide rows (URLs, hashes,
-- provenance) took twice as long (a full build over 365 days of the scale run: 10 s against 5 s).
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
    from eligible
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
    e.day,
    e.workload_class,
    r.option_rank,
    r.gpu_rank,
    e.option_kind,
    e.option_key,
    e.gpu_id,
    e.provider,
    e.offer_id,
    e.region,
    e.pricing_model,
    e.price_usd_per_gpu_hour,
    e.gpus_needed,
    e.evidence,
    e.runs_used,
    e.unit_outputs_per_s,
    e.accepted_fraction,
    e.effective_hourly_cost,
    e.tokens_per_dollar,
    e.cost_per_1m_accepted_tokens,
    e.cost_per_accepted_output,
    e.output_unit,
    e.slo_status,
    e.is_stale,
    e.days_since_observed,
    e.source,
    e.snapshot_url,
    e.snapshot_fetched_at,
    e.snapshot_sha256
from eligible as e
inner join ranks as r
    on e.day = r.day and e.workload_class = r.workload_class and e.option_key = r.option_key
