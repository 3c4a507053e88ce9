"""Evidence on the demo archive: how many real runs are resolved, how many ranked cells rest on
them, what a new run changes, and the commands that show the performance model (`estimate`,
`rank --min-evidence`, `explain`)."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from tests.conftest import DEMO_DAY, FIXTURES, copy_demo, gpuledger, query

pytestmark = [pytest.mark.integration, pytest.mark.slow]

HPE = "HPE_ProLiant_DL380a_H100_NVL_94GBx4_TRT"


@pytest.fixture(scope="module")
def demo(demo_build, tmp_path_factory):
    return copy_demo(demo_build, tmp_path_factory.mktemp("evidence"))


def test_most_real_runs_are_resolved_and_most_ranked_cells_rest_on_them(demo):
    runs = query(
        demo,
        """select count(*) filter (where hardware_source <> 'api'),
                  count(*) filter (where is_resolved)
           from marts.fct_benchmark_runs""",
    )
    # 90.6 % of the runs on GPUs (573 of 632 before the vendors' published tables and the four
    # MLPerf round summaries, which brought 1,348 closed-division LLM results; 266 of 648 before
    # issue 14)
    assert runs == [(3116, 2824)]
    why = dict(
        query(
            demo,
            """select file_path, count(*) from marts.fct_benchmark_runs
               where hardware_source <> 'api' and not is_resolved group by 1""",
        )
    )
    # the biggest remainder: InferenceX's GLM-5 token-position runs name no GPU anywhere
    glm5 = [k for k in why if "token_position_decode_slo_glm5" in k]
    assert sum(why[k] for k in glm5) == 52
    cells = query(
        demo,
        """select evidence, count(distinct (workload_class, gpu_id))
           from marts.fct_gpu_rankings_daily where day = ? and gpu_id is not null
           group by 1 order by 1""",
        [DEMO_DAY],
    )
    # 113 of 185 (111 before a GPU kind was a vendor's family rather than family and memory:
    # the A100 SXM 40 GB now takes the A100 80 GB runs for chat-8b and local-8b-int4; 89 of 160
    # with the vendors' tables alone; 82 of 160 before both: with the MLPerf round summaries
    # B300, GB200, GB300, MI355X and RTX PRO 6000 gained runs)
    assert cells == [("calibrated", 107), ("estimated", 72), ("measured", 6)]
    leaders = dict(
        query(
            demo,
            "select workload_class, evidence from marts.fct_class_leaders_daily where day = ?",
            [DEMO_DAY],
        )
    )
    # every leader measured or calibrated, but training (no training run is shipped)
    weak = {c for c, e in leaders.items() if e == "estimated"}
    assert weak == {"lora-finetune-8b"}
    # and each says why, in the analysts' view and the report: its kind of GPU has no run (then
    # which GPUs' runs the estimate borrows), or no run of the workload's kind exists at all
    why = dict(
        query(
            demo,
            """select workload_class, evidence_basis from analytics.cheapest_gpu_daily
               where day = ? and evidence = 'estimated'""",
            [DEMO_DAY],
        )
    )
    assert why == {
        "lora-finetune-8b": "estimated: the uncalibrated model; no run of this kind of workload "
        "exists",
    }
    basis = dict(
        query(
            demo,
            """select workload_class, evidence_basis from analytics.cheapest_gpu_daily
               where day = ? and workload_class in ('chat-gpt-oss-120b', 'image-gen-sdxl')""",
            [DEMO_DAY],
        )
    )
    # SGLang's 11 gpt-oss-120b runs on 8x H200 that match the class; the H100 SXM leads the
    # image class on MLPerf's two SDXL runs of the H100 family (SXM and PCIe: one kind of GPU;
    # the H200 led on its one run before the calibration took the frontier of each kind)
    assert basis == {
        "chat-gpt-oss-120b": "measured: 11 runs of this class on this GPU",
        "image-gen-sdxl": "calibrated: the model x 2 runs on this kind of GPU",
    }


def test_a_printed_report_and_its_csv_are_one_measurement(demo):
    """dstack's TGI-vs-vLLM folder holds each stack's vLLM benchmark_serving console report
    (27 TGI and 23 vLLM runs) and a CSV of 12 of its blocks: the CSV rows are the same
    measurements, kept once (duplicate_of the console run with the same stack, lengths,
    concurrency and throughput), so they neither calibrate twice nor predict their own twin."""
    folder = "benchmarks/vllm_dstack/amd_tgi_vs_vllm_MI300X/"
    twins = query(
        demo,
        """select d.serving_stack, c.serving_stack, c.file_path, count(*),
                  count(*) filter (where d.output_tokens_per_s = c.output_tokens_per_s
                                   and d.concurrency is not distinct from c.concurrency)
           from marts.fct_benchmark_runs as d
           join marts.fct_benchmark_runs as c on c.run_key = d.duplicate_of
           where d.file_path like ? group by all order by 1""",
        [folder + "%"],
    )
    assert twins == [
        ("tgi", "tgi", folder + "raw_data__tgi_raw.txt", 12, 12),
        ("vllm", "vllm", folder + "raw_data__vllm_raw.txt", 12, 12),
    ]
    # the console runs themselves are canonical, and only they reach the calibration
    calibrating = query(
        demo,
        """select count(*) filter (where file_path like '%raw.txt'),
                  count(*) filter (where file_path like '%short.csv')
           from marts.fct_benchmark_run_efficiency where file_path like ?""",
        [folder + "%"],
    )
    assert calibrating == [(50, 0)]


def test_a_run_whose_clients_pause_is_predicted_at_what_it_kept_in_flight(demo):
    """InferenceX's agentic-coding traces pause between a conversation's turns, so a run keeps
    fewer requests in flight than its concurrency and its tokens/s counts the server's idle time.
    The prediction it is compared with is made at the batch Little's law gives: the file's
    completed requests / duration x mean end-to-end latency, when below the concurrency."""
    paused = query(
        demo,
        """select concurrency, batch, batch_source, measured_tokens_per_s
           from marts.fct_benchmark_run_efficiency e join marts.fct_benchmark_runs r
           using (run_key) where e.file_path like ?""",
        ["%kimik2.5_tp8_conc1_offloadnone_fp4_vllm_%_conc1_b200-dgxc_04.json"],
    )
    # 66 requests in 1,708.09 s, 8.433 s each on average: the server was busy a third of the time
    assert paused == [
        (1.0, pytest.approx(66 / 1708.091573284 * 8.432906997787878), "little_law",
         pytest.approx(40.67170700130211))
    ]  # fmt: skip
    sources = query(
        demo,
        """select split_part(e.file_path, '/', 3), e.batch_source, count(*)
           from marts.fct_benchmark_run_efficiency e join marts.fct_benchmark_runs r
           using (run_key) where r.concurrency > 0 group by all order by 1""",
    )
    # every resolved InferenceX B200 run paused, and the AIPerf run kept 0.75 of its 1 in flight;
    # the runs whose files give no latency and rate to tell (dstack's vLLM throughput runs, the
    # SGLang sweeps) keep their concurrency
    assert sources == [
        # the published tables, one folder per publisher: AMD's static batches (128) and
        # max-throughput runs (48, at their --max-num-seqs), MLC's single streams (14)
        ("", "concurrency", 190),
        # InferenceX's MI355X runs (aggregated and per run), since the MI355X has datasheet specs
        ("agg_bmk", "little_law", 20),
        # 80 before the 19 rows of Meta's checkpoint on 8x MI300X, outperformed by AMD's in the
        # same table, left the evidence (test_a_setup_its_own_file_outperformed_...)
        ("h100sxm5_vs_mi300x_llama3.1-405b-fp8", "concurrency", 61),
        ("pd_ratio_8xH200_sglang_gpt-oss-120b", "concurrency", 56),
        ("per_run_bmk_results_0603_sa", "little_law", 67),
        ("profile_export_aiperf@7250ddd_2026-01-15.json", "little_law", 1),
        ("single_gpu_decode.csv", "concurrency", 17),
    ]


def test_a_pcie_run_on_more_gpus_than_its_weights_need_pays_only_its_replica_s_cost(demo):
    """MLPerf v6.0's Lenovo SR675iV3 serves Llama 2 70B in FP4 (35 GB of weights) on eight
    RTX PRO 6000 (96 GB, PCIe): eight replicas of one GPU, not one 8-way tensor-parallel unit,
    so the PCIe cost per doubling (0.7) does not apply, and the run's efficiency is 1.26 of the
    roofline rather than 3.68 (which made the RTX PRO 6000 look 2-3 times faster for every
    workload it was calibrated for). Where a file states its tensor-parallel width
    (TensorRT-LLM's perf overview: Mixtral 8x7B in FP8 on four L40S at TP4), that width pays."""
    rows = query(
        demo,
        """select e.scenario, e.gpu_count, r.tensor_parallel, e.tp_gpus, e.tp_factor,
                  e.measured_tokens_per_s, e.efficiency
           from marts.fct_benchmark_run_efficiency e join marts.fct_benchmark_runs r
           using (run_key) where e.organization = 'Lenovo' and e.family = 'RTXPRO6000'
           and e.model_ref = 'llama-2-70b' and e.round = 'v6.0' order by 1""",
    )
    assert rows == [
        ("Offline", 8, None, 1.0, 1.0, pytest.approx(26889.6, abs=0.1),
         pytest.approx(1.2483, abs=1e-4)),
        ("Server", 8, None, 1.0, 1.0, pytest.approx(27160.2, abs=0.1),
         pytest.approx(1.2608, abs=1e-4)),
    ]  # fmt: skip
    stated = query(
        demo,
        """select e.gpu_count, r.tensor_parallel, e.tp_gpus, round(e.tp_factor, 4)
           from marts.fct_benchmark_run_efficiency e join marts.fct_benchmark_runs r
           using (run_key) where e.run_key like 'e87b2cb490fabe0e%:line 134: L40S%'""",
    )
    assert stated == [(4, 4, 4.0, 0.49)]
    # the demo's 275 PCIe runs: 191 on one GPU or replicas of one, the rest at the widths their
    # files state (TensorRT-LLM's L40S tables: TP2, TP4, TP8) or their weights need
    widths = query(
        demo,
        """select tp_gpus, count(*) from marts.fct_benchmark_run_efficiency
           where interconnect = 'pcie' and run_kind = 'inference' group by all order by 1""",
    )
    assert widths == [(1.0, 191), (2.0, 23), (4.0, 34), (8.0, 27)]


def test_a_setup_its_own_file_outperformed_is_kept_but_is_not_evidence(demo):
    """dstack's throughput table measures Llama 3.1 405B FP8 on the same 8 MI300X with two
    checkpoints under identical conditions: Meta's ("8xMi300x 1FP8-meta") reached 1.84x to 4.19x
    less than AMD's ("8xMi300 1FP8-amd"); its authors call Meta's not optimized for MI300X. Those
    19 runs stay in fct_benchmark_runs pointing to the faster row, and leave the evidence and the
    calibration; repeats of one setup (SGLang's offline file, lines 4 and 5) are not compared."""
    table = "%h100sxm5_vs_mi300x_llama3.1-405b-fp8/csv_data/throughput_comparsion.csv"
    beaten = query(
        demo,
        """select a.setup, b.setup, count(*), min(a.outperformed_factor),
                  max(a.outperformed_factor), count(e.run_key)
           from marts.fct_benchmark_runs a
           join marts.fct_benchmark_runs b on b.run_key = a.outperformed_by
           left join marts.fct_benchmark_run_efficiency e on e.run_key = a.run_key
           where a.file_path like ? group by all""",
        [table],
    )
    assert beaten == [("8xMi300x 1FP8-meta", "8xMi300 1FP8-amd", 19, pytest.approx(1.83844522),
                       pytest.approx(4.18947637), 0)]  # fmt: skip
    # line 24: 2048 in, 2048 out, batch 4: 0.014243626 requests/s x 2048 = 29.171 tok/s against
    # line 43's 0.058496882 x 2048 = 119.802 (the factor is also the ratio of the elapsed times)
    line_24 = query(
        demo,
        """select b.run_ref, a.output_tokens_per_s, b.output_tokens_per_s, a.outperformed_factor
           from marts.fct_benchmark_runs a join marts.fct_benchmark_runs b
           on b.run_key = a.outperformed_by where a.file_path like ? and a.run_ref = 'line 24'""",
        [table],
    )
    assert line_24 == [
        (
            "line 43",
            pytest.approx(0.014243626 * 2048),
            pytest.approx(0.058496882 * 2048),
            pytest.approx(280.827359 / 68.37971305),
        )
    ]
    # nothing else in the demo is outperformed; the SGLang repeats both calibrate
    assert query(
        demo, "select count(*) from marts.fct_benchmark_runs where outperformed_by is not null"
    ) == [(19,)]
    repeats = query(
        demo,
        """select r.run_ref from marts.fct_benchmark_run_efficiency e
           join marts.fct_benchmark_runs r using (run_key)
           where r.file_path like '%llama_3_3_70b_offline_output.jsonl'
           and r.run_ref in ('line 4', 'line 5') order by 1""",
    )
    assert repeats == [("line 4",), ("line 5",)]


def test_a_new_run_changes_the_figures_of_exactly_its_kind_of_cells(demo_build, tmp_path):
    """MLPerf's stable-diffusion-xl result of HPE's 4 x H100 NVL (MLCommons v4.1), the first
    image run on an H100 NVL 94 GB: the image class's calibration takes it (the H100 family now
    has three image runs; the generation and vendor levels move with it), and no other class's
    cell moves. The H100 NVL's image cell was calibrated already, by the H100 family's runs."""
    home = copy_demo(demo_build, tmp_path / "home")
    cells = """select workload_class, gpu_id, evidence, calibration_runs,
                      round(unit_outputs_per_s, 9)
               from marts.fct_throughput_evidence where evidence_until is null order by 1, 2"""
    before = query(home, cells)
    tree = tmp_path / "in" / "closed"
    shutil.copytree(FIXTURES / "benchmarks" / "mlperf_results_tree" / "closed", tree)
    done = gpuledger(home, "ingest", str(tree))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "1 runs (mlperf_log_summary)" in done.stdout
    after = query(home, cells)
    changed = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
    assert {b[0] for b, _ in changed} == {"image-gen-sdxl"}
    assert all(b[2] == a[2] for b, a in changed)  # no grade changes
    nvl = [(b[2:4], a[2:4]) for b, a in changed if b[1] == "nvidia-h100-nvl-94gb"]
    assert nvl == [(("calibrated", 2), ("calibrated", 3))]
    run = query(
        home,
        """select gpu_id, gpu_count, precision, measured_tokens_per_s, round(efficiency, 4)
           from marts.fct_benchmark_run_efficiency where file_path like '%' || ? || '%'""",
        [HPE],
    )
    # 5.80657 images/s on 4 GPUs at 1,671 dense FP8 TFLOPS x 0.7 over 20 steps x 11 TFLOP
    spec = query(
        home, "select fp8_tflops from marts.fct_gpu_specs where gpu_id = 'nvidia-h100-nvl-94gb'"
    )[0][0]
    assert run == [
        ("nvidia-h100-nvl-94gb", 4, "fp8", 5.80657, round(5.80657 / (4 * spec * 0.7 / 220), 4))
    ]


def test_estimate_predicts_any_conditions_like_the_warehouse(demo):
    cell = query(
        demo,
        """select evidence, unit_outputs_per_s, calibration_runs from marts.fct_throughput_evidence
           where workload_class = 'chat-70b' and gpu_id = 'nvidia-h100-sxm-80gb'
             and evidence_until is null""",
    )[0]
    args = ["--gpu", "nvidia-h100-sxm-80gb", "--gpus", "2", "--precision", "fp8", "--input",
            "1024", "--output", "256", "--concurrency", "32", "--format", "json"]  # fmt: skip
    done = gpuledger(demo, "estimate", "--model", "meta-llama/Llama-3.3-70B-Instruct", *args)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    # the class chat-70b's own conditions: the same grade, runs and figure as its cell
    assert (got["model"], got["grade"], got["n_runs"]) == ("llama-3.1-70b", cell[0], cell[2])
    assert got["tokens_per_s"] == pytest.approx(cell[1], rel=1e-9)
    args = ["--gpu", "nvidia-h100-sxm-80gb", "--gpus", "2", "--input", "2048", "--output", "1024",
            "--concurrency", "64"]  # fmt: skip
    table = gpuledger(demo, "estimate", "--model", "gpt-oss-120b", *args)
    assert "fp4" in table.stdout and "calibrated: efficiency" in table.stdout
    unknown = gpuledger(demo, "estimate", "--model", "no-such-model", "--gpu",
                        "nvidia-h100-sxm-80gb", "--input", "1", "--output", "1")  # fmt: skip
    assert unknown.returncode == 2 and "no model 'no-such-model'" in unknown.stderr
    nogpu = gpuledger(demo, "estimate", "--model", "llama-3.1-8b", "--gpu", "h100",
                      "--input", "1", "--output", "1")  # fmt: skip
    assert nogpu.returncode == 2 and "did you mean" in nogpu.stderr
    # refused with the reason, nothing on stdout: longer than the checkpoint's context window
    # (131,072 tokens in Llama 3.1 8B's config); three GPUs (no stack splits Llama 3.1 70B's 8 KV
    # heads over 3); sixteen, two servers (the model has no term for the network between them: it
    # answered twice eight GPUs' throughput at a quarter of their TTFT)
    for args, reason in [
        (["llama-3.1-8b", "--input", "100000", "--output", "40000"],
         "--input 100000 + --output 40000 = 140000 tokens exceed the context window of "
         "llama-3.1-8b, 131072 tokens (max_position_embeddings of its published config)"),
        (["llama-3.1-70b", "--gpus", "3", "--input", "1000", "--output", "200"],
         "--gpus 3: a unit of 1, 2, 4 or 8 GPUs (a power of two): serving stacks split a model's "
         "attention heads evenly over the GPUs it runs on, and the rankings size units the same "
         "way"),
        (["llama-3.1-70b", "--gpus", "16", "--input", "1000", "--output", "200"],
         "--gpus 16: the performance model covers units of up to 8 GPUs (one server's NVLink or "
         "PCIe domain, the largest unit the rankings size); a larger unit spans servers, whose "
         "network it does not model"),
    ]:  # fmt: skip
        refused = gpuledger(demo, "estimate", "--model", *args, "--gpu", "nvidia-h100-sxm-80gb")
        assert (refused.returncode, refused.stdout) == (2, ""), args
        assert refused.stderr.strip() == f"gpuledger estimate: {reason}"


def test_rank_min_evidence_and_explain_show_grade_and_runs(demo):
    done = gpuledger(demo, "rank", "--workload", "chat-70b", "--date", str(DEMO_DAY),
                     "--min-evidence", "calibrated", "--format", "json")  # fmt: skip
    result = json.loads(done.stdout)
    assert {g["evidence"] for g in result["gpus"]} <= {"measured", "calibrated"}
    assert result["gpus_hidden"] == 5 and len(result["gpus"]) == 13
    # no GPU of chat-70b is measured: the table is empty, its unit still said (the class's, read
    # from its model API's row), and so is the model API's
    table = gpuledger(demo, "rank", "--workload", "chat-70b", "--date", str(DEMO_DAY),
                      "--min-evidence", "measured").stdout.splitlines()  # fmt: skip
    header = next(i for i, line in enumerate(table) if line.startswith("chat-70b on "))
    assert table[header].endswith(": GPUs by cost per accepted output, in USD per 1,000 requests")
    assert (
        table[header + 2] == "18 GPU(s) with evidence weaker than measured hidden (--min-evidence)"
    )
    # the demo's only model-API catalog is the one installed with the package, taken after the
    # demo's days: the line says by how much (raw's capture day of the catalog, counted here)
    catalogs = query(demo, """select distinct cast(snapshot_fetched_at as date) from raw.api_prices
                              where source = 'model_api_prices'""")  # fmt: skip
    assert len(catalogs) == 1
    later = (catalogs[0][0] - DEMO_DAY).days
    assert later > 0
    assert re.fullmatch(
        r"cheapest model API: openrouter/\S+ at [\d.]+ USD per 1,000 requests \(overall rank 1; "
        rf"price from a catalog taken {later} days after {DEMO_DAY}\)",
        table[header + 3],
    )
    text = gpuledger(demo, "explain", "--workload", "chat-70b", "--gpu", "nvidia-rtx-4090-24gb",
                     "--date", str(DEMO_DAY)).stdout  # fmt: skip
    # 8 PCIe cards: 0.7 per doubling = 0.343; calibrated by batch-1 runs, far from the class
    # (one sequence, 4-bit or 7B-13B models): explain says so, nearest first (MLC's Llama 2 70B
    # and 13B in 4-bit on one or two RTX 4090, before the llama.cpp runs of 7B/8B models)
    assert "pcie unit of 8 (tensor-parallel factor 0.34)" in text
    assert "runs on this kind of GPU" in text and "CAUTION" in text
    assert "mlc_llm_perf_bench/llm-perf-bench@d401356f.md: Llama2-70B int4 on 2 x" in text


def test_explain_and_estimate_tell_apart_the_runs_of_one_file(demo):
    """A run is named by its file's sha256 cut short and its reference in the file: the five
    nearest runs behind chat-70b on the H200 are five lines of one SGLang file, and one line of
    TensorRT-LLM's perf overview holds a run per tensor-parallel width."""
    text = gpuledger(demo, "explain", "--workload", "chat-70b", "--gpu", "nvidia-h200-sxm-141gb",
                     "--date", str(DEMO_DAY)).stdout  # fmt: skip
    sglang = "benchmarks/sglang_datacrunch/outputs__llama_3_3_70b_online_output.jsonl"
    named = re.findall(rf"^   run (\S+:line \d+) in {re.escape(sglang)}: ", text, re.M)
    assert named == [f"fe6271824a47..:line {n}" for n in (3, 7, 2, 6, 1)]  # nearest first
    args = ["--gpu", "nvidia-h100-sxm-80gb", "--input", "2000", "--output", "200",
            "--concurrency", "32"]  # fmt: skip
    text = gpuledger(demo, "estimate", "--model", "llama-3.1-70b", *args).stdout
    overview = "nvidia_trtllm_perf_overview/perf-overview@ab4143e1.md"
    for tp in ("TP2", "TP4", "TP8"):
        assert f"run 483489e1b0d6..:line 106: H100 80GB HBM3 {tp} in {overview}: " in text


def test_the_evidence_base_at_scale(demo):
    """The four MLPerf Inference round summaries (v4.1, v5.1, v6.0, v6.1) with the other shipped
    files: over 1,000 resolved inference runs with an efficiency, from over 8 organisations, on
    over 12 kinds of GPU; each MLPerf run with its submitter, round, scenario, the benchmark's
    dataset lengths, its stack and version."""
    base = query(
        demo,
        """select count(*), count(distinct organization), count(distinct gpu_id),
                  count(*) filter (where tool = 'mlperf inference')
           from marts.fct_benchmark_run_efficiency
           where run_kind = 'inference' and efficiency > 0""",
    )
    assert base == [(1955, 42, 21, 759)]
    n, orgs, kinds, _ = base[0]
    assert n >= 1000 and orgs >= 8 and kinds >= 12
    rounds = dict(
        query(
            demo,
            """select coalesce(round, 'other files'), count(*)
               from marts.fct_benchmark_run_efficiency
               where run_kind = 'inference' and efficiency > 0 group by 1""",
        )
    )
    # v4.1 110: two of the "other files" are that round's (a result folder named v4.1_...)
    assert rounds == {"other files": 1192, "v4.1": 110, "v5.1": 261, "v6.0": 215, "v6.1": 177}
    # RedHat's v5.1 H100 SXM with vLLM 0.10.0: Llama-3.1-8B FP8 at the dataset's mean lengths
    redhat = query(
        demo,
        """select r.gpu_id, r.gpu_count, r.precision, r.serving_stack, r.serving_stack_version,
                  r.input_len, r.input_len_source, r.output_len, e.organization, e.round,
                  e.scenario, e.measured_tokens_per_s
           from marts.fct_benchmark_runs r join marts.fct_benchmark_run_efficiency e using (run_key)
           where r.run_ref like '[536] RedHat%'
             and r.file_path = 'mlperf_summaries/v5.1_summary.json'""",
    )
    assert redhat == [("nvidia-h100-sxm-80gb", 1, "fp8", "vllm", "0.10.0", 870.73,
                       "benchmark_mean", 128.0, "RedHat", "v5.1", "Offline", 5777.08)]  # fmt: skip
    # a 288-GPU system (72 nodes of 4 GB200) counts every GPU; Interactive takes the interactive
    # variant's limits
    azure = query(
        demo,
        """select gpu_id, gpu_count, input_len, output_len, mlperf_benchmark
           from marts.fct_benchmark_runs where run_ref like '["23"] Azure%'""",
    )
    assert azure == [("nvidia-gb200-nvl72-186gb", 288, 803.79, 3886.2274, "deepseek-r1")]
    interactive = query(
        demo,
        """select distinct mlperf_benchmark, benchmark_ttft_p99_limit_ms,
                  benchmark_tpot_p99_limit_ms from marts.fct_benchmark_runs
           where model_id = 'llama2-70b-99' and scenario = 'Interactive'""",
    )
    assert interactive == [("llama2-70b-interactive-99", 450.0, 40.0)]
    # the v4.1 summary's Fujitsu records are the results tree's measurements: counted once, the log
    twins = query(
        demo,
        """select s.scenario, c.format, count(*) from marts.fct_benchmark_runs s
           join marts.fct_benchmark_runs c on c.run_key = s.duplicate_of
           where s.organization = 'Fujitsu' and s.system = 'CDI_L40Sx8_TRT'
             and s.model_id like 'llama2%' group by all order by 1""",
    )
    assert twins == [("Offline", "mlperf_log_summary", 2), ("Server", "mlperf_log_summary", 2)]
    # a heterogeneous cluster resolves to no kind of GPU, and says why
    mixed = query(
        demo,
        """select unresolved_reason from marts.gpu_names_unresolved
           where gpu_name_raw = 'NVIDIA H200-SXM-141GB + AMD Instinct MI350X 288GB HBM3e'""",
    )
    assert mixed == [
        ("names several GPU kinds (a heterogeneous system): no one kind to resolve to",)
    ]


def test_estimate_never_falls_as_concurrency_rises_and_answers_for_the_largest_batch(demo):
    """Llama-3.1-70B FP8 on one H200 at 1,024 / 256 tokens: the estimate grows with the
    sequences in flight up to what fits (95 sequences of 1,280 tokens, 0.42 GB of BF16 KV cache
    each, beside 70.6 GB of weights and 2 GB of runtime in 0.8 x 141 GB), then holds;
    `--concurrency max` answers for that batch."""
    base = ["--model", "llama-3.1-70b", "--gpu", "nvidia-h200-sxm-141gb", "--precision", "fp8",
            "--input", "1024", "--output", "256", "--format", "json"]  # fmt: skip

    def est(*extra: str) -> dict:
        done = gpuledger(demo, "estimate", *base, *extra)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    answers = [est("--concurrency", str(c)) for c in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)]
    rates = [a["tokens_per_s"] for a in answers]
    assert all(b >= a for a, b in zip(rates, rates[1:], strict=False)), rates
    assert rates[-1] > 10 * rates[0]
    assert {a["max_concurrency_fitting"] for a in answers} == {95}
    top = est("--concurrency", "max")
    assert top["concurrency"] == 95 and top["tokens_per_s"] == pytest.approx(rates[-1])
    assert answers[-1]["served_batch"] == 95  # the other 417 sequences wait
    # an interval around every calibrated answer
    assert all(a["tokens_per_s_p10"] <= a["tokens_per_s"] <= a["tokens_per_s_p90"] for a in answers)
    # the stack is a dimension: without --stack, the best stack with evidence on the H200
    assert top["stack"] == "trtllm" and top["stack_asked"] is None
    vllm = est("--concurrency", "max", "--stack", "vllm")
    assert vllm["stack"] == "vllm" and vllm["tokens_per_s"] < top["tokens_per_s"]
    wrong = gpuledger(demo, "estimate", *base, "--concurrency", "lots")
    assert wrong.returncode == 2 and "'lots': a number of sequences or 'max'" in wrong.stderr
