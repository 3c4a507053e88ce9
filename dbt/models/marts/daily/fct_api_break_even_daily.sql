-- Model API against renting, per day and workload class. Renting the cheapest eligible GPU unit
-- costs the same whatever it serves (daily_rent_usd = 24 h x target utilization x effective
-- hourly cost); the cheapest eligible API costs per accepted output. Renting wins above
-- break_even_outputs_per_day = daily_rent_usd / api cost per output, as long as one unit can
-- serve that many (unit_capacity_outputs_per_day); where the API is cheaper per output even at
-- full load, renting never wins (break-even null).
with ranked as (
    select
        r.day,
        r.workload_class,
        r.option_kind,
        r.option_key,
        r.option_rank
    from {{ ref('fct_gpu_rankings_daily') }} as r
    where {{ in_window('r.day') }}
    qualify row_number() over (
            partition by r.day, r.workload_class, r.option_kind
            order by r.option_rank
        ) = 1
),

best as (
    select c.*
    from ranked as r
    inner join {{ ref('fct_workload_costs_daily') }} as c
        on r.day = c.day and r.workload_class = c.workload_class and r.option_key = c.option_key
    where {{ in_window('c.day') }}
),

gpu as (
    select * from best
    where option_kind = 'gpu_offer'
),

api as (
    select * from best
    where option_kind = 'model_api'
),

joined as (
    select
        g.day,
        g.workload_class,
        g.output_unit,
        g.gpu_id,
        g.provider as gpu_provider,
        g.offer_id as gpu_offer_id,
        g.gpus_needed,
        g.evidence as gpu_evidence,
        g.cost_per_accepted_output as gpu_cost_per_accepted_output,
        24 * g.target_utilization * g.effective_hourly_cost as daily_rent_usd,
        24 * g.target_utilization * g.accepted_outputs_per_hour as unit_capacity_outputs_per_day,
        a.provider as api_provider,
        a.offer_id as api_model,
        a.cost_per_accepted_output as api_cost_per_accepted_output,
        -- the API price catalog's age on the day (negative: taken later; warehouse/README.md)
        a.days_since_observed as api_days_since_observed
    from gpu as g
    inner join api as a on g.day = a.day and g.workload_class = a.workload_class
)

select
    *,
    case
        when api_cost_per_accepted_output > gpu_cost_per_accepted_output
            then daily_rent_usd / api_cost_per_accepted_output
    end as break_even_outputs_per_day,
    case
        when api_cost_per_accepted_output <= gpu_cost_per_accepted_output then 'api_always_cheaper'
        else 'renting_wins_above_break_even'
    end as verdict
from joined
order by day, workload_class
