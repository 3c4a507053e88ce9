-- Accepted spec rows with their canonical gpu_id: the newest observation per (source, gpu_id).
-- Several rows of one source for one GPU (a table listing a board twice) resolve deterministically
-- by name, never by averaging.
with accepted as (
    select *
    from ({{ accepted_rows(ref('stg_gpu_specs'), 'gpu_specs') }})
    where observed_date <= {{ as_of_date() }}
)

select
    a.source,
    names.gpu_id,
    a.gpu_name_raw,
    a.memory_gb,
    a.memory_bandwidth_gb_s,
    a.fp16_tflops,
    a.fp8_tflops,
    a.tdp_w,
    a.form_factor,
    a.observed_at,
    a.snapshot_sha256
from accepted as a
inner join {{ ref('int_gpu_names_resolved') }} as names
    on a.source = names.provider
    and a.gpu_name_raw = names.gpu_name_raw
    and a.offer_id = names.offer_id
    and names.gpu_memory_gb is not distinct from a.memory_gb
where names.gpu_id is not null
qualify row_number() over (
        partition by a.source, names.gpu_id
        order by a.observed_at desc, a.gpu_name_raw asc, a.offer_id asc, a.row_index asc
    ) = 1
