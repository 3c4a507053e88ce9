"""Model API token prices from the genai-prices catalog, as gpuledger snapshots it."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest

from sources import model_api_prices
from sources.records import ParseError

URL, TAKEN, CONTENT = model_api_prices.seed_snapshot()
RESULT = model_api_prices.parse(CONTENT, URL, TAKEN)


def prices(provider: str, model: str):
    return sorted(
        ((p.valid_from or date.min), p.input_per_mtok, p.output_per_mtok)
        for p in RESULT.api_prices
        if p.provider == provider and p.model_id == model
    )


def test_real_catalog_values():
    assert URL == "package:genai-prices==0.2.3"
    assert prices("openai", "gpt-4o") == [(date.min, 2.5, 10.0)]
    assert prices("anthropic", "claude-3-5-sonnet") == [(date.min, 3.0, 15.0)]
    assert prices("groq", "llama-3.3-70b-versatile") == [(date.min, 0.59, 0.79)]
    assert len(RESULT.api_prices) == 2423
    assert {p.currency for p in RESULT.api_prices} == {"USD"}


def test_price_history_and_tiers_are_kept():
    dated = [p for p in RESULT.api_prices if p.valid_from is not None]
    assert len(dated) > 100
    assert any(p.is_tiered for p in RESULT.api_prices)


def test_snapshot_is_data_only_json():
    doc = json.loads(CONTENT)
    assert doc["format"] == "gpuledger.api_prices.v1"
    assert set(doc["prices"][0]) == {
        "provider",
        "model_id",
        "model_name",
        "input_usd_per_mtok",
        "output_usd_per_mtok",
        "valid_from",
        "is_tiered",
    }


def test_bad_rows_are_rejected_and_the_rest_kept():
    doc = {
        "format": "gpuledger.api_prices.v1",
        "prices": [
            {"provider": "x", "model_id": "a", "input_usd_per_mtok": 1, "output_usd_per_mtok": 2},
            {"provider": "x", "model_id": "b", "input_usd_per_mtok": -1, "output_usd_per_mtok": 2},
            {"provider": "x", "model_id": "c", "input_usd_per_mtok": 1, "valid_from": "soon"},
            {"provider": "", "model_id": "d"},
        ],
    }
    result = model_api_prices.parse(json.dumps(doc).encode(), "u", TAKEN)
    assert [p.model_id for p in result.api_prices] == ["a"]
    assert [(e.row_ref, e.field) for e in result.row_errors] == [
        ("prices[1]", "input_usd_per_mtok"),
        ("prices[2]", "valid_from"),
        ("prices[3]", "model_id"),
    ]


@pytest.mark.parametrize(
    ("content", "field"),
    [
        (b"{not json", "<document>"),
        (b'{"format": "other"}', "format"),
        (b'{"format": "gpuledger.api_prices.v1"}', "prices"),
    ],
)
def test_unusable_snapshots_are_clear_errors(content, field):
    with pytest.raises(ParseError) as err:
        model_api_prices.parse(content, "package:x", datetime(2026, 1, 1, tzinfo=UTC))
    assert err.value.field == field
