select
    source,
    snapshot_url,
    snapshot_fetched_at,
    snapshot_sha256,
    suite,
    success as is_success,
    row_count,
    failed_expectations,
    sample_rows,
    validated_at
from {{ source('raw', 'snapshot_validations') }}
