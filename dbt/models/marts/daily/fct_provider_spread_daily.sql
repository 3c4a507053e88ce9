-- How far apart providers price the same GPU on the same day and pricing model: each provider's
-- cheapest offer, then the cheapest and dearest provider and the spread between them.
with per_provider as (
    select
        day,
        gpu_id,
        pricing_model,
        provider,
        min(price_usd_per_gpu_hour) as price_usd_per_gpu_hour,
        bool_or(is_stale) as any_stale
    from {{ ref('fct_gpu_offers_daily') }}
    where gpu_id is not null and price_usd_per_gpu_hour is not null and {{ in_window() }}
    group by all
)

select
    day,
    gpu_id,
    pricing_model,
    count(*) as n_providers,
    arg_min(provider, (price_usd_per_gpu_hour, provider)) as cheapest_provider,
    min(price_usd_per_gpu_hour) as cheapest_usd_per_gpu_hour,
    median(price_usd_per_gpu_hour) as median_usd_per_gpu_hour,
    arg_max(provider, (price_usd_per_gpu_hour, provider)) as dearest_provider,
    max(price_usd_per_gpu_hour) as dearest_usd_per_gpu_hour,
    max(price_usd_per_gpu_hour) - min(price_usd_per_gpu_hour) as spread_usd_per_gpu_hour,
    round(100 * (max(price_usd_per_gpu_hour) / min(price_usd_per_gpu_hour) - 1), 2) as spread_pct,
    bool_or(any_stale) as any_stale
from per_provider
group by all
order by day, gpu_id, pricing_model
