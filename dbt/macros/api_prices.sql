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

{#- Whether a catalog's price can stand for a day: a catalog taken by then, or a later one that
    dates the price from the day or earlier; a later one that gives the price no start date only
    within api_price_assumed_days before it was taken (var). Further back the price is unfounded:
    token prices fall within months, and the model may not have been released yet (a catalog of
    December 2026 pricing Llama 3.1 70B says nothing of April 2021). -#}
{% macro api_price_stands_for(day, taken_on, taken_by_the_day, valid_from) -%}
    (
        {{ taken_by_the_day }}
        or {{ valid_from }} is not null
        or date_diff('day', {{ day }}, {{ taken_on }}) <= {{ var('api_price_assumed_days') }}
    )
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
