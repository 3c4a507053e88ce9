"""How `gpuledger sources` says why a source's last capture was refused (source_health's
last_failure_reason: `<suite>: <failed checks as JSON>` for a refused capture, the error itself
for a failed fetch)."""

from __future__ import annotations

from warehouse.queries.prices import failure_text

# the demo's benchmark_files: a file in the archive that is no benchmark result (its 2026-03-01
# capture), as source_health stores the reason
FORMATS = (
    "vLLM, SGLang, MLPerf, GenAI-Perf/AIPerf, InferenceX, LLMPerf, optimum-benchmark, "
    "trtllm-bench, gpuledger CSV, TensorRT-LLM's performance overview, the ROCm vLLM performance "
    "tables, MLC's llm-perf-bench"
)
NOT_A_RESULT = (
    'benchmark_runs: [{"expectation": "parse", "field": "<document>", "reason": '
    f'"not a benchmark result format gpuledger knows ({FORMATS})"}}]'
)


def test_a_file_gpuledger_cannot_read_is_named_by_field_and_reason():
    assert failure_text(NOT_A_RESULT) == (
        f"benchmark_runs: <document>: not a benchmark result format gpuledger knows ({FORMATS})"
    )


def test_a_failed_check_names_its_column_rows_and_values():
    # the layout pipelines/quality.py stores a failed GX check in (the refresh test checks the
    # same rendering on a real one: CoreWeave's capture with the decimal lost)
    reason = (
        'price_observations: [{"expectation": "expect_column_values_to_be_between", "kwargs": '
        '{"column": "price_per_gpu_hour"}, '
        '"observed_value": null, "unexpected_count": 2, '
        '"partial_unexpected_list": [5250.0, 8600.0]}, '
        '{"expectation": "expect_table_row_count_to_be_between", "kwargs": {"min_value": 1}, '
        '"observed_value": 0, "unexpected_count": null, "partial_unexpected_list": null}]'
    )
    assert failure_text(reason) == (
        "price_observations: expect_column_values_to_be_between on price_per_gpu_hour, 2 rows "
        "(e.g. 5250.0, 8600.0); expect_table_row_count_to_be_between"
    )


def test_any_other_reason_is_shown_as_stored():
    fetch = "HTTP 500 from http://127.0.0.1:8080/data/2026-08-22.json"
    assert failure_text(fetch) == fetch
    cut = 'benchmark_runs: [{"expectation": "parse", "field": "<document>"'  # not JSON whole
    assert failure_text(cut) == cut
    assert failure_text("price_observations: []") == "price_observations: []"
    assert failure_text("") == ""
