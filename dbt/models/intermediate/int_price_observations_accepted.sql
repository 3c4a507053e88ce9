-- Price rows of snapshots whose latest Great Expectations verdict passed, observed on or before the
-- as-of day. Rows of failed snapshots stay in raw (and in stg_price_observations), never here.
select *
from ({{ accepted_rows(ref('stg_price_observations'), 'price_observations') }})
where observed_date <= {{ as_of_date() }}
