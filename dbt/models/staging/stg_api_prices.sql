select
    source,
    snapshot_url,
    snapshot_fetched_at,
    snapshot_sha256,
    row_index,
    lower(provider) as provider,
    model_id,
    model_name,
    input_per_mtok,
    output_per_mtok,
    upper(currency) as currency,
    valid_from,
    is_tiered,
    observed_at
from {{ source('raw', 'api_prices') }}
