"""Benchmark files from `gpuledger ingest` and the inbox into the archive and raw.benchmark_runs."""

from __future__ import annotations

import logging
import multiprocessing
import shutil
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import duckdb

from pipelines import benchmarks
from pipelines.defs.resources import GpuledgerResource
from pipelines.ingest import ingest_source
from sources import benchmark_files
from sources._internal.archive import Archive
from tests.conftest import FIXTURES, query
from warehouse import db

B = FIXTURES / "benchmarks"
LOG = logging.getLogger("test")
SGLANG = B / "sglang_datacrunch" / "outputs__llama_3_3_70b_online_output.jsonl"


def settings(home: Path) -> GpuledgerResource:
    return GpuledgerResource(home=str(home), offline=True, seed_demo_archive=False)


def test_every_real_file_is_archived_once_and_documentation_is_skipped(tmp_path):
    archive = Archive(tmp_path / "archive")
    first = benchmarks.archive_files(archive, [B])
    status = {o.status for o in first}
    assert status == {"archived", "skipped"}
    # the shared folder's 221, TensorRT-LLM's trtllm-bench examples (3) and one MLPerf result
    # in MLCommons' tree (system, summary, measurements: 3)
    assert sum(o.status == "archived" for o in first) == 227
    skipped = {o.display for o in first if o.status == "skipped"}
    assert "benchmarks/sglang_datacrunch/README.md" in skipped
    assert "benchmarks/trtllm_bench/README.md" in skipped
    assert "benchmarks/vllm_dstack/LICENSE" in skipped
    again = benchmarks.archive_files(archive, [B])
    assert {o.status for o in again} == {"unchanged", "skipped"}
    assert len(list(archive.snapshots("benchmark_files"))) == 227


def test_mlperf_system_description_travels_with_the_results_beside_it(tmp_path):
    archive = Archive(tmp_path / "archive")
    outcomes = benchmarks.archive_files(archive, [B / "mlperf"])
    urls = {o.display: o.url for o in outcomes}
    offline = urls[
        "mlperf/v4.1_NVIDIA_H200-SXM-141GBx8_TRT_llama2-70b-99/Offline_mlperf_log_summary.txt"
    ]
    assert "hardware_source=system_description" in offline
    snap = next(s for s in archive.snapshots() if s.url == offline)
    (run,) = benchmark_files.parse(
        archive.read(snap.sha256), snap.url, snap.fetched_at_dt
    ).benchmark_runs
    assert (run.gpu_name_raw, run.gpu_count, run.hardware_source) == (
        "NVIDIA H200-SXM-141GB", 8, "system_description")  # fmt: skip
    # the summary_results file beside it names its own hardware per record
    assert "#" not in urls["mlperf/v4.1_summary_results.FIRST11.json"]


def test_oversized_file_and_symlink_are_refused_with_reasons(tmp_path):
    folder = tmp_path / "drop"
    folder.mkdir()
    huge = folder / "huge_result.json"
    with huge.open("wb") as fh:  # 200 MB, sparse: no time spent writing it
        fh.truncate(200 * 1024 * 1024)
    (folder / "link.json").symlink_to("/etc/passwd")
    shutil.copy(SGLANG, folder / "ok.jsonl")
    archive = Archive(tmp_path / "archive")
    outcomes = {o.display: o for o in benchmarks.archive_files(archive, [folder])}
    assert outcomes["drop/huge_result.json"].status == "rejected"
    assert "210 MB is over the 67 MB cap" in outcomes["drop/huge_result.json"].reason
    assert outcomes["drop/link.json"].status == "rejected"
    assert "symlink" in outcomes["drop/link.json"].reason
    assert outcomes["drop/ok.jsonl"].status == "archived"
    assert [s.url for s in archive.snapshots()] == ["file:drop/ok.jsonl"]


def _ingest_copy(args):
    root, path = args
    return [o.status for o in benchmarks.archive_files(Archive(root), [Path(path)])]


