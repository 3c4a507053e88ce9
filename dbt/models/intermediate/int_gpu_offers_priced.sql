-- One row per day, source and offer (provider, offer_id, region, zone, pricing model): the
-- offer's price per GPU-hour in USD as of that day, with the snapshot it came from, whether it is
-- carried forward, and what kind of source priced it (seed price_source_kinds). Every source's
-- offers are here; where two sources price the same offer, fct_price_disagreements pairs them
-- and fct_gpu_offers_daily keeps the one the ranking takes.
-- The ECB's rates per day, and USD itself at 1 from the ECB's first day.
with fx_rates as (
    select * from {{ ref('int_fx_rates_usd') }}
    union all
    select
        cast('1999-01-04' as date) as rate_date,
        'USD' as currency,
        1.0 as usd_per_unit
),

offers as (
    select
        snap.day,
        obs.source,
        -- the one place a source's kind is decided: the seed, else a source named after the
        -- provider it prices is that provider's own page (the configured price pages are),
        -- else a catalog, which never overrides a page
        coalesce(
            kinds.source_kind,
            case when obs.source = obs.provider then 'provider_page' else 'catalog' end
        ) as source_kind,
        obs.provider,
        obs.offer_id,
        obs.region,
        obs.zone,
        obs.pricing_model,
        obs.gpu_name_raw,
        names.gpu_id,
        names.resolution as gpu_resolution,
        obs.gpu_count,
        obs.price_per_hour,
        obs.currency,
        obs.price_per_hour / obs.gpu_count * fx.usd_per_unit as price_usd_per_gpu_hour,
        obs.price_qualifier,
        fx.usd_per_unit as fx_usd_per_unit,
        fx.rate_date as fx_rate_date,
        obs.vcpus,
        obs.ram_gb,
        obs.observed_at,
        obs.observed_date,
        snap.days_since_observed,
        snap.is_stale,
        obs.snapshot_url,
        obs.snapshot_sha256,
        obs.snapshot_fetched_at,
        obs.parser_version
    from {{ ref('int_price_snapshots_daily') }} as snap
    inner join {{ ref('int_price_observations_accepted') }} as obs
        on snap.source = obs.source
        and snap.provider = obs.provider
        and snap.snapshot_url = obs.snapshot_url
        and snap.snapshot_fetched_at = obs.snapshot_fetched_at
    -- The rate of the observation day or the nearest earlier ECB business day. USD needs no rate.
    asof left join fx_rates as fx
        on obs.currency = fx.currency
        and obs.observed_date >= fx.rate_date
    left join {{ ref('int_gpu_names_resolved') }} as names
        on obs.provider = names.provider
        and obs.gpu_name_raw = names.gpu_name_raw
        and obs.offer_id = names.offer_id
        and names.gpu_memory_gb is not distinct from obs.gpu_memory_gb
    left join {{ ref('price_source_kinds') }} as kinds
        on obs.source = kinds.source
)

select
    md5(concat_ws('|', provider, offer_id, region, zone, pricing_model)) as offer_key,
    *
from offers
-- A page may list the same offer twice; the cheaper listing stands (the other stays in raw). The
-- order is total, so any build of a day (that day alone, or every day) keeps the same listing.
qualify row_number() over (
        partition by day, source, provider, offer_id, region, zone, pricing_model
        order by
            price_per_hour, gpu_name_raw, gpu_count, vcpus nulls last, ram_gb nulls last,
            snapshot_url, snapshot_fetched_at, gpu_id nulls last
    ) = 1
