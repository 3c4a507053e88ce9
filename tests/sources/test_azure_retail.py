"""Azure Retail Prices API: item kinds, the VM size table, and pagination over a real server."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from sources import azure_retail
from sources._internal.http import FetchError, HttpClient
from sources._internal.records import ParseError
from tests.conftest import FIXTURES, Route

PAGES = FIXTURES / "azure_retail"
T = datetime(2026, 8, 20, 6, tzinfo=UTC)


def page_set(*names: str) -> bytes:
    return json.dumps({"pages": [json.loads((PAGES / n).read_text()) for n in names]}).encode()


RESULT = azure_retail.parse(page_set("page1.json", "page2.json"), "https://api.test/prices", T)


def test_item_kinds():
    got = {
        (r.offer_id, r.pricing_model, r.region): (r.gpu_name_raw, r.gpu_count, r.price_per_hour)
        for r in RESULT.records
    }
    assert got == {
        ("Standard_ND96isr_H100_v5", "on_demand", "eastus"): ("H100 SXM 80GB", 8, 98.32),
        ("Standard_ND96isr_H100_v5", "spot", "eastus"): ("H100 SXM 80GB", 8, 39.33),
        # a 1-year reservation's retailPrice is the whole term: 516,846 / 8,760 h
        ("Standard_ND96isr_H100_v5", "reserved_1y", "eastus"): ("H100 SXM 80GB", 8, 59.000685),
        ("Standard_NC24ads_A100_v4", "on_demand", "westeurope"): ("A100 PCIe 80GB", 1, 3.673),
    }  # Windows, Low Priority, Dev/Test and the non-GPU D-series are left out


def test_unknown_gpu_size_is_rejected_by_name():
    assert [(e.row_ref, e.field) for e in RESULT.row_errors] == [
        ("pages[1].Items[1]", "armSkuName")
    ]
    assert "Standard_NC8ads_A10_v4" in RESULT.row_errors[0].reason


def test_gpu_sizes_are_read_from_the_name_by_their_series():
    """Azure's documented naming ([family][vCPUs][features](_extra)_[accelerator]_[version]) and
    each series' vCPUs per GPU: a size of a known series is priced the day it appears; the size
    table stays the override; an unknown series is still rejected by name."""
    got = {s: azure_retail.gpu_of_size(s.lower().removeprefix("standard_")) for s in (
        "Standard_ND128isr_NDR_GB200_v6", "Standard_ND96isr_H100_v5", "Standard_NC80adis_H100_v5",
        "Standard_ND96isr_H200_v5", "Standard_NC48ads_A100_v4", "Standard_ND96isr_MI300X_v5",
        "Standard_NC4as_T4_v3", "Standard_D4s_v3")}  # fmt: skip
    assert got == {
        "Standard_ND128isr_NDR_GB200_v6": ("NVIDIA GB200 NVL72", 4),  # 128 vCPUs / 32 per GPU
        "Standard_ND96isr_H100_v5": ("H100 SXM 80GB", 8),
        "Standard_NC80adis_H100_v5": ("H100 NVL 94GB", 2),  # 40 vCPUs per H100 NVL
        "Standard_ND96isr_H200_v5": ("H200 SXM 141GB", 8),
        "Standard_NC48ads_A100_v4": ("A100 PCIe 80GB", 2),
        "Standard_ND96isr_MI300X_v5": ("AMD MI300X 192GB", 8),
        "Standard_NC4as_T4_v3": ("T4 16GB", 1),  # the table: T4 sizes do not scale with vCPUs
        "Standard_D4s_v3": None,  # not a GPU size
    }
    with pytest.raises(ValueError, match="not a whole number of GPUs"):
        azure_retail.gpu_of_size("nc50ads_h100_v5", "Standard_NC50ads_H100_v5")
    with pytest.raises(ValueError, match="Standard_NV36ads_A10_v5.* of no known series"):
        azure_retail.gpu_of_size("nv36ads_a10_v5", "Standard_NV36ads_A10_v5")
    # priced through parse like any other item
    item = {"armSkuName": "Standard_ND128isr_NDR_GB200_v6", "armRegionName": "eastus",
            "retailPrice": 108.0, "unitOfMeasure": "1 Hour", "currencyCode": "USD",
            "type": "Consumption", "skuName": "ND128isr NDR GB200 v6",
            "productName": "ND GB200 v6 Series"}  # fmt: skip
    page = json.dumps({"Items": [item]}).encode()
    [row] = azure_retail.parse(page, "https://api.test", T).records
    assert (row.gpu_name_raw, row.gpu_count, row.price_per_hour) == ("NVIDIA GB200 NVL72", 4, 108.0)


def test_layout_change_is_a_clear_error():
    with pytest.raises(ParseError, match="API layout changed"):
        azure_retail.parse(b'{"value": []}', "https://api.test/prices", T)


def test_fetch_follows_next_page_links(http_server):
    first = json.loads((PAGES / "page1.json").read_text())
    first["NextPageLink"] = http_server.url("/prices/page2")
    http_server.routes["/prices"] = Route(json.dumps(first).encode(), 200, "application/json")
    http_server.serve_file("/prices/page2", PAGES / "page2.json", "application/json")
    client = HttpClient(min_interval_s=0, backoff_s=0.01, timeout_s=2)
    result = azure_retail.fetch(client, http_server.url("/prices"))
    parsed = azure_retail.parse(result.content, result.url, result.fetched_at)
    assert len(json.loads(result.content)["pages"]) == 2
    assert len(parsed.records) == 4


def test_a_failing_page_fails_the_fetch(http_server):
    first = json.loads((PAGES / "page1.json").read_text())
    first["NextPageLink"] = http_server.url("/prices/page2")
    http_server.routes["/prices"] = Route(json.dumps(first).encode(), 200, "application/json")
    http_server.routes["/prices/page2"] = Route(b"down", 503)
    client = HttpClient(min_interval_s=0, backoff_s=0.01, timeout_s=2, retries=1)
    with pytest.raises(FetchError):
        azure_retail.fetch(client, http_server.url("/prices"))
