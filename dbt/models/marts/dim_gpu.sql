select
    gpu_id,
    vendor,
    family,
    variant,
    cast(memory_gb as double) as memory_gb,
    display_name,
    architecture,
    interconnect
from {{ ref('gpu_catalog') }}
