-- Every source's spec values per canonical GPU with the source's priority (seed
-- spec_source_priority; unlisted sources last). The catalog's memory size is part of what a gpu_id
-- means, so the catalog takes part as the source "gpu_catalog"; the vendors' datasheet figures
-- (seed gpu_datasheet_specs) as "vendor_datasheet".
with specs as (
    select source, gpu_id, memory_gb, memory_bandwidth_gb_s, fp16_tflops, fp8_tflops, tdp_w,
           form_factor
    from {{ ref('int_gpu_specs_resolved') }}
    union all
    select 'gpu_catalog', gpu_id, memory_gb, null, null, null, null, null
    from {{ ref('gpu_catalog') }}
    where gpu_id in (select gpu_id from {{ ref('int_gpu_specs_resolved') }})
    union all
    select 'vendor_datasheet', gpu_id, null, memory_bandwidth_gb_s, fp16_tflops, fp8_tflops, null,
           null
    from {{ ref('gpu_datasheet_specs') }}
)

select specs.*, coalesce(p.priority, 99) as priority
from specs
left join {{ ref('spec_source_priority') }} as p on p.source = specs.source
