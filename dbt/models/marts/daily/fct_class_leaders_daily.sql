-- Per day and workload class: the GPU whose best eligible offer has the lowest cost per accepted
-- output (gpu_rank 1), the runner-up for context, and the cheapest model API for comparison.
-- is_tied_within_evidence: the leader's p10-p90 cost interval overlaps the runner-up's.
-- evidence_basis says in words what the leader's throughput rests on, and for an estimate why
-- nothing better exists (fct_throughput_evidence of that day's evidence epoch).
with gpus as (
    select * from {{ ref('fct_gpu_rankings_daily') }}
    where option_kind = 'gpu_offer' and gpu_rank is not null and {{ in_window() }}
),

leaders as (
    select * from gpus
    where gpu_rank = 1
),

runners_up as (
    select
        day,
        workload_class,
        gpu_id,
        cost_per_accepted_output,
        cost_per_accepted_output_p10,
        cost_per_accepted_output_p90
    from gpus
    where gpu_rank = 2
),

counts as (
    select
        day,
        workload_class,
        count(*) as n_gpus_ranked
    from gpus
    group by all
),

best_api as (
    select
        day,
        workload_class,
        provider,
        offer_id,
        cost_per_accepted_output
    from {{ ref('fct_gpu_rankings_daily') }}
    where option_kind = 'model_api' and {{ in_window() }}
    qualify row_number() over (
            partition by day, workload_class
            order by option_rank
        ) = 1
),

basis as (
    select
        l.day,
        l.workload_class,
        case
            when e.evidence = 'measured'
                then 'measured: ' || e.n_runs_used
                    || if(e.n_runs_used = 1, ' run', ' runs') || ' of this class on this GPU'
            when e.evidence = 'calibrated'
                then 'calibrated: the model x ' || e.calibration_runs
                    || if(e.calibration_runs = 1, ' run', ' runs') || ' on this kind of GPU'
            when e.calibration_source = 'architecture'
                then 'estimated: no run on this kind of GPU; the model x the runs of '
                    || coalesce(e.calibration_comparable_gpus, 'its architecture')
            when e.calibration_source = 'vendor'
                then 'estimated: no run on this GPU''s architecture; the model x the runs of '
                    || coalesce(e.calibration_comparable_gpus, 'its vendor''s GPUs')
            when e.calibration_source = 'all_gpus'
                then 'estimated: no run on this GPU''s architecture; the model x the runs of '
                    || coalesce(e.calibration_comparable_gpus, 'all GPUs')
            when e.calibration_source = 'uncalibrated'
                then 'estimated: the uncalibrated model; no run of this kind of workload exists'
        end as evidence_basis
    from leaders as l
    inner join {{ ref('fct_throughput_evidence') }} as e
        on l.workload_class = e.workload_class
        and l.gpu_id = e.gpu_id
        and l.day >= e.evidence_from
        and (e.evidence_until is null or l.day < e.evidence_until)
)

select
    l.day,
    l.workload_class,
    l.gpu_id,
    g.display_name as gpu_name,
    l.provider,
    l.offer_id,
    l.region,
    l.pricing_model,
    l.price_usd_per_gpu_hour,
    l.gpus_needed,
    l.effective_hourly_cost,
    l.cost_per_accepted_output,
    l.cost_per_accepted_output_p10,
    l.cost_per_accepted_output_p90,
    l.output_unit,
    l.cost_per_1m_accepted_tokens,
    l.tokens_per_dollar,
    l.evidence,
    b.evidence_basis,
    l.slo_status,
    l.is_stale,
    l.days_since_observed,
    c.n_gpus_ranked,
    r.gpu_id as runner_up_gpu_id,
    r.cost_per_accepted_output as runner_up_cost_per_accepted_output,
    round(100 * (r.cost_per_accepted_output / l.cost_per_accepted_output - 1), 2) as lead_pct,
    r.cost_per_accepted_output_p10 as runner_up_cost_p10,
    -- the leader's p10-p90 cost interval reaches into the runner-up's: the evidence does not
    -- tell them apart (an interval the evidence cannot give, e.g. the uncalibrated model's,
    -- counts as reaching: nothing shows the lead to be real)
    (
        r.gpu_id is not null
        and coalesce(l.cost_per_accepted_output_p90 >= r.cost_per_accepted_output_p10, true)
    ) as is_tied_within_evidence,
    a.provider || ' ' || a.offer_id as best_api,
    a.cost_per_accepted_output as best_api_cost_per_accepted_output,
    l.source,
    l.snapshot_url,
    l.snapshot_sha256
from leaders as l
inner join counts as c on l.day = c.day and l.workload_class = c.workload_class
left join runners_up as r on l.day = r.day and l.workload_class = r.workload_class
left join best_api as a on l.day = a.day and l.workload_class = a.workload_class
left join {{ ref('dim_gpu') }} as g on l.gpu_id = g.gpu_id
left join basis as b on l.day = b.day and l.workload_class = b.workload_class
order by l.day, l.workload_class
