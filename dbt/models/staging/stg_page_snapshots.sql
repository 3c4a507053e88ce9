select
    source,
    url,
    fetched_at,
    cast(fetched_at as date) as fetched_date,
    http_status,
    content_type,
    size_bytes,
    sha256 as snapshot_sha256,
    etag,
    last_modified,
    archive_path,
    origin,
    parser_version,
    loaded_at
from {{ source('raw', 'page_snapshots') }}
