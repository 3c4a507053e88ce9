{#-
The performance model as DuckDB macros, created in the warehouse at the start of every dbt
invocation (on-run-start), so the workload classes (int_throughput_estimated), every benchmark
run (fct_benchmark_run_efficiency), `gpuledger estimate` and scripts/verify_estimates.py compute
with one and the same code. They live in the warehouse's `main` schema and travel with the
published copy.

Roofline of LLM serving on a unit of n GPUs serving `batch` sequences at once. Prefill and decode
share the same GPUs, so their times add up (a plain min() of two bounds would count the GPU twice):
  one decode step produces `batch` tokens and takes the longer of
    reading the weights the batch's tokens touch plus the KV cache of every sequence at its mean
      context (input + output / 2): weights read per step = min(total, active x batch)
      parameters x bytes (a dense model: all of them; a mixture of experts: the active experts per
      token, at most all experts), at n x bandwidth x bandwidth_efficiency, and
    its FLOPs, batch x 2 x active parameters, at n x dense TFLOPS x compute_efficiency;
  each output token also carries its share of prefill: 2 x active parameters x input / output
    FLOPs at n x dense TFLOPS x compute_efficiency;
  output tokens/s = 1 / (decode step / batch + prefill per output token), times the unit's
    tensor-parallel factor: a unit of n > 1 GPUs joined only by PCIe keeps pcie_tp_efficiency of
    its throughput per doubling of n (0.7: 2 GPUs 0.70, 4 GPUs 0.49, 8 GPUs 0.34); NVL pairs
    joined by a bridge pay it beyond 2; NVLink / Infinity Fabric / Gaudi's on-chip Ethernet units
    pay nothing here (the runs, all on such units, carry their real cost in their efficiency).
Latency of one request on that unit:
  TTFT = its prefill FLOPs (2 x active parameters x input) at n x TFLOPS x compute_efficiency,
    plus one decode step of the running batch (the iteration that emits the first token)
  time per output token = one decode step (above), both divided by the tensor-parallel factor.
  Queueing under load is not modelled: the runs' measured/predicted latency ratios carry it.
Calibration weight of a run for a target (a class or the conditions asked for): exp(-2 d), d = the
  distance between them: |ln| of the ratios of active parameters, batch, input and output length
  (the lengths at half weight), plus 1 for another precision and 1 for MoE vs dense. (The factor
  2 and the half weights were chosen by scripts/verify_estimates.py's leave-one-out error.)
-#}
{% macro create_performance_macros() %}
create or replace macro main.gl_weights_read_gb(total_params_b, active_params_b, batch, bytes_per_param) as
    least(total_params_b, active_params_b * greatest(batch, 1)) * bytes_per_param;

create or replace macro main.gl_tp_factor(n_gpus, interconnect) as
    case
        when n_gpus is null or n_gpus <= 1 then 1.0
        when interconnect = 'pcie' then pow({{ var('pcie_tp_efficiency') }}, log2(n_gpus))
        when interconnect = 'nvlink_bridge' and n_gpus > 2
            then pow({{ var('pcie_tp_efficiency') }}, log2(n_gpus / 2))
        else 1.0
    end;

{#- The tensor-parallel degree of n GPUs serving a model of params_b billion parameters at
    bytes_per_param: the fewest GPUs, a power of two, whose memory (less the headroom and the
    runtime's overhead) holds the weights, at most n. More GPUs than that serve replicas, each
    paying only its own degree's PCIe cost (gl_tp_factor). -#}
create or replace macro main.gl_tp_degree(n_gpus, params_b, bytes_per_param, memory_gb) as
    case
        when n_gpus is null or n_gpus <= 1 then n_gpus
        when params_b * bytes_per_param
            <= memory_gb * (1 - {{ var('tp_headroom') }}) - {{ var('tp_runtime_overhead_gb') }}
            then 1
        when memory_gb * (1 - {{ var('tp_headroom') }}) - {{ var('tp_runtime_overhead_gb') }} <= 0
            then n_gpus
        else least(
                n_gpus,
                pow(2, ceil(log2(
                    params_b * bytes_per_param
                    / (memory_gb * (1 - {{ var('tp_headroom') }}) - {{ var('tp_runtime_overhead_gb') }})
                )))
            )
    end;

create or replace macro main.gl_decode_step_s(
    n_gpus, bandwidth_gb_s, tflops, weights_read_gb, active_params_b, batch, kv_bytes_per_token,
    input_len, output_len
) as
    greatest(
        (weights_read_gb * 1e9 + batch * kv_bytes_per_token * (input_len + output_len / 2.0))
        / (n_gpus * bandwidth_gb_s * 1e9 * {{ var('bandwidth_efficiency') }}),
        batch * 2.0 * active_params_b * 1e9 / (n_gpus * tflops * 1e12 * {{ var('compute_efficiency') }})
    );

create or replace macro main.gl_prefill_s_per_output_token(n_gpus, tflops, active_params_b, input_len, output_len) as
    2.0 * active_params_b * 1e9 * input_len / output_len
    / (n_gpus * tflops * 1e12 * {{ var('compute_efficiency') }});

create or replace macro main.gl_tokens_per_s(
    n_gpus, bandwidth_gb_s, tflops, weights_read_gb, active_params_b, batch, kv_bytes_per_token,
    input_len, output_len, interconnect, tp_gpus := null
) as
    main.gl_tp_factor(coalesce(tp_gpus, n_gpus), interconnect) / (
        main.gl_decode_step_s(
            n_gpus, bandwidth_gb_s, tflops, weights_read_gb, active_params_b, batch,
            kv_bytes_per_token, input_len, output_len
        ) / batch
        + main.gl_prefill_s_per_output_token(n_gpus, tflops, active_params_b, input_len, output_len)
    );

create or replace macro main.gl_decode_tokens_per_s(
    n_gpus, bandwidth_gb_s, weights_read_gb, batch, kv_bytes_per_token, input_len, output_len
) as
    batch * n_gpus * bandwidth_gb_s * 1e9 * {{ var('bandwidth_efficiency') }}
    / (weights_read_gb * 1e9 + batch * kv_bytes_per_token * (input_len + output_len / 2.0));

create or replace macro main.gl_compute_tokens_per_s(n_gpus, tflops, active_params_b, input_len, output_len) as
    n_gpus * tflops * 1e12 * {{ var('compute_efficiency') }}
    / (2.0 * active_params_b * 1e9 * (input_len + output_len) / output_len);

create or replace macro main.gl_ttft_ms(
    n_gpus, bandwidth_gb_s, tflops, weights_read_gb, active_params_b, batch, kv_bytes_per_token,
    input_len, output_len, interconnect, tp_gpus := null
) as
    (
        2.0 * active_params_b * 1e9 * input_len / (n_gpus * tflops * 1e12 * {{ var('compute_efficiency') }})
        + main.gl_decode_step_s(
            n_gpus, bandwidth_gb_s, tflops, weights_read_gb, active_params_b, batch, kv_bytes_per_token,
            input_len, output_len
        )
    ) / main.gl_tp_factor(coalesce(tp_gpus, n_gpus), interconnect) * 1000.0;

create or replace macro main.gl_tpot_ms(
    n_gpus, bandwidth_gb_s, tflops, weights_read_gb, active_params_b, batch, kv_bytes_per_token,
    input_len, output_len, interconnect, tp_gpus := null
) as
    main.gl_decode_step_s(
        n_gpus, bandwidth_gb_s, tflops, weights_read_gb, active_params_b, batch, kv_bytes_per_token,
        input_len, output_len
    ) / main.gl_tp_factor(coalesce(tp_gpus, n_gpus), interconnect) * 1000.0;

create or replace macro main.gl_nearness(
    active_a, active_b, batch_a, batch_b, input_a, input_b, output_a, output_b,
    precision_a, precision_b, moe_a, moe_b
) as
    exp(-2.0 * (
        abs(ln(active_a / active_b))
        + abs(ln(greatest(batch_a, 1) / greatest(batch_b, 1)))
        + 0.5 * abs(ln(greatest(input_a, 1) / greatest(input_b, 1)))
        + 0.5 * abs(ln(greatest(output_a, 1) / greatest(output_b, 1)))
        + case when precision_a = precision_b then 0 else 1 end
        + case when moe_a = moe_b then 0 else 1 end
    ));

{#- Serving stacks as calibration groups: MLPerf's "TensorRT" submissions run TensorRT-LLM. -#}
create or replace macro main.gl_stack_group(stack) as
    case
        when stack is null then 'other'
        when lower(stack) in ('tensorrt-llm', 'tensorrt', 'trtllm', 'trt-llm') then 'trtllm'
        when lower(stack) in ('vllm', 'sglang') then lower(stack)
        else 'other'
    end;

{#- The regime a set of conditions serves in: prefill-heavy (8+ prompt tokens per output token),
    decode at high concurrency (64+ sequences: the step is bound by compute and the KV cache),
    decode at low concurrency (bound by reading the weights). -#}
create or replace macro main.gl_regime(batch, input_len, output_len) as
    case
        when input_len >= 8 * output_len then 'prefill_heavy'
        when batch >= 64 then 'decode_high_concurrency'
        else 'decode_low_concurrency'
    end;

{#- The calibration of the roofline for one set of conditions, one row per GPU of `gpus_table`
    (gpu_id, vendor, architecture, family). Runs from `runs_table` (fct_benchmark_run_efficiency's
    columns) count when they were ingested by `as_of`, are of `run_kind`, run on `stack` (null:
    any) and are not of the organisation or GPU family left out (null: none; the grouped
    cross-validation leaves them out). Each run weighs its nearness to the conditions
    (gl_nearness, x exp(-2) in another regime). A GPU kind is a vendor's family: an A100 40 GB and
    80 GB are one chip, calibrated alike (each GPU's roofline still has its own bandwidth).
    The frontier, not the average: a level's efficiency is the weighted {{ var('calibration_quantile') }}
    quantile of its runs' efficiencies (what the upper part of comparable setups reaches). Levels
    nest: all GPUs <- the vendor <- the architecture generation <- the GPU kind <- the kind on one
    serving stack; each is shrunk, in log space, toward the level above in proportion to how much
    evidence it has: s = (n q + n0 s_above) / (n + n0), n = the effective number of its runs
    ((sum w)^2 / sum w^2: many runs equally near count fully, one near run among far ones counts
    once), n0 = {{ var('calibration_prior_weight') }} runs. A kind with one run is pulled toward
    its generation; a kind with hundreds keeps its own figure however far its runs are. Without
    a stack asked for, a kind takes its best stack.
    grade calibrated: runs on this kind; estimated: none, the generation's figure (else the
    vendor's, else all GPUs'). p10 and p90: the weighted 10th and 90th percentiles of the level's
    runs, widened to hold the point. -#}
create or replace macro main.gl_calibration(
    runs_table, gpus_table, t_run_kind, t_active, t_batch, t_input, t_output, t_precision, t_moe,
    t_as_of, t_stack, x_organization, x_family
) as table
with runs as (
    select
        r.run_key, r.vendor, r.architecture, r.family, r.efficiency,
        ln(r.efficiency) as le,
        main.gl_stack_group(r.serving_stack) as stack_group,
        case when r.batch_source <> 'offline_default' then r.ttft_ratio end as ttft_ratio,
        case when r.batch_source <> 'offline_default' then r.e2e_ratio end as e2e_ratio,
        main.gl_nearness(
            r.model_active_params_b, t_active, r.batch, t_batch, r.input_len, t_input,
            r.output_len, t_output, r.precision, t_precision, r.is_moe, t_moe
        ) * case
            when main.gl_regime(r.batch, r.input_len, r.output_len)
                = main.gl_regime(t_batch, t_input, t_output) then 1.0
            else exp(-2.0)
        end as w
    from query_table(runs_table) as r
    where r.efficiency > 0
        and r.run_kind = t_run_kind
        and r.ingested_date <= t_as_of
        and (t_stack is null or main.gl_stack_group(r.serving_stack) = t_stack)
        and (x_organization is null or r.organization is distinct from x_organization)
        and (x_family is null or r.family is distinct from x_family)
),
-- each run once in each level it belongs to (a level's group: lvl and its l_ columns)
placed as (
    select
        n.*,
        l.lvl,
        case when l.lvl >= 1 then n.vendor end as l_vendor,
        case when l.lvl = 2 then n.architecture end as l_architecture,
        case when l.lvl >= 3 then n.family end as l_family,
        case when l.lvl = 4 then n.stack_group end as l_stack
    -- o: the runs in efficiency order (run_key breaks ties), numbered once, so that the window
    -- and the levels' ordered sums sort integers rather than strings
    from (select *, row_number() over (order by le, run_key) as o from runs) as n,
        -- 0 all GPUs, 1 the vendor, 2 its architecture generation, 3 the GPU kind, 4 the kind
        -- on one serving stack
        (values (0), (1), (2), (3), (4)) as l (lvl)
),
cum as (
    -- cumulative weight shares in efficiency order within each level; every sum here runs in a
    -- fixed order (an ordered window, or a list in run order), so the same runs give the same
    -- bits every build
    select
        *,
        k / max(k) over (partition by lvl, l_vendor, l_architecture, l_family, l_stack) as c,
        w >= exp(-4.0) as near
    from (
        select
            *,
            sum(w) over (
                partition by lvl, l_vendor, l_architecture, l_family, l_stack order by o
                rows unbounded preceding
            ) as k
        from placed
    ) as ordered
),
lvl as (
    select
        lvl, l_vendor, l_architecture, l_family, l_stack,
        {{ calibration_level('c') }},
        -- (the distinct families as a sorted list: a DISTINCT aggregate made DuckDB group the
        -- level's runs twice and join the halves, a sixth of rank_workload's execution)
        nullif(array_to_string(list_sort(list_distinct(list(family))), ', '), '') as kinds,
        max(w) as nearest_weight,
        -- the five nearest runs, nearest first (ties by run key): the five smallest of
        -- (-w, run_key), without sorting every run of the level
        array_to_string(min_by(run_key, {'nw': -w, 'k': run_key}, 5), ' | ') as nearest_runs
    from cum
    group by lvl, l_vendor, l_architecture, l_family, l_stack
),
lvl_all as (
    select * from lvl where lvl = 0
),
shrunk_vendor as (
    select
        v.l_vendor as vendor, v.n, v.p10, v.p90, v.l_ttft, v.l_e2e, v.kinds,
        (v.ess * v.q + {{ var('calibration_prior_weight') }} * a.q)
            / (v.ess + {{ var('calibration_prior_weight') }}) as s
    from lvl as v, lvl_all as a
    where v.lvl = 1
),
shrunk_gen as (
    select
        g.l_vendor as vendor, g.l_architecture as architecture, g.n, g.p10, g.p90, g.l_ttft,
        g.l_e2e, g.kinds,
        (g.ess * g.q + {{ var('calibration_prior_weight') }} * v.s)
            / (g.ess + {{ var('calibration_prior_weight') }}) as s
    from lvl as g
    inner join shrunk_vendor as v on g.l_vendor = v.vendor
    where g.lvl = 2
),
shrunk_kind as (
    select
        k.l_vendor as vendor, k.l_family as family, k.n, k.p10, k.p90, k.l_ttft, k.l_e2e,
        k.nearest_weight, k.nearest_runs,
        (k.ess * k.q + {{ var('calibration_prior_weight') }} * g.s)
            / (k.ess + {{ var('calibration_prior_weight') }}) as s
    from lvl as k
    inner join (select distinct vendor, family, architecture from runs) as f
        on k.l_vendor = f.vendor and k.l_family = f.family
    inner join shrunk_gen as g on f.vendor = g.vendor and f.architecture = g.architecture
    where k.lvl = 3
),
best_stack as (
    select
        st.l_vendor as vendor, st.l_family as family,
        arg_max(st.l_stack, (st.ess * st.q + {{ var('calibration_prior_weight') }} * k.s)
            / (st.ess + {{ var('calibration_prior_weight') }})) as stack_group,
        max((st.ess * st.q + {{ var('calibration_prior_weight') }} * k.s)
            / (st.ess + {{ var('calibration_prior_weight') }})) as s
    from lvl as st
    inner join shrunk_kind as k on st.l_vendor = k.vendor and st.l_family = k.family
    where st.lvl = 4
    group by st.l_vendor, st.l_family
)
select
    g.gpu_id,
    case when k.n > 0 then 'calibrated' else 'estimated' end as grade,
    case
        when k.n > 0 then 'this_gpu_kind'
        when sg.n > 0 then 'architecture'
        when sv.n > 0 then 'vendor'
        else 'all_gpus'
    end as calibration_source,
    exp(coalesce(b.s, sg.s, sv.s, a.q)) as efficiency,
    exp(least(coalesce(k.p10, sg.p10, sv.p10, a.p10), coalesce(b.s, sg.s, sv.s, a.q)))
        as efficiency_p10,
    exp(greatest(coalesce(k.p90, sg.p90, sv.p90, a.p90), coalesce(b.s, sg.s, sv.s, a.q)))
        as efficiency_p90,
    coalesce(k.n, 0) as n_runs,
    case when k.n > 0 then b.stack_group end as stack,
    k.nearest_runs,
    k.nearest_weight,
    case
        when coalesce(k.n, 0) = 0 and sg.n > 0 then sg.kinds
        when coalesce(k.n, 0) = 0 and sv.n > 0 then sv.kinds
    end as comparable_gpus,
    exp(coalesce(k.l_ttft, sg.l_ttft, sv.l_ttft, a.l_ttft)) as ttft_ratio,
    exp(coalesce(k.l_e2e, sg.l_e2e, sv.l_e2e, a.l_e2e)) as e2e_ratio
from query_table(gpus_table) as g
cross join lvl_all as a
left join shrunk_kind as k on g.vendor = k.vendor and g.family = k.family
left join best_stack as b on g.vendor = b.vendor and g.family = b.family
left join shrunk_gen as sg on g.vendor = sg.vendor and g.architecture = sg.architecture
left join shrunk_vendor as sv on g.vendor = sv.vendor
where a.n > 0;
{% endmacro %}

{#- A calibration level's figures over the runs of `cum` grouped by it (`share`: the runs'
    cumulative weight share in efficiency order within the level): its size, effective number of
    runs, weighted quantile and p10 / p90 of the log efficiencies, and the weighted mean log
    latency ratios of its near runs. Sums in run order: the same bits on every build. The sums'
    terms are gathered in one list in run order (`terms`; a term that does not count is null, and
    a sum leaves nulls out), so the level's runs are sorted once rather than once per sum. -#}
{% macro calibration_level(share) -%}
count(*) as n,
        list(
            {
                'w': w,
                'ww': w * w,
                'ttft_w': case when ttft_ratio > 0 and near then w end,
                'ttft_wl': case when ttft_ratio > 0 and near then w * ln(ttft_ratio) end,
                'e2e_w': case when e2e_ratio > 0 and near then w end,
                'e2e_wl': case when e2e_ratio > 0 and near then w * ln(e2e_ratio) end
            }
            order by o
        ) as terms,
        pow(list_sum(list_transform(terms, lambda t: t.w)), 2)
            / list_sum(list_transform(terms, lambda t: t.ww)) as ess,
        min(le) filter (where {{ share }} >= {{ var('calibration_quantile') }} - 1e-12) as q,
        min(le) filter (where {{ share }} >= 0.1 - 1e-12) as p10,
        min(le) filter (where {{ share }} >= 0.9 - 1e-12) as p90,
        list_sum(list_transform(terms, lambda t: t.ttft_wl))
            / list_sum(list_transform(terms, lambda t: t.ttft_w)) as l_ttft,
        list_sum(list_transform(terms, lambda t: t.e2e_wl))
            / list_sum(list_transform(terms, lambda t: t.e2e_w)) as l_e2e
{%- endmacro %}
