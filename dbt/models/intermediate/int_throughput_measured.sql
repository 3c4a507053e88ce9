-- Measured throughput evidence per (workload class, GPU): the accepted benchmark runs that match
-- the class, per run, with their SLO verdict. Matching rules (vars in dbt_project.yml):
--   - LLM serving classes: inference runs measuring output tokens; training classes: training or
--     fine-tuning runs; image classes: image-generation runs;
--   - the run's model has parameters within params_match_factor of the class model's (same size
--     class: a 70B run for a 70B class), the class precision, and is a mixture of experts exactly
--     when the class's model is (MoE and dense runs are never mixed);
--   - input and output lengths and concurrency within measured_match_factor of the class's; a run
--     without a concurrency (offline throughput scripts) matches only batch classes (>= 64);
--   - a resolved GPU, a GPU count, a positive throughput, not a duplicate export of another run,
--     not a setup its own file outperformed under the same conditions (fct_benchmark_runs).
-- SLO per run: p95 TTFT against the class target (p99 when the run has no p95: if the p99 meets
-- the target so does the p95; if it does not, unknown), p99 end-to-end against its target.
-- One definition with analytics.rank_workload: main.wl_runs_matched (macros/workload_model.sql).
select *
from {{ workload_macro('runs_matched') }}(
    {{ table_name(ref('int_workload_classes_joined')) }},
    {{ table_name(ref('fct_benchmark_runs')) }}
)
