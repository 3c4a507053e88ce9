"""Your own workload on the demo warehouse: analytics.rank_workload gives each seeded class's rows
value for value, refuses wrong parameters with their name and reason, and `gpuledger rank /
explain --model ...` answer what a hand calculation from the marts' inputs gives."""

from __future__ import annotations

import json

import duckdb
import pytest

from tests.conftest import gpuledger

pytestmark = pytest.mark.integration

# the seed's columns that are rank_workload's parameters of the same name (model is model_ref,
# pricing_models a list; the rest as in workload_classes.csv)
SEED_PARAMETERS = (
    "input_len", "output_len", "concurrency", "precision", "kv_cache_precision",
    "slo_p95_ttft_ms", "slo_p99_e2e_ms", "target_utilization", "overhead_usd_per_hour",
    "quality_pass_rate", "output_unit", "tokens_per_output", "flops_per_output_tflop",
    "image_steps", "runtime_overhead_gb", "headroom", "max_gpus", "class_kind", "workload_class",
)  # fmt: skip


def _call(params: dict) -> str:
    return "analytics.rank_workload(" + ", ".join(f"{k} := ${k}" for k in params) + ")"


def _class_parameters(con, workload_class: str, day) -> dict:
    cur = con.execute(
        "select * from reference.workload_classes where workload_class = ?", [workload_class]
    )
    row = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
    params = {k: row[k] for k in SEED_PARAMETERS}
    params.update(model=row["model_ref"], pricing_models=row["pricing_models"].split("|"), day=day)
    return params


def _view_columns(con) -> str:
    """analytics.workload_costs_daily's columns, in order, as a select list."""
    return ", ".join(
        r[0]
        for r in con.execute(
            """select column_name from information_schema.columns
               where table_schema = 'analytics' and table_name = 'workload_costs_daily'
               order by ordinal_position"""
        ).fetchall()
    )


CLASSES = (
    "chat-8b", "chat-13-34b", "chat-70b", "chat-70b-latency", "rag-70b-long-context",
    "batch-70b", "assistant-405b", "local-8b-int4", "lora-finetune-8b", "image-gen-sdxl",
    "chat-gpt-oss-120b", "reasoning-kimi-k2.5", "agentic-coding-kimi-k2.5",
)  # fmt: skip


def test_every_seed_class_is_its_marts_rows_value_for_value(con, shown_day):
    """One definition: the macro, given a class's parameters, returns exactly the class's rows of
    analytics.workload_costs_daily on the shown day (every column of the view, every row, and
    no other), one row per option_key."""
    assert sorted(CLASSES) == [
        r[0]
        for r in con.execute(
            "select workload_class from reference.workload_classes order by 1"
        ).fetchall()
    ]
    columns = _view_columns(con)
    differing, sizes = {}, {}
    for workload_class in CLASSES:
        params = _class_parameters(con, workload_class, shown_day)
        call = _call(params)
        mart = (
            f"select {columns} from analytics.workload_costs_daily "
            "where workload_class = $workload_class and day = $day"
        )
        ours = f"select {columns} from {call}"
        differing[workload_class] = con.execute(
            f"select (select count(*) from ({ours} except all {mart})) "
            f"+ (select count(*) from ({mart} except all {ours}))",
            params,
        ).fetchone()[0]
        n, keys, ranked = con.execute(
            f"select count(*), count(distinct option_key), count(gpu_rank) from {call}", params
        ).fetchone()
        assert n == keys, f"{workload_class}: an option_key twice"
        sizes[workload_class] = (n, ranked)
    assert differing == dict.fromkeys(CLASSES, 0)
    # the rows compared are the whole of each class's day (no class is empty)
    for workload_class, (n, ranked) in sizes.items():
        assert (
            n
            == con.execute(
                "select count(*) from analytics.workload_costs_daily "
                "where workload_class = ? and day = ?",
                [workload_class, shown_day],
            ).fetchone()[0]
        )
        assert n > 700 and ranked > 0, workload_class


