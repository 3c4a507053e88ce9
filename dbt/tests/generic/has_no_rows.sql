{#- The model is empty. Used with severity warn on lists that someone should look at. -#}
{% test has_no_rows(model) %}
select * from {{ model }}
{% endtest %}
