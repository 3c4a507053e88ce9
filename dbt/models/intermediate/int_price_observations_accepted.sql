-- Price rows of snapshots whose latest Great Expectations verdict passed, observed on or before the
-- as-of day. Rows of failed snapshots stay in raw (and in stg_price_observations), never here.
with verdicts as (
    select source, snapshot_url, snapshot_fetched_at, is_success
    from {{ ref('stg_snapshot_validations') }}
    where suite = 'price_observations'
)

select obs.*
from {{ ref('stg_price_observations') }} as obs
inner join verdicts
    on obs.source = verdicts.source
    and obs.snapshot_url = verdicts.snapshot_url
    and obs.snapshot_fetched_at = verdicts.snapshot_fetched_at
where verdicts.is_success
    and obs.observed_date <= {{ as_of_date() }}
