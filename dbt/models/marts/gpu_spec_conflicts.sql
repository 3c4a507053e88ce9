-- Where two sources disagree on a GPU's memory (> 5 %) or bandwidth (> 10 %): both values, both
-- sources, and which one fct_gpu_specs uses (the higher priority). Nothing is averaged away.
with ranked as (
    select * from {{ ref('int_gpu_specs_ranked') }}
),

fields as (
    select
        gpu_id,
        source,
        priority,
        'memory_gb' as field,
        memory_gb as value,
        0.05 as tolerance
    from ranked
    where memory_gb is not null
    union all
    select
        gpu_id,
        source,
        priority,
        'memory_bandwidth_gb_s' as field,
        memory_bandwidth_gb_s as value,
        0.10 as tolerance
    from ranked
    where memory_bandwidth_gb_s is not null
)

select
    a.gpu_id,
    a.field,
    a.source as chosen_source,
    a.value as chosen_value,
    b.source as other_source,
    b.value as other_value,
    round(abs(a.value - b.value) / greatest(a.value, b.value), 4) as relative_difference
from fields as a
inner join fields as b
    on a.gpu_id = b.gpu_id
    and a.field = b.field
    and (a.priority, a.source) < (b.priority, b.source)
where abs(a.value - b.value) > a.tolerance * greatest(a.value, b.value)
