{#- Bytes per parameter or per KV-cache element of a precision name. -#}
{% macro bytes_per_value(precision) -%}
case lower({{ precision }})
    when 'fp32' then 4.0 when 'bf16' then 2.0 when 'fp16' then 2.0
    when 'fp8' then 1.0 when 'int8' then 1.0
    when 'int4' then 0.5 when 'fp4' then 0.5
end
{%- endmacro %}
