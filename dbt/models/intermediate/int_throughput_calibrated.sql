-- How the benchmark runs calibrate the roofline of every (LLM-serving or image class, GPU; runs of
-- the class's kind only: token runs for LLM serving, image runs for images), per run epoch
-- (the days the set of runs changes: a file was ingested; calibrated_from):
--   calibrated: runs on this kind of GPU exist (same family and memory: an H100 SXM 80 GB run
--     calibrates the H100 PCIe 80 GB too; efficiencies are ratios to each GPU's own roofline).
--     efficiency = the weighted geometric mean of their efficiencies, each run weighted by its
--     nearness to the class (gl_nearness: model size, batch, lengths, precision, MoE), with the
--     unweighted p10-p90 spread of the runs and the nearest five named;
--   estimated: no run on this kind of GPU: the median of the calibrated efficiencies of the GPU
--     kinds of the same vendor and architecture (comparable_source = 'architecture'), else of all
--     GPU kinds with runs ('all_gpus').
-- The latency ratios (measured TTFT p95 and end-to-end p99 over the model's) are weighted the
-- same way, over the runs that report them, held a known batch (not an offline script queueing
-- a whole dataset) and are near the class (distance <= 2: gl_nearness >= exp(-4)): latency
-- under load depends on the load, so far runs say nothing about it; with the same fallback to
-- comparable GPU kinds. Without such runs the SLO stays unknown. Without any run there is no row
-- (the roofline stays uncalibrated).
with classes as (
    -- an image class's conditions: one image at a time, no prompt or output tokens
    select
        * replace (
            coalesce(input_len, 0) as input_len,
            coalesce(output_len, 1) as output_len,
            coalesce(concurrency, 1) as concurrency
        ),
        case class_kind when 'llm_serving' then 'inference' else class_kind end as run_kind
    from {{ ref('int_workload_classes_joined') }}
    where class_kind in ('llm_serving', 'image_generation')
),

runs as (
    select * from {{ ref('fct_benchmark_run_efficiency') }}
    where efficiency > 0
),

run_epochs as (
    select distinct ingested_date as calibrated_from from runs
),

weighted as (
    select
        e.calibrated_from,
        c.workload_class,
        r.vendor,
        r.architecture,
        r.family,
        r.memory_gb,
        r.run_key,
        r.efficiency,
        -- latency under load depends on the load: only runs that held a known batch (not offline
        -- scripts that queue a whole dataset) and are near the class (distance <= 2) calibrate it
        case when r.batch_source <> 'offline_default' then r.ttft_ratio end as ttft_ratio,
        case when r.batch_source <> 'offline_default' then r.e2e_ratio end as e2e_ratio,
        main.gl_nearness(
            r.model_active_params_b, c.active_params_b, r.batch, c.concurrency,
            r.input_len, c.input_len, r.output_len, c.output_len,
            r.precision, c.precision, r.is_moe, c.is_moe
        ) as weight
    from classes as c
    cross join run_epochs as e
    inner join runs as r
        on e.calibrated_from >= r.ingested_date
        and c.run_kind = r.run_kind
),

per_kind as (
    select
        calibrated_from,
        workload_class,
        vendor,
        architecture,
        family,
        memory_gb,
        -- sums over lists in run order: the same inputs give the same bits on every rebuild
        exp(
            list_sum(list(
                weight * ln(efficiency)
                order by run_key
            ))
            / list_sum(list(
                weight
                order by run_key
            ))
        ) as efficiency,
        quantile_cont(efficiency, 0.1) as efficiency_p10,
        quantile_cont(efficiency, 0.9) as efficiency_p90,
        count(*) as n_runs,
        max(weight) as nearest_weight,
        array_to_string(list(
            run_key
            order by weight desc, run_key asc
        )[1:5
        ], ' | ') as nearest_runs,
        exp(
            list_sum(
                list(
                    weight * ln(ttft_ratio)
                    order by run_key
                ) filter (where ttft_ratio > 0 and weight >= exp(-4)
                )
            )
            / list_sum(list(
                weight
                order by run_key
            ) filter (where ttft_ratio > 0 and weight >= exp(-4)
            ))
        ) as ttft_ratio,
        exp(
            list_sum(
                list(
                    weight * ln(e2e_ratio)
                    order by run_key
                ) filter (where e2e_ratio > 0 and weight >= exp(-4)
                )
            )
            / list_sum(list(
                weight
                order by run_key
            ) filter (where e2e_ratio > 0 and weight >= exp(-4)
            ))
        ) as e2e_ratio
    from weighted
    group by all
),

gpus as (
    select
        e.calibrated_from,
        c.workload_class,
        g.gpu_id,
        g.vendor,
        g.architecture,
        g.family,
        g.memory_gb
    from {{ ref('dim_gpu') }} as g
    cross join classes as c
    cross join run_epochs as e
),

comparable as (
    select
        g.calibrated_from,
        g.workload_class,
        g.gpu_id,
        median(k.efficiency) filter (where k.vendor = g.vendor and k.architecture = g.architecture)
            as arch_efficiency,
        count(*) filter (where k.vendor = g.vendor and k.architecture = g.architecture) as arch_kinds,
        median(k.efficiency) as all_efficiency,
        count(*) as all_kinds,
        median(k.ttft_ratio) filter (where k.vendor = g.vendor and k.architecture = g.architecture)
            as arch_ttft_ratio,
        median(k.ttft_ratio) as all_ttft_ratio,
        median(k.e2e_ratio) filter (where k.vendor = g.vendor and k.architecture = g.architecture)
            as arch_e2e_ratio,
        median(k.e2e_ratio) as all_e2e_ratio,
        string_agg(
            k.family || ' ' || cast(k.memory_gb as int) || 'GB', ', '
            order by k.family, k.memory_gb
        ) filter (where k.vendor = g.vendor and k.architecture = g.architecture) as arch_kinds_used
    from gpus as g
    inner join per_kind as k
        on g.calibrated_from = k.calibrated_from and g.workload_class = k.workload_class
        and not (g.family = k.family and g.memory_gb = k.memory_gb)
    group by all
)

select
    g.calibrated_from,
    g.workload_class,
    g.gpu_id,
    case when k.n_runs > 0 then 'calibrated' else 'estimated' end as grade,
    case
        when k.n_runs > 0 then 'this_gpu_kind'
        when cmp.arch_kinds > 0 then 'architecture'
        else 'all_gpus'
    end as calibration_source,
    case
        when k.n_runs > 0 then k.efficiency
        when cmp.arch_kinds > 0 then cmp.arch_efficiency
        else cmp.all_efficiency
    end as efficiency,
    k.efficiency_p10,
    k.efficiency_p90,
    coalesce(k.n_runs, 0) as n_runs,
    k.nearest_runs,
    -- how near the nearest run is (1 = the class's own conditions; below exp(-4), a distance
    -- over 2, the runs are far from the class and say little about it)
    k.nearest_weight,
    case when coalesce(k.n_runs, 0) = 0 and cmp.arch_kinds > 0 then cmp.arch_kinds_used end
        as comparable_gpus,
    coalesce(k.ttft_ratio, cmp.arch_ttft_ratio, cmp.all_ttft_ratio) as ttft_ratio,
    coalesce(k.e2e_ratio, cmp.arch_e2e_ratio, cmp.all_e2e_ratio) as e2e_ratio
from gpus as g
left join per_kind as k
    on g.calibrated_from = k.calibrated_from and g.workload_class = k.workload_class
    and g.family = k.family and g.memory_gb = k.memory_gb
left join comparable as cmp
    on g.calibrated_from = cmp.calibrated_from and g.workload_class = cmp.workload_class
    and g.gpu_id = cmp.gpu_id
where k.n_runs > 0 or cmp.all_kinds > 0
