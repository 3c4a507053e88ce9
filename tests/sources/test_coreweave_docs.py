"""CoreWeave documentation pages through the generic extractor: every real version parses."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sources import coreweave_docs
from sources._internal.records import ParseError
from tests.conftest import FIXTURES

DOCS = FIXTURES / "coreweave_docs"
T = datetime(2023, 6, 22, tzinfo=UTC)
FILES = sorted(DOCS.glob("*"))
PARSED = {
    p.name: coreweave_docs.parse(p.read_bytes(), f"https://docs.test/{p.name}", T)
    for p in FILES
    if p.suffix in (".md", ".html")
}


def prices(name: str) -> dict[str, float]:
    return {r.offer_id: r.price_per_hour for r in PARSED[name].records}


def test_every_version_parses_without_rejected_rows():
    assert len(PARSED) == 9
    for name, result in PARSED.items():
        assert result.row_errors == [], name
        assert result.records or result.specs, name


def test_2021_markdown_pipe_table():
    got = prices("2021-04-28_00a51275_resource-based-pricing.md")
    assert got == {
        "A100_NVLINK": 2.06,
        "Tesla_V100_NVLINK": 0.80,
        "Tesla_V100": 0.47,
        "Quadro_RTX_6000": 0.97,
        "Quadro_RTX_5000": 0.57,
        "Quadro_RTX_4000": 0.24,
        "Tesla_P100_NVLINK": 0.55,
    }
    a100 = PARSED["2021-04-28_00a51275_resource-based-pricing.md"].records[0]
    assert (a100.gpu_name_raw, a100.gpu_count, a100.currency, a100.gpu_memory_gb) == (
        "NVIDIA A100 for NVLINK",
        1,
        "USD",
        40.0,
    )


def test_2022_tables_add_a100_80gb_and_drop_cpu_rows():
    got = prices("2022-10-03_6c43f009_resource-based-pricing.md")
    assert got["A100_NVLINK_80GB"] == 2.21  # label "A100\\_NVLINK_\\__80GB" in the markdown
    assert got["A100_PCIE_80GB"] == 2.21
    assert got["A100_PCIE_40GB"] == 2.06
    assert len(got) == 11
    assert not any("epyc" in k.lower() or "xeon" in k.lower() for k in got)


@pytest.mark.parametrize(
    "name",
    [
        "2023-05-24_fedad6aa_resource-based-pricing.md",
        "2023-05-24_fedad6aa_resource-based-pricing.tables.html",
    ],
)
def test_2023_gitbook_html_tables(name):
    got = prices(name)
    assert got["H100_NVLINK_80GB"] == 4.78
    assert got["H100_PCIE"] == 4.25
    assert len(got) == 13
    h100 = next(r for r in PARSED[name].records if r.offer_id == "H100_NVLINK_80GB")
    assert h100.gpu_name_raw == "H100 HGX (80GB)"


@pytest.mark.parametrize(
    "name", ["2023-06-22_745ed9ec_node-types.md", "2023-06-22_745ed9ec_node-types.tables.html"]
)
def test_node_types_pages_give_memory_per_label(name):
    result = PARSED[name]
    assert result.records == []
    got = {s.offer_id: (s.gpu_name_raw, s.memory_gb) for s in result.specs}
    assert got["H100_PCIE"] == ("H100 PCIe", 80.0)
    assert got["A100_NVLINK"] == ("A100 HGX", 40.0)
    assert got["A100_NVLINK_80GB"] == ("A100 HGX", 80.0)
    assert len(got) == 13


def test_layout_change_without_a_price_or_spec_table_is_a_clear_error():
    page = (
        b"# Pricing\n\nSee our website for current prices.\n\n"
        b"| Region | Status |\n|--|--|\n| LGA1 | up |\n"
    )
    with pytest.raises(ParseError) as err:
        coreweave_docs.parse(page, "https://docs.test/pricing.md", T)
    assert "https://docs.test/pricing.md" in str(err.value)
    assert "['Region', 'Status']" in str(err.value)


def test_a_price_cell_that_is_not_a_price_is_rejected_with_its_column():
    page = (
        b"| Description | Label | Cost per hour |\n|---|---|---|\n"
        b"| H100 HGX (80GB) | H100_NVLINK_80GB | Contact sales |\n"
        b"| A40 | A40 | $1.28 |\n"
    )
    result = coreweave_docs.parse(page, "u", T)
    assert [r.offer_id for r in result.records] == ["A40"]
    assert [(e.row_ref, e.field) for e in result.row_errors] == [("table 1 row 1", "Cost per hour")]
