-- Per day: which providers and sources had fresh prices (observed that day, or a quote in force),
-- which only carried-forward ones (stale), and which of those seen in the coverage window
-- (coverage_window_days up to the day) had none at all (down); and the share of the window's
-- offers still present. A day is covered when at least min_fresh_provider_share of the window's
-- providers were fresh: the first screen shows the newest covered day.
with days as (
    select distinct day from {{ ref('fct_gpu_offers_daily') }}
    where {{ in_window() }}
),

{#- the same three steps for providers and for price sources -#}
{% for entity in ['provider', 'source'] %}
{{ entity }}_days as (
    select
        day,
        {{ entity }},
        bool_or(not is_stale) as is_fresh
    from {{ ref('fct_gpu_offers_daily') }}
    where {{ in_window(lookback=var('coverage_window_days')) }}
    group by all
),

-- counted as seen on day d when it had fresh prices within the window up to d, or prices on d
{{ entity }}_window as (
    select
        d.day,
        e.{{ entity }},
        coalesce(bool_or(e.is_fresh and e.day = d.day), false) as is_fresh,
        bool_or(e.day = d.day) as is_present
    from days as d
    inner join {{ entity }}_days as e
        on e.day between d.day - {{ var('coverage_window_days') }} and d.day
        and (e.is_fresh or d.day = e.day)
    group by all
),

{{ entity }}s as (
    select
        day,
        count(*) as n_{{ entity }}s_recent,
        count(*) filter (where is_fresh) as n_{{ entity }}s_fresh,
        count(*) filter (where is_present and not is_fresh) as n_{{ entity }}s_stale,
        count(*) filter (where not is_present) as n_{{ entity }}s_down,
        string_agg(
            {{ entity }}, ', '
            order by {{ entity }}
        ) filter (where is_fresh
        ) as {{ entity }}s_fresh,
        string_agg(
            {{ entity }}, ', '
            order by {{ entity }}) filter (
            where is_present and not is_fresh
        ) as {{ entity }}s_stale,
        string_agg(
            {{ entity }}, ', '
            order by {{ entity }}
        ) filter (where not is_present
        ) as {{ entity }}s_down
    from {{ entity }}_window
    group by day
),
{% endfor %}

-- offers: each run of days an offer was present, stretched by the window, counted per day
offer_runs as (
    select
        offer_key,
        min(day) as first_day,
        max(day) + {{ var('coverage_window_days') }} as reach_until
    from (
        select
            offer_key,
            day,
            day - cast(row_number() over (
                partition by offer_key
                order by day
            ) as integer) as run_id
        from {{ ref('fct_gpu_offers_daily') }}
        -- a run that began before the lookback still covers the window's days from its start
        where {{ in_window(lookback=var('coverage_window_days')) }}
    )
    group by offer_key, run_id
),

offers_recent as (
    select
        d.day,
        count(distinct r.offer_key) as n_offers_recent
    from days as d
    inner join offer_runs as r
        on d.day between r.first_day and r.reach_until
    group by d.day
),

offers_present as (
    select
        day,
        count(*) as n_offers_present
    from {{ ref('fct_gpu_offers_daily') }}
    where {{ in_window() }}
    group by day
)

select
    d.day,
    coalesce(p.n_providers_recent, 0) as n_providers_recent,
    coalesce(p.n_providers_fresh, 0) as n_providers_fresh,
    coalesce(p.n_providers_stale, 0) as n_providers_stale,
    coalesce(p.n_providers_down, 0) as n_providers_down,
    p.providers_fresh,
    p.providers_stale,
    p.providers_down,
    coalesce(s.n_sources_recent, 0) as n_sources_recent,
    coalesce(s.n_sources_fresh, 0) as n_sources_fresh,
    coalesce(s.n_sources_stale, 0) as n_sources_stale,
    coalesce(s.n_sources_down, 0) as n_sources_down,
    s.sources_fresh,
    s.sources_stale,
    s.sources_down,
    coalesce(op.n_offers_present, 0) as n_offers_present,
    o.n_offers_recent,
    round(coalesce(op.n_offers_present, 0) / o.n_offers_recent, 4) as offers_present_share,
    round(coalesce(p.n_providers_fresh, 0) / nullif(p.n_providers_recent, 0), 4)
        as fresh_provider_share,
    cast({{ var("min_fresh_provider_share") }} as double) as min_fresh_provider_share,
    coalesce(p.n_providers_fresh, 0)
    >= {{ var('min_fresh_provider_share') }} * coalesce(p.n_providers_recent, 0)
    and coalesce(p.n_providers_fresh, 0) > 0 as is_covered
from days as d
left join providers as p on d.day = p.day
left join sources as s on d.day = s.day
left join offers_present as op on d.day = op.day
left join offers_recent as o on d.day = o.day
-- in day order: a full build writes each day's rows together, so that reading a few days (a later
-- build's window, the publication's update) skips the other days' row groups
order by d.day
