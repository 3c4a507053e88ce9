-- One rate per (day, currency) as USD per unit of the currency, from the ECB's per-euro rates:
-- usd_per_unit = USD per EUR / currency per EUR. The newest accepted snapshot wins where several
-- carry the same day. EUR itself is 1 per EUR; USD comes out as exactly 1.
-- A table (the folder's views are not): three models read it, and its positive rate is a
-- constraint of its contract, which DuckDB checks as it is written (instead of data tests that
-- each computed the view again over ECB's whole history, 227 k rows); its key is a data test
-- over the table (see _intermediate__models.yml).
{{ config(materialized='table') }}
with accepted as (
    select *
    from ({{ accepted_rows(ref('stg_fx_rates'), 'fx_rates') }})
    where rate_date <= {{ as_of_date() }}
),

latest as (
    select
        rate_date,
        currency,
        per_eur
    from accepted
    qualify row_number() over (
            partition by rate_date, currency
            order by snapshot_fetched_at desc, snapshot_url asc
        ) = 1
),

with_eur as (
    select
        rate_date,
        currency,
        per_eur
    from latest
    union all
    select distinct
        rate_date,
        'EUR' as currency,
        1.0 as per_eur
    from latest
)

select
    c.rate_date,
    c.currency,
    usd.per_eur / c.per_eur as usd_per_unit
from with_eur as c
inner join latest as usd
    on c.rate_date = usd.rate_date and usd.currency = 'USD'
