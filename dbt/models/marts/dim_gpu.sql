-- A view: the gpu_catalog seed's rows, renamed and cast. As a table it was rebuilt every day
-- from a seed that changes only with the repository.
{{ config(materialized='view') }}

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
