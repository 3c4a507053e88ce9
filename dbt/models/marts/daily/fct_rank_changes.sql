-- Each (workload class, day) whose rank-1 GPU differs from the previous ranked day's, with the
-- old and new leader and the cause, decided in this order:
--   vanished_offer: the old leader's offer is not eligible today (its source failed or went
--                   stale past max_staleness_days, or the provider stopped listing it);
--   new_offer:      the new leader's offer was not eligible on the previous day (a new listing,
--                   or a GPU gpuledger had no offer of);
--   new_evidence:   the throughput evidence of the old or new leader changed (measured vs
--                   estimated, the runs used, or the figure);
--   price_change:   otherwise: prices moved the order.
-- is_within_uncertainty: the new and old leader's p10-p90 cost intervals overlap.
-- new_slo_status: whether the new leader meets the class's latency target (fct_gpu_rankings_daily).
-- The rank-1 rows the changes are found in: every day's in a full build; in an incremental one the
-- window's, and per class its last one before the window (what the window's first ranked day is
-- compared with, however long ago). Reading every day's leaders (the costs computed for each), a
-- day's build of this model took 0.45 s at three years of history against 0.11 s at 30 days.
with rank_one as (
    select r.*
    from {{ ref('fct_gpu_rankings_daily') }} as r
    where r.gpu_rank = 1 and r.day <= {{ as_of_date() }}
    {%- if is_incremental() %}
        and r.day >= {{ window_start() }}
    union all
    select r.*
    from {{ ref('fct_gpu_rankings_daily') }} as r
    inner join (
        select
            workload_class,
            max(day) as day
        from {{ ref('fct_gpu_rankings_daily') }}
        where gpu_rank = 1 and day < {{ window_start() }}
        group by workload_class
    ) as before_window
        on r.workload_class = before_window.workload_class and r.day = before_window.day
    where r.gpu_rank = 1
    {%- endif %}
),

leaders as (
    select
        r.*,
        lag(r.day) over w as prev_day,
        lag(r.gpu_id) over w as prev_gpu_id,
        lag(r.provider) over w as prev_provider,
        lag(r.offer_id) over w as prev_offer_id,
        lag(r.option_key) over w as prev_option_key,
        lag(r.cost_per_accepted_output) over w as prev_cost_per_accepted_output,
        lag(r.cost_per_accepted_output_p10) over w as prev_cost_p10,
        lag(r.cost_per_accepted_output_p90) over w as prev_cost_p90,
        lag(r.evidence) over w as prev_evidence,
        lag(r.source) over w as prev_source
    from rank_one as r
    window w as (
        partition by workload_class
        order by day
    )
),

changes as (
    select *
    from leaders
    where prev_gpu_id is not null and gpu_id <> prev_gpu_id and {{ in_window() }}
),

-- The days of the changes and the days before them, joined (not `day in (select ...)`): DuckDB
-- then reads only the costs' row groups of those days (it passes a join's key range to the
-- scan); the subqueries read every day's costs (0.35 s a day at three years, no change found).
change_days as (
    select day from changes
    union
    select prev_day from changes
),

eligible_offers as (
    select distinct
        c.day,
        c.workload_class,
        c.option_key
    from {{ ref('fct_workload_costs_daily') }} as c
    inner join change_days as cd on c.day = cd.day
    where c.is_eligible and c.option_kind = 'gpu_offer'
),

evidence_by_day as (
    select distinct
        c.day,
        c.workload_class,
        c.gpu_id,
        c.evidence,
        c.runs_used,
        round(c.unit_outputs_per_s, 6) as unit_outputs_per_s
    from {{ ref('fct_workload_costs_daily') }} as c
    inner join change_days as cd on c.day = cd.day
    where c.option_kind = 'gpu_offer' and c.is_eligible
)

select
    c.workload_class,
    c.day,
    c.prev_day,
    c.prev_gpu_id as old_gpu_id,
    c.prev_provider as old_provider,
    c.prev_offer_id as old_offer_id,
    c.prev_cost_per_accepted_output as old_cost_per_accepted_output,
    c.prev_evidence as old_evidence,
    c.prev_source as old_source,
    c.gpu_id as new_gpu_id,
    c.provider as new_provider,
    c.offer_id as new_offer_id,
    c.cost_per_accepted_output as new_cost_per_accepted_output,
    c.evidence as new_evidence,
    c.slo_status as new_slo_status,
    c.output_unit,
    c.cost_per_accepted_output / c.prev_cost_per_accepted_output - 1 as change_pct,
    -- the new leader's p10-p90 cost interval overlaps the old leader's of the day before: the
    -- change lies within what the evidence can tell apart (a missing interval counts as
    -- overlapping: nothing shows the change to be real)
    coalesce(
        c.cost_per_accepted_output_p90 >= c.prev_cost_p10
        and c.prev_cost_p90 >= c.cost_per_accepted_output_p10,
        true
    ) as is_within_uncertainty,
    case
        when old_today.option_key is null then 'vanished_offer'
        when new_before.option_key is null then 'new_offer'
        when exists (
                select 1
                from evidence_by_day as a
                inner join evidence_by_day as b
                    on a.workload_class = b.workload_class and a.gpu_id = b.gpu_id
                where a.workload_class = c.workload_class
                    and a.day = c.day and b.day = c.prev_day
                    and a.gpu_id in (c.gpu_id, c.prev_gpu_id)
                    and (
                        a.evidence is distinct from b.evidence
                        or a.runs_used is distinct from b.runs_used
                        or a.unit_outputs_per_s is distinct from b.unit_outputs_per_s
                    )
            ) then 'new_evidence'
        else 'price_change'
    end as cause
from changes as c
left join eligible_offers as old_today
    on c.day = old_today.day and c.workload_class = old_today.workload_class
    and c.prev_option_key = old_today.option_key
left join eligible_offers as new_before
    on c.prev_day = new_before.day and c.workload_class = new_before.workload_class
    and c.option_key = new_before.option_key
-- in day order: a full build writes each day's rows together, so that reading a few days (a later
-- build's window, the publication's update) skips the other days' row groups
order by c.day
