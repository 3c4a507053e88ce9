-- The canonical GPUs with the spec values the estimates use, each with the source it came from.
select
    g.gpu_id,
    g.display_name as gpu_name,
    g.vendor,
    g.family,
    g.variant,
    coalesce(s.memory_gb, g.memory_gb) as memory_gb,
    s.memory_bandwidth_gb_s,
    s.memory_bandwidth_gb_s_source,
    s.fp16_tflops,
    s.fp16_tflops_source,
    s.fp8_tflops,
    s.fp8_tflops_source,
    s.tdp_w
from {{ ref('dim_gpu') }} as g
left join {{ ref('fct_gpu_specs') }} as s on g.gpu_id = s.gpu_id
