-- GPU identity: every distinct (provider, raw name, offer id, memory hint) resolved to a canonical
-- gpu_id from the gpu_catalog seed, or left unresolved with the reason.
-- Rules, in order:
--   1. name key: upper case, vendor words and "8x" prefixes removed, letters and digits only;
--   2. family: the longest catalog family or alias (provider-specific aliases first) that starts the key;
--   3. variant hint from the name and offer id: SXM/HGX/NVLINK -> sxm, PCIE -> pcie, NVL (not NVL72) -> nvl,
--      else the alias's variant;
--   4. memory hint from the raw name ("A100-80GB", "H200-SXM-141GB"); a memory size from the record
--      (e.g. GpuInfo) is used only when it picks exactly one candidate (catalogs sometimes put host
--      RAM there);
--   5. exactly one catalog row left -> resolved; none -> unknown; several -> ambiguous;
--   6. a name that lists several GPU kinds (a heterogeneous MLPerf system) stays unresolved;
--   7. benchmark files only: a name with no variant ("8xH200", "H100", "A100 80GB") whose
--      candidates include exactly one SXM part -> that part, resolution assumed_sxm (the rule the
--      published 8-GPU benchmark servers follow: HGX/DGX boards are SXM). Price rows stay
--      ambiguous: a provider's plain name is settled by an alias for that provider.
-- Names come from every source: price rows (keyed by provider), spec rows (keyed by source) and
-- benchmark runs (provider 'benchmark').
with names as (
    select distinct
        provider,
        gpu_name_raw,
        offer_id,
        gpu_memory_gb
    from {{ ref('stg_price_observations') }}
    union
    select distinct
        source as provider,
        gpu_name_raw,
        offer_id,
        memory_gb as gpu_memory_gb
    from {{ ref('stg_gpu_specs') }}
    union
    -- benchmark files name their hardware in many ways ("H100SXM5", "NVIDIA A100-SXM4-80GB",
    -- "AMD Instinct MI300X-NPS1-SPX-192GB-750W", "b200-dgxc"); keyed as provider 'benchmark'
    select distinct
        'benchmark' as provider,
        gpu_name_raw,
        '' as offer_id,
        cast(null as double) as gpu_memory_gb
    from {{ ref('stg_benchmark_runs') }}
    where gpu_name_raw is not null
),

keyed as (
    select
        *,
        {{ gpu_name_key('gpu_name_raw') }} as name_key,
        upper(gpu_name_raw || ' ' || offer_id) as hint_text,
        -- a heterogeneous system names several GPU kinds ("NVIDIA H200-SXM-141GB + AMD Instinct
        -- MI350X", "MI300X 192GB HBM3 (x8) and ... MI355X"): no one kind to resolve to
        regexp_matches(upper(gpu_name_raw), '\+|\bAND\b|\(X[0-9]+\),') as is_mixed
    from names
),

family_keys as (
    select distinct
        '*' as provider,
        family as alias,
        family,
        cast(null as varchar) as alias_variant,
        1 as priority
    from {{ ref('gpu_catalog') }}
    union all
    select
        provider,
        alias,
        family,
        nullif(variant, '') as alias_variant,
        case when provider = '*' then 1 else 0 end as priority
    from {{ ref('gpu_aliases') }}
),

family_match as (
    select
        k.*,
        f.family,
        f.alias,
        f.alias_variant
    from keyed as k
    left join family_keys as f
        on starts_with(k.name_key, f.alias)
        and (f.provider = '*' or k.provider = f.provider)
    qualify row_number() over (
            partition by k.provider, k.gpu_name_raw, k.offer_id, k.gpu_memory_gb
            order by f.priority asc nulls last, length(f.alias) desc nulls last
        ) = 1
),

hinted as (
    select
        *,
        case
            when regexp_matches(hint_text, 'SXM|HGX|NVLINK') then 'sxm'
            when regexp_matches(hint_text, 'PCIE') then 'pcie'
            when regexp_matches(hint_text, 'NVL([^0-9I]|$)') then 'nvl'
            else alias_variant
        end as variant_hint,
        try_cast(
            nullif(regexp_extract(upper(gpu_name_raw), '[^0-9]([0-9]{2,3}) ?G(B|IB)?([^A-Z]|$)', 1), '')
            as double
        ) as name_memory_gb
    from family_match
),

candidates as (
    select
        h.provider,
        h.gpu_name_raw,
        h.offer_id,
        h.gpu_memory_gb,
        c.gpu_id,
        c.variant,
        h.gpu_memory_gb is not null
        and abs(c.memory_gb - h.gpu_memory_gb) <= 0.1 * c.memory_gb as is_memory_match
    from hinted as h
    inner join {{ ref('gpu_catalog') }} as c
        on h.family = c.family
        and (h.variant_hint is null or h.variant_hint = c.variant)
        and (h.name_memory_gb is null or abs(c.memory_gb - h.name_memory_gb) <= 0.1 * c.memory_gb)
),

summary as (
    select
        provider,
        gpu_name_raw,
        offer_id,
        gpu_memory_gb,
        count(*) as n_candidates,
        count(*) filter (where is_memory_match) as n_memory_matches,
        coalesce(
            string_agg(
                gpu_id, '|'
                order by gpu_id
            ) filter (where is_memory_match
            ),
            string_agg(
                gpu_id, '|'
                order by gpu_id
            )
        ) as candidate_gpu_ids,
        min(gpu_id) filter (where is_memory_match) as memory_match_gpu_id,
        min(gpu_id) as only_gpu_id,
        count(*) filter (where variant = 'sxm') as n_sxm,
        min(gpu_id) filter (where variant = 'sxm') as sxm_gpu_id
    from candidates
    group by all
)

select
    h.provider,
    h.gpu_name_raw,
    h.offer_id,
    h.gpu_memory_gb,
    h.name_key,
    h.family,
    h.variant_hint,
    h.name_memory_gb,
    s.candidate_gpu_ids,
    case
        when h.is_mixed then null
        when s.n_memory_matches = 1 then s.memory_match_gpu_id
        when s.n_candidates = 1 then s.only_gpu_id
        when {{ assumes_sxm('h', 's') }} then s.sxm_gpu_id
    end as gpu_id,
    case
        when h.is_mixed then 'unknown'
        when h.family is null then 'unknown'
        when coalesce(s.n_candidates, 0) = 0 then 'unknown'
        when s.n_memory_matches = 1 or s.n_candidates = 1 then 'resolved'
        when {{ assumes_sxm('h', 's') }} then 'assumed_sxm'
        else 'ambiguous'
    end as resolution,
    case
        when h.is_mixed then 'names several GPU kinds (a heterogeneous system): no one kind to resolve to'
        when h.family is null then 'no catalog family or alias matches name key ' || h.name_key
        when coalesce(s.n_candidates, 0) = 0
            then
                'family ' || h.family || ' has no catalog entry with variant '
                || coalesce(h.variant_hint, 'any')
                || ' and memory '
                || coalesce(cast(h.name_memory_gb as varchar), 'any')
        when s.n_memory_matches = 1 or s.n_candidates = 1 then null
        when {{ assumes_sxm('h', 's') }}
            then 'no variant named: the SXM part is assumed (' || s.candidate_gpu_ids || ' fit)'
        else 'several catalog entries fit (' || s.candidate_gpu_ids || '); add an alias with the variant'
    end as unresolved_reason
from hinted as h
left join summary as s
    on h.provider = s.provider
    and h.gpu_name_raw = s.gpu_name_raw
    and h.offer_id = s.offer_id
    and h.gpu_memory_gb is not distinct from s.gpu_memory_gb
