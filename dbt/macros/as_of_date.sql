{#- The build's as-of day as a SQL date literal: the dbt var as_of_date, else the environment's
    GPULEDGER_AS_OF (how the pipeline passes the day), else today. Read only when dbt runs a node
    (`execute`), not while it parses the project: dbt re-parses every file that read an
    environment variable whose value changed (19 files, ~1.3 s a day) and the whole project for
    changed --vars; what the day is never changes how the project parses. -#}
{% macro as_of_date() -%}
    {%- set day = (var('as_of_date') or env_var('GPULEDGER_AS_OF', '')) if execute else '' -%}
    {%- if day -%}date '{{ day }}'{%- else -%}current_date{%- endif -%}
{%- endmacro %}
