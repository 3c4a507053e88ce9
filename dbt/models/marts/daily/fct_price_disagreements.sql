-- Two sources held against each other: one row per day and pair of offers of two sources that
-- price the same offer of one provider (same GPU, GPU count and pricing model; the same region
-- where both give one, compared without case) on that day, with both USD prices per GPU-hour and
-- the gap between them. Side a is the source the ranking prefers (a provider page before a
-- catalog, seed price_source_kinds), else the first by name. The rule the ranking applies
-- (fct_gpu_offers_daily): where a provider page and a catalog price the same offer, the page's
-- price stands and the catalog's offer is set aside (is_catalog_set_aside); two sources of one
-- kind both stay and the cheaper ranks. A gap above the price_disagreement_tolerance var is
-- named by source health and the day's report: one of the two read the offer wrong, or the
-- catalog is behind the page.
with offers as (
    select
        *,
        case source_kind when 'provider_page' then 1 else 2 end as kind_order
    from {{ ref('int_gpu_offers_priced') }}
    where gpu_id is not null and price_usd_per_gpu_hour is not null and {{ in_window() }}
),

pairs as (
    select
        a.day,
        a.provider,
        a.gpu_id,
        a.gpu_count,
        a.pricing_model,
        coalesce(nullif(a.region, ''), b.region) as region,
        a.source as source_a,
        a.source_kind as source_kind_a,
        a.offer_key as offer_key_a,
        a.offer_id as offer_id_a,
        a.region as region_a,
        a.price_usd_per_gpu_hour as price_usd_per_gpu_hour_a,
        a.is_stale as is_stale_a,
        a.snapshot_sha256 as snapshot_sha256_a,
        b.source as source_b,
        b.source_kind as source_kind_b,
        b.offer_key as offer_key_b,
        b.offer_id as offer_id_b,
        b.region as region_b,
        b.price_usd_per_gpu_hour as price_usd_per_gpu_hour_b,
        b.is_stale as is_stale_b,
        b.snapshot_sha256 as snapshot_sha256_b
    from offers as a
    inner join offers as b
        on a.day = b.day
        and a.provider = b.provider
        and a.gpu_id = b.gpu_id
        and a.gpu_count = b.gpu_count
        and a.pricing_model = b.pricing_model
        and (a.region = '' or b.region = '' or lower(a.region) = lower(b.region))
        -- each pair once, the preferred source first
        and (
            a.kind_order < b.kind_order
            or (a.kind_order = b.kind_order and a.source < b.source)
        )
)

select
    *,
    -- how far apart, relative to the lower price: the higher is this share above it, whichever
    -- side it is on
    abs(price_usd_per_gpu_hour_a - price_usd_per_gpu_hour_b)
    / least(price_usd_per_gpu_hour_a, price_usd_per_gpu_hour_b) as relative_gap,
    abs(price_usd_per_gpu_hour_a - price_usd_per_gpu_hour_b)
    / least(price_usd_per_gpu_hour_a, price_usd_per_gpu_hour_b)
    > {{ var('price_disagreement_tolerance') }} as is_above_tolerance,
    source_kind_a = 'provider_page' and source_kind_b = 'catalog' as is_catalog_set_aside
from pairs
-- in day order: a full build writes each day's rows together (see fct_gpu_offers_daily)
order by day
