{#- Model-API price catalogs by day (int_model_api_prices_daily, fct_model_api_prices). -#}

{#- Which catalog an API-price snapshot belongs to: its source, for a source whose snapshots are
    each the whole catalog (var api_price_catalog_sources); else its source and page. -#}
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

{#- The accepted snapshots of `relation` (rows of stg_api_prices): one row each, with its catalog
    (stream) and the day it was taken. -#}
{% macro api_price_snapshots(relation) -%}
    select distinct
        source,
        snapshot_url,
        snapshot_fetched_at,
        cast(snapshot_fetched_at as date) as taken_on,
        {{ api_price_stream('source', 'snapshot_url') }} as stream
    from {{ relation }}
{%- endmacro %}

{#- How a price is known to be in force on a day: from a catalog taken by then, or only from a
    later one that dates it from the day or earlier, or gives it no start date (assumed). -#}
{% macro api_price_basis(taken_by_the_day, valid_from) -%}
    case
        when {{ taken_by_the_day }} then 'catalog_of_the_day'
        when {{ valid_from }} is not null then 'dated_by_later_catalog'
        else 'assumed_from_later_catalog'
    end
{%- endmacro %}

{#- A model API priced as a batch endpoint (requests answered asynchronously, within hours, at a
    discount): the genai-prices catalog names OpenRouter's with a ":batch" suffix and "(batch)" in
    the name. Such an endpoint cannot serve a workload with a latency target
    (wl_cost_inputs). -#}
{% macro is_batch_endpoint(model_id, model_name) -%}
    coalesce(
        lower({{ model_id }}) like '%:batch' or lower({{ model_name }}) like '%(batch)%', false
    )
{%- endmacro %}
