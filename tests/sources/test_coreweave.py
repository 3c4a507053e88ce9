"""CoreWeave tracker parser on real daily snapshots."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from sources import coreweave
from sources._internal.records import ParseError
from tests.conftest import COREWEAVE

FETCHED_AT = datetime(2026, 12, 1, tzinfo=UTC)
FILES = sorted(COREWEAVE.glob("*.json"))
PARSED = {
    p.stem: coreweave.parse(p.read_bytes(), f"https://t.test/data/{p.name}", FETCHED_AT)
    for p in FILES
}


def offers(day):
    return {(r.region, r.offer_id, r.pricing_model): r for r in PARSED[day].records}


def test_first_snapshot_prices_and_counts():
    got = offers("2026-03-13")
    h100 = got[("North America", "NVIDIA HGX H100", "on_demand")]
    assert (h100.price_per_hour, h100.gpu_count, h100.ram_gb, h100.gpu_memory_gb, h100.vcpus) == (
        49.24,
        8,
        2048.0,
        80.0,
        128.0,
    )
    assert (
        got[
            ("North America", "NVIDIA RTX PRO 6000 Blackwell Server Edition", "spot")
        ].price_per_hour
        == 9.24
    )
    assert got[("Europe", "NVIDIA GH200", "on_demand")].gpu_count == 1
    assert len(PARSED["2026-03-13"].records) == 20
    assert PARSED["2026-03-13"].row_errors == []


def test_footnote_count_with_caret_is_the_number():
    gb200 = offers("2026-03-13")[("North America", "NVIDIA GB200 NVL72", "on_demand")]
    assert (gb200.gpu_count, gb200.price_per_hour) == (4, 42.0)


def test_null_prices_are_no_offer():
    assert not any("GB300" in key[1] for key in offers("2026-03-13"))


def test_merged_footnote_is_settled_by_the_pages_per_gpu_price_or_rejected():
    result = PARSED["2026-04-15"]
    gb200 = offers("2026-04-15")[("North America", "NVIDIA GB200 NVL72", "on_demand")]
    assert gb200.gpu_count == 4  # "41", and 42.0 / 10.5 per GPU = 4
    assert [(e.row_ref, e.field) for e in result.row_errors] == [("regions[1].gpu[1]", "gpuCount")]
    assert "41" in result.row_errors[0].reason
    assert json.loads(result.row_errors[0].raw)["model"] == "NVIDIA GB200 NVL72"


def test_observed_at_is_the_trackers_scrape_time():
    assert {r.observed_at for r in PARSED["2026-08-22"].records} == {
        datetime(2026, 8, 22, 6, 31, 31, 785000, tzinfo=UTC)
    }


def test_spot_prices_appear_in_may():
    got = offers("2026-05-10")
    assert got[("North America", "NVIDIA HGX H100", "spot")].price_per_hour == 19.71
    assert got[("Europe", "NVIDIA HGX B300", "spot")].price_per_hour == 36.7


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_inference_price_is_the_per_gpu_on_demand_price(path):
    """inferencePrice is a cross-check, not an offer: in the real files it is on-demand / GPUs."""
    doc = json.loads(path.read_text())
    pairs = 0
    for region in doc["regions"]:
        for item in region["gpu"]:
            count_text = str(item["gpuCount"]).split("^")[0]
            if not (item["onDemandPrice"] and item["inferencePrice"]) or int(count_text) > 16:
                continue
            assert item["onDemandPrice"] / int(count_text) == pytest.approx(
                item["inferencePrice"], rel=0.01
            )
            pairs += 1
    assert pairs >= 8


def test_truncated_file_is_a_clear_error():
    content = (COREWEAVE / "2026-08-22.json").read_bytes()[:500]
    with pytest.raises(ParseError) as err:
        coreweave.parse(content, "https://t.test/data/2026-08-22.json", FETCHED_AT)
    assert err.value.field == "<document>"
    assert "https://t.test/data/2026-08-22.json" in str(err.value)


def test_layout_change_is_a_clear_error():
    doc = json.loads((COREWEAVE / "2026-08-22.json").read_text())
    doc["offerings"] = doc.pop("regions")
    with pytest.raises(ParseError) as err:
        coreweave.parse(json.dumps(doc).encode(), "u", FETCHED_AT)
    assert err.value.field == "regions"


def test_bad_row_is_rejected_and_the_rest_kept():
    doc = json.loads((COREWEAVE / "2026-03-13.json").read_text())
    doc["regions"][0]["gpu"][2]["gpuCount"] = "eight"
    doc["regions"][0]["gpu"][3]["onDemandPrice"] = "twenty"
    result = coreweave.parse(json.dumps(doc).encode(), "u", FETCHED_AT)
    assert [(e.row_ref, e.field) for e in result.row_errors] == [
        ("regions[0].gpu[2]", "gpuCount"),
        ("regions[0].gpu[3]", "onDemandPrice"),
    ]
    assert len(result.records) == 20 - 1 - 2  # B200 on-demand; RTX PRO on-demand + spot
