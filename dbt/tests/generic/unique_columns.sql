{#- Unique combination of columns, a local generic test: packages from the dbt hub cannot be fetched.
    The model's key columns are read once; their rows are grouped by the keys' hash first (one
    64-bit value instead of the columns), and only the rows whose hash occurs more than once are
    grouped by the columns themselves. Over three years of history: price observations 0.21 s
    instead of 0.55 s, all 14.5 M cost rows 2.2 s instead of 2.7 s. The failing rows are exactly
    those of a plain GROUP BY: equal keys have equal hashes, and different keys that share a
    hash are told apart in the second grouping (tests/dbt/test_generic_tests.py). -#}
{% test unique_columns(model, columns) %}
with keyed as materialized (
    select {{ columns | join(', ') }}
    from {{ model }}
),

repeated_hashes as (
    select hash({{ columns | join(', ') }}) as key_hash
    from keyed
    group by key_hash
    having count(*) > 1
)

select {{ columns | join(', ') }}, count(*) as n
from keyed
where hash({{ columns | join(', ') }}) in (select key_hash from repeated_hashes)
group by {{ columns | join(', ') }}
having count(*) > 1
{% endtest %}
