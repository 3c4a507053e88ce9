"""The generic pricing-page reader under the provider modules that have no price feed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sources._internal.price_page import (
    parse_price_tables,
    pricing_model_of,
    unknown_commitment,
)
from sources._internal.records import ParseError
from tests.conftest import FIXTURES

T = datetime(2026, 2, 11, tzinfo=UTC)


def _parse(page: str, **kw):
    return parse_price_tables(page.encode(), "https://p.test/pricing", T, "p", **kw)


def test_a_price_column_per_pricing_model_and_an_instance_count():
    page = """
| GPU | GPUs | On-Demand (per GPU/hr) | Spot (per GPU/hr) | 1-Year Reserved |
|---|---|---|---|---|
| H100 SXM | 8 | $2.99 | $1.25 | Contact sales |
"""
    result = _parse(page)
    got = {(r.pricing_model, r.gpu_count, r.price_per_hour) for r in result.records}
    assert got == {("on_demand", 8, 23.92), ("spot", 8, 10.0)}
    assert [(e.field, e.reason) for e in result.row_errors] == [
        ("1-Year Reserved", "no price for H100 SXM: 'Contact sales'")
    ]


def test_per_instance_header_is_not_multiplied_and_count_prefix_is_read():
    page = """
| Instance | GPU | Price per instance-hour |
|---|---|---|
| gpu-8x | 8x A100 80GB | $14.32 |
"""
    (rec,) = _parse(page).records
    assert (rec.gpu_name_raw, rec.gpu_count, rec.price_per_hour, rec.offer_id) == (
        "A100 80GB", 8, 14.32, "gpu-8x")  # fmt: skip


def test_german_table_with_pricing_model_column():
    page = """
| Modell | Anzahl | Tarif | Preis/Std. |
|---|---|---|---|
| L40S | 1 | Spot | ab 0,89 € |
| L40S | 1 | Auf Abruf | 1,29 € |
"""
    result = _parse(page)
    got = {(r.pricing_model, r.price_per_hour, r.currency) for r in result.records}
    assert got == {("spot", 0.89, "EUR"), ("on_demand", 1.29, "EUR")}


def test_unknown_pricing_model_and_bad_count_are_row_errors():
    page = """
| GPU | GPUs | Billing | Price |
|---|---|---|---|
| H100 | 2.5 | hourly | $2.00 |
| H100 | 1 | weekly-ish | $2.00 |
"""
    result = _parse(page)
    assert result.records == []
    assert [e.reason for e in result.row_errors] == [
        "GPU count must be a whole number 1..72, got '2.5'",
        "unknown pricing model 'weekly-ish'",
    ]


def test_no_price_table_names_the_page_and_the_headers_found():
    with pytest.raises(ParseError) as err:
        _parse("| Region | Latency |\n|---|---|\n| eu | 3 ms |\n")
    assert "https://p.test/pricing" in str(err.value) and "['Region', 'Latency']" in str(err.value)


@pytest.mark.parametrize(
    ("header", "model"),
    [("On-Demand", "on_demand"), ("Spot price", "spot"), ("3-Year", "reserved_3y"),
     ("Reserved (12 months)", "reserved_1y"), ("Price", None)],
)  # fmt: skip
def test_pricing_model_named_by_a_header(header, model):
    assert pricing_model_of(header) == model


@pytest.mark.parametrize(
    "label",
    ["6-month reserved", "GPU 6 Month Cost (/hr)", "6 months", "Reserved, 6 months",
     "six-month commitment", "Six-Month Reserved", "6mo commit", "Reserviert 6 Monate",
     "6-month reserved (1 GPU)"],
)  # fmt: skip
def test_a_six_month_term_is_reserved_6m_never_reserved_1y(label):
    assert pricing_model_of(label) == "reserved_6m"
    assert unknown_commitment(label) is None


@pytest.mark.parametrize(
    "label",
    ["Dynamic price", "Dynamic pricing", "dynamic", "Dynamically priced", "Dynamischer Preis"],
)
def test_a_dynamic_price_is_dynamic_never_on_demand_nor_spot(label):
    assert pricing_model_of(label) == "dynamic"


@pytest.mark.parametrize(
    ("label", "term"),
    [("Dynamic spot price", "Dynamic with spot"), ("Dynamic on-demand", "Dynamic with on-demand"),
     ("Dynamic, 6-month", "Dynamic with 6-month"), ("6 months – 1 year", "6 month and 1 year"),
     ("6-month or 12-month", "6-month and 12-month"), ("2-year reserved", "2-year"),
     ("Reservation Pricing", "Reservation (no term)"), ("2 weeks – 1 year", "2 week"),
     ("6-12 months", "6-12 month"), ("Reserved 1 to 3 years", "1 to 3 year")],
)  # fmt: skip
def test_a_label_naming_two_models_or_a_term_no_model_has_is_refused(label, term):
    """Never the nearest model: "Dynamic" beside spot or on-demand, 6 months beside 1 year, a range
    of terms, a term of 2 years or of weeks, a reservation of no term name no one pricing model."""
    assert pricing_model_of(label) is None
    assert unknown_commitment(label) == term


def test_six_month_and_dynamic_columns_beside_the_others():
    page = """
| GPU | On-Demand | Dynamic price | Spot | 6-month reserved | 1-year reserved | 3-year reserved |
|---|---|---|---|---|---|---|
| H100 | $3.90 | $2.70 | $1.60 | $3.12 | $2.93 | $2.54 |
"""
    got = {r.pricing_model: r.price_per_hour for r in _parse(page).records}
    assert got == {"on_demand": 3.90, "dynamic": 2.70, "spot": 1.60, "reserved_6m": 3.12,
                   "reserved_1y": 2.93, "reserved_3y": 2.54}  # fmt: skip


def test_real_coreweave_docs_page_reads_through_the_generic_reader():
    page = (FIXTURES / "coreweave_docs").glob("*resource-based-pricing.md")
    page = sorted(page)[0]
    result = parse_price_tables(page.read_bytes(), str(page), T, "coreweave")
    assert len(result.records) > 5
    assert all(r.price_per_hour > 0 for r in result.records)
