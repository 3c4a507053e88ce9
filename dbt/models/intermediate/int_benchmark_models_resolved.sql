-- The model of every benchmark run's model name: the model_reference row whose run_model_pattern
-- matches the lower-cased name ("meta-llama/Llama-3.3-70B-Instruct" -> llama-3.1-70b,
-- "amd/Kimi-K2.5-MXFP4" -> kimi-k2.5), the longest pattern first so "glm-5.1" is not read as
-- "glm-5". A name no pattern matches keeps no model_ref (its size may still come from the name).
with names as (
    select distinct model_id
    from {{ ref('stg_benchmark_runs') }}
    where model_id is not null
)

select
    n.model_id,
    m.model_ref,
    m.params_b,
    m.active_params_b,
    m.is_moe,
    m.kv_layers,
    m.kv_values_per_layer,
    m.flops_per_image_step_tflop,
    m.native_precision
from names as n
left join {{ ref('model_reference') }} as m
    on regexp_matches(lower(n.model_id), m.run_model_pattern)
qualify row_number() over (
        partition by n.model_id
        order by length(m.run_model_pattern) desc nulls last, m.model_ref
    ) = 1
