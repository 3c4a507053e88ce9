"""Analyst quotes and other scrapers' exports, on real dirty data (becloudready, 2026-02-11)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from sources import quote_csv
from sources._internal.records import ParseError
from tests.conftest import FIXTURES

DIRTY = FIXTURES / "becloudready"
T = datetime(2026, 2, 11, 7, 11, 53, tzinfo=UTC)
PARSED = {
    p.stem: quote_csv.parse(p.read_bytes(), f"becloudready:{p.name}", T)
    for p in sorted(DIRTY.glob("*.csv"))
}


def test_nothing_is_lost_every_row_is_kept_or_rejected():
    rows = json.loads((DIRTY / "meta.json").read_text())["rows"]
    kept = sum(len(r.records) for r in PARSED.values())
    rejected = sum(len(r.row_errors) for r in PARSED.values())
    assert (kept, rejected, kept + rejected) == (61, 41, rows)


def test_junk_rows_are_rejected_with_reasons():
    reasons = {e.row_ref: (e.field, e.reason) for e in PARSED["lambda_gpu_prices"].row_errors}
    assert reasons["line 2"] == ("product", "'On-Demand' is a pricing label, not a GPU")
    crusoe = {e.reason for e in PARSED["crusoe_gpu_prices"].row_errors}
    assert "'Persistent disks' is not a GPU product" in crusoe
    assert "'DeepSeek' is not a GPU product" in crusoe  # a model-API price, not a GPU
    assert "no price" in crusoe


def test_ambiguous_counts_are_rejected_not_guessed():
    denvr = {e.row_ref: e.reason for e in PARSED["denvr_gpu_prices"].row_errors}
    assert denvr["line 12"] == "8 GPUs and no price_unit: per-GPU or per-instance?"
    coreweave = {e.row_ref: e.reason for e in PARSED["coreweave_prices"].row_errors}
    assert coreweave["line 2"] == "gpu_count missing"  # GB200 NVL72, count lost in the scrape


def test_good_rows_are_kept_with_their_values():
    runpod = {r.gpu_name_raw: r for r in PARSED["runpod_gpu_prices"].records}
    assert (
        runpod["H100 PCIe"].price_per_hour,
        runpod["H100 PCIe"].gpu_count,
        runpod["H100 PCIe"].currency,
        runpod["H100 PCIe"].pricing_model,
    ) == (2.39, 1, "USD", "on_demand")
    assert runpod["H100 PCIe"].gpu_memory_gb == 80.0
    azure = {r.gpu_name_raw: r.price_per_hour for r in PARSED["azure_public_prices"].records}
    assert azure == {"NVIDIA A100": 3.40, "NVIDIA H100": 5.20, "NVIDIA V100": 2.48}
    crusoe = sorted(
        r.price_per_hour
        for r in PARSED["crusoe_gpu_prices"].records
        if r.gpu_name_raw == "NVIDIA A100"
    )
    assert crusoe == [1.45, 1.65, 1.95]
    assert {r.observed_at for r in PARSED["gcp_public_prices"].records} == {T}


QUOTE = """provider,gpu,gpu_count,price,price_unit,currency,pricing_model,term_months,\
valid_from,valid_to,region
Example Cloud,NVIDIA H100 SXM5 80GB,8,2.10,per_gpu_hour,USD,,12,2026-09-01,2027-08-31,eu-west
Example Cloud,NVIDIA L40S,1,1.20,per_instance_hour,EUR,spot,,2026-09-01,,eu-west
Example Cloud,NVIDIA A100 80GB,2,3.00,per_hour,USD,,,,,
"""


def test_documented_quote_format():
    result = quote_csv.parse(QUOTE.encode(), "quote:example-2026-09", T)
    h100, l40s = result.records
    assert (h100.provider, h100.gpu_count, h100.price_per_hour, h100.pricing_model) == (
        "example cloud",
        8,
        16.8,
        "reserved_1y",
    )
    assert (h100.observed_at, h100.valid_until) == (
        datetime(2026, 9, 1, tzinfo=UTC),
        datetime(2027, 8, 31, tzinfo=UTC),
    )
    assert (l40s.price_per_hour, l40s.currency, l40s.pricing_model) == (1.2, "EUR", "spot")
    assert [(e.row_ref, e.field) for e in result.row_errors] == [("line 4", "price_unit")]


def test_a_six_month_term_is_reserved_6m_and_dynamic_is_a_model():
    text = (
        "provider,gpu,gpu_count,price,price_unit,currency,pricing_model,term_months\n"
        "x,NVIDIA H100,1,2.50,per_gpu_hour,USD,,6\n"
        "x,NVIDIA H100,1,2.20,per_gpu_hour,USD,dynamic,\n"
    )
    result = quote_csv.parse(text.encode(), "quote:x", T)
    assert [(r.pricing_model, r.price_per_hour) for r in result.records] == [
        ("reserved_6m", 2.5),
        ("dynamic", 2.2),
    ]


def test_a_term_no_pricing_model_stands_for_is_refused_not_read_as_on_demand():
    text = (
        "provider,gpu,gpu_count,price,price_unit,currency,pricing_model,term_months\n"
        "x,NVIDIA H100,1,2.40,per_gpu_hour,USD,,24\n"
        "x,NVIDIA H100,1,2.90,per_gpu_hour,USD,,\n"
    )
    result = quote_csv.parse(text.encode(), "quote:x", T)
    assert [(r.pricing_model, r.price_per_hour) for r in result.records] == [("on_demand", 2.9)]
    assert [(e.row_ref, e.field, e.reason) for e in result.row_errors] == [
        (
            "line 2",
            "term_months",
            "a 24-month term is no pricing model (6, 12 or 36 months, or give pricing_model)",
        )
    ]


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("gpu,price\nH100,2\n", "provider"),
        ("provider,gpu,price\nx,H100,2\n", "currency"),
        ("", "<header>"),
    ],
)
def test_unusable_files_are_clear_errors(text, field):
    with pytest.raises(ParseError) as err:
        quote_csv.parse(text.encode(), "quote:bad.csv", T)
    assert err.value.field == field and "quote:bad.csv" in str(err.value)
