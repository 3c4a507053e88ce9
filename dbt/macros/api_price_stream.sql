{#- Which catalog an API-price snapshot belongs to (int_model_api_prices_daily,
    fct_model_api_prices): its source, for a source whose snapshots are each the whole catalog
    (var api_price_catalog_sources); else its source and page. -#}
{% macro api_price_stream(source, url) -%}
    case
        when list_contains(
            cast([{% for s in var('api_price_catalog_sources') %}'{{ s }}'{{ ", " if not loop.last }}{% endfor %}] as varchar[]),
            {{ source }}
        )
            then {{ source }}
        else {{ source }} || ' ' || {{ url }}
    end
{%- endmacro %}