def test_an_image_workload_asked_by_its_steps_is_the_image_class(con, shown_day):
    """An image workload described by its denoising steps without its TFLOP per image: the
    model's TFLOP per step (SDXL 11, model_reference.csv) times the steps stands in. With the
    image class's parameters but its 330 TFLOP left out (30 steps), every row is the class's;
    before, nothing had an estimate and nothing ranked."""
    params = _class_parameters(con, "image-gen-sdxl", shown_day)
    assert (params["flops_per_output_tflop"], params["image_steps"]) == (330, 30)
    del params["flops_per_output_tflop"]
    columns = _view_columns(con)
    mart = (
        f"select {columns} from analytics.workload_costs_daily "
        "where workload_class = $workload_class and day = $day"
    )
    ours = f"select {columns} from {_call(params)}"
    differing, n, ranked = con.execute(
        f"select (select count(*) from ({ours} except all {mart})) "
        f"+ (select count(*) from ({mart} except all {ours})), "
        f"(select count(*) from ({ours})), (select count(gpu_rank) from ({ours}))",
        params,
    ).fetchone()
    assert differing == 0
    assert n > 700 and ranked > 0


def test_a_training_or_image_workload_is_costed_per_sample_or_image_by_default(con):
    """Without output_unit, each kind of workload is costed per the unit it produces: an LLM's
    request, a training sample, an image (as the seeded classes of each kind are)."""
    asked = {
        "request": "model := 'llama-3.1-8b', input_len := 100, output_len := 10",
        "sample": "model := 'llama-3.1-8b', class_kind := 'training', tokens_per_output := 2048, "
        "input_len := null, output_len := null",
        "image": "model := 'sdxl-1.0', class_kind := 'image_generation', image_steps := 30, "
        "input_len := null, output_len := null",
    }
    for unit, arguments in asked.items():
        units, ranked = con.execute(
            "select list(distinct output_unit), count(gpu_rank) "
            f"from analytics.rank_workload({arguments})"
        ).fetchone()
        assert units == [unit] and ranked > 0, (unit, units, ranked)


