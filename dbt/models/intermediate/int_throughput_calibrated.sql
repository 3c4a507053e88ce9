-- A table: fct_throughput_evidence and four data tests read it, and as a view each computed the
-- calibration again (0.5-1.0 s each a day at a year of history).
{{ config(materialized="table") }}
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
-- One definition with analytics.rank_workload: main.wl_calibrated (macros/workload_model.sql).
with run_epochs as (  -- noqa: ST03
    select distinct ingested_date as calibrated_from
    from {{ ref('fct_benchmark_run_efficiency') }}
    where efficiency > 0
)

-- table_name(): the relation itself (see macros/workload_model.sql)
select *
from {{ workload_macro('calibrated') }}(
    {{ table_name(ref('int_workload_classes_joined')) }},
    {{ table_name(ref('fct_benchmark_run_efficiency')) }},
    {{ table_name(ref('dim_gpu')) }},
    'run_epochs'
)
