"""Model API token prices from the genai-prices catalog, as gpuledger snapshots it."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest

from sources import model_api_prices
from sources._internal.records import ParseError
from tests.conftest import FIXTURES

T = datetime(2026, 11, 30, 6, tzinfo=UTC)

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


def test_the_installed_catalog_is_dated_by_its_newest_price_in_force():
    """Not by when it was copied: a catalog months old must not read as fresh."""
    # genai-prices 0.2.3's newest start dates: 2026-11-09, 2026-12-01, then 2027-01-01 (announced)
    assert model_api_prices.seed_snapshot(datetime(2026, 12, 7, 2, tzinfo=UTC))[1] == datetime(
        2026, 12, 1, tzinfo=UTC
    )
    assert model_api_prices.seed_snapshot(datetime(2026, 11, 30, tzinfo=UTC))[1] == datetime(
        2026, 11, 9, tzinfo=UTC
    )
    assert model_api_prices.seed_snapshot(datetime(2027, 3, 1, tzinfo=UTC))[1] == datetime(
        2027, 1, 1, tzinfo=UTC
    )
    # before its first dated price, nothing dates it: the copy's own time
    early = datetime(2025, 1, 1, 12, tzinfo=UTC)
    assert model_api_prices.seed_snapshot(early)[1] == early
    assert model_api_prices.seed_snapshot(early)[2] == CONTENT  # the same prices either way


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


UPSTREAM = FIXTURES / "model_api_prices" / "genai-prices_v2_data_slim.excerpt.json"


def test_published_catalog_json_parses_to_the_same_rows():
    result = model_api_prices.parse(UPSTREAM.read_bytes(), model_api_prices.UPSTREAM, T)
    got = {
        (p.provider, p.model_id, p.valid_from): (p.input_per_mtok, p.output_per_mtok, p.is_tiered)
        for p in result.api_prices
    }
    assert got[("anthropic", "claude-3-5-sonnet", None)] == (3.0, 15.0, False)
    # a price history: tiered until 2026-03-13, flat from then on
    assert got[("anthropic", "claude-opus-4-6", None)] == (5.0, 25.0, True)
    assert got[("anthropic", "claude-opus-4-6", date(2026, 3, 13))] == (5.0, 25.0, False)
    assert got[("avian", "Meta-Llama-3.3-70B-Instruct", None)] == (0.45, 0.45, False)
    assert len(result.api_prices) == 10 and result.row_errors == []
    assert {p.currency for p in result.api_prices} == {"USD"}


def test_published_catalog_agrees_with_the_installed_package_where_both_have_a_model():
    published = model_api_prices.parse(UPSTREAM.read_bytes(), "u", T).api_prices
    installed = {
        (r["provider"], r["model_id"], r["valid_from"]): r for r in model_api_prices.catalog_rows()
    }
    compared = 0
    for p in published:
        key = (p.provider, p.model_id, p.valid_from.isoformat() if p.valid_from else None)
        if key in installed:
            assert installed[key]["input_usd_per_mtok"] == p.input_per_mtok
            assert installed[key]["output_usd_per_mtok"] == p.output_per_mtok
            compared += 1
    assert compared >= 5  # claude-3-5-sonnet, claude-2, the avian llamas ...


def test_published_catalog_with_broken_entries_keeps_the_rest():
    doc = json.loads(UPSTREAM.read_text())
    doc[1]["models"][0]["prices"] = {"input_mtok": "cheap", "output_mtok": 1}
    doc.append({"name": "no id"})
    result = model_api_prices.parse(json.dumps(doc).encode(), "https://up.test/data.json", T)
    assert len(result.api_prices) == 9
    assert sorted((e.row_ref, e.field) for e in result.row_errors) == [
        ("[2]", "id"),
        ("avian.models[0]", "prices"),
    ]
    avian = next(e for e in result.row_errors if e.row_ref == "avian.models[0]")
    assert avian.reason == "input_mtok: not a number: 'cheap'"


def test_upstream_url_can_be_overridden_or_switched_off(monkeypatch):
    assert model_api_prices.urls() == (model_api_prices.UPSTREAM,)
    monkeypatch.setenv("GPULEDGER_GENAI_PRICES_URL", "")
    assert model_api_prices.urls() == ()
