{#- Rows of `relation` whose snapshot passed the Great Expectations `suite` (its latest verdict).
    Every model that reads raw rows for the marts goes through this one gate. -#}
{% macro accepted_rows(relation, suite) -%}
    select rows_.*
    from {{ relation }} as rows_
    inner join {{ ref('stg_snapshot_validations') }} as verdict_
        on verdict_.source = rows_.source
        and verdict_.snapshot_url = rows_.snapshot_url
        and verdict_.snapshot_fetched_at = rows_.snapshot_fetched_at
        and verdict_.suite = '{{ suite }}'
    where verdict_.is_success
{%- endmacro %}