def test_defaults_are_the_checkpoints_precision_one_request_no_slo_on_demand_the_shown_day(
    con, shown_day
):
    rows = con.execute(
        """select distinct day, pricing_model, slo_status from analytics.rank_workload(
               model := 'llama-3.1-8b', input_len := 512, output_len := 128)
           where option_kind = 'gpu_offer' and is_eligible"""
    ).fetchall()
    assert {r[0] for r in rows} == {shown_day}
    assert {r[1] for r in rows} == {"on_demand"}
    assert {r[2] for r in rows} <= {"none"}  # no target: nothing to meet or break
    # the checkpoint's precision (bf16: 8.03 B parameters x 2 bytes) and one sequence's KV cache:
    # 32 layers x 2048 values x 2 bytes x 640 tokens = 0.084 GB
    fit = con.execute(
        """select distinct weights_gb, kv_cache_gb from analytics.rank_workload(
               model := 'llama-3.1-8b', input_len := 512, output_len := 128)
           where gpu_id = 'nvidia-h100-sxm-80gb'"""
    ).fetchall()
    assert fit == [(16.06, 0.084)]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ("model := 'llama-3.1-71b', input_len := 100, output_len := 10",
         "model := 'llama-3.1-71b' is not a known model; known: bert-large, deepseek-r1,"),
        ("input_len := 100, output_len := 10",
         "model := null is not a known model; known:"),
        ("model := 'llama-3.1-8b', input_len := 0, output_len := 10",
         "input_len := 0 must be a positive number of prompt tokens"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, class_kind := null",
         "class_kind := null is not a workload kind; known: llm_serving, training,"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, class_kind := 'serving'",
         "class_kind := 'serving' is not a workload kind; known: llm_serving, training,"),
        ("model := 'llama-3.1-8b', output_len := 10",
         "input_len := null must be a positive number of prompt tokens"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := -5",
         "output_len := -5 must be a positive number of output tokens"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, concurrency := 0",
         "concurrency := 0 must be a positive number of requests in flight"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, max_gpus := 0",
         "max_gpus := 0 must be at least 1 GPU (the largest unit tried is 8)"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, precision := 'fp7'",
         "precision := 'fp7' is not a precision; known: fp32, bf16, fp16, fp8, int8, int4, fp4"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, "
         "pricing_models := ['on_demand', 'weekly']",
         "pricing_models has weekly, not a pricing model; known: on_demand, spot,"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, pricing_models := []",
         "pricing_models := [] names no pricing model"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, pricing_models := [null]",
         "pricing_models := [NULL] names no pricing model"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, pricing_models := null",
         "pricing_models := null names no pricing model"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, day := date '2026-12-01'",
         "day := 2026-12-01 has no GPU prices; priced days run from 2021-04-28 to 2026-08-22"),
        # a workload of the wrong kind for its model, or without what its kind is costed by
        ("model := 'llama-3.1-8b', class_kind := 'image_generation', image_steps := 30, "
         "input_len := null, output_len := null",
         "model := 'llama-3.1-8b' is not an image model; class_kind := 'image_generation' "
         "takes sdxl-1.0"),
        ("model := 'sdxl-1.0', input_len := 100, output_len := 10",
         "model := 'sdxl-1.0' is an image model: ask with class_kind := 'image_generation' and "
         "image_steps"),
        ("model := 'sdxl-1.0', class_kind := 'image_generation', input_len := null, "
         "output_len := null",
         "image_steps := null must be a positive number of denoising steps per image (or give "
         "flops_per_output_tflop, the TFLOP of one image)"),
        ("model := 'llama-3.1-8b', class_kind := 'training', input_len := null, "
         "output_len := null",
         "tokens_per_output := null must be a positive number of tokens per training sample"),
        # what the cost per output divides by or adds, outside its range: the numbers would be
        # infinite, negative or too low, and still ranked
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, quality_pass_rate := 0",
         "quality_pass_rate := 0 must be above 0 and at most 1 (the share of outputs accepted)"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, quality_pass_rate := 1.5",
         "quality_pass_rate := 1.5 must be above 0 and at most 1 (the share of outputs accepted)"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, target_utilization := 0",
         "target_utilization := 0 must be above 0 and at most 1 (the share of each rented hour "
         "the GPUs do useful work)"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, "
         "overhead_usd_per_hour := -1",
         "overhead_usd_per_hour := -1 must be 0 or more (USD an hour on top of the GPUs)"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, headroom := 1",
         "headroom := 1 must be at least 0 and below 1 (the share of GPU memory kept free)"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, runtime_overhead_gb := -2",
         "runtime_overhead_gb := -2 must be 0 or more (GB per GPU)"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, output_unit := 'images'",
         "output_unit := 'images' is not a unit of llm_serving workloads; known: request, "
         "1m_tokens"),
        ("model := 'llama-3.1-8b', class_kind := 'training', tokens_per_output := 2048, "
         "output_unit := 'request', input_len := null, output_len := null",
         "output_unit := 'request' is not a unit of training workloads; known: sample"),
        # what one kind of workload is costed by, given to another: it would be left out of the
        # answer without a word (the rows were those of the same workload without it)
        ("model := 'llama-3.1-8b', class_kind := 'training', tokens_per_output := 2048, "
         "input_len := 2048, output_len := null",
         "input_len := 2048 applies only to class_kind := 'llm_serving' (leave it out)"),
        ("model := 'sdxl-1.0', class_kind := 'image_generation', image_steps := 30, "
         "input_len := null, output_len := 77",
         "output_len := 77 applies only to class_kind := 'llm_serving' (leave it out)"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, tokens_per_output := 5",
         "tokens_per_output := 5 applies only to class_kind := 'training' (tokens per training "
         "sample)"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, image_steps := 30",
         "image_steps := 30 applies only to class_kind := 'image_generation' (denoising steps "
         "per image)"),
        ("model := 'llama-3.1-8b', class_kind := 'training', tokens_per_output := 2048, "
         "flops_per_output_tflop := 330, input_len := null, output_len := null",
         "flops_per_output_tflop := 330 applies only to class_kind := 'image_generation' (TFLOP "
         "per image)"),
        # an image's steps or TFLOP out of range: the throughput divides by them
        ("model := 'sdxl-1.0', class_kind := 'image_generation', image_steps := 30.5, "
         "input_len := null, output_len := null",
         "image_steps := 30.5 must be a whole positive number of denoising steps per image"),
        ("model := 'sdxl-1.0', class_kind := 'image_generation', image_steps := 30, "
         "flops_per_output_tflop := -1, input_len := null, output_len := null",
         "flops_per_output_tflop := -1 must be a positive number of TFLOP per image"),
        # a KV cache of no known precision: the memory fit had no KV cache, and no GPU fitted
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, "
         "kv_cache_precision := 'fp3'",
         "kv_cache_precision := 'fp3' is not a precision; known: fp32, bf16, fp16, fp8, int8, "
         "int4, fp4"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, kv_cache_precision := null",
         "kv_cache_precision := null is not a precision; known: fp32, bf16, fp16, fp8, int8, "
         "int4, fp4"),
        # a latency target no run or estimate could keep (it ranked as if there were none)
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, slo_p95_ttft_ms := 0",
         "slo_p95_ttft_ms := 0 must be a positive number of milliseconds (or null: no target)"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, slo_p99_e2e_ms := -5",
         "slo_p99_e2e_ms := -5 must be a positive number of milliseconds (or null: no target)"),
        # the rows' key: without it only the model APIs came back, the GPU offers silently not
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, workload_class := null",
         "workload_class := null must name the workload (default 'custom'): its rows are keyed "
         "by it"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, max_gpus := 2.5",
         "max_gpus := 2.5 must be a whole number of GPUs (the largest unit tried is 8)"),
        # longer than the checkpoint's context window (max_position_embeddings of its config):
        # Llama 3.1 8B serves 131,072 tokens, Qwen2.5 32B Instruct 32,768 (it was ranked)
        ("model := 'llama-3.1-8b', input_len := 100000, output_len := 100000",
         "input_len + output_len := 200000 tokens exceed the context window of llama-3.1-8b, "
         "131072 tokens (max_position_embeddings of its published config)"),
        ("model := 'qwen2.5-32b', input_len := 32000, output_len := 769",
         "input_len + output_len := 32769 tokens exceed the context window of qwen2.5-32b, "
         "32768 tokens"),
        ("model := 'llama-2-7b', class_kind := 'training', tokens_per_output := 8192, "
         "input_len := null, output_len := null",
         "tokens_per_output := 8192 exceeds the context window of llama-2-7b, 4096 tokens"),
        # a day with prices, none of them under the asked pricing models: no GPU row would come
        # back (and no row at all for Qwen2.5-32B, which no API serves)
        ("model := 'qwen2.5-32b', input_len := 100, output_len := 10, "
         "pricing_models := ['reserved_3y']",
         "pricing_models := [reserved_3y] matches no GPU offer on 2026-08-21; that day's offers "
         "by pricing model: marketplace 9, on_demand 838, spot 182"),
        ("model := 'llama-3.1-8b', input_len := 100, output_len := 10, "
         "day := date '2021-04-28', pricing_models := ['spot', null]",
         "pricing_models := [spot, NULL] matches no GPU offer on 2021-04-28; that day's offers "
         "by pricing model: on_demand 7"),
    ],
)  # fmt: skip
def test_a_wrong_parameter_stops_the_query_with_its_name_and_reason(con, arguments, message):
    with pytest.raises(duckdb.InvalidInputException) as raised:
        con.execute(f"select * from analytics.rank_workload({arguments})").fetchall()
    assert f"rank_workload: {message}" in str(raised.value)