def test_the_same_file_ingested_twice_at_once_is_archived_once(tmp_path):
    # spawn, not fork: a forked child of a test worker (threads of its own) can inherit a lock
    # held at fork time and wait forever; this test hung once that way under xdist. And an
    # executor, not multiprocessing.Pool: leaving a Pool terminates its workers, and one of them
    # was left waiting on the pool's task queue lock, so the test waited on it for ever
    # (2026-12-03); the executor ends its workers by telling them to stop.
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(4, mp_context=ctx) as pool:
        statuses = list(
            pool.map(_ingest_copy, [(str(tmp_path / "archive"), str(SGLANG))] * 8, timeout=300)
        )
    flat = [s for group in statuses for s in group]
    assert flat.count("archived") == 1 and flat.count("unchanged") == 7
    assert len(list(Archive(tmp_path / "archive").snapshots())) == 1


def _a_bad_run_and_a_truncated_file(tmp_path) -> Path:
    """A home whose archive holds a real SGLang file with one impossible run (line 2) and a real
    GenAI-Perf export cut off after 700 bytes."""
    lines = SGLANG.read_text().splitlines()
    # line 2: a p99 below the median is impossible: that run, and only it, is quarantined
    lines[1] = lines[1].replace('"median_ttft_ms": ', '"p99_ttft_ms": 1.0, "median_ttft_ms": ')
    broken = tmp_path / "in" / "sglang_edited.jsonl"
    broken.parent.mkdir()
    broken.write_text("\n".join(lines) + "\n")
    truncated = tmp_path / "in" / "truncated.json"
    truncated.write_bytes(
        (
            B / "genai_perf_aiperf" / "profile_export_genai_perf@e3e57ba_2025-09-16.json"
        ).read_bytes()[:700]
    )  # noqa: E501
    home = tmp_path / "home"
    benchmarks.archive_files(settings(home).archive(), [broken.parent])
    return home


def test_runs_load_a_bad_run_is_quarantined_and_the_rest_of_its_file_lands(tmp_path):
    home = _a_bad_run_and_a_truncated_file(tmp_path)
    summary = ingest_source(benchmark_files, settings(home), "run-1", LOG)
    assert summary.rows_loaded == 6
    # the asset check fails and names the truncated file and the quarantined run
    assert not summary.passed
    reported = {f["url"]: f["failed"] for f in summary.snapshots_failed}
    assert any("ttft_p99_ms >= ttft_p50_ms" in r for r in reported["file:in/sglang_edited.jsonl"])
    assert "file:in/truncated.json" in reported
    quarantined = query(home, "select item_ref, field, reason from raw.quarantine order by 1")
    assert quarantined[0][0] == "<document>" and "truncated" in quarantined[0][2]
    assert quarantined[1][0] == "line 2"
    assert "ttft_p99_ms >= ttft_p50_ms" in quarantined[1][2]
    assert query(home, "select count(*), min(run_ref) from raw.benchmark_runs") == [(6, "line 1")]
    # a second run changes nothing
    again = ingest_source(benchmark_files, settings(home), "run-2", LOG)
    assert again.rows_loaded == 0
    assert query(home, "select count(*) from raw.benchmark_runs") == [(6,)]


def test_files_not_written_together_are_written_each_on_its_own(tmp_path, monkeypatch, caplog):
    """The files are written in one transaction; when that fails (here: refused), each file is
    written in its own, with the same runs, verdicts and quarantine as together."""
    home = _a_bad_run_and_a_truncated_file(tmp_path)

    def refused(con, parser_version, loads):
        raise duckdb.IOException("could not write: disk full (test)")

    monkeypatch.setattr(db, "load_snapshots", refused)
    with caplog.at_level(logging.WARNING, logger="test"):
        summary = ingest_source(benchmark_files, settings(home), "run-1", LOG)
    assert (
        "2 files not written together (could not write: disk full (test)); "
        "writing each on its own" in caplog.text
    )
    assert (summary.snapshots_loaded, summary.rows_loaded, summary.rows_quarantined) == (2, 6, 2)
    assert sorted(f["url"] for f in summary.snapshots_failed) == [
        "file:in/sglang_edited.jsonl", "file:in/truncated.json"]  # fmt: skip
    assert query(home, "select count(*), min(run_ref) from raw.benchmark_runs") == [(6, "line 1")]
    assert query(home, "select item_ref from raw.quarantine order by 1") == [
        ("<document>",), ("line 2",)]  # fmt: skip
    assert query(home, "select count(*) from raw.snapshot_validations") == [(2,)]
    assert query(home, "select count(*) from raw.page_snapshots") == [(2,)]


