{#- A model API priced as a batch endpoint (requests answered asynchronously, within hours, at a
    discount): the genai-prices catalog names OpenRouter's with a ":batch" suffix and "(batch)" in
    the name. Such an endpoint cannot serve a workload with a latency target
    (wl_cost_inputs). -#}
{% macro is_batch_endpoint(model_id, model_name) -%}
    coalesce(
        lower({{ model_id }}) like '%:batch' or lower({{ model_name }}) like '%(batch)%', false
    )
{%- endmacro %}
