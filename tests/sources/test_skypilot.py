"""SkyPilot catalog parser on the real catalog files."""

from __future__ import annotations

import csv
import io
import random
from datetime import UTC, datetime

import pytest

from sources import skypilot
from sources._internal.records import ParseError
from tests.conftest import SKYPILOT

FETCHED_AT = datetime(2026, 8, 20, 9, 0, tzinfo=UTC)


def url_for(path) -> str:
    schema, cloud, _ = path.name.split("_", 2)
    return f"https://example.test/catalogs/{schema}/{cloud}/vms.csv"


FILES = sorted(p for p in SKYPILOT.glob("*.csv"))
PARSED = {p.name: skypilot.parse(p.read_bytes(), url_for(p), FETCHED_AT) for p in FILES}


def expected_rows(path):
    """An independent reading: every (row, price column) with a GPU and a positive price."""
    out = set()
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if not row["AcceleratorName"].strip():
                continue
            for column, model in (("Price", "on_demand"), ("SpotPrice", "spot")):
                value = (row.get(column) or "").strip()
                if value and float(value) > 0:
                    out.add(
                        (
                            row["InstanceType"],
                            row["Region"],
                            row.get("AvailabilityZone") or None,
                            model,
                            float(value),
                            int(float(row["AcceleratorCount"])),
                        )
                    )
    return out


def got_rows(result):
    return {
        (r.offer_id, r.region, r.zone, r.pricing_model, r.price_per_hour, r.gpu_count)
        for r in result.records
    }


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_exactly_the_rows_with_a_gpu_and_a_positive_price(path):
    result = PARSED[path.name]
    assert got_rows(result) == expected_rows(path)
    assert len(result.records) == len(got_rows(result))  # no duplicates
    assert result.row_errors == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_provider_comes_from_the_url_path(path):
    cloud = path.name.split("_")[1]
    assert {r.provider for r in PARSED[path.name].records} <= {cloud}


def test_oldest_lambda_catalog_h100_pcie_on_demand_price():
    rows = [
        r for r in PARSED["v5_lambda_vms@4223d8e1.csv"].records if r.offer_id == "gpu_1x_h100_pcie"
    ]
    assert {r.price_per_hour for r in rows} == {2.49}
    assert {r.gpu_count for r in rows} == {1}
    assert {r.pricing_model for r in rows} == {"on_demand"}
    assert len(rows) == 13  # one per region
    first = rows[0]
    assert (first.gpu_name_raw, first.vcpus, first.ram_gb, first.gpu_memory_gb) == (
        "H100",
        26.0,
        200.0,
        80.0,
    )


def test_record_counts_of_the_real_files():
    counts = {name: len(r.records) for name, r in PARSED.items()}
    assert counts == {
        "v5_lambda_vms@2a8fa5b2.csv": 270,
        "v5_lambda_vms@4223d8e1.csv": 184,
        "v6_paperspace_vms@e5200541.csv": 14,
        "v6_runpod_vms@098741e7.csv": 640,
        "v7_lambda_vms@11580132.csv": 306,
        "v7_nebius_vms@22fd1fea.csv": 29,
        "v8_gcp_vms@006059e0.HEAD_EXCERPT.csv": 0,  # the excerpt holds only rows without a GPU
        "v8_runpod_vms@01acdfd4.HEAD_EXCERPT.csv": 158,
    }


def test_on_demand_and_spot_are_separate_records():
    rows = {
        (r.offer_id, r.pricing_model): r.price_per_hour
        for r in PARSED["v7_nebius_vms@22fd1fea.csv"].records
    }
    assert rows[("gpu-h100-sxm_8gpu-128vcpu-1600gb", "on_demand")] == 23.60
    assert rows[("gpu-h100-sxm_8gpu-128vcpu-1600gb", "spot")] == 10.00
    assert rows[("gpu-h200-sxm_8gpu-128vcpu-1600gb", "on_demand")] == 28.00


def test_bare_gpuinfo_and_price_last_layout_of_paperspace():
    rows = {r.offer_id: r for r in PARSED["v6_paperspace_vms@e5200541.csv"].records}
    assert rows["H100x8"].price_per_hour == 47.60
    assert rows["H100x8"].gpu_count == 8
    assert rows["H100x8"].gpu_name_raw == "H100"


