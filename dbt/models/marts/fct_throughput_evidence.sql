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
-- One definition with analytics.rank_workload: main.wl_evidence (macros/workload_model.sql).
select *
from {{ workload_macro('evidence') }}(
    {{ table_name(ref('int_workload_classes_joined')) }},
    {{ table_name(ref('int_workload_memory_fit')) }},
    {{ table_name(ref('int_evidence_epochs')) }},
    {{ table_name(ref('int_throughput_measured')) }},
    {{ table_name(ref('int_throughput_estimated')) }},
    {{ table_name(ref('int_throughput_calibrated')) }}
)
