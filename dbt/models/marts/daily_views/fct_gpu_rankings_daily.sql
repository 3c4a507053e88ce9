-- The answer, per day and workload class: every eligible option ranked by cost per accepted
-- output (option_rank: GPU offers and model APIs together), and each GPU ranked by its best
-- offer (gpu_rank, GPU offers only; null on the other offers of that GPU and on APIs).
-- The ranks and their deterministic ties are computed with the costs (fct_workload_costs_daily):
-- this is its ranked rows, a view over them (the ranks and the inputs are stored once, in
-- fct_workload_cost_inputs_daily). Every day ranked is kept: the ranking history.

select
    day,
    workload_class,
    option_rank,
    gpu_rank,
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
    cost_per_accepted_output_p10,
    cost_per_accepted_output_p90,
    output_unit,
    slo_status,
    is_stale,
    days_since_observed,
    source,
    snapshot_url,
    snapshot_fetched_at,
    snapshot_sha256
from {{ ref('fct_workload_costs_daily') }}
where option_rank is not null
