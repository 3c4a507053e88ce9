{#- Normalise a raw GPU name to a comparison key: upper case, no vendor words, no "8x" count prefix,
    letters and digits only. "NVIDIA H200-SXM-141GB" -> H200SXM141GB, "8xH100SXM5" -> H100SXM5. -#}
{% macro gpu_name_key(column) -%}
regexp_replace(
    regexp_replace(
        regexp_replace(upper({{ column }}), '\b(NVIDIA|AMD|INTEL|HABANA|TESLA|GEFORCE|QUADRO|HGX|DGX|INSTINCT)\b', ' ', 'g'),
        '^\s*[0-9]+\s*X\s*', ''
    ),
    '[^A-Z0-9]', '', 'g'
)
{%- endmacro %}
