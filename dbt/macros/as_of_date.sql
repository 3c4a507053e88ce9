{#- The build's as-of day as a SQL date literal. -#}
{% macro as_of_date() -%}
    {%- if var('as_of_date') -%}date '{{ var("as_of_date") }}'{%- else -%}current_date{%- endif -%}
{%- endmacro %}
