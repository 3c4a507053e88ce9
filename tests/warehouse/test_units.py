"""Costs said in a unit that fits their size (rank, explain, the first screen, alerts, report)."""

from __future__ import annotations

from decimal import Decimal

from warehouse.units import cost_scale, money, scaled


def test_one_scale_per_table_from_its_cheapest_figure():
    # chat-70b's leader on the demo: 0.000994 USD per request; its model API 0.000116
    per_1000 = (1_000, "USD per 1,000 requests")
    assert cost_scale([0.000994, 0.001547, 0.000116], "request") == per_1000
    assert cost_scale([0.056839], "request") == per_1000  # 56.84 reads better than 0.0568
    assert cost_scale([0.135178], "request") == (1, "USD per request")
    assert cost_scale([0.000064], "sample") == (1_000_000, "USD per 1,000,000 samples")
    assert cost_scale([0.000902], "image") == (1_000, "USD per 1,000 images")
    assert cost_scale([0.357728], "1m_tokens") == (1, "USD per 1M tokens")  # already per 1M
    assert cost_scale([None, 0.0], "request") == (1, "USD per request")  # nothing to scale by


def test_numbers_without_exponents_or_false_precision():
    assert money(0.000994 * 1_000) == "0.994"
    assert money(5.15848e-05 * 1_000_000) == "51.58"
    assert money(1234.5678) == "1,234.57"
    assert money(Decimal("0.000380") * 1_000) == "0.38"  # DECIMAL columns read as Decimal
    assert money(None, 6) == "     -"
    assert "e" not in money(3e-9)
    assert scaled(0.000994, "request") == "0.994 USD per 1,000 requests"
