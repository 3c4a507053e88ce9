"""Model-API prices from page tables: the real euro table of the reference article seeds/002."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from sources import api_price_pages
from sources._internal.records import ParseError
from tests.conftest import FIXTURES

PAGE = (FIXTURES / "api_price_pages" / "gpu-auswahl-und-inference-kosten.md").read_bytes()
T = datetime(2026, 8, 21, 9, tzinfo=UTC)


def test_euro_prices_of_the_article_with_providers_from_the_catalog():
    result = api_price_pages.parse(PAGE, "seeds/002", T)
    got = {
        (p.provider, p.model_id): (p.input_per_mtok, p.output_per_mtok, p.currency, p.valid_from)
        for p in result.api_prices
    }
    assert got == {
        ("openai", "gpt-4o"): (2.5, 10.0, "EUR", date(2026, 8, 21)),
        ("anthropic", "claude-3-5-sonnet"): (3.0, 15.0, "EUR", date(2026, 8, 21)),
    }


def test_a_model_the_catalog_cannot_place_is_kept_as_a_row_error():
    (err,) = api_price_pages.parse(PAGE, "seeds/002", T).row_errors
    assert err.field == "Modell" and "Llama 3 70B (hosted)" in err.reason
    assert err.raw == "Llama 3 70B (hosted) | ~0,60 € | ~0,80 €"


def test_provider_column_and_per_thousand_unit():
    page = b"""| Provider | Model | Input per 1K tokens | Output per 1K tokens |
|---|---|---|---|
| groq | llama-3.3-70b | $0.00059 | $0.00079 |
| groq | broken | $0.1 | n/a |
"""
    result = api_price_pages.parse(page, "https://p.test", T)
    (p,) = result.api_prices
    assert (p.provider, p.model_id, p.input_per_mtok, p.output_per_mtok) == (
        "groq", "llama-3.3-70b", 0.59, 0.79)  # fmt: skip
    assert [e.field for e in result.row_errors] == ["Output per 1K tokens"]


@pytest.mark.parametrize(
    ("header", "factor"),
    [("Input (1M Token)", 1.0), ("per 1K tokens", 1000.0), ("Output", 1.0), ("per 10M", 0.1)],
)
def test_unit_from_the_header(header, factor):
    assert api_price_pages.per_million_factor(header) == pytest.approx(factor)


def test_page_without_an_api_price_table_names_the_page():
    with pytest.raises(ParseError) as err:
        api_price_pages.parse(b"| GPU | Price |\n|---|---|\n| H100 | $2 |\n", "https://p.test", T)
    assert "https://p.test" in str(err.value) and "input_price" in str(err.value)
