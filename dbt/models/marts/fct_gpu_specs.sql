-- One row per canonical GPU: each spec field from the highest-priority source that gives it
-- (seed spec_source_priority), with the source named beside the value. Disagreements between
-- sources are listed in gpu_spec_conflicts; values are never averaged.
{% set fields = ['memory_gb', 'memory_bandwidth_gb_s', 'fp16_tflops', 'fp8_tflops', 'tdp_w', 'form_factor'] %}
with ranked as (
    select * from {{ ref('int_gpu_specs_ranked') }}
)

select
    g.gpu_id,
    {% for f in fields %}
    (
        select x.{{ f }} from ranked as x
        where x.gpu_id = g.gpu_id and x.{{ f }} is not null
        order by x.priority, x.source limit 1
    ) as {{ f }},
    (
        select x.source from ranked as x
        where x.gpu_id = g.gpu_id and x.{{ f }} is not null
        order by x.priority, x.source limit 1
    ) as {{ f }}_source,
    {% endfor %}
    (
        select count(distinct x.source) from ranked as x
        where x.gpu_id = g.gpu_id
    ) as n_sources
from {{ ref('dim_gpu') }} as g
where g.gpu_id in (select rk.gpu_id from ranked as rk)
