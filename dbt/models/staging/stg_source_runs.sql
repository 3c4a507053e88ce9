select
    run_id,
    source,
    url,
    started_at,
    fetch_status,
    fetch_error,
    used_archive
from {{ source('raw', 'source_runs') }}
