{#- The days a build of the per-day marts (models/marts/daily/, incremental) writes: from
    window_start() to the as-of day. The pipeline passes a Dagster partition's (or range's) first
    day as GPULEDGER_WINDOW_START (dbt var start_date wins); unset = the as-of day alone. A first
    build, or a --full-refresh one (the pipeline's for a mart whose SQL, seeds, macros or settings
    changed: dbt's state:modified+, pipelines/defs/dbt.py), is not incremental and writes every day. -#}
{% macro window_start() -%}
    {#- read when a node runs, not at parse time (see as_of_date) -#}
    {%- set day = (var('start_date', none) or env_var('GPULEDGER_WINDOW_START', '')) if execute else '' -%}
    {%- if day -%}date '{{ day }}'{%- else -%}{{ as_of_date() }}{%- endif -%}
{%- endmacro %}

{#- A filter for the model's output days: the window in an incremental build, every day up to the
    as-of day otherwise. `lookback` widens the start for inputs a day needs from days before it. -#}
{% macro in_window(column='day', lookback=0) -%}
    {%- if is_incremental() -%}
        {{ column }} between {{ window_start() }} - {{ lookback }} and {{ as_of_date() }}
    {%- else -%}
        {{ column }} <= {{ as_of_date() }}
    {%- endif -%}
{%- endmacro %}

{#- on-run-start: the log of the per-day marts' builds, ops.daily_mart_log. Created before any
    node runs, since the marts are built two at a time (threads) and two transactions creating one
    table conflict. Each build is one row with its own id: a number taken as max + 1, as the
    first layout of this log (ops.daily_mart_builds) did, was taken twice by builds running at
    once; that table is dropped (publishing then copies the whole file once). -#}
{% macro create_build_log() -%}
    create schema if not exists ops;
    drop table if exists ops.daily_mart_builds;
    create table if not exists ops.daily_mart_log (
        build_id uuid primary key default gen_random_uuid(),
        window_start date not null,
        window_end date not null,
        rebuilt varchar [] not null,
        logged_at timestamptz not null default now()
    )
{%- endmacro %}

{#- pre_hook of every per-day mart: an incremental build first deletes its window, so a day that
    now has no rows (every offer gone) does not keep yesterday's build of it; the build then
    appends the window's rows (macros/incremental_window.sql). Every build also logs what it writes in
    ops.daily_mart_log (its window, or the mart's name when it is built whole), in the build's
    own transaction, so the log holds exactly the writes that were committed, whoever ran dbt:
    publishing reads it to bring its spare copy up to date (warehouse/publish.py). -#}
{% macro delete_window() -%}
    {%- if is_incremental() %}
    insert into ops.daily_mart_log (window_start, window_end, rebuilt)
    values ({{ window_start() }}, {{ as_of_date() }}, []);
    delete from {{ this }} where day between {{ window_start() }} and {{ as_of_date() }}
    {%- else %}
    insert into ops.daily_mart_log (window_start, window_end, rebuilt)
    values (date '1900-01-01', {{ as_of_date() }}, ['{{ this.identifier }}'])
    {%- endif -%}
{%- endmacro %}

{#- Data tests of the per-day marts, and of the views over them with a `day` (analytics,
    int_model_api_prices_daily), check the window just built: their `where` config is
    "__daily_window__", resolved here at run time. A past day's rows do not change, so testing
    them again costs without checking anything new (the uniqueness test of workload_costs_daily
    over three years took 7 s of a 13 s daily build). When a model or seed of the build changed
    (dbt's state:modified+), the pipeline passes GPULEDGER_TEST_START (the first day), so the full
    tables are tested. -#}
{% macro get_where_subquery(relation) -%}
    {%- set where = config.get('where', '') -%}
    {%- if where and '__daily_window__' in where -%}
        {%- set start = env_var('GPULEDGER_TEST_START', '') -%}
        {%- set window -%}
            day between {% if start %}date '{{ start }}'{% else %}{{ window_start() }}{% endif %}
            and {{ as_of_date() }}
        {%- endset -%}
        {%- set where = where | replace('__daily_window__', window) -%}
    {%- endif -%}
    {%- if where -%}
        {%- do return('(select * from ' ~ relation ~ ' where ' ~ where ~ ') dbt_subquery') -%}
    {%- else -%}
        {%- do return(relation) -%}
    {%- endif -%}
{%- endmacro %}

{#- The first and last day a per-day mart writes, as two SQL dates (for a table macro's
    day_from, day_to): the window in an incremental build, every day up to the as-of day
    otherwise. -#}
{% macro window_bounds() -%}
    {%- if is_incremental() -%}
        {{ window_start() }}, {{ as_of_date() }}
    {%- else -%}
        date '0001-01-01', {{ as_of_date() }}
    {%- endif -%}
{%- endmacro %}
