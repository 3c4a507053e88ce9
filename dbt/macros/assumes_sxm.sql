{#- Rule 6 of int_gpu_names_resolved: a benchmark file's GPU name without a variant ("8xH200",
    "A100 80GB") whose catalog candidates include exactly one SXM part is taken as that part
    (marked assumed_sxm). -#}
{% macro assumes_sxm(hinted, summary) -%}
(
    {{ hinted }}.provider = 'benchmark'
    and {{ hinted }}.variant_hint is null
    and {{ summary }}.n_sxm = 1
)
{%- endmacro %}
