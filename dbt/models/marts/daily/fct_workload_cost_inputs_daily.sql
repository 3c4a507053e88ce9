-- What the economics of a workload option are computed from, per (day, workload class, option):
-- every GPU offer of an allowed pricing model (and every model API serving the class's model)
-- with its price, the class's parameters, the throughput evidence, whether it is eligible (and
-- why not) and its ranks. The costs themselves are the view fct_workload_costs_daily, computed
-- from these columns as they are read (macros/economics.sql, with_cost_measures): stored, the
-- seven measures computed from the price and the throughput were 60 % of this table and 38 % of
-- the warehouse file every day's publication copies (365 days of the scale run: the costs 369 MB
-- with them, 148 MB without; the file 578 MB).
--   gpus_needed, fit: int_workload_memory_fit; throughput: fct_throughput_evidence.
--   Model APIs: cost per request = (input_len x input price + output_len x output price) / 1e6.
-- An option is eligible when it fits, the offer has at least gpus_needed GPUs, there is
-- evidence, no measured run breaks the SLO and the calibrated latency model does not expect it
-- broken (estimated_broken); otherwise ineligible_reason says why.
-- The ranks are computed here, once: every eligible option with a cost ranked by cost per accepted
-- output (option_rank: GPU offers and model APIs together) and each GPU by its best offer
-- (gpu_rank, GPU offers only; null on the other offers of that GPU and on APIs); null where the
-- option is not eligible. Ties break by the USD price per GPU-hour, then gpu_id, then option key:
-- deterministic. fct_gpu_rankings_daily is the ranked rows of the costs.
-- One definition with analytics.rank_workload: main.wl_cost_inputs (macros/workload_model.sql),
-- over the window's days.
select *
from
    {{ workload_macro('cost_inputs') }}(
        {{ table_name(ref('int_workload_classes_joined')) }},
        {{ table_name(ref('fct_gpu_offers_daily')) }},
        {{ table_name(ref('fct_throughput_evidence')) }},
        {{ table_name(ref('int_model_api_prices_daily')) }},
        {{ window_bounds() }}
    )
-- in day order: a full build writes each day's rows together, so that reading a few days (a later
-- build's window, the publication's update) skips the other days' row groups (DuckDB keeps no
-- order through a join: unsorted, a day's rows lay in 3-4 of the 41 row groups at 365 days, and
-- the sort takes ~6 s of a 365-day build)
order by day
