"""The price_page source: any provider's pricing page by configuration, read automatically.

The shapes under tests/fixtures/price_pages/ are constructed (each says so at its top): a capture
that starts inside a table, a <div> price grid with "from" prices, ranges and "Contact us" rows,
marketing cards naming the GPU only in their text, and data embedded as JSON-LD, Next.js data and
a JavaScript object. Real pages are the CoreWeave documentation captures (every price row of every
version, as the provider's own module reads them) and EverXCloud's page (tests/sources).
"""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime

import pytest

from sources import REGISTRY, price_page
from sources._internal.page_reader import gpu_name, money_in
from sources._internal.records import ParseError
from tests.conftest import FIXTURES

T = datetime(2026, 11, 20, 6, tzinfo=UTC)
PAGES = FIXTURES / "price_pages"
AUTO = price_page.automatic("acme")


def _read(name: str, entry=AUTO):
    return price_page.parse_with(entry, (PAGES / name).read_bytes(), f"https://acme.test/{name}", T)


def _offers(result):
    return {
        (r.offer_id, r.pricing_model): (r.gpu_name_raw, r.gpu_count, r.price_per_hour,
                                        r.gpu_memory_gb, r.price_qualifier)
        for r in result.records
    }  # fmt: skip


def test_a_capture_that_starts_inside_the_table():
    result = _read("cut_table.html")
    assert _offers(result) == {
        ("gpu-h100-8", "on_demand"): ("NVIDIA H100 SXM", 8, 23.92, 80.0, None),  # $2.99/GPU x 8
        ("gpu-h100-8", "spot"): ("NVIDIA H100 SXM", 8, 14.32, 80.0, None),
        ("gpu-a100-1", "on_demand"): ("NVIDIA A100 PCIe", 1, 1.29, 40.0, None),
        ("gpu-l40s-4", "on_demand"): ("NVIDIA L40S", 4, 3.96, 48.0, None),
        ("gpu-l40s-4", "spot"): ("NVIDIA L40S", 4, 2.36, 48.0, None),
    }
    # "Sold out" under Spot is a row error naming the column; the CPU row is no GPU offer
    (err,) = result.row_errors
    assert (err.field, err.reason) == ("Spot", "no price for NVIDIA A100 PCIe: 'Sold out'")


def test_a_div_grid_with_from_prices_ranges_and_contact_rows():
    result = _read("div_grid.html")
    assert _offers(result) == {
        # "1-1016 GPUs": the smallest offer is one GPU, per GPU and per instance alike
        ("NVIDIA H200 141GB", "on_demand"): ("NVIDIA H200", 1, 2.3, 141.0, "from"),
        ("NVIDIA RTX 4090 24GB", "on_demand"): ("NVIDIA RTX 4090", 1, 0.35, 24.0, "from"),
    }
    assert [(e.field, e.reason) for e in result.row_errors] == [
        ("Price", "no price for NVIDIA B200: 'Contact us'"),
        # "$1.99 – $2.49/hr" over "8-1016 GPUs": nothing says per GPU or per 8-GPU instance
        (
            "Price",
            "nothing says whether '$1.99 – $2.49/hr' is per GPU or per instance of 8x "
            "NVIDIA H100 (an entry's price_basis can): refused",
        ),
        ("Price", "no price for AMD MI300X: 'Contact sales'"),
    ]
    per_gpu = price_page.check_entry("acme", {"price_basis": "per_gpu"}, "test")
    assert _offers(_read("div_grid.html", per_gpu))[("8x NVIDIA H100 80GB", "on_demand")] == (
        "NVIDIA H100",
        8,
        15.92,
        80.0,
        "from",
    )  # with the entry: the lower bound, per GPU, for 8
    assert all(e.where == "https://acme.test/div_grid.html" for e in result.row_errors)


