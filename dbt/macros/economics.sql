{#- Bytes per parameter or per KV-cache element of a precision name. -#}
{% macro bytes_per_value(precision) -%}
case lower({{ precision }})
    when 'fp32' then 4.0 when 'bf16' then 2.0 when 'fp16' then 2.0
    when 'fp8' then 1.0 when 'int8' then 1.0
    when 'int4' then 0.5 when 'fp4' then 0.5
end
{%- endmacro %}

{#- Dense TFLOPS a precision computes at on a GPU whose specs are `specs`: the FP8 rate for fp8,
    int8 and fp4 (FP4 at the FP8 rate, a floor) where known, else FP16/BF16 (int4 is weight-only:
    its math runs in 16 bits). The classes and the runs use the same rule. -#}
{% macro tflops_for(precision, specs) -%}
case
    when lower({{ precision }}) in ('fp8', 'int8', 'fp4') then coalesce({{ specs }}.fp8_tflops, {{ specs }}.fp16_tflops)
    else {{ specs }}.fp16_tflops
end
{%- endmacro %}
