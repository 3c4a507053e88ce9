-- The price ranking: per day and pricing model, each canonical GPU by its cheapest offer per GPU-hour
-- (USD). Ties break by gpu_id, and the best offer of a GPU by provider, offer, region, zone, so the
-- ranking is deterministic. The ranking by cost per accepted output is fct_gpu_rankings_daily.
with best_offer as (
    select *
    from {{ ref('fct_gpu_offers_daily') }}
    where gpu_id is not null and {{ in_window() }}
        and price_usd_per_gpu_hour is not null
    qualify row_number() over (
            partition by day, pricing_model, gpu_id
            order by price_usd_per_gpu_hour, provider, offer_id, region, zone
        ) = 1
),

offer_counts as (
    select
        day,
        pricing_model,
        gpu_id,
        count(*) as n_offers,
        count(distinct provider) as n_providers
    from {{ ref('fct_gpu_offers_daily') }}
    where gpu_id is not null and price_usd_per_gpu_hour is not null and {{ in_window() }}
    group by all
)

select
    b.day,
    b.pricing_model,
    row_number() over (
        partition by b.day, b.pricing_model
        order by b.price_usd_per_gpu_hour, b.gpu_id
    ) as gpu_rank,
    b.gpu_id,
    b.price_usd_per_gpu_hour as best_price_usd_per_gpu_hour,
    b.provider as best_provider,
    b.offer_id as best_offer_id,
    b.region as best_region,
    b.zone as best_zone,
    b.gpu_count as best_offer_gpu_count,
    b.offer_key as best_offer_key,
    c.n_offers,
    c.n_providers,
    b.observed_at,
    b.is_stale,
    b.days_since_observed,
    b.snapshot_sha256,
    b.snapshot_url
from best_offer as b
inner join offer_counts as c
    on b.day = c.day and b.pricing_model = c.pricing_model and b.gpu_id = c.gpu_id
-- in day order: a full build writes each day's rows together, so that reading a few days (a later
-- build's window, the publication's update) skips the other days' row groups
order by b.day