def test_a_gpu_too_small_names_the_largest_unit_the_workload_allows(con):
    # Llama 3.1 405B in bf16 is 810 GB of weights: no single GPU holds it, no 2 of any GPU either
    sql = """select distinct ineligible_reason from analytics.rank_workload(
                 model := 'llama-3.1-405b', input_len := 1000, output_len := 100, max_gpus := {})
             where option_kind = 'gpu_offer' and not fits"""
    assert con.execute(sql.format(1)).fetchall() == [
        ("does not fit on 1 GPU of this model (memory)",)
    ]
    assert con.execute(sql.format(3)).fetchall() == [
        ("does not fit on 2 GPUs of this model (memory)",)
    ]
    assert con.execute(sql.format(8)).fetchall() == [
        ("does not fit on 8 GPUs of this model (memory)",)
    ]
    # the class marts alike: image-gen-sdxl allows 1 GPU per unit, and an 8 GB card needs 11 GB
    assert con.execute(
        """select distinct gpu_id, ineligible_reason from analytics.workload_costs_daily
           where workload_class = 'image-gen-sdxl' and gpu_id = 'nvidia-quadro-p4000-8gb'"""
    ).fetchall() == [("nvidia-quadro-p4000-8gb", "does not fit on 1 GPU of this model (memory)")]


