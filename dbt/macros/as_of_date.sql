{#- The build's as-of day as a SQL date literal: the dbt var as_of_date, else the environment's
    GPULEDGER_AS_OF (how the pipeline passes the day: a changed environment variable re-parses only
    what uses it, a changed --vars re-parses the whole project), else today. -#}
{% macro as_of_date() -%}
    {%- set day = var('as_of_date') or env_var('GPULEDGER_AS_OF', '') -%}
    {%- if day -%}date '{{ day }}'{%- else -%}current_date{%- endif -%}
{%- endmacro %}
