"""Readers for the native result files of LLM-serving benchmarks: one module per tool, `detect`
for the format and `common` for the shared normalisation.

`detect(content, where)` names the format from the content alone (never the file name);
`parse_document(format, doc, ctx)` turns the file into `BenchmarkRun`s. The shared rules:

- Units are made explicit: every latency in milliseconds, every throughput per second for the
  whole system under test. A tool's seconds or nanoseconds are converted; its own numbers are
  otherwise copied, never rescaled.
- A statistic the file does not have stays None (InferenceX has p95 but no p99; SGLang's JSONL only
  medians): a p95 is never made up from a mean. Where the file keeps per-request arrays (vLLM's
  old `--save-result`, LLMPerf's per-request file, vLLM's latency script, optimum-benchmark's
  iteration latencies) the percentiles are computed from them (linear interpolation, as numpy and
  the tools themselves do) and `percentile_source` says `per_request`.
- Hardware, in order: the file's hardware fields (AIPerf GPU telemetry, MLPerf records,
  InferenceX `hw`, optimum-benchmark's environment, a `gpu` column) -> `file`; an MLPerf system
  description beside the result -> `system_description`; what the operator passed to
  `gpuledger ingest --gpu/--gpu-count` -> `operator`; only when nothing else names it, the
  file-name convention below -> `file_name`. Hosted-API measurements (LLMPerf) -> `api`.
- File-name convention (documented, used last): in the file's path as ingested, a token
  `<N>x<GPU>` ("8xH100SXM5", "throughput_8xMI300x", "pd_ratio_8xH200") or `<GPU>x<N>` after a
  vendor word ("NVIDIA_H200-SXM-141GBx8") names the GPU and its count; `in<N>`/`ip<N>`/`isl<N>`
  and `out<N>`/`op<N>`/`osl<N>` the input/output lengths; `np<N>` the batch, `req<N>` the
  requests, `conc<N>` the concurrency, `tp<N>` the tensor parallelism. A model name in the path
  ("llama3.1-405b-fp8", "Meta-Llama-3.1-405B-Instruct-FP8-KV") is used when the file has none.
"""

from sources.benchmarks.common import Context, params_b, path_gpu
from sources.benchmarks.csv_tables import RowProblem
from sources.benchmarks.detect import READERS, detect, is_published_table, parse_document
from sources.benchmarks.mlperf import mlperf_layout, mlperf_measurement_hints, mlperf_system_hints
from sources.benchmarks.mlperf_summary import Problem, Skipped

__all__ = [
    "READERS",
    "Context",
    "Problem",
    "RowProblem",
    "Skipped",
    "detect",
    "is_published_table",
    "mlperf_layout",
    "mlperf_measurement_hints",
    "mlperf_system_hints",
    "params_b",
    "parse_document",
    "path_gpu",
]
