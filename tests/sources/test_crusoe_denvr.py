"""Crusoe and Denvr pricing pages, read by configuration with no provider code: price cards, a
Wix data island, and a plain price table. Crusoe is a configured source (sources/price_pages.yaml);
Denvr's entry is not shipped (no real capture of its page checked it): the tests read it from
tests/fixtures/denvr/entry.yaml.

The fixtures are rebuilt (see tests/fixtures/README.md): layout from the selectors another
project's scraper used on the live pages, values from that scraper's real 2026-02-11 export.
"""

from __future__ import annotations

import csv
from datetime import UTC, datetime

import pytest

from sources import REGISTRY, price_page
from sources._internal.records import ParseError
from tests.conftest import FIXTURES

T = datetime(2026, 2, 11, 7, 11, tzinfo=UTC)
CRUSOE = (FIXTURES / "crusoe" / "pricing.rebuilt.html").read_bytes()
DENVR = (FIXTURES / "denvr" / "pricing.rebuilt.html").read_bytes()
EXPORT = FIXTURES / "becloudready"
DENVR_ENTRIES, DENVR_ERRORS = price_page.load(FIXTURES / "denvr" / "entry.yaml")
crusoe, denvr = REGISTRY["crusoe"], price_page.PricePageSource(DENVR_ENTRIES["denvr"])


def test_both_are_configuration_entries_not_modules():
    assert isinstance(crusoe, price_page.PricePageSource)
    assert isinstance(denvr, price_page.PricePageSource)
    assert (crusoe.KIND, crusoe.EXPECTED_ROWS) == ("price", (3, 500))
    assert DENVR_ERRORS == [] and (denvr.KIND, denvr.EXPECTED_ROWS) == ("price", (3, 500))


def test_denvr_is_not_fetched_daily_without_a_real_capture_of_its_page():
    # a reader no real capture has checked does not price the daily run
    assert "denvr" not in REGISTRY
    assert "denvr" not in price_page.load()[0]


def test_crusoe_cards_give_per_gpu_on_demand_prices_matching_the_export():
    result = crusoe.parse(CRUSOE, "https://www.crusoe.ai/cloud/pricing", T)
    got = {r.offer_id: (r.gpu_name_raw, r.gpu_count, r.price_per_hour, r.gpu_memory_gb)
           for r in result.records}  # fmt: skip
    assert got["NVIDIA H200 141GB"] == ("NVIDIA H200", 1, 4.29, 141.0)
    assert got["NVIDIA A100 40GB"] == ("NVIDIA A100", 1, 1.45, 40.0)
    # the page lists the 80 GB A100 twice at two prices: both kept, told apart
    assert got["NVIDIA A100 80GB"][2] == 1.95 and got["NVIDIA A100 80GB #2"][2] == 1.65
    assert {r.pricing_model for r in result.records} == {"on_demand"}
    # the export's priced GPU rows, all found
    exported = {
        (r["product"], float(r["price_per_hour_usd"]))
        for r in csv.DictReader((EXPORT / "crusoe_gpu_prices.csv").open())
        if r["vram_gb"] and r["price_per_hour_usd"]
    }
    assert {(r.gpu_name_raw, r.price_per_hour) for r in result.records} == exported


def test_crusoe_card_without_a_price_is_a_row_error_not_a_zero():
    result = crusoe.parse(CRUSOE, "https://www.crusoe.ai/cloud/pricing", T)
    reasons = {e.reason for e in result.row_errors}
    assert "no price for NVIDIA GB200: 'Contact sales'" in reasons
    assert len(result.row_errors) == 3  # GB200, B200, MI355X
    assert all(r.price_per_hour > 0 for r in result.records)


def test_crusoe_page_with_neither_cards_nor_table_names_the_page():
    page = b"<html><body><div class='hero'>GPU cloud</div></body></html>"
    with pytest.raises(ParseError) as err:
        crusoe.parse(page, "https://www.crusoe.ai/cloud/pricing", T)
    assert "https://www.crusoe.ai/cloud/pricing" in str(err.value)
    assert "no GPU prices found" in str(err.value)


def test_crusoe_falls_back_to_a_price_table():
    page = b"<table><tr><th>GPU</th><th>On-Demand</th><th>Spot</th></tr>" \
           b"<tr><td>NVIDIA H100</td><td>$3.90/hr</td><td>$1.60/hr</td></tr></table>"  # fmt: skip
    result = crusoe.parse(page, "https://example.test/p", T)
    assert {(r.pricing_model, r.price_per_hour) for r in result.records} == {
        ("on_demand", 3.9), ("spot", 1.6)}  # fmt: skip


def test_denvr_data_island_gives_instance_prices_from_per_gpu_prices():
    result = denvr.parse(DENVR, "https://www.denvr.com/pricing", T)
    got = {r.offer_id: (r.gpu_count, r.price_per_hour, r.gpu_memory_gb, r.vcpus)
           for r in result.records}  # fmt: skip
    assert got["8x NVIDIA H100 SXM 80GB"] == (8, 16.8, 80.0, 208)  # $2.10 / GPU x 8
    assert got["NVIDIA GH200 96GB"] == (1, 3.87, 96.0, 72)
    assert got["4x NVIDIA A100 PCIe 40GB"] == (4, 4.6, 40.0, 64)
    assert got["8x NVIDIA A100 SXM 40GB"][1] == 9.2 and got["8x NVIDIA A100 SXM 80GB"][1] == 10.4
    assert len(result.records) == 7
    unpriced = sorted(e.reason for e in result.row_errors)
    assert len(unpriced) == 5 and unpriced[0] == "no price for AMD Mi300X: 'Contact us'"


def test_denvr_data_island_under_another_collection_name_is_still_read():
    # the automatic reading follows what the data says, not one path through it
    page = DENVR.replace(b'"GPUInstances"', b'"Instances2027"')
    result = denvr.parse(page, "https://www.denvr.com/pricing", T)
    assert len(result.records) == 7 and "Instances2027" in result.row_errors[0].row_ref


def test_denvr_page_whose_data_island_broke_is_a_clear_error():
    # a capture cut inside the data island: the page fails, naming itself, what was sought and
    # the data it could not read
    page = DENVR[: DENVR.index(b"rec-03")] + b"</script></body></html>"
    with pytest.raises(ParseError) as err:
        denvr.parse(page, "https://www.denvr.com/pricing", T)
    assert "https://www.denvr.com/pricing" in str(err.value)
    assert "no GPU prices found" in str(err.value)
    assert "#wix-warmup-data (application/json): not valid JSON" in str(err.value)


def test_urls_come_from_the_environment_and_can_be_switched_off(monkeypatch):
    assert crusoe.urls() == ("https://www.crusoe.ai/cloud/pricing",)
    monkeypatch.setenv("GPULEDGER_DENVR_URLS", "")
    assert denvr.urls() == ()
    monkeypatch.setenv("GPULEDGER_CRUSOE_URLS", "http://a.test/x, http://b.test/y")
    assert crusoe.urls() == ("http://a.test/x", "http://b.test/y")
