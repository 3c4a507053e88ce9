-- One row per workload class with its model's architecture (model_reference). Every class
-- names a known model (a relationships test on the seed), so the join keeps every class.
select
    c.*,
    m.params_b,
    m.active_params_b,
    m.is_moe,
    m.layers,
    m.kv_layers,
    m.kv_heads,
    m.head_dim,
    m.kv_values_per_layer
from {{ ref('workload_classes') }} as c
inner join {{ ref('model_reference') }} as m
    on c.model_ref = m.model_ref