def test_marketing_cards_naming_the_gpu_in_their_text():
    # one card names its model ("Spot A100"); the others name none: nothing on the page tells
    # whether they are on-demand, so they are refused, and read once the entry names the model
    result = _read("price_cards.html")
    assert _offers(result) == {("A100 80GB", "spot"): ("A100 80GB", 1, 0.79, 80.0, None)}
    assert [e.reason for e in result.row_errors] == [
        "'$2.69' for NVIDIA H100 80GB SXM names no pricing model where the page's other prices "
        "name theirs: nothing tells which offer it is; none is kept",
        "'$0.86' for NVIDIA L40S names no pricing model where the page's other prices name "
        "theirs: nothing tells which offer it is; none is kept",
        "'$199' is not an hourly price",  # a monthly plan is never read as an hourly price
    ]
    entry = price_page.check_entry("acme", {"pricing_model": "on_demand"}, "test")
    assert _offers(_read("price_cards.html", entry)) == {
        # "8x NVIDIA H100 80GB SXM" in a sentence; the struck-through $3.49 is not the price
        ("8x NVIDIA H100 80GB SXM", "on_demand"): ("NVIDIA H100 80GB SXM", 8, 21.52, 80.0, None),
        ("NVIDIA L40S", "on_demand"): ("NVIDIA L40S", 1, 0.86, None, "from"),  # "Starting at"
        ("A100 80GB", "spot"): ("A100 80GB", 1, 0.79, 80.0, None),  # "Interruptible capacity"
    }


def test_prices_embedded_as_data():
    result = _read("embedded_data.html")
    got = _offers(result)
    assert got[("NVIDIA H200 SXM 141GB", "on_demand")][2] == 3.1  # JSON-LD Product/Offer
    assert got[("8x H100 SXM 80GB", "on_demand")] == ("H100 SXM", 8, 19.2, 80.0, None)  # Next.js
    assert got[("8x H100 SXM 80GB", "spot")][2] == 10.4  # spotPrice: "$1.30/GPU/hr" x 8
    assert got[("L4", "on_demand")] == ("L4", 1, 0.45, None, None)  # a JavaScript object literal
    assert len(result.records) == 5
    (err,) = result.row_errors
    assert err.reason == "no price for GB200 NVL72: 'Contact sales'"
    assert err.row_ref.endswith("pricing.gpus[2]")


def test_every_price_row_of_the_real_coreweave_docs_without_provider_code():
    # every version of CoreWeave's "Resource Based Pricing" page (2021-04 .. 2023-06, markdown
    # and GitBook HTML): the automatic reading finds every price the provider's module finds
    module = REGISTRY["coreweave_docs"]
    pages = sorted((FIXTURES / "coreweave_docs").glob("*resource-based-pricing*"))
    assert len(pages) == 5
    total = 0
    for page in pages:
        content = page.read_bytes()
        by_module = {
            (r.gpu_name_raw, r.price_per_hour) for r in module.parse(content, "u", T).records
        }
        auto = price_page.parse_with(price_page.automatic("coreweave"), content, "u", T)
        assert by_module <= {(r.gpu_name_raw, r.price_per_hour) for r in auto.records}, page.name
        assert auto.row_errors == [], page.name  # the CPU rows of the same tables are no errors
        total += len(by_module)
    assert total == 54
    # 2023-05: also the page's worked example ("Tesla V100 NVLINK", 4 instances at $0.80)
    newest = price_page.parse_with(
        price_page.automatic("coreweave"), pages[-1].read_bytes(), "u", T
    )
    assert ("H100 HGX (80GB)", 4.78) in {(r.gpu_name_raw, r.price_per_hour) for r in newest.records}


def test_a_page_of_gpu_specs_without_prices_is_no_price_page():
    page = sorted((FIXTURES / "coreweave_docs").glob("*node-types.md"))[0]
    with pytest.raises(ParseError) as err:
        price_page.parse_with(AUTO, page.read_bytes(), str(page), T)
    assert str(page) in str(err.value) and "no GPU prices found" in str(err.value)
    assert "'Class', 'Generation', 'VRAM'" in str(err.value)  # the headers it did find


