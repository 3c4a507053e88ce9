-- Throughput evidence per (workload class, GPU), graded:
--   measured: benchmark runs match the class (int_throughput_measured): the median per-GPU
--     throughput of the matching runs that keep the class SLO, times gpus_needed (throughput taken
--     to scale with the GPU count); success_fraction = the mean success rate of those runs (1 where
--     the tool did not count failures: success_source says so). If every matching run breaks the
--     SLO the cell is measured and not eligible.
--   calibrated: no matching run, but runs on this kind of GPU (int_throughput_calibrated): the
--     class's roofline (int_throughput_estimated) x the efficiency of those runs, nearest first,
--     with their p10-p90 spread and the nearest runs named.
--   estimated: no run on this kind of GPU: roofline x the median efficiency of comparable GPU
--     kinds (same vendor and architecture, else all). Where no run of the class's kind exists at
--     all (training, image generation: no such runs are shipped), the raw roofline, marked
--     calibration_source = 'uncalibrated'.
--   unit_outputs_per_s_p10 / _p90: the interval the figure rests on (the measured runs' spread,
--     or the calibration's p10-p90 efficiencies x the roofline); the costs' intervals come from it.
--   SLO of a calibrated or estimated cell: the model's TTFT and end-to-end latency times the
--     runs' measured/predicted latency ratios (same weighting) against the class targets:
--     estimated_met or estimated_broken, with slo_margin = the smallest target / estimate - 1.
-- unit_outputs_per_s is in the class's output: tokens/s (LLM serving), samples/s, images/s.
-- Evidence is dated: a run counts from the day its file was ingested, a spec row from the day it
-- was observed. One row per (class, GPU, evidence epoch, int_evidence_epochs): an epoch starts on
-- each such day (evidence_from) and lasts until the next (evidence_until, exclusive), so a past
-- day is ranked on what was known that day.
with fit as (
    select * from {{ ref('int_workload_memory_fit') }}
),

epochs as (
    select * from {{ ref('int_evidence_epochs') }}
),

measured as (
    select
        ep.evidence_from,
        runs.workload_class,
        runs.gpu_id,
        count(*) as n_runs_matched,
        count(*) filter (where not runs.breaks_slo) as n_runs_used,
        median(runs.outputs_per_s_per_gpu) filter (where not runs.breaks_slo) as per_gpu_outputs_per_s,
        quantile_cont(runs.outputs_per_s_per_gpu, 0.1) filter (where not runs.breaks_slo)
            as per_gpu_outputs_per_s_p10,
        quantile_cont(runs.outputs_per_s_per_gpu, 0.9) filter (where not runs.breaks_slo)
            as per_gpu_outputs_per_s_p90,
        avg(runs.success_rate) filter (where not runs.breaks_slo) as mean_success_rate,
        count(runs.success_rate) filter (where not runs.breaks_slo) as n_runs_with_success,
        string_agg(
            runs.run_key, ' | '
            order by runs.run_key) filter (where not runs.breaks_slo)
            as runs_used,
        string_agg(
            runs.run_key, ' | '
            order by runs.run_key) filter (where runs.breaks_slo)
            as runs_breaking_slo,
        max(runs.ttft_p95_ms) filter (where not runs.breaks_slo) as worst_ttft_p95_ms,
        max(runs.e2e_p99_ms) filter (where not runs.breaks_slo) as worst_e2e_p99_ms,
        bool_or(runs.ttft_slo = 'unknown' or runs.e2e_slo = 'unknown') filter (where not runs.breaks_slo)
            as any_slo_unknown,
        bool_and(runs.ttft_slo = 'none' and runs.e2e_slo = 'none') as no_slo
    from epochs as ep
    inner join {{ ref('int_throughput_measured') }} as runs
        on ep.evidence_from >= runs.ingested_date
    group by all
),

estimates as (
    select
        e.*,
        c.class_kind,
        c.slo_p95_ttft_ms,
        c.slo_p99_e2e_ms,
        cal.grade as calibration_grade,
        cal.calibration_source,
        cal.efficiency as calibration_efficiency,
        cal.efficiency_p10,
        cal.efficiency_p90,
        cal.n_runs as calibration_runs,
        cal.nearest_runs,
        cal.nearest_weight,
        cal.comparable_gpus,
        e.ttft_est_ms * cal.ttft_ratio as ttft_p95_est_ms,
        e.e2e_est_ms * cal.e2e_ratio as e2e_p99_est_ms
    from {{ ref('int_throughput_estimated') }} as e
    inner join {{ ref('int_workload_classes_joined') }} as c
        on e.workload_class = c.workload_class
    asof left join {{ ref('int_throughput_calibrated') }} as cal
        on e.workload_class = cal.workload_class and e.gpu_id = cal.gpu_id
        and e.evidence_from >= cal.calibrated_from
)

select
    f.workload_class,
    f.gpu_id,
    ep.evidence_from,
    ep.evidence_until,
    f.gpus_needed,
    f.fits,
    case
        when m.n_runs_matched > 0 then 'measured'
        when e.unit_outputs_per_s is not null then coalesce(e.calibration_grade, 'estimated')
    end as evidence,
    case
        when m.n_runs_used > 0 then m.per_gpu_outputs_per_s * f.gpus_needed
        when m.n_runs_matched > 0 then null
        else e.unit_outputs_per_s * coalesce(e.calibration_efficiency, 1.0)
    end as unit_outputs_per_s,
    -- the p10-p90 interval of that throughput: the spread of the measured runs used, or the
    -- roofline x the calibration's p10 and p90 efficiencies (null for the uncalibrated model:
    -- nothing measures how far off it is)
    case
        when m.n_runs_used > 0 then m.per_gpu_outputs_per_s_p10 * f.gpus_needed
        when m.n_runs_matched > 0 then null
        else e.unit_outputs_per_s * e.efficiency_p10
    end as unit_outputs_per_s_p10,
    case
        when m.n_runs_used > 0 then m.per_gpu_outputs_per_s_p90 * f.gpus_needed
        when m.n_runs_matched > 0 then null
        else e.unit_outputs_per_s * e.efficiency_p90
    end as unit_outputs_per_s_p90,
    case when m.n_runs_used > 0 then m.per_gpu_outputs_per_s end as measured_per_gpu_outputs_per_s,
    case
        when m.n_runs_used > 0 then coalesce(m.mean_success_rate, 1.0)
        when m.n_runs_matched is null and e.unit_outputs_per_s is not null then 1.0
    end as success_fraction,
    case
        when m.n_runs_used > 0 and m.n_runs_with_success > 0 then 'measured'
        when m.n_runs_used > 0 then 'not counted by the tool (taken as 1)'
        when e.unit_outputs_per_s is not null then 'estimate (taken as 1)'
    end as success_source,
    case
        when m.n_runs_matched > 0 and coalesce(m.n_runs_used, 0) = 0 then 'broken'
        when m.n_runs_used > 0 and m.no_slo then 'none'
        when m.n_runs_used > 0 and not m.any_slo_unknown then 'met'
        when m.n_runs_used > 0 then 'unknown'
        when e.slo_p95_ttft_ms is null and e.slo_p99_e2e_ms is null then 'none'
        when e.ttft_p95_est_ms > e.slo_p95_ttft_ms or e.e2e_p99_est_ms > e.slo_p99_e2e_ms
            then 'estimated_broken'
        when (e.slo_p95_ttft_ms is null or e.ttft_p95_est_ms is not null)
            and (e.slo_p99_e2e_ms is null or e.e2e_p99_est_ms is not null)
            then 'estimated_met'
        else 'unknown'
    end as slo_status,
    case when m.n_runs_matched is null then
            least(
                e.slo_p95_ttft_ms / e.ttft_p95_est_ms,
                e.slo_p99_e2e_ms / e.e2e_p99_est_ms
            ) - 1
    end as slo_margin,
    case when m.n_runs_matched is null then e.ttft_p95_est_ms end as ttft_p95_est_ms,
    case when m.n_runs_matched is null then e.e2e_p99_est_ms end as e2e_p99_est_ms,
    coalesce(m.n_runs_matched, 0) as n_runs_matched,
    coalesce(m.n_runs_used, 0) as n_runs_used,
    m.runs_used,
    m.runs_breaking_slo,
    m.worst_ttft_p95_ms,
    m.worst_e2e_p99_ms,
    e.memory_bandwidth_gb_s,
    e.tflops,
    e.bandwidth_efficiency,
    e.compute_efficiency,
    e.decode_bound_per_s,
    e.compute_bound_per_s,
    e.bound as estimate_bound,
    e.interconnect,
    e.tp_factor,
    e.ttft_est_ms,
    e.tpot_est_ms,
    e.unit_outputs_per_s as raw_estimate_outputs_per_s,
    coalesce(e.calibration_efficiency, 1.0) as calibration_factor,
    case
        when m.n_runs_matched > 0 then null
        when e.calibration_source is not null then e.calibration_source
        when e.unit_outputs_per_s is not null then 'uncalibrated'
    end as calibration_source,
    coalesce(e.calibration_runs, 0) as calibration_runs,
    e.efficiency_p10 as calibration_p10,
    e.efficiency_p90 as calibration_p90,
    e.nearest_runs as calibration_nearest_runs,
    e.nearest_weight as calibration_nearest_weight,
    e.comparable_gpus as calibration_comparable_gpus,
    case when m.n_runs_matched is null then e.estimate_missing end as estimate_missing
from fit as f
cross join epochs as ep
left join measured as m
    on f.workload_class = m.workload_class and f.gpu_id = m.gpu_id
    and ep.evidence_from = m.evidence_from
left join estimates as e
    on f.workload_class = e.workload_class and f.gpu_id = e.gpu_id
    and ep.evidence_from = e.evidence_from
