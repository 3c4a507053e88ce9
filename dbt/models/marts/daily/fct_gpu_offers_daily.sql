-- One row per day and offer (provider, offer_id, region, zone, pricing model): the offer's price per
-- GPU-hour in USD as of that day, with the snapshot it came from and whether it is carried forward.
-- Several sources' prices of a day meet here (int_gpu_offers_priced holds each source's), and
-- this is the rule they meet by: where the provider's own page and a catalog price the same offer
-- (fct_price_disagreements: same provider, GPU, GPU count, pricing model and region where both
-- give one), the page's price stands and the catalog's offer is set aside, whatever either costs.
-- Two sources of one kind (CoreWeave's page and its docs) both stay and the cheaper ranks.
with offers as (
    select *
    from {{ ref('int_gpu_offers_priced') }} as o
    where {{ in_window('o.day') }}
        and not exists (
            select 1
            from {{ ref('fct_price_disagreements') }} as d
            where d.is_catalog_set_aside
                and d.day = o.day
                and d.source_b = o.source
                and d.offer_key_b = o.offer_key
                and {{ in_window('d.day') }}
        )
)

select * exclude (source_kind)
from offers
-- Two sources with the same offer id for one offer (no rule above between them): the cheaper
-- listing stands. The order is total, so any build of a day keeps the same listing.
qualify row_number() over (
        partition by day, provider, offer_id, region, zone, pricing_model
        order by
            price_per_hour, gpu_name_raw, gpu_count, vcpus nulls last, ram_gb nulls last,
            snapshot_url, snapshot_fetched_at, gpu_id nulls last, source
    ) = 1
-- in day order: a full build writes each day's rows together, so that reading a few days (a later
-- build's window, the publication's update) skips the other days' row groups
order by day