def test_configured_selectors_and_a_selector_that_no_longer_matches():
    entry = price_page.check_entry(
        "acme",
        {"urls": ["https://acme.test/p"], "pricing_model": "spot",
         "selectors": {"row": "div.grid-row", "gpu": "div.c:nth-of-type(1)",
                       "price": "div.c:nth-of-type(4)"}},
        "test",
    )  # fmt: skip
    result = _read("div_grid.html", entry)
    assert {r.gpu_name_raw: (r.pricing_model, r.price_per_hour) for r in result.records} == {
        "NVIDIA H200": ("spot", 2.3), "NVIDIA H100": ("spot", 1.99),
        "NVIDIA RTX 4090": ("spot", 0.35)}  # fmt: skip
    moved = (PAGES / "div_grid.html").read_bytes().replace(b"grid-row", b"pricing-line")
    with pytest.raises(ParseError) as err:
        price_page.parse_with(entry, moved, "https://acme.test/p", T)
    assert str(err.value) == (
        "https://acme.test/p: field \"selector 'div.grid-row'\": matched nothing: the page's "
        "layout changed"
    )


def test_pricing_words_of_the_provider():
    page = b"""<table><tr><th>GPU</th><th>Preemptible</th><th>Committed</th></tr>
    <tr><td>NVIDIA H100</td><td>$1.10/hr</td><td>$1.90/hr</td></tr></table>"""
    entry = price_page.check_entry(
        "acme", {"pricing_words": {"Preemptible": "spot", "Committed": "reserved_1y"}}, "test"
    )
    result = price_page.parse_with(entry, page, "https://acme.test/p", T)
    assert {(r.pricing_model, r.price_per_hour) for r in result.records} == {
        ("spot", 1.1), ("reserved_1y", 1.9)}  # fmt: skip


@pytest.mark.parametrize(
    ("body", "field", "reason"),
    [
        ({"price_basis": "per_node"}, "price_basis", "'per_node': per_gpu or per_instance"),
        ({"pricing_model": "hourly"}, "pricing_model", "'hourly' is not one of"),
        ({"urls": ["www.acme.test"]}, "urls", "every URL must start with http:// or https://"),
        ({"selectors": {"gpu": "h3"}}, "selectors", "selectors need a 'row' or a 'split' selector"),
        ({"colour": "red"}, "colour", "unknown field"),
        ({"expected_rows": [9, 1]}, "expected_rows", "[min, max] whole numbers"),
    ],
)
def test_a_bad_entry_names_the_file_provider_field_and_reason(body, field, reason):
    with pytest.raises(price_page.ConfigError) as err:
        price_page.check_entry("acme", body, "price_pages.yaml")
    assert (err.value.where, err.value.provider, err.value.field) == (
        "price_pages.yaml", "acme", field)  # fmt: skip
    assert reason in err.value.reason


def test_a_bad_entry_is_left_out_and_the_others_load(tmp_path):
    path = tmp_path / "pages.yaml"
    path.write_text(
        "providers:\n  good:\n    urls: [https://g.test/p]\n  bad:\n    price_basis: nodes\n"
    )
    entries, errors = price_page.load(path)
    assert list(entries) == ["good"]
    assert [(e.provider, e.field) for e in errors] == [("bad", "price_basis")]
    path.write_text("providers: [oops")
    assert "not valid YAML" in price_page.load(path)[1][0].reason


def test_the_shipped_configuration_is_valid_and_each_entry_is_a_source():
    entries, errors = price_page.load()
    assert errors == []
    assert set(entries) == {"crusoe", "everxcloud"}
    for name in entries:
        assert isinstance(REGISTRY[name], price_page.PricePageSource)
    # changing an entry changes its parser version, so its archived pages are read again
    other = price_page.check_entry("crusoe", {"pricing_model": "spot"}, "x")
    assert other.fingerprint != entries["crusoe"].fingerprint


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [("$2.99 / GPU / hr", 2.99, "USD"), ("from $0.90", 0.9, "USD"), ("ab 0,44 $", 0.44, "USD"),
     ("€2.50/hr", 2.5, "EUR"), ("US$ 3.10", 3.1, "USD"), ("8x H100 $23.92/hr", 23.92, "USD")],
)  # fmt: skip
def test_money_in_a_cell(text, amount, currency):
    (money,) = money_in(text, None)
    assert (money.amount, money.currency) == (amount, currency)


def test_no_money_in_counts_and_refusals():
    assert money_in("1-1016 GPUs", None) == [] and money_in("Contact us", "USD") == []


