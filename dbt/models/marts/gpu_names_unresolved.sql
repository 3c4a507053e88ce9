-- Raw GPU names that did not resolve to a canonical gpu_id, with the reason and where they appear
-- (price rows by provider, spec rows by source, benchmark runs as provider 'benchmark'). Nothing is
-- dropped silently: unresolved offers stay in fct_gpu_offers_daily with a null gpu_id.
with seen as (
    select
        provider,
        gpu_name_raw,
        offer_id,
        gpu_memory_gb,
        observed_at
    from {{ ref('stg_price_observations') }}
    union all
    select
        source,
        gpu_name_raw,
        offer_id,
        memory_gb,
        observed_at
    from {{ ref('stg_gpu_specs') }}
    union all
    select
        'benchmark' as provider,
        gpu_name_raw,
        '' as offer_id,
        cast(null as double) as gpu_memory_gb,
        snapshot_fetched_at as observed_at
    from {{ ref('stg_benchmark_runs') }}
    where gpu_name_raw is not null
)

select
    names.provider,
    names.gpu_name_raw,
    names.offer_id,
    names.gpu_memory_gb,
    names.resolution,
    names.unresolved_reason,
    names.candidate_gpu_ids,
    count(*) as n_observations,
    min(seen.observed_at) as first_observed_at,
    max(seen.observed_at) as last_observed_at
from {{ ref('int_gpu_names_resolved') }} as names
inner join seen
    on names.provider = seen.provider
    and names.gpu_name_raw = seen.gpu_name_raw
    and names.offer_id = seen.offer_id
    and seen.gpu_memory_gb is not distinct from names.gpu_memory_gb
where names.resolution <> 'resolved'
    -- Reference datasets list every board ever made; their unmatched names are not offers.
    and names.provider not in (
        {%- for s in var('reference_spec_sources') %}'{{ s }}'{% if not loop.last %}, {% endif %}{% endfor -%}
    )
group by all
