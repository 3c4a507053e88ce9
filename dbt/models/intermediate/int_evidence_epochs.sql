{{ config(materialized="table") }}
-- The days on which what gpuledger knows about throughput can change: a benchmark file was
-- ingested (any run: a run that matches no class still calibrates the others), or a GPU spec row
-- was observed. Each epoch lasts until the next (exclusive), so a
-- past day is ranked on the runs and specs known that day, whenever the history is rebuilt.
select
    evidence_from,
    lead(evidence_from) over (
        order by evidence_from
    ) as evidence_until
from (
    select cast('1900-01-01' as date) as evidence_from
    union
    select distinct ingested_date from {{ ref('fct_benchmark_runs') }}
    union
    select distinct observed_date
    from ({{ accepted_rows(ref('stg_gpu_specs'), 'gpu_specs') }})
    where observed_date <= {{ as_of_date() }}
)
