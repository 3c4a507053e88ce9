-- Stable analysts' view (contract in _analytics__models.yml) over marts.fct_class_leaders_daily.
-- is_latest_day is computed here, not stored: a past day's mart row never changes (incremental).
select
    day,
    workload_class,
    day = max(day) over (partition by workload_class) as is_latest_day,
    * exclude (day, workload_class)
from {{ ref('fct_class_leaders_daily') }}
