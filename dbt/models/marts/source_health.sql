-- Per source: when it last worked, when it last failed and why, how much its newest accepted
-- snapshot holds, and how old that is relative to the as-of day. A source whose newest accepted
-- data is older than max_staleness_days is down: its offers have dropped out of the marts.
-- A source that holds only GPU specs or benchmark runs keeps its data until newer data replaces
-- it (a spec sheet or a published run does not expire), so its age is no fault: once it has
-- accepted data, it is neither stale nor down.
with fetches as (
    select
        source,
        max(started_at) filter (where fetch_status in ('fetched', 'not_modified')) as last_fetch_ok_at,
        count(*) filter (where fetch_status = 'failed') as n_fetch_failures
    from {{ ref('stg_source_runs') }}
    group by 1
),

failures as (
    select
        source,
        started_at as failed_at,
        'fetch' as failure_kind,
        fetch_error as reason
    from {{ ref('stg_source_runs') }}
    where fetch_status = 'failed'
    union all
    select
        source,
        snapshot_fetched_at as failed_at,
        case when failed_expectations like '%"parse"%' then 'parse' else 'validation' end as failure_kind,
        suite || ': ' || failed_expectations as reason
    from {{ ref('stg_snapshot_validations') }}
    where not is_success
),

last_failure as (
    select *
    from failures
    qualify row_number() over (
            partition by source
            order by failed_at desc, reason asc
        ) = 1
),

accepted as (
    select
        v.source,
        v.snapshot_url,
        v.snapshot_fetched_at,
        v.suite,
        v.row_count
    from {{ ref('stg_snapshot_validations') }} as v
    where v.is_success
        and cast(v.snapshot_fetched_at as date) <= {{ as_of_date() }}
),

newest as (
    select
        source,
        max(snapshot_fetched_at) as newest_accepted_at,
        count(*) as n_accepted_snapshots
    from accepted
    group by 1
),

-- Rows of the accepted snapshots fetched on the newest day: prices (or rates), else spec rows.
newest_rows as (
    select
        a.source,
        coalesce(
            sum(a.row_count) filter (where a.suite <> 'gpu_specs'),
            sum(a.row_count)
        ) as rows_newest_day
    from accepted as a
    inner join newest as n
        on a.source = n.source and cast(a.snapshot_fetched_at as date) = cast(n.newest_accepted_at as date)
    group by 1
),

-- Reference rates are facts about their rate date, whenever the file carrying them was fetched.
fx_newest as (
    select
        fx.source,
        cast(max(fx.rate_date) as timestamptz) as newest_accepted_at,
        count(distinct fx.snapshot_url || cast(fx.snapshot_fetched_at as varchar)) as n_accepted_snapshots
    from ({{ accepted_rows(ref('stg_fx_rates'), 'fx_rates') }}) as fx
    where fx.rate_date <= {{ as_of_date() }}
    group by 1
),

fx_newest_rows as (
    select
        fx.source,
        count(distinct fx.currency) as rows_newest_day
    from {{ ref('stg_fx_rates') }} as fx
    inner join fx_newest as n
        on fx.source = n.source and fx.rate_date = cast(n.newest_accepted_at as date)
    group by 1
),

combined as (
    select
        coalesce(fx.source, n.source) as source,
        coalesce(fx.newest_accepted_at, n.newest_accepted_at) as newest_accepted_at,
        coalesce(fx.n_accepted_snapshots, n.n_accepted_snapshots) as n_accepted_snapshots,
        coalesce(fxr.rows_newest_day, r.rows_newest_day) as rows_newest_day
    from newest as n
    full outer join fx_newest as fx on n.source = fx.source
    left join newest_rows as r on n.source = r.source
    left join fx_newest_rows as fxr on fx.source = fxr.source
),

-- every snapshot of the source, accepted or not, holds GPU specs or benchmark runs
kept_until_replaced as (
    select
        source,
        bool_and(suite in ('gpu_specs', 'benchmark_runs')) as keeps_data
    from {{ ref('stg_snapshot_validations') }}
    group by 1
),

all_sources as (
    select distinct source from {{ ref('stg_page_snapshots') }}
    union
    select distinct source from {{ ref('stg_source_runs') }}
)

select
    s.source,
    f.last_fetch_ok_at,
    n.newest_accepted_at,
    n.n_accepted_snapshots,
    n.rows_newest_day,
    date_diff('day', cast(n.newest_accepted_at as date), {{ as_of_date() }}) as days_since_newest,
    coalesce(k.keeps_data, false) as keeps_data,
    -- (a source of specs or runs with nothing accepted yet has nothing to keep: down)
    case
        when k.keeps_data and n.newest_accepted_at is not null then false
        else coalesce(date_diff('day', cast(n.newest_accepted_at as date), {{ as_of_date() }}) > 0, true)
    end as is_stale,
    case
        when k.keeps_data and n.newest_accepted_at is not null then false
        else coalesce(
                date_diff('day', cast(n.newest_accepted_at as date), {{ as_of_date() }})
                > {{ var('max_staleness_days') }},
                true
            )
    end as is_down,
    lf.failed_at as last_failure_at,
    lf.failure_kind as last_failure_kind,
    lf.reason as last_failure_reason,
    coalesce(f.n_fetch_failures, 0) as n_fetch_failures,
    {{ as_of_date() }} as as_of_date
from all_sources as s
left join fetches as f on s.source = f.source
left join combined as n on s.source = n.source
left join last_failure as lf on s.source = lf.source
left join kept_until_replaced as k on s.source = k.source
