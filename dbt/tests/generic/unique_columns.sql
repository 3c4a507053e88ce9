{#- Unique combination of columns, a local generic test: packages from the dbt hub cannot be fetched. -#}
{% test unique_columns(model, columns) %}
select {{ columns | join(', ') }}, count(*) as n
from {{ model }}
group by {{ columns | join(', ') }}
having count(*) > 1
{% endtest %}