def test_explain_names_the_largest_unit_the_class_allows():
    from warehouse.queries.workloads import _largest_unit

    assert [_largest_unit({"max_gpus": n}) for n in (1, 2, 3, 6, 8, 16, None)] == [
        "1 GPU", "2 GPUs", "2 GPUs", "4 GPUs", "8 GPUs", "8 GPUs", "8 GPUs"
    ]  # fmt: skip


@pytest.mark.parametrize("day", [None, "2026-08-22"])
def test_a_warehouse_without_priced_days_says_so_with_or_without_a_day(demo_build, tmp_path, day):
    """Before any GPU price is in the warehouse, an empty answer would look like "no GPU fits":
    the call stops with the reason instead, whether or not the analyst names a day."""
    copy = tmp_path / "gpuledger.duckdb"
    copy.write_bytes(demo_build[0].published_db_path.read_bytes())
    connection = duckdb.connect(str(copy))
    try:
        connection.execute("delete from marts.fct_gpu_offers_daily")
        connection.execute("delete from marts.fct_coverage_daily")
        asked = "" if day is None else f", day := date '{day}'"
        with pytest.raises(duckdb.InvalidInputException) as raised:
            connection.execute(
                "select * from analytics.rank_workload(model := 'llama-3.1-8b', input_len := 100,"
                f" output_len := 10{asked})"
            ).fetchall()
        assert "rank_workload: the warehouse has no priced day yet" in str(raised.value)
    finally:
        connection.close()