def test_gpuinfo_detail_name_and_bad_memory_unit_of_runpod_v8():
    row = next(
        r
        for r in PARSED["v8_runpod_vms@01acdfd4.HEAD_EXCERPT.csv"].records
        if r.zone == "AP-IN-1" and r.pricing_model == "spot"
    )
    assert row.gpu_name_raw == "A100-80GB (A100 PCIe)"
    assert row.price_per_hour == 1.39
    assert row.gpu_memory_gb is None  # the file says 80 MiB: a unit error, not a hint to keep


def test_columns_reordered_give_the_same_records():
    path = SKYPILOT / "v5_lambda_vms@4223d8e1.csv"
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    order = list(range(len(rows[0])))
    random.Random(7).shuffle(order)
    assert order != sorted(order)
    buf = io.StringIO()
    csv.writer(buf).writerows([[row[i] for i in order] for row in rows])
    reordered = skypilot.parse(buf.getvalue().encode(), url_for(path), FETCHED_AT)
    assert reordered.records == PARSED[path.name].records


def test_missing_price_column_is_a_clear_error():
    text = "InstanceType,AcceleratorName,AcceleratorCount,Region\ngpu_1x_a10,A10,1,us-east-1\n"
    with pytest.raises(ParseError) as err:
        skypilot.parse(text.encode(), "https://x/catalogs/v7/lambda/vms.csv", FETCHED_AT)
    assert err.value.field == "Price"
    assert "https://x/catalogs/v7/lambda/vms.csv" in str(err.value)


@pytest.mark.parametrize(
    ("content", "field"),
    [(b"", "<header>"), (b"\xff\xfe\x00garbage", "<document>")],
    ids=["empty", "binary"],
)
def test_unreadable_documents_are_clear_errors(content, field):
    with pytest.raises(ParseError) as err:
        skypilot.parse(content, "https://x/catalogs/v7/lambda/vms.csv", FETCHED_AT)
    assert err.value.field == field


def test_url_without_cloud_is_a_clear_error():
    with pytest.raises(ParseError) as err:
        skypilot.parse(b"a,b\n", "https://x/prices.csv", FETCHED_AT)
    assert err.value.field == "url"


def test_bad_rows_are_rejected_with_their_field_and_the_rest_kept():
    text = (
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
        "good,H100,1,26,200,2.49,r1,,\n"
        "badprice,H100,1,26,200,abc,r1,,\n"
        "badcount,H100,0,26,200,2.49,r1,,\n"
        "negative,H100,1,26,200,-1,r1,,\n"
        "\"evil\",H100,1,26,200,2.49,r1,\"__import__('os').system('touch /tmp/pwned')\",\n"
        "cpu,,,4,16,0.2,r1,,\n"
        "free,A10,1,4,16,0,r1,,\n"
    )
    result = skypilot.parse(text.encode(), "https://x/catalogs/v7/lambda/vms.csv", FETCHED_AT)
    assert [r.offer_id for r in result.records] == ["good"]
    assert [(e.row_ref, e.field) for e in result.row_errors] == [
        ("line 3", "Price"),
        ("line 4", "AcceleratorCount"),
        ("line 5", "Price"),
        ("line 6", "GpuInfo"),
    ]
    assert "abc" in result.row_errors[0].reason


def test_gpu_slices_and_gpu_only_rows_are_records_as_the_catalog_says():
    text = (
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region\n"
        "Standard_NV6ads_A10_v5,A10,0.167,6,55,0.454,0.0454,eastus\n"
        ",A100,1,,,2.933908,0.880172,us-central1\n"
    )
    result = skypilot.parse(text.encode(), "https://x/catalogs/v8/azure/vms.csv", FETCHED_AT)
    got = {(r.offer_id, r.pricing_model): (r.gpu_count, r.price_per_hour) for r in result.records}
    assert got == {
        ("Standard_NV6ads_A10_v5", "on_demand"): (0.167, 0.454),
        ("Standard_NV6ads_A10_v5", "spot"): (0.167, 0.0454),
        ("gpu:A100:1", "on_demand"): (1, 2.933908),
        ("gpu:A100:1", "spot"): (1, 0.880172),
    }
