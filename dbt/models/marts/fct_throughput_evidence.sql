-- Throughput evidence per (workload class, GPU): measured where benchmark runs match the class
-- (int_throughput_measured), else the roofline estimate (int_throughput_estimated).
--   measured: the median per-GPU throughput of the matching runs that keep the class SLO, times
--     gpus_needed (throughput taken to scale with the GPU count); success_fraction = the mean
--     success rate of those runs (1 where the tool did not count failures: success_source says
--     so). If every matching run breaks the SLO the cell is measured and not eligible.
--   estimated: the roofline figure, calibrated per class: where a class has GPUs with both a
--     measurement and an estimate, its estimates are multiplied by the median measured/estimated
--     ratio of those GPUs (calibration_factor, with the number of GPUs behind it); a class with
--     none keeps the raw roofline (factor 1). Success 1; the SLO cannot be checked (unknown).
--     A class's calibration depends on that class's runs only.
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
        avg(runs.success_rate) filter (where not runs.breaks_slo) as mean_success_rate,
        count(runs.success_rate) filter (where not runs.breaks_slo) as n_runs_with_success,
        string_agg(
            runs.run_key, ' '
            order by runs.run_key) filter (where not runs.breaks_slo)
            as runs_used,
        string_agg(
            runs.run_key, ' '
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

calibration as (
    select
        m.evidence_from,
        m.workload_class,
        median(m.per_gpu_outputs_per_s * f.gpus_needed / e.unit_outputs_per_s) as calibration_factor,
        count(*) as calibration_gpus
    from measured as m
    inner join fit as f
        on m.workload_class = f.workload_class and m.gpu_id = f.gpu_id
    inner join {{ ref('int_throughput_estimated') }} as e
        on m.workload_class = e.workload_class and m.gpu_id = e.gpu_id
        and m.evidence_from = e.evidence_from
    where m.n_runs_used > 0 and e.unit_outputs_per_s > 0
    group by all
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
        when e.unit_outputs_per_s is not null then 'estimated'
    end as evidence,
    case
        when m.n_runs_used > 0 then m.per_gpu_outputs_per_s * f.gpus_needed
        when m.n_runs_matched > 0 then null
        else e.unit_outputs_per_s * coalesce(cal.calibration_factor, 1.0)
    end as unit_outputs_per_s,
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
        else 'unknown'
    end as slo_status,
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
    e.unit_outputs_per_s as raw_estimate_outputs_per_s,
    coalesce(cal.calibration_factor, 1.0) as calibration_factor,
    coalesce(cal.calibration_gpus, 0) as calibration_gpus,
    case when m.n_runs_matched is null then e.estimate_missing end as estimate_missing
from fit as f
cross join epochs as ep
left join measured as m
    on f.workload_class = m.workload_class and f.gpu_id = m.gpu_id
    and ep.evidence_from = m.evidence_from
left join {{ ref('int_throughput_estimated') }} as e
    on f.workload_class = e.workload_class and f.gpu_id = e.gpu_id
    and ep.evidence_from = e.evidence_from
left join calibration as cal
    on f.workload_class = cal.workload_class and ep.evidence_from = cal.evidence_from
