-- Every source's spec values per canonical GPU with the source's priority (seed
-- spec_source_priority; unlisted sources last). The catalog's memory size is part of what a gpu_id
-- means, so the catalog takes part as the source "gpu_catalog"; the vendors' datasheet figures
-- (seed gpu_datasheet_specs) as "vendor_datasheet".
with specs as (
    select
        source,
        gpu_id,
        memory_gb,
        memory_bandwidth_gb_s,
        fp16_tflops,
        fp8_tflops,
        tdp_w,
        form_factor
    from {{ ref('int_gpu_specs_resolved') }}
    union all
    select
        'gpu_catalog' as source,
        gpu_id,
        memory_gb,
        null as memory_bandwidth_gb_s,
        null as fp16_tflops,
        null as fp8_tflops,
        null as tdp_w,
        null as form_factor
    from {{ ref('gpu_catalog') }}
    where gpu_id in (select r.gpu_id from {{ ref('int_gpu_specs_resolved') }} as r)
    union all
    select
        'vendor_datasheet' as source,
        gpu_id,
        null as memory_gb,
        memory_bandwidth_gb_s,
        fp16_tflops,
        fp8_tflops,
        null as tdp_w,
        null as form_factor
    from {{ ref('gpu_datasheet_specs') }}
)

select
    specs.*,
    coalesce(p.priority, 99) as priority
from specs
left join {{ ref('spec_source_priority') }} as p on specs.source = p.source
