-- Point in time: one row per day and offer with the price gpuledger held for that day (the latest
-- accepted capture at most max_staleness_days old). Filtering on day answers "what was the price on
-- day D" with what was known then; carried-forward prices are flagged is_stale.
select
    day,
    gpu_id,
    provider,
    offer_id,
    region,
    zone,
    pricing_model,
    gpu_count,
    price_per_hour,
    currency,
    price_usd_per_gpu_hour,
    fx_usd_per_unit,
    fx_rate_date,
    observed_at,
    days_since_observed,
    is_stale,
    gpu_name_raw,
    source,
    snapshot_url,
    snapshot_sha256
from {{ ref('fct_gpu_offers_daily') }}
where gpu_id is not null
