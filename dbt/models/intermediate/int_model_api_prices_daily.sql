{{ config(materialized="table") }}
-- Model-API token prices per day, for the API models that serve a model of the model reference
-- (its api_model_pattern against the API's model id; the workloads on that model take them): per
-- day and source, the source's newest accepted catalog taken on or before the day (a page's, for a
-- source of pages: each page is a catalog; macros/api_prices.sql), and from it
-- the price with the latest valid_from on or before the day, in USD at that day's ECB rate (or the
-- nearest earlier business day's). A day before a source's first catalog takes that first one:
-- its prices the catalog dates from the day or earlier, and those it gives no start date, assumed
-- in force then if the catalog was taken at most api_price_assumed_days later (price_basis says
-- which). So a day's prices are what was known by that day
-- wherever a catalog of the time exists, and a backfill prices a day as its own run did.
-- A table: every call of analytics.rank_workload reads it (as a view, 0.1 s of each call).
with days as (
    select distinct day from {{ ref('fct_gpu_offers_daily') }}
),

accepted as (
    {{ accepted_rows(ref('stg_api_prices'), 'api_prices') }}
),

-- the catalogs, one per day taken (the day's newest) of each stream: a whole-catalog source, or
-- a page of the others (macros/api_prices.sql)
snapshots as (
    {{ api_price_snapshots('accepted') }}
),

catalogs as (
    select
        stream,
        source,
        snapshot_url,
        snapshot_fetched_at,
        taken_on
    from snapshots
    qualify row_number() over (
            partition by stream, taken_on
            order by snapshot_fetched_at desc, snapshot_url asc
        ) = 1
),

first_catalogs as (
    select *
    from catalogs
    qualify row_number() over (
            partition by stream
            order by taken_on asc
        ) = 1
),

stream_days as (
    select
        d.day,
        f.stream
    from days as d
    cross join first_catalogs as f
),

-- per day and stream: the newest catalog taken on or before the day, else the stream's first
day_catalogs as (
    select
        sd.day,
        coalesce(c.source, f.source) as source,
        coalesce(c.snapshot_url, f.snapshot_url) as snapshot_url,
        coalesce(c.snapshot_fetched_at, f.snapshot_fetched_at) as snapshot_fetched_at,
        coalesce(c.taken_on, f.taken_on) as taken_on,
        c.snapshot_url is not null as taken_by_the_day
    from stream_days as sd
    asof left join catalogs as c
        on sd.stream = c.stream and sd.day >= c.taken_on
    left join first_catalogs as f
        on sd.stream = f.stream
),

-- Each API model id (lower case) against each pattern once: a pattern that is a column is
-- compiled anew for every row it is matched against (0.12 s over the 2,425 priced rows of the
-- demo's catalogs, 0.045 s over their 1,646 ids), and this view is read twice a day.
serving as (
    select
        k.model_key,
        m.model_ref
    from (select distinct lower(model_id) as model_key from accepted) as k
    inner join {{ ref('model_reference') }} as m
        on m.api_model_pattern is not null
        and regexp_matches(k.model_key, m.api_model_pattern)
),

matched as (
    select
        s.model_ref,
        a.*
    from accepted as a
    inner join serving as s
        on lower(a.model_id) = s.model_key
    where a.input_per_mtok is not null and a.output_per_mtok is not null
),

in_force as (
    select
        d.day,
        {{ api_price_basis('d.taken_by_the_day', 'm.valid_from') }} as price_basis,
        m.*
    from day_catalogs as d
    inner join matched as m
        on d.source = m.source
        and d.snapshot_url = m.snapshot_url
        and d.snapshot_fetched_at = m.snapshot_fetched_at
        and (m.valid_from is null or d.day >= m.valid_from)
        and {{ api_price_stands_for('d.day', 'd.taken_on', 'd.taken_by_the_day', 'm.valid_from') }}
    -- of two pages pricing the same model API: a catalog of the day over a later one, then the
    -- one taken nearest the day; in a catalog, the price with the latest start
    qualify row_number() over (
            partition by d.day, m.model_ref, m.source, m.provider, m.model_id
            order by
                d.taken_by_the_day desc,
                abs(date_diff('day', d.taken_on, d.day)) asc,
                m.snapshot_fetched_at desc,
                m.valid_from desc nulls last,
                m.row_index asc
        ) = 1
),

-- The rate of each (day, currency) needed, looked up once: an ASOF join straight against the
-- priced rows is planned poorly by DuckDB (seconds instead of milliseconds).
fx_needed as (
    select
        n.day,
        n.currency,
        fx.usd_per_unit,
        fx.rate_date
    from (
        select distinct
            day,
            currency
        from in_force
        where currency <> 'USD'
    ) as n
    asof left join {{ ref('int_fx_rates_usd') }} as fx
        on n.currency = fx.currency and n.day >= fx.rate_date
)

select
    p.day,
    p.model_ref,
    p.source,
    p.provider,
    p.model_id,
    p.currency,
    p.input_per_mtok,
    p.output_per_mtok,
    case when p.currency = 'USD' then 1.0 else fx.usd_per_unit end as fx_usd_per_unit,
    case when p.currency = 'USD' then null else fx.rate_date end as fx_rate_date,
    p.input_per_mtok * case when p.currency = 'USD' then 1.0 else fx.usd_per_unit end
        as input_usd_per_mtok,
    p.output_per_mtok * case when p.currency = 'USD' then 1.0 else fx.usd_per_unit end
        as output_usd_per_mtok,
    p.valid_from,
    p.price_basis,
    p.is_tiered,
    {{ is_batch_endpoint('p.model_id', 'p.model_name') }} as is_batch_endpoint,
    p.snapshot_url,
    p.snapshot_fetched_at,
    p.snapshot_sha256
from in_force as p
left join fx_needed as fx on p.day = fx.day and p.currency = fx.currency
