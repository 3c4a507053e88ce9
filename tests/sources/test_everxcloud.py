"""EverXCloud's German spot-exchange page, read by configuration (sources/price_pages.yaml)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sources import REGISTRY
from sources._internal.page_reader import without_suffixes
from sources._internal.records import ParseError
from tests.conftest import FIXTURES

PAGE = FIXTURES / "everxcloud" / "gpus-fuer-llm-inferenz.md"
T = datetime(2026, 8, 21, 9, tzinfo=UTC)
everxcloud = REGISTRY["everxcloud"]
RESULT = everxcloud.parse(PAGE.read_bytes(), "https://everx.test/de/llm", T)


def test_prices_in_german_format_per_gpu():
    got = {
        r.gpu_name_raw: (r.price_per_hour, r.currency, r.gpu_count, r.pricing_model)
        for r in RESULT.records
    }
    assert got["L4"] == (0.44, "USD", 1, "marketplace")
    # "ab 0,44 $": the exchange's best live offer, a lower bound
    assert {r.price_qualifier for r in RESULT.records} == {"from"}
    assert got["H100 SXM"] == (2.88, "USD", 1, "marketplace")
    assert got["MI300X"] == (4.16, "USD", 1, "marketplace")
    assert got["RTX PRO 6000 Blackwell"][0] == 1.69
    assert len(got) == 9
    assert RESULT.row_errors == []  # the prose after the table is not read as rows


def test_specs_with_german_thousands_and_unpublished_values():
    specs = {s.gpu_name_raw: s for s in RESULT.specs}
    assert specs["RTX 4090"].memory_bandwidth_gb_s == 1008.0
    assert specs["RTX 4090"].fp8_tflops is None  # "Nicht veröffentlicht"
    assert (
        specs["H100 SXM"].memory_gb,
        specs["H100 SXM"].memory_bandwidth_gb_s,
        specs["H100 SXM"].fp8_tflops,
    ) == (80.0, 3350.0, 1979.0)
    assert specs["MI300X"].memory_bandwidth_gb_s == 5300.0


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("L4Ada Lovelace", "L4"),
        ("H200Hopper", "H200"),
        ("RTX PRO 6000 BlackwellBlackwell", "RTX PRO 6000 Blackwell"),
        ("MI300XCDNA 3", "MI300X"),
    ],
)
def test_architecture_glued_to_the_name_is_split_off(raw, name):
    assert without_suffixes(raw, everxcloud.entry.settings) == name


def test_page_without_the_price_column_is_a_clear_error():
    page = PAGE.read_text().replace("Preis/Std.", "Verfügbarkeit")
    with pytest.raises(ParseError) as err:
        everxcloud.parse(page.encode(), "https://everx.test/de/llm", T)
    assert "https://everx.test/de/llm" in str(err.value) and "price" in str(err.value)


def test_no_default_url_without_configuration(monkeypatch):
    monkeypatch.delenv("GPULEDGER_EVERXCLOUD_URLS", raising=False)
    assert everxcloud.urls() == ()
    monkeypatch.setenv("GPULEDGER_EVERXCLOUD_URLS", "https://a.test/x, https://a.test/y")
    assert everxcloud.urls() == ("https://a.test/x", "https://a.test/y")
