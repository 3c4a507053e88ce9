-- The per-token price of each model API in force on the as-of day: per catalog (a source's, or
-- for a source of pages each page's: macros/api_prices.sql) the newest taken on or before
-- that day (before its first: that first one), and in it the price whose valid_from is the
-- latest on or before the day; price_basis says whether the catalog was taken by the day, or
-- later and dates the price from the day or earlier, or later and gives no start date (the price
-- assumed in force then, if taken at most api_price_assumed_days later), as in
-- int_model_api_prices_daily. Announced future prices are not yet
-- in force. Two pages of a source pricing one model API: the one of the day, else the nearest.
-- Prices in another currency are converted to USD at the as-of day's ECB rate (or the nearest
-- earlier business day's), and the rate used is kept; with no rate for the currency the USD
-- columns stay empty (a warning test lists them) instead of the price vanishing.
with accepted as (
    {{ accepted_rows(ref('stg_api_prices'), 'api_prices') }}
),

snapshots as (
    {{ api_price_snapshots('accepted') }}
),

day_snapshot as (
    select
        source,
        snapshot_url,
        snapshot_fetched_at,
        taken_on,
        taken_on <= {{ as_of_date() }} as taken_by_the_day
    from snapshots
    qualify row_number() over (
            partition by stream
            order by
                taken_on <= {{ as_of_date() }} desc,
                case when taken_on <= {{ as_of_date() }} then snapshot_fetched_at end desc,
                taken_on asc,
                snapshot_fetched_at desc,
                snapshot_url asc
        ) = 1
),

in_force as (
    select
        a.*,
        {{ api_price_basis('d.taken_by_the_day', 'a.valid_from') }} as price_basis
    from accepted as a
    inner join day_snapshot as d
        on a.source = d.source
        and a.snapshot_url = d.snapshot_url
        and a.snapshot_fetched_at = d.snapshot_fetched_at
    where
        (a.valid_from is null or a.valid_from <= {{ as_of_date() }})
        and {{ api_price_stands_for(as_of_date(), 'd.taken_on', 'd.taken_by_the_day', 'a.valid_from') }}
    -- of two pages pricing the same model API: a catalog of the day over a later one, then the
    -- one taken nearest the day; in a catalog, the price with the latest start
    qualify row_number() over (
            partition by a.source, a.provider, a.model_id
            order by
                d.taken_by_the_day desc,
                abs(date_diff('day', d.taken_on, {{ as_of_date() }})) asc,
                a.snapshot_fetched_at desc,
                a.valid_from desc nulls last,
                a.row_index asc
        ) = 1
),

fx as (
    select
        currency,
        usd_per_unit,
        rate_date
    from {{ ref('int_fx_rates_usd') }}
    qualify row_number() over (
            partition by currency
            order by rate_date desc
        ) = 1
)

select
    p.provider,
    p.model_id,
    p.model_name,
    case when p.currency = 'USD' then p.input_per_mtok else p.input_per_mtok * fx.usd_per_unit end
        as input_usd_per_mtok,
    case when p.currency = 'USD' then p.output_per_mtok else p.output_per_mtok * fx.usd_per_unit end
        as output_usd_per_mtok,
    p.currency,
    p.input_per_mtok,
    p.output_per_mtok,
    case when p.currency = 'USD' then 1.0 else fx.usd_per_unit end as fx_usd_per_unit,
    case when p.currency = 'USD' then null else fx.rate_date end as fx_rate_date,
    p.valid_from,
    p.price_basis,
    p.is_tiered,
    {{ is_batch_endpoint('p.model_id', 'p.model_name') }} as is_batch_endpoint,
    p.source,
    p.snapshot_fetched_at,
    p.snapshot_sha256,
    {{ as_of_date() }} as as_of_date
from in_force as p
left join fx
    on p.currency = fx.currency