@pytest.mark.parametrize(
    ("text", "name"),
    [("8x NVIDIA H100 SXM", "NVIDIA H100 SXM"),
     ("Bare-metal nodes with 8x NVIDIA H100 80GB SXM and InfiniBand.", "NVIDIA H100 80GB SXM"),
     ("NVIDIA H200 SXM 141GB cloud GPU", "NVIDIA H200 SXM 141GB"),
     ("AMD Instinct MI300X", "AMD Instinct MI300X"), ("RTX 6000 Ada", "RTX 6000 Ada"),
     ("AMD EPYC 64 vCPU", None), ("Storage from $0.05/GB/month", None)],
)  # fmt: skip
def test_gpu_names_in_page_text(text, name):
    assert gpu_name(text, AUTO.settings) == name


def _cli(*args, env=None):
    import os

    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli", *args], capture_output=True, text=True,
        env={**os.environ, **(env or {})}, check=False,
    )  # fmt: skip


def test_parse_a_provider_not_configured_yet_with_the_automatic_reading():
    done = _cli("parse", "--source", "price_page", "--provider", "newco", "--url",
                "https://newco.test/pricing", "--fetched-at", "2026-11-20T06:00:00Z",
                str(PAGES / "div_grid.html"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and '"provider": "newco"' in lines[0]
    assert '"price_qualifier": "from"' in lines[0]
    assert "grid 1 (div.grid-table) item 1: field 'Price': no price for NVIDIA B200" in done.stderr


def test_providers_add_writes_an_entry_and_shows_what_it_reads(tmp_path):
    path = tmp_path / "pages.yaml"
    path.write_text("# my providers\nproviders:\n")
    env = {"GPULEDGER_PRICE_PAGES": str(path)}
    done = _cli("providers", "add", "acme", "--url", "https://acme.test/pricing",
                "--pricing-model", "on_demand",
                "--from-capture", str(PAGES / "price_cards.html"), env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "3 prices, 1 rows rejected" in done.stdout
    assert (
        "8x NVIDIA H100 80GB SXM: 8 x NVIDIA H100 80GB SXM, on_demand, 21.52 USD/h" in done.stdout
    )
    entries, errors = price_page.load(path)
    assert errors == [] and entries["acme"].urls == ("https://acme.test/pricing",)
    assert path.read_text().startswith("# my providers\n")  # the file's comments stay
    again = _cli("providers", "add", "acme", "--url", "https://acme.test/x", env=env)
    assert again.returncode == 2 and "already configured" in again.stderr
    listed = _cli("providers", env=env)
    assert "acme: acme's GPU price page; https://acme.test/pricing" in listed.stdout


def test_providers_add_writes_nothing_for_a_page_with_no_prices(tmp_path):
    path = tmp_path / "pages.yaml"
    path.write_text("providers:\n")
    page = sorted((FIXTURES / "coreweave_docs").glob("*node-types.md"))[0]
    done = _cli("providers", "add", "acme", "--url", "https://acme.test/p", "--from-capture",
                str(page), env={"GPULEDGER_PRICE_PAGES": str(path)})  # fmt: skip
    assert done.returncode == 1 and "no GPU prices found" in done.stderr
    assert "nothing written" in done.stderr and path.read_text() == "providers:\n"


def test_cards_whose_one_line_names_the_gpu_and_its_price():
    page = b"""<div class='g'><div class='c'><p>NVIDIA H100 80GB - $2.49/hr</p></div>
    <div class='c'><p>NVIDIA A100 40GB - from $1.10/hr</p></div>
    <div class='c'><p>NVIDIA B200 - Contact us</p></div></div>"""
    result = price_page.parse_with(AUTO, page, "https://acme.test/p", T)
    assert [(r.gpu_name_raw, r.price_per_hour, r.price_qualifier) for r in result.records] == [
        ("NVIDIA H100 80GB", 2.49, None), ("NVIDIA A100 40GB", 1.1, "from")]  # fmt: skip
    assert [e.reason for e in result.row_errors] == ["no price for NVIDIA B200: 'Contact us'"]
