-- What gpuledger tells people, derived from the rankings: one row per alert with a stable key.
--   rank_change:  a class's rank-1 GPU differs from the previous ranked day's (fct_rank_changes);
--                 key = class | day | new leader GPU.
--   data_quality: (a) the old leader vanished because its source has no fresh data that day
--                 (failed or stale past max_staleness_days): not a ranking alert, the leader is
--                 unknown, "source X down for N days"; key = class | day | dq | source.
--                 (b) the leader's source delivered a capture that day that failed its checks
--                 (the leader is carried forward from an earlier capture); same key shape.
-- change_pct is the new leader's cost against the old leader's on the previous ranked day.
with source_days as (
    select
        day,
        source,
        bool_or(not is_stale) as has_fresh
    from {{ ref('fct_gpu_offers_daily') }}
    where day <= {{ as_of_date() }}
    group by all
),

changes as (
    select
        c.*,
        coalesce(sd.has_fresh, false) as old_source_fresh,
        (
            select max(x.day) from source_days as x
            where x.source = c.old_source and x.has_fresh and x.day < c.day
        ) as old_source_last_fresh_day
    from {{ ref('fct_rank_changes') }} as c
    left join source_days as sd
        on c.day = sd.day and c.old_source = sd.source
    where {{ in_window('c.day') }}
),

rank_alerts as (
    select
        case
            when cause = 'vanished_offer' and not old_source_fresh then 'data_quality'
            else 'rank_change'
        end as alert_kind,
        workload_class,
        day,
        prev_day,
        old_gpu_id,
        old_provider,
        old_offer_id,
        old_cost_per_accepted_output,
        old_evidence,
        new_gpu_id,
        new_provider,
        new_offer_id,
        new_cost_per_accepted_output,
        new_evidence,
        new_slo_status,
        output_unit,
        change_pct,
        is_within_uncertainty,
        cause,
        case when cause = 'vanished_offer' and not old_source_fresh then old_source end as source,
        case when cause = 'vanished_offer' and not old_source_fresh then
                day - old_source_last_fresh_day
        end as days_down,
        cast(null as varchar) as failure_reason
    from changes
),

failed_captures as (
    select
        source,
        cast(snapshot_fetched_at as date) as day,
        min(snapshot_url) as snapshot_url,
        min(cast(failed_expectations as varchar)) as failure_reason
    from {{ ref('stg_snapshot_validations') }}
    where not is_success and {{ in_window('cast(snapshot_fetched_at as date)') }}
    group by all
),

capture_alerts as (
    select
        'data_quality' as alert_kind,
        r.workload_class,
        r.day,
        cast(null as date) as prev_day,
        r.gpu_id as old_gpu_id,
        r.provider as old_provider,
        r.offer_id as old_offer_id,
        r.cost_per_accepted_output as old_cost_per_accepted_output,
        r.evidence as old_evidence,
        cast(null as varchar) as new_gpu_id,
        cast(null as varchar) as new_provider,
        cast(null as varchar) as new_offer_id,
        cast(null as double) as new_cost_per_accepted_output,
        cast(null as varchar) as new_evidence,
        cast(null as varchar) as new_slo_status,
        r.output_unit,
        cast(null as double) as change_pct,
        cast(null as boolean) as is_within_uncertainty,
        'capture_failed' as cause,
        f.source,
        r.days_since_observed as days_down,
        f.snapshot_url || ': ' || f.failure_reason as failure_reason
    from {{ ref('fct_gpu_rankings_daily') }} as r
    inner join failed_captures as f
        on r.source = f.source and r.day = f.day
    where r.gpu_rank = 1 and {{ in_window('r.day') }}
)

select
    a.workload_class || '|' || a.day || '|' || coalesce(
        case when a.alert_kind = 'rank_change' then a.new_gpu_id else 'dq|' || a.source end, ''
    ) as alert_key,
    a.*,
    -- how much of the market that day's prices covered: a change on a thin day says so
    cov.n_providers_fresh as providers_fresh,
    cov.n_providers_recent as providers_recent,
    not coalesce(cov.is_covered, false) as is_low_coverage
from (
    select * from rank_alerts
    union all by name
    select * from capture_alerts
) as a
left join {{ ref('fct_coverage_daily') }} as cov on a.day = cov.day
-- in day order: a full build writes each day's rows together, so that reading a few days (a later
-- build's window, the publication's update) skips the other days' row groups
order by a.day
