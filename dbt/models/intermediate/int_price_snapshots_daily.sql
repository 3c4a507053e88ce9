-- For every day from the first accepted observation to the as-of day, and every (source, provider)
-- stream: the latest accepted snapshot observed on or before that day, if it is at most
-- max_staleness_days old, or, for quotes and contracts, not past their valid_until day (they are
-- not stale while valid). A newer snapshot replaces an older one whole, so an offer that vanished
-- from the page vanishes from the day's offers.
with snapshots as (
    select
        source,
        provider,
        snapshot_url,
        snapshot_fetched_at,
        snapshot_sha256,
        max(observed_at) as observed_at,
        -- a later instant never falls on an earlier day: the day of the latest instant is the
        -- latest day, without casting every row (60 ms of 2 M rows at three years of history)
        cast(max(observed_at) as date) as observed_date,
        cast(max(valid_until) as date) as valid_until_date
    from {{ ref('int_price_observations_accepted') }}
    group by all
),

days as (
    select cast(unnest(generate_series(
        (select min(observed_date) from snapshots),
        {{ as_of_date() }},
        interval 1 day
    )) as date) as day
),

in_reach as (
    select
        days.day,
        snapshots.*,
        date_diff('day', snapshots.observed_date, days.day) as days_since_observed
    from days
    inner join snapshots
        on days.day >= snapshots.observed_date
        and days.day <= coalesce(
            snapshots.valid_until_date,
            snapshots.observed_date + {{ var('max_staleness_days') }}
        )
)

select
    *,
    days_since_observed > 0 and valid_until_date is null as is_stale
from in_reach
qualify row_number() over (
        partition by day, source, provider
        order by observed_at desc, snapshot_fetched_at desc, snapshot_url asc
    ) = 1
