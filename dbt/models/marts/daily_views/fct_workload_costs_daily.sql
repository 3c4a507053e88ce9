-- The economics, per (day, workload class, option): every GPU offer of an allowed pricing model
-- (and every model API serving the class's model) with what one accepted output costs on it,
-- computed as it is read from the stored inputs and ranks (fct_workload_cost_inputs_daily):
--   effective_hourly_cost = gpus_needed x price_usd_per_gpu_hour / target_utilization + overhead
--   accepted_fraction = success_fraction (runs) x quality_pass_rate (class)
--   accepted_output_tokens_per_hour = unit outputs/s (tokens/s for LLM serving) x 3600 x
--     accepted_fraction (x tokens_per_output for training)
--   accepted_outputs_per_hour, in the class unit = unit outputs/s x 3600 x accepted_fraction
--     (/ output_len for a request, / 1e6 for 1M tokens)
--   tokens_per_dollar = accepted output tokens per hour / effective_hourly_cost
--   cost_per_1m_accepted_tokens = effective_hourly_cost / accepted output tokens per hour x 1e6
--   cost_per_accepted_output, in the class unit: per request (output_len tokens), per 1M tokens,
--   per training sample, per image.
--   cost_per_accepted_output_p10 / _p90: its interval from the throughput's p10-p90 (the
--   measured runs' spread or the calibration's), the cost going as 1 / throughput.
-- Model APIs: accepted fraction = quality_pass_rate; no GPU, no hourly cost.
-- The arithmetic is macros/economics.sql's with_cost_measures (main.wl_cost_measures), the one
-- the ranks were ordered by.

with costs as (
    select *
    from {{ workload_macro('cost_measures') }}(
        {{ table_name(ref('fct_workload_cost_inputs_daily')) }}
    )
)

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
    accepted_fraction,
    slo_status,
    runs_used,
    target_utilization,
    overhead_usd_per_hour,
    effective_hourly_cost,
    accepted_outputs_per_hour,
    accepted_output_tokens_per_hour,
    tokens_per_dollar,
    cost_per_1m_accepted_tokens,
    output_unit,
    cost_per_accepted_output,
    cost_per_accepted_output_p10,
    cost_per_accepted_output_p90,
    is_eligible,
    ineligible_reason,
    is_stale,
    days_since_observed,
    observed_at,
    source,
    snapshot_url,
    snapshot_fetched_at,
    snapshot_sha256,
    option_rank,
    gpu_rank
from costs