def test_inbox_is_picked_up_offline_and_emptied_without_losing_anything(tmp_path):
    home = tmp_path / "home"
    inbox = home / "inbox"
    inbox.mkdir(parents=True)
    shutil.copy(SGLANG, inbox / "run.jsonl")
    shutil.copy(SGLANG, inbox / "run..%2F..%2Fescape.jsonl")  # hostile names, harmless here
    shutil.copy(SGLANG, inbox / "..\\..\\partial-upload.jsonl")  # hidden: not touched yet
    (inbox / "big.json").open("wb").truncate(200 * 1024 * 1024)
    outside_before = sorted(p.name for p in tmp_path.iterdir())
    summary = ingest_source(benchmark_files, settings(home), "run-1", LOG)
    assert summary.rows_loaded == 7  # two names, the same bytes: one file, archived once
    left = sorted(p.name for p in inbox.iterdir())
    assert left == ["..\\..\\partial-upload.jsonl", "ingested", "rejected"]
    ingested = sorted(p.name for p in (inbox / "ingested").rglob("*") if p.is_file())
    assert ingested == ["run..%2F..%2Fescape.jsonl", "run.jsonl"]
    rejected = sorted(p.name for p in (inbox / "rejected").rglob("*") if p.is_file())
    assert rejected == ["big.json", "big.json.reason.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == outside_before
    reasons = query(home, "select reason from raw.quarantine where item_ref = '<file>'")
    assert len(reasons) == 1 and "over the" in reasons[0][0]


def test_a_scenario_without_measurements_takes_the_other_scenarios_precision(tmp_path):
    """Constructed from the real results-tree excerpt (Fujitsu's 8 x L40S, llama2-70b-99): the
    Server scenario's measurements/ folder removed, as submissions that publish measurements for
    one scenario only lay it out. The Server run takes the Offline measurement's fp16, marked."""
    tree = Path(__file__).resolve().parents[2] / "warehouse/demo_benchmarks/mlperf_inference_v4.1"
    copy = tmp_path / "mlperf_inference_v4.1"
    fujitsu = "closed/Fujitsu"
    shutil.copytree(tree / fujitsu, copy / fujitsu)
    shutil.rmtree(copy / fujitsu / "measurements/CDI_L40Sx8_TRT/llama2-70b-99/Server")
    archive = Archive(tmp_path / "archive")
    outcomes = {o.display: o for o in benchmarks.archive_files(archive, [copy])}
    results = "mlperf_inference_v4.1/closed/Fujitsu/results/CDI_L40Sx8_TRT/llama2-70b-99"
    server = outcomes[f"{results}/Server/performance/run_1/mlperf_log_summary.txt"].url
    offline = outcomes[f"{results}/Offline/performance/run_1/mlperf_log_summary.txt"].url
    assert "precision=fp16" in server and "precision_source=other_scenario" in server
    assert "precision=fp16" in offline and "precision_source" not in offline
    snap = next(s for s in archive.snapshots() if s.url == server)
    (run,) = benchmark_files.parse(
        archive.read(snap.sha256), snap.url, snap.fetched_at_dt
    ).benchmark_runs
    # read, the borrowed fp16 (the checkpoint's, as v4.1 names it for NVIDIA's TensorRT harness)
    # becomes what the harness serves on an L40S, as for the Offline run (mlperf_summary.py)
    assert (run.precision, run.precision_source, run.scenario) == (
        "fp8",
        "submitter_documentation",
        "Server",
    )
    assert (run.organization, run.system, run.round) == ("Fujitsu", "CDI_L40Sx8_TRT", "v4.1")
    assert (run.gpu_name_raw, run.gpu_count, run.output_tokens_per_s) == ("NVIDIA L40S", 8, 3218.55)
