-- How the benchmark runs calibrate the roofline of every (LLM-serving or image class, GPU; runs of
-- the class's kind only: token runs for LLM serving, image runs for images), per run epoch
-- (the days the set of runs changes: a file was ingested; calibrated_from). One definition:
-- main.gl_calibration (macros/performance_model.sql), the table macro `gpuledger estimate` and
-- scripts/verify_estimates.py call with the same arguments:
--   calibrated: runs on this kind of GPU (a vendor's family: an A100 40 GB and 80 GB are one
--     chip): the weighted upper quantile (var calibration_quantile) of their efficiencies, each
--     run weighted by its nearness to the class (model size, batch, lengths, precision, MoE,
--     regime), shrunk toward the GPU's architecture generation (in turn toward its vendor, then
--     all GPUs) by how many runs effectively stand behind it; the kind's best serving stack; the
--     weighted p10-p90 spread and the nearest five runs named;
--   estimated: no run on this kind of GPU: the figure of its architecture generation
--     (calibration_source 'architecture'), else of its vendor ('vendor'), else of all GPU kinds
--     with runs ('all_gpus').
-- The latency ratios (measured TTFT p95 and end-to-end p99 over the model's) are weighted the
-- same way, over the runs that report them, held a known batch and are near the class
-- (distance <= 2). Without such runs the SLO stays unknown. Without any run there is no row (the
-- roofline stays uncalibrated).
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

run_epochs as (
    select distinct ingested_date as calibrated_from
    from {{ ref('fct_benchmark_run_efficiency') }}
    where efficiency > 0
)

select
    e.calibrated_from,
    c.workload_class,
    cal.gpu_id,
    cal.grade,
    cal.calibration_source,
    cal.efficiency,
    cal.efficiency_p10,
    cal.efficiency_p90,
    cal.n_runs,
    cal.stack,
    cal.nearest_runs,
    -- how near the nearest run is (1 = the class's own conditions; below exp(-4), a distance
    -- over 2, the runs are far from the class and say little about it)
    cal.nearest_weight,
    cal.comparable_gpus,
    cal.ttft_ratio,
    cal.e2e_ratio
-- render(): the relation itself, also under `dbt run --empty` (which wraps a ref in a subquery)
from classes as c
cross join run_epochs as e,
    lateral main.gl_calibration(
        '{{ ref("fct_benchmark_run_efficiency").render() }}', '{{ ref("dim_gpu").render() }}', c.run_kind,
        c.active_params_b, c.concurrency, c.input_len, c.output_len, c.precision, c.is_moe,
        e.calibrated_from, null, null, null
    ) as cal
