-- The per-token price of each model API in force on the as-of day: from the newest accepted
-- snapshot of each source, the price whose valid_from is the latest on or before that day (no
-- valid_from = in force as far back as known). Announced future prices are not yet in force.
-- Prices in another currency are converted to USD at the as-of day's ECB rate (or the nearest
-- earlier business day's), and the rate used is kept; with no rate for the currency the USD
-- columns stay empty (a warning test lists them) instead of the price vanishing.
with accepted as (
    {{ accepted_rows(ref('stg_api_prices'), 'api_prices') }}
),

newest_snapshot as (
    select *
    from accepted
    qualify dense_rank() over (
            partition by source
            order by snapshot_fetched_at desc, snapshot_url asc
        ) = 1
),

in_force as (
    select *
    from newest_snapshot
    where valid_from is null or valid_from <= {{ as_of_date() }}
    qualify row_number() over (
            partition by source, provider, model_id
            order by valid_from desc nulls last, row_index asc
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
    p.is_tiered,
    p.source,
    p.snapshot_fetched_at,
    p.snapshot_sha256,
    {{ as_of_date() }} as as_of_date
from in_force as p
left join fx
    on p.currency = fx.currency
