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

ranked as (
    select
        *,
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
)

select
    day,
    workload_class,
    option_rank,
    case when is_best_offer_of_gpu then
            row_number() over (
                partition by day, workload_class, is_best_offer_of_gpu
                order by cost_per_accepted_output, price_usd_per_gpu_hour, gpu_id
            )
    end as gpu_rank,
    option_kind,
    option_key,
    gpu_id,
    provider,
    offer_id,
    region,
    pricing_model,
    price_usd_per_gpu_hour,
    gpus_needed,
    evidence,
    runs_used,
    unit_outputs_per_s,
    accepted_fraction,
    effective_hourly_cost,
    tokens_per_dollar,
    cost_per_1m_accepted_tokens,
    cost_per_accepted_output,
    output_unit,
    slo_status,
    is_stale,
    days_since_observed,
    source,
    snapshot_url,
    snapshot_fetched_at,
    snapshot_sha256
from ranked
