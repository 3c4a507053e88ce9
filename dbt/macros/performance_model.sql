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
    input_len, output_len, interconnect
) as
    main.gl_tp_factor(n_gpus, interconnect) / (
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
    input_len, output_len, interconnect
) as
    (
        2.0 * active_params_b * 1e9 * input_len / (n_gpus * tflops * 1e12 * {{ var('compute_efficiency') }})
        + main.gl_decode_step_s(
            n_gpus, bandwidth_gb_s, tflops, weights_read_gb, active_params_b, batch, kv_bytes_per_token,
            input_len, output_len
        )
    ) / main.gl_tp_factor(n_gpus, interconnect) * 1000.0;

create or replace macro main.gl_tpot_ms(
    n_gpus, bandwidth_gb_s, tflops, weights_read_gb, active_params_b, batch, kv_bytes_per_token,
    input_len, output_len, interconnect
) as
    main.gl_decode_step_s(
        n_gpus, bandwidth_gb_s, tflops, weights_read_gb, active_params_b, batch, kv_bytes_per_token,
        input_len, output_len
    ) / main.gl_tp_factor(n_gpus, interconnect) * 1000.0;

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
{% endmacro %}
