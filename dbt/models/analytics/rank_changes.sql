-- Every day a class's cheapest GPU changed, with old and new leader, the change and its cause.
-- alert_kind tells a real market move (rank_change) from a leader lost to a failed or stale
-- source (data_quality).
select
    day,
    workload_class,
    alert_kind,
    cause,
    prev_day,
    old_gpu_id,
    old_provider,
    old_cost_per_accepted_output,
    old_evidence,
    new_gpu_id,
    new_provider,
    new_cost_per_accepted_output,
    new_evidence,
    new_slo_status,
    output_unit,
    round(100 * change_pct, 2) as change_pct,
    source as failed_source,
    is_within_uncertainty,
    alert_key
from {{ ref('fct_alert_candidates') }}
