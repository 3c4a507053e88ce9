"""Ingest helpers that decide what reaches validation."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from pipelines.ingest import split_gpu_slices
from sources._internal.records import PriceObservation

T = datetime(2026, 8, 20, tzinfo=UTC)


def offer(offer_id: str, count) -> PriceObservation:
    return PriceObservation("azure", offer_id, "eastus", "A10", count, "on_demand", 0.454, "USD", T)


def test_gpu_slices_are_set_aside_with_their_reason_and_row():
    whole, slices = split_gpu_slices([offer("NC24", 4), offer("NV6ads", 0.167), offer("NV18", 0.5)])
    assert [r.offer_id for r in whole] == ["NC24"]
    assert [s["item_ref"] for s in slices] == [
        "record 1: NV6ads eastus  on_demand",
        "record 2: NV18 eastus  on_demand",
    ]
    assert slices[0]["field"] == "gpu_count"
    assert "0.167 of a GPU" in slices[0]["reason"]
    assert json.loads(slices[0]["raw"])["price_per_hour"] == 0.454


def test_only_the_newest_dbt_run_folders_are_kept(tmp_path):
    from pipelines.defs.dbt import prune_run_folders

    for name in ["20261128T060000-aaaa", "20261129T060000-bbbb", "20261130T060000-cccc"]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "run_results.json").write_text("{}")
    prune_run_folders(tmp_path, keep=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "20261129T060000-bbbb",
        "20261130T060000-cccc",
    ]


def test_a_crashing_parser_quarantines_the_page_not_the_run(tmp_path):
    import logging
    import types

    from pipelines.ingest import _parse_and_validate
    from sources._internal.archive import Archive

    def parse(content, url, fetched_at):
        raise KeyError("regions")  # a parser bug, not a ParseError

    module = types.SimpleNamespace(NAME="broken", KIND="price", parse=parse, EXPECTED_ROWS=(1, 9))
    archive = Archive(tmp_path)
    snap = archive.put("broken", "http://h/p", T, b"{}")
    frames, outcomes, quarantine = _parse_and_validate(
        module, archive, snap, logging.getLogger("test")
    )
    assert frames == {}
    assert [o.success for o in outcomes] == [False]
    assert quarantine[0]["field"] == "<document>"
    assert "parser crashed: KeyError" in quarantine[0]["reason"]
    assert quarantine[0]["raw"] == snap.archive_path


def test_a_snapshot_s_key_time_is_the_raw_tables_utc_text_whatever_its_offset():
    """The raw tables key a snapshot by its UTC time without offset; the archive writes UTC with
    "+00:00", whose text is taken as is, and any other offset is converted."""
    from pipelines.ingest import _key_ts
    from sources._internal.archive import Snapshot, utc_iso

    def snap(fetched_at: str) -> Snapshot:
        return Snapshot("s", "http://h/p", fetched_at, 200, "text/html", 1, "0" * 64)

    written = utc_iso(datetime(2026, 8, 22, 6, 5, 4, 321, tzinfo=UTC))
    assert written == "2026-08-22T06:05:04.000321+00:00"
    assert _key_ts(snap(written)) == "2026-08-22T06:05:04.000321"
    assert _key_ts(snap("2026-08-22T08:05:04.000321+02:00")) == "2026-08-22T06:05:04.000321"
    assert _key_ts(snap("2026-08-22T06:05:04+00:00")) == "2026-08-22T06:05:04.000000"


SKYPILOT_CATALOGS = ("v7_lambda_vms@11580132.csv", "v7_nebius_vms@22fd1fea.csv",
                     "v6_runpod_vms@098741e7.csv", "v6_paperspace_vms@e5200541.csv")  # fmt: skip


def _day_of_snapshots(tmp_path, garbled_at: int | None = None):
    """The real catalogs archived as one day's fetches, a page that is no catalog among them,
    parsed and validated as ingest does: (archive, parsed group)."""
    import logging

    from pipelines.ingest import _parse_frames, _validate_prices_of
    from sources import skypilot
    from sources._internal.archive import Archive
    from tests.conftest import SKYPILOT

    archive = Archive(tmp_path / "archive")
    pages = [(SKYPILOT / name).read_bytes() for name in SKYPILOT_CATALOGS]
    pages.insert(2, b"this is not a catalog\n")
    group = []
    for i, content in enumerate(pages):
        url = f"https://h/catalogs/v7/cloud{i}/vms.csv"
        snap = archive.put("skypilot", url, T, content)
        group.append((snap, _parse_frames(skypilot, archive, snap, logging.getLogger("t"))))
    _validate_prices_of([p for _, p in group], skypilot.EXPECTED_ROWS)
    if garbled_at is not None:  # a value raw cannot take
        frame = group[garbled_at][1][0]["price_observations"]
        frame["price_per_hour"] = frame["price_per_hour"].astype(object)
        frame.loc[0, "price_per_hour"] = "n/a"
    return group


def _raw_rows(db_file) -> dict:
    import duckdb

    con = duckdb.connect(str(db_file), read_only=True)
    try:
        return {
            table: con.execute(
                f"select * exclude ({stamp}) from raw.{table} order by all"
            ).fetchall()
            for table, stamp in [
                ("page_snapshots", "loaded_at"),
                ("price_observations", "parser_version"),
                ("snapshot_validations", "validated_at"),
                ("quarantine", "quarantined_at"),
            ]  # fmt: skip
        }
    finally:
        con.close()


def test_a_day_s_snapshots_written_together_are_the_rows_written_one_by_one(tmp_path):
    import logging

    import duckdb

    from pipelines.ingest import IngestSummary, _load_group
    from sources import skypilot
    from warehouse import db

    group = _day_of_snapshots(tmp_path)
    one_by_one, together = tmp_path / "one.duckdb", tmp_path / "together.duckdb"
    con = duckdb.connect(str(one_by_one))
    db.ensure_raw_schema(con)
    for snap, (frames, outcomes, quarantine, _) in group:
        db.load_snapshot(con, snap, skypilot.PARSER_VERSION, frames,
                         [o.as_record() for o in outcomes], quarantine)  # fmt: skip
    con.close()
    con = duckdb.connect(str(together))
    db.ensure_raw_schema(con)
    summary = IngestSummary("skypilot")
    _load_group(skypilot, con, summary, logging.getLogger("t"), group)
    con.close()
    rows = _raw_rows(together)
    assert rows == _raw_rows(one_by_one)
    assert len(rows["page_snapshots"]) == 5 and len(rows["snapshot_validations"]) == 5
    assert [r[5] for r in rows["snapshot_validations"]].count(False) == 1  # the page that is not
    assert len(rows["price_observations"]) == summary.rows_loaded > 306
    assert summary.snapshots_loaded == 5 and len(summary.snapshots_failed) == 1


def test_when_a_day_s_snapshots_cannot_be_written_together_each_is_written_alone(tmp_path):
    """A value raw cannot take in the fourth snapshot: the three before it are written, each in
    its own transaction as before, and the error stops the source's load there."""
    import logging

    import duckdb
    import pytest

    from pipelines.ingest import IngestSummary, _load_group
    from sources import skypilot
    from warehouse import db

    group = _day_of_snapshots(tmp_path, garbled_at=3)
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    db.ensure_raw_schema(con)
    summary = IngestSummary("skypilot")
    with pytest.raises(duckdb.ConversionException, match="n/a"):
        _load_group(skypilot, con, summary, logging.getLogger("t"), group)
    written = con.execute("select url from raw.page_snapshots order by url").fetchall()
    con.close()
    assert written == [(f"https://h/catalogs/v7/cloud{i}/vms.csv",) for i in range(3)]
    assert summary.snapshots_loaded == 3
