{#- A model that is a DuckDB table macro: a query with parameters that analysts call like a table
    (`select * from analytics.rank_workload(model := ..., ...)`). dbt knows what it reads (its
    refs: lineage, docs, the build order, state:modified) and creates it in the model's schema.

    config:
      parameters: the macro's parameters in order, each [name, default SQL] (default null: none
        given means null). The model's SQL names each as p_<name>.

    Two macros are created: main.<name>__body(p_<name>, ...), the model's SQL, and
    <schema>.<name>(<name> := <default>, ...), which calls it. A parameter of a DuckDB macro
    stands for every column reference of that name in its body, and the body reads columns named
    day, model or input_len; in the body they are p_day, p_model, p_input_len. The outer macro
    reads no column, so it can take the names analysts use. -#}
{% materialization table_macro, adapter='duckdb' %}
    {%- set parameters = config.get('parameters', []) -%}
    {%- set body = 'main."' ~ this.identifier ~ '__body"' -%}
    {{ run_hooks(pre_hooks) }}
    {% call statement('main') -%}
        create or replace macro {{ body }}(
            {%- for p in parameters %}p_{{ p[0] }}{{ ", " if not loop.last }}{% endfor -%}
        ) as table
        {{ sql }};
        create or replace macro {{ this }}(
            {%- for p in parameters %}{{ p[0] }} := {{ p[1] if p[1] is not none else 'null' }}{{ ", " if not loop.last }}{% endfor -%}
        ) as table
        select * from {{ body }}(
            {%- for p in parameters %}{{ p[0] }}{{ ", " if not loop.last }}{% endfor -%}
        )
    {%- endcall %}
    {{ run_hooks(post_hooks) }}
    {% do adapter.commit() %}
    {{ return({'relations': []}) }}
{% endmaterialization %}
