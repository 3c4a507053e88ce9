-- Raw GPU names that did not resolve to a canonical gpu_id, with the reason and where they appear.
-- Nothing is dropped silently: these offers stay in fct_gpu_offers_daily with a null gpu_id.
select
    names.provider,
    names.gpu_name_raw,
    names.offer_id,
    names.gpu_memory_gb,
    names.resolution,
    names.unresolved_reason,
    names.candidate_gpu_ids,
    count(*) as n_observations,
    min(obs.observed_at) as first_observed_at,
    max(obs.observed_at) as last_observed_at
from {{ ref('int_gpu_names_resolved') }} as names
inner join {{ ref('stg_price_observations') }} as obs
    on obs.provider = names.provider
    and obs.gpu_name_raw = names.gpu_name_raw
    and obs.offer_id = names.offer_id
    and obs.gpu_memory_gb is not distinct from names.gpu_memory_gb
where names.resolution <> 'resolved'
group by all
