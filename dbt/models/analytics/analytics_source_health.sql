{{ config(alias="source_health") }}

-- Each source as of the build day: last successful fetch, newest accepted capture, staleness,
-- failures. A stale source's prices are carried forward and flagged; a down source's are dropped.
select
    source,
    as_of_date,
    last_fetch_ok_at,
    newest_accepted_at,
    days_since_newest,
    n_accepted_snapshots,
    cast(rows_newest_day as bigint) as rows_newest_day,
    is_stale,
    is_down,
    n_fetch_failures,
    last_failure_at,
    last_failure_kind,
    last_failure_reason
from {{ ref('source_health') }}
