{#- A table macro's refusal of a number it was given (analytics.rank_workload's checks):
    error() naming the parameter, the value given (null when none) and what it must be, read from
    the row of parameters `a`. -#}
{% macro parameter_error(macro_name, parameter, reason) -%}
error(
    '{{ macro_name }}: {{ parameter }} := ' || coalesce(cast(a.{{ parameter }} as varchar), 'null')
    || ' {{ reason | replace("'", "''") }}'
)
{%- endmacro %}
