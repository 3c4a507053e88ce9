select
    source,
    snapshot_url,
    snapshot_fetched_at,
    snapshot_sha256,
    row_index,
    rate_date,
    upper(currency) as currency,
    per_eur
from {{ source('raw', 'fx_rates') }}