def test_rank_by_hand_from_the_marts_inputs(demo_build, con, shown_day):
    """chat-70b's model, lengths, concurrency and SLO (so its fit, evidence and eligibility are
    the class's, in the marts) with the command line's defaults for the rest: utilization 0.6, no
    overhead, every output accepted, on-demand only. The leader and its cost by hand: the day's
    on-demand offers, each eligible GPU x its evidence, cost per request = (n x USD per GPU-hour
    / 0.6 + 0) / (tokens/s x 3600 x success / 256)."""
    offers = con.execute(
        """select c.gpu_id, c.option_key, c.gpus_needed, c.price_usd_per_gpu_hour,
                  e.unit_outputs_per_s, e.success_fraction
           from marts.fct_workload_cost_inputs_daily as c
           join marts.fct_throughput_evidence as e
             on e.workload_class = c.workload_class and e.gpu_id = c.gpu_id
            and e.evidence_from <= c.day and (e.evidence_until is null or c.day < e.evidence_until)
           where c.workload_class = 'chat-70b' and c.day = ? and c.is_eligible
             and c.option_kind = 'gpu_offer' and c.pricing_model = 'on_demand'""",
        [shown_day],
    ).fetchall()
    by_hand = sorted(
        (n * price / 0.6 / (tps * 3600 * ok / 256), price, gpu, key)
        for gpu, key, n, price, tps, ok in offers
    )
    assert len(by_hand) > 20
    cost, _, gpu, key = by_hand[0]
    done = gpuledger(
        demo_build[0], "rank", "--model", "llama-3.1-70b", "--input", "1024", "--output", "256",
        "--concurrency", "32", "--precision", "fp8", "--slo-ttft", "2000", "--slo-e2e", "25000",
        "--format", "json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["day"] == shown_day.isoformat()
    leader = result["gpus"][0]
    assert (leader["gpu_rank"], leader["gpu_id"]) == (1, gpu)
    assert leader["cost_per_accepted_output"] == pytest.approx(cost, rel=1e-12)
    # not the class's figure: chat-70b pays 0.20 USD/h of overhead and accepts 97 %
    class_cost = con.execute(
        """select cost_per_accepted_output from analytics.workload_costs_daily
           where workload_class = 'chat-70b' and day = ? and option_key = ?""",
        [shown_day, key],
    ).fetchone()[0]
    assert class_cost > cost * 1.05
    # every ranked GPU's cost is its best on-demand offer's, by hand
    best = {}
    for c, _, g, _ in by_hand:
        best.setdefault(g, c)
    assert {g["gpu_id"]: g["cost_per_accepted_output"] for g in result["gpus"]} == pytest.approx(
        best, rel=1e-12
    )
    # the model APIs for Llama 70B, priced the same way as the class's
    assert result["model_apis"][0]["provider"] == "openrouter"


def test_rank_table_and_explain_for_your_workload(demo_build):
    home = demo_build[0]
    done = gpuledger(
        home, "rank", "--model", "llama-3.1-70b", "--input", "3000", "--output", "400",
        "--concurrency", "24", "--precision", "fp8", "--slo-ttft", "800",
        "--pricing-models", "on_demand", "spot", "--limit", "3",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    header = next(line for line in lines if line.startswith("your workload:"))
    assert header.startswith(
        "your workload: llama-3.1-70b (fp8), 3000 in / 400 out tokens, 24 at once, "
        "p95 TTFT <= 800 ms, on_demand+spot on 2026-08-21"
    )
    first = lines[lines.index(header) + 2].split()
    assert first[:2] == ["1", "nvidia-h200-sxm-141gb"] and "calibrated" in first
    assert any(line.startswith("cheapest model API: openrouter/") for line in lines)
    # no run near 3,000/400 tokens at 24 at once reports its latency: the TTFT target asked for
    # is checked on none of the GPUs shown, and the table says so once, not only row by row
    shown = lines[lines.index(header) + 2 : lines.index(header) + 5]
    assert all("SLO unchecked" in line for line in shown)
    assert (
        "SLO UNCHECKED on every GPU shown: no run near this workload reports its latency, so the "
        "order above ignores the latency target (see `gpuledger explain`)"
    ) in lines

    explained = gpuledger(
        home, "explain", "--model", "llama-3.1-70b", "--input", "3000", "--output", "400",
        "--concurrency", "24", "--precision", "fp8", "--slo-ttft", "800",
        "--pricing-models", "on_demand", "spot", "--gpu", "nvidia-h200-sxm-141gb",
    )  # fmt: skip
    assert explained.returncode == 0, explained.stderr
    assert (
        "class: llama-3.1-70b (70.6 B parameters, fp8), 3000 in / 400 out tokens, concurrency 24, "
        "SLO p95 TTFT 800 ms, utilization 0.6,"
    ) in explained.stdout
    # 70.6 B x 1 byte; KV: 80 layers x 2048 values x 2 bytes x 3400 tokens x 24 = 26.739 GB
    assert (
        "1 memory fit: weights 70.6 GB + KV cache 26.739 GB + 4.0 GB runtime per GPU; usable per "
        "GPU 141.0 x (1 - 0.2) = 112.8 GB -> gpus_needed = 1"
    ) in explained.stdout
    assert "GPU rank 1" in explained.stdout


def test_rank_and_explain_refuse_wrong_parameters_clearly(demo_build):
    home = demo_build[0]
    asked = ("rank", "--model", "llama-3.1-70b", "--input", "3000")
    for extra, message in (
        (("--output", "0"), "output_len := 0 must be a positive number of output tokens"),
        (("--output", "400", "--slo-ttft", "0"),
         "slo_p95_ttft_ms := 0.0 must be a positive number of milliseconds (or null: no target)"),
        (("--output", "400", "--pricing-models", "reserved_1y"),
         "pricing_models := [reserved_1y] matches no GPU offer on 2026-08-21; that day's offers "
         "by pricing model: marketplace 9, on_demand 838, spot 182"),
    ):  # fmt: skip
        done = gpuledger(home, *asked, *extra)
        assert done.returncode == 2, extra
        assert done.stderr.strip() == f"gpuledger rank: {message}"
    both = gpuledger(home, "rank", "--workload", "chat-8b", "--model", "llama-3.1-8b")
    assert both.returncode == 2 and "not both" in both.stderr
    missing = gpuledger(
        home, "explain", "--model", "llama-3.1-70b", "--input", "3000", "--output", "400",
        "--gpu", "nvidia-h100-pcie-80gb-nope",
    )  # fmt: skip
    assert missing.returncode == 2
    assert (
        "no offer of 'nvidia-h100-pcie-80gb-nope' under on_demand on 2026-08-21" in missing.stderr
    )


def test_explain_says_a_workload_that_does_not_fit_has_no_throughput_for_that_reason(demo_build):
    """Kimi K2.5 for 256 agents at once needs 1.6 TB of KV cache: on eight B200s, whose specs are
    known, `explain` said "no estimate without specs"; the reason is the memory fit."""
    done = gpuledger(
        demo_build[0], "explain", "--model", "kimi-k2.5", "--input", "90000", "--output", "1000",
        "--concurrency", "256", "--precision", "fp4", "--gpu", "nvidia-b200-sxm-180gb",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    fit = next(i for i, line in enumerate(lines) if line.startswith("1 memory fit:"))
    assert lines[fit] == (
        "1 memory fit: weights 520.0 GB + KV cache 1637.057 GB + 4.0 GB runtime per GPU; usable "
        "per GPU 180.0 x (1 - 0.2) = 144.0 GB -> does not fit on 8 GPUs"
    )
    assert lines[fit + 1] == "2 throughput: none: the workload does not fit (1)"
    assert "   not eligible: does not fit on 8 GPUs of this model (memory)" in lines


def test_the_macro_answers_in_the_read_only_sql_sandbox(demo_build):
    done = gpuledger(
        demo_build[0], "sql",
        "select gpu_id from analytics.rank_workload(model := 'llama-3.1-8b', input_len := 1024, "
        "output_len := 256, concurrency := 32) where gpu_rank = 1",
        "--format", "csv",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith("nvidia-")


BATCH_REASON = (
    "a batch endpoint (answers asynchronously, within hours): not for a workload with a latency "
    "target"
)


def test_a_batch_endpoint_serves_only_a_workload_without_a_latency_target(
    demo_build, con, shown_day
):
    """OpenRouter's batch endpoint of gpt-oss-120b (genai-prices: "gpt-oss-120b (batch)", 0.0296
    / 0.136 USD per 1M tokens against 0.1 / 0.5 interactive) answers within hours: chat-gpt-oss-120b
    (p95 TTFT 3 s) may not take it, the same lengths with no latency target may."""
    catalog = con.execute(
        """select input_usd_per_mtok, output_usd_per_mtok, is_batch_endpoint
           from marts.fct_model_api_prices
           where provider = 'openrouter' and model_id = 'openai/gpt-oss-120b:batch'"""
    ).fetchall()
    assert catalog == [(0.0296, 0.136, True)]
    in_class = con.execute(
        """select is_eligible, ineligible_reason, option_rank from analytics.workload_costs_daily
           where day = ? and workload_class = 'chat-gpt-oss-120b'
             and offer_id = 'openai/gpt-oss-120b:batch'""",
        [shown_day],
    ).fetchall()
    assert in_class == [(False, BATCH_REASON, None)]
    params = _class_parameters(con, "chat-gpt-oss-120b", shown_day)
    with_slo = {r[0]: r[1:] for r in con.execute(
        f"""select offer_id, is_eligible, ineligible_reason from {_call(params)}
            where option_kind = 'model_api'""",
        params,
    ).fetchall()}  # fmt: skip
    assert with_slo["openai/gpt-oss-120b:batch"] == (False, BATCH_REASON)
    no_slo = dict(params, slo_p95_ttft_ms=None, slo_p99_e2e_ms=None)
    best = con.execute(
        f"""select offer_id, is_eligible, cost_per_accepted_output, output_unit
            from {_call(no_slo)} where option_kind = 'model_api'
            order by option_rank nulls last limit 1""",
        no_slo,
    ).fetchone()
    # (input x 0.0296 + output x 0.136) / 1e6 per request, at the class's lengths and quality
    cost = (params["input_len"] * 0.0296 + params["output_len"] * 0.136) / 1e6
    assert best[:2] == ("openai/gpt-oss-120b:batch", True) and best[3] == "request"
    assert best[2] == pytest.approx(cost / params["quality_pass_rate"], rel=1e-12)
    # and `rank --workload` names an interactive endpoint as the class's cheapest model API
    table = gpuledger(demo_build[0], "rank", "--workload", "chat-gpt-oss-120b").stdout
    line = next(x for x in table.splitlines() if x.startswith("cheapest model API:"))
    assert ":batch" not in line
