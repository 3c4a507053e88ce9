-- How much of the market each day's prices cover, and the day the first screen shows.
with coverage as (
    select * from {{ ref('fct_coverage_daily') }}
),

shown as (
    select
        coalesce(
            max(day) filter (where is_covered), max(day)
        ) as day
    from coverage
)

select
    c.day,
    c.is_covered,
    c.day = s.day as is_shown_day,
    cast(c.fresh_provider_share as double) as fresh_provider_share,
    c.min_fresh_provider_share,
    c.n_providers_recent,
    c.n_providers_fresh,
    c.n_providers_stale,
    c.n_providers_down,
    c.providers_fresh,
    c.providers_stale,
    c.providers_down,
    c.n_sources_recent,
    c.n_sources_fresh,
    c.n_sources_stale,
    c.n_sources_down,
    c.sources_fresh,
    c.sources_stale,
    c.sources_down,
    c.n_offers_present,
    c.n_offers_recent,
    cast(c.offers_present_share as double) as offers_present_share
from coverage as c
cross join shown as s
