select
    source,
    snapshot_url,
    snapshot_fetched_at,
    snapshot_sha256,
    item_ref,
    field,
    reason,
    raw,
    quarantined_at
from {{ source('raw', 'quarantine') }}
