{#- Bytes per parameter or per KV-cache element of a precision name. -#}
{% macro bytes_per_value(precision) -%}
case lower({{ precision }})
    when 'fp32' then 4.0 when 'bf16' then 2.0 when 'fp16' then 2.0
    when 'fp8' then 1.0 when 'int8' then 1.0
    when 'int4' then 0.5 when 'fp4' then 0.5
end
{%- endmacro %}

{#- Dense TFLOPS a precision computes at on a GPU whose specs are `specs`: the FP8 rate for fp8,
    int8 and fp4 (FP4 at the FP8 rate, a floor) where known, else FP16/BF16 (int4 is weight-only:
    its math runs in 16 bits). The classes and the runs use the same rule. -#}
{% macro tflops_for(precision, specs) -%}
case
    when lower({{ precision }}) in ('fp8', 'int8', 'fp4') then coalesce({{ specs }}.fp8_tflops, {{ specs }}.fp16_tflops)
    else {{ specs }}.fp16_tflops
end
{%- endmacro %}

{#- The cost arithmetic of a workload option (see fct_workload_costs_daily), added as columns to a
    relation of options that has the stored inputs (fct_workload_cost_inputs_daily's columns).
    One code for the ranks (computed when the inputs are written) and for the costs shown (the
    view over the stored inputs): both evaluate these expressions on the same values, so a
    rank and the cost beside it agree to the last bit. -#}
{% macro with_cost_measures(options) -%}
select
    * exclude (accepted_throughput_per_hour),
    -- accepted outputs per busy hour in the class's unit (requests of output_len tokens, 1M
    -- tokens, images, training samples): what one unit serves, comparable with the cost per
    -- accepted output (effective_hourly_cost / accepted_outputs_per_hour)
    case
        when option_kind <> 'gpu_offer' then null
        when output_unit = 'request' then accepted_throughput_per_hour / output_len
        when output_unit = '1m_tokens' then accepted_throughput_per_hour / 1e6
        else accepted_throughput_per_hour
    end as accepted_outputs_per_hour,
    -- the cost's p10-p90 interval from the throughput's (the cost goes as 1 / throughput: its p10
    -- from the throughput's p90); a model API's list price has none to spread. The throughputs'
    -- ratio first: where the point is an end of the interval the ratio is exactly 1 and the end
    -- is the cost itself ((cost x u) / u can miss the cost by its last bit, and put it outside)
    case when option_kind = 'gpu_offer' and unit_outputs_per_s_p90 > 0
            then cost_per_accepted_output * (unit_outputs_per_s / unit_outputs_per_s_p90)
    end as cost_per_accepted_output_p10,
    case when option_kind = 'gpu_offer' and unit_outputs_per_s_p10 > 0
            then cost_per_accepted_output * (unit_outputs_per_s / unit_outputs_per_s_p10)
    end as cost_per_accepted_output_p90
from (
select
    *,
    case when tokens_per_dollar > 0 then 1e6 / tokens_per_dollar end as cost_per_1m_accepted_tokens,
    case
        when
            option_kind = 'model_api' and output_unit = 'request'
            then api_cost_per_request / accepted_fraction
        when option_kind = 'model_api' and output_unit = '1m_tokens'
            then
                api_cost_per_request / output_len * 1e6 / accepted_fraction
        when output_unit = 'request' then effective_hourly_cost / (accepted_throughput_per_hour / output_len)
        when output_unit = '1m_tokens' then effective_hourly_cost / accepted_throughput_per_hour * 1e6
        else effective_hourly_cost / accepted_throughput_per_hour
    end as cost_per_accepted_output
from (
    select
        *,
        case
            when option_kind = 'model_api' and api_cost_per_request > 0
                then
                    output_len * accepted_fraction / api_cost_per_request
            when class_kind = 'llm_serving' then accepted_throughput_per_hour / effective_hourly_cost
            when class_kind = 'training' then
                accepted_throughput_per_hour * tokens_per_output / effective_hourly_cost
        end as tokens_per_dollar,
        case
            when option_kind = 'model_api' then null
            when class_kind = 'llm_serving' then accepted_throughput_per_hour
            when class_kind = 'training' then accepted_throughput_per_hour * tokens_per_output
        end as accepted_output_tokens_per_hour
    from (
        select
            *,
            success_fraction * quality_pass_rate as accepted_fraction,
            case when option_kind = 'gpu_offer' then
                    gpus_needed * price_usd_per_gpu_hour / target_utilization + overhead_usd_per_hour
            end as effective_hourly_cost,
            -- unit_outputs_per_s's unit per busy hour: output tokens for LLM serving, images,
            -- training samples
            case
                when option_kind = 'gpu_offer' then
                    unit_outputs_per_s * 3600 * success_fraction * quality_pass_rate
            end as accepted_throughput_per_hour
        from {{ options }}
    ) as costed
) as per_unit
) as with_costs
{%- endmacro %}
