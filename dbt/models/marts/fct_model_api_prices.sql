-- The per-token price of each model API in force on the as-of day: from the newest accepted
-- snapshot, the price whose valid_from is the latest on or before that day (no valid_from = in
-- force as far back as known). Announced future prices are not yet in force.
with accepted as (
    {{ accepted_rows(ref('stg_api_prices'), 'api_prices') }}
),

newest_snapshot as (
    select *
    from accepted
    qualify dense_rank() over (
        partition by source order by snapshot_fetched_at desc, snapshot_url
    ) = 1
)

select
    provider,
    model_id,
    model_name,
    input_usd_per_mtok,
    output_usd_per_mtok,
    currency,
    valid_from,
    is_tiered,
    source,
    snapshot_sha256,
    {{ as_of_date() }} as as_of_date
from newest_snapshot
where valid_from is null or valid_from <= {{ as_of_date() }}
qualify row_number() over (
    partition by source, provider, model_id
    order by valid_from desc nulls last, row_index
) = 1
