"""How `explain` and `estimate` name a benchmark run: its file's sha256 cut short, and its
reference within the file, so that the runs of one file stay apart."""

from __future__ import annotations

from warehouse.queries import short_run_key

# keys of the demo's runs (stg_benchmark_runs: `<file sha256>:<run reference>`): two lines of
# SGLang's JSONL from DataCrunch's Llama 3.3 70B run, and runs of TensorRT-LLM's perf overview
# (nvidia_trtllm_perf_overview/perf-overview@ab4143e1.md)
SGLANG = "fe6271824a47e806422eee142e9bc631a5f9d8b8bb3f017343bbd73161bc8ac9"
TRTLLM = "483489e1b0d6dfb10c82fe4d74caecd9298e7db1eecca68ec0e65f47d4bf82ab"


def test_the_runs_of_one_file_keep_their_reference():
    assert short_run_key(f"{SGLANG}:line 7") == "fe6271824a47..:line 7"
    assert short_run_key(f"{SGLANG}:line 6") == "fe6271824a47..:line 6"
    # a reference with a colon of its own keeps it: one line of the overview holds a run per GPU
    # and tensor-parallel width
    assert short_run_key(f"{TRTLLM}:line 106: H100 80GB HBM3 TP2") == (
        "483489e1b0d6..:line 106: H100 80GB HBM3 TP2"
    )
    assert short_run_key(f"{TRTLLM}:line 106: H200 141GB HBM3 TP2") == (
        "483489e1b0d6..:line 106: H200 141GB HBM3 TP2"
    )


def test_a_key_too_short_to_cut_is_shown_whole():
    assert short_run_key("abc:line 1") == "abc:line 1"
    assert short_run_key("fe6271824a47") == "fe6271824a47"
    # no reference: the sha256 cut short, nothing lost but its tail
    assert short_run_key(SGLANG) == "fe6271824a47.."
