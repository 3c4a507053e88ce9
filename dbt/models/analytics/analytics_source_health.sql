{{ config(alias="source_health") }}

-- Each source as of the build day: last successful fetch, newest accepted capture, staleness,
-- failures. A stale source's prices are carried forward and flagged; a down source's are dropped;
-- a source of GPU specs or benchmark runs only keeps its data until replaced, whatever its age.
-- And the offers on which the source disagrees with another source that day beyond the
-- price_disagreement_tolerance var (fct_price_disagreements), named.
with disagreements as (
    select
        d.source,
        count(*) as n_price_disagreements,
        string_agg(
            d.provider || ' ' || d.gpu_count || 'x ' || d.gpu_id || ' ' || d.pricing_model
            || ': ' || d.source || ' ' || round(d.own_usd, 4) || ' vs ' || d.other_source || ' '
            || round(d.other_usd, 4) || ' USD/GPU-h (' || round(100 * d.relative_gap, 1) || ' %)',
            ' | '
            order by d.relative_gap desc, d.provider asc, d.gpu_id asc, d.other_source asc
        ) as price_disagreements
    from (
        select
            day,
            provider,
            gpu_count,
            gpu_id,
            pricing_model,
            relative_gap,
            source_a as source,
            price_usd_per_gpu_hour_a as own_usd,
            source_b as other_source,
            price_usd_per_gpu_hour_b as other_usd
        from {{ ref('fct_price_disagreements') }}
        where is_above_tolerance
        union all
        select
            day,
            provider,
            gpu_count,
            gpu_id,
            pricing_model,
            relative_gap,
            source_b as source,
            price_usd_per_gpu_hour_b as own_usd,
            source_a as other_source,
            price_usd_per_gpu_hour_a as other_usd
        from {{ ref('fct_price_disagreements') }}
        where is_above_tolerance
    ) as d
    where d.day = {{ as_of_date() }}
    group by d.source
)

select
    h.source,
    h.as_of_date,
    h.last_fetch_ok_at,
    h.newest_accepted_at,
    h.days_since_newest,
    h.n_accepted_snapshots,
    cast(h.rows_newest_day as bigint) as rows_newest_day,
    h.keeps_data,
    h.is_stale,
    h.is_down,
    h.n_fetch_failures,
    h.last_failure_at,
    h.last_failure_kind,
    h.last_failure_reason,
    coalesce(d.n_price_disagreements, 0) as n_price_disagreements,
    d.price_disagreements
from {{ ref('source_health') }} as h
left join disagreements as d on h.source = d.source
