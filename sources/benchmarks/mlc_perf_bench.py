"""MLC's LLM performance benchmark (mlc-ai/llm-perf-bench, README "Performance"): single-stream
decode speed of several serving stacks side by side, one table per setting ("Single GPU, 4-bit",
"Multiple NVIDIA GPUs, FP16", ...), read by header meaning:

- `Model` and `GPU` columns ("Llama2-70B", "A100 x 2": the GPU and its count); a blank model
  cell means "as above";
- one column per stack ("MLC LLM (tok/sec)", "Exllama V2 (tok/sec)", "Llama.cpp", "vLLM"), the
  decode speed in tokens per second of the one sequence; "N/A" is not measured; bold marks the
  fastest and is dropped;
- the precision from the table's heading ("4-bit" -> int4, "FP16" -> fp16);
- the stack's version from the page's "Setup Details" list: the commit each stack was built at
  ("Llama.cpp [commit](.../9476b012...) on 10/02/2023" -> "9476b01 (2023-10-02)").

The page states the setup once for all tables: "decoding 256 tokens with a prompt 'What is the
meaning of life?'" on GPUs joined by PCIe, not NVLink. So every run has concurrency 1
(`scenario` single_stream), output 256 tokens, input 8 tokens (the prompt in Llama 2's tokenizer
with its BOS token: counted by gpuledger, not published), and a data-centre GPU named without a
form factor is the PCIe card ("A100" -> "A100 PCIe"). The multi-GPU cells of llama.cpp and
ExLlamaV2 are left out: both split the layers across GPUs, a pipeline rather than the tensor
parallelism gpuledger models (as for other llama.cpp results). A cell that is no number is
quarantined; a table without a `Model` or `GPU` column, or a stack column that names no stack
gpuledger knows, fails the file.
"""

from __future__ import annotations

import re

from sources._internal.records import BenchmarkRun, ParseError
from sources.benchmarks import markdown_tables as md
from sources.benchmarks.common import Context, base_run
from sources.benchmarks.csv_tables import RowProblem

ORGANIZATION = "MLC"
MARKER = "LLM Performance Benchmarking"
PROMPT_TOKENS = 8.0  # "What is the meaning of life?" in Llama 2's tokenizer, with BOS
OUTPUT_TOKENS = 256.0  # "decoding 256 tokens"
_STACKS = {
    "mlcllm": "mlc-llm",
    "exllamav2": "exllamav2",
    "exllama": "exllamav2",
    "llamacpp": "llama.cpp",
    "vllm": "vllm",
    "huggingfacetransformers": "transformers",
}
_SETUP = re.compile(
    r"^\s*-\s*(?P<name>[^\[\n]+?)\s*\[commit\]\([^)]*?/(?P<sha>[0-9a-f]{7,40})\)[^\n]*?"
    r"on (?P<m>\d{2})/(?P<d>\d{2})/(?P<y>\d{4})",
    re.M,
)
_GPU = re.compile(r"^(?P<gpu>.+?)(?:\s+x\s+(?P<n>\d+))?$", re.I)  # "A100 x 2"
# stacks that split a model's layers across GPUs (a pipeline, not the tensor parallelism
# gpuledger models): their multi-GPU cells are left out, as for other llama.cpp results
_LAYER_SPLIT = ("llama.cpp", "exllamav2")
_PCIE_ONLY_NAMES = ("A100", "H100", "A800", "H800", "L40S", "L40", "A40", "V100")


def is_mlc_perf_bench(text: str) -> bool:
    return MARKER in text and "MLC" in text and "| Model" in text


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", re.sub(r"\(.*?\)", "", text.lower()))


def _versions(text: str) -> dict[str, str]:
    """stack -> "<commit> (<date>)" from the Setup Details list."""
    out = {}
    for m in _SETUP.finditer(text):
        stack = _STACKS.get(_key(m.group("name")))
        if stack:
            out[stack] = f"{m.group('sha')[:7]} ({m.group('y')}-{m.group('m')}-{m.group('d')})"
    return out


def _precision(heading: str) -> str | None:
    h = heading.lower()
    if "4-bit" in h or "4 bit" in h:
        return "int4"
    if "fp16" in h:
        return "fp16"
    return None


def _gpu(cell: str) -> tuple[str, int]:
    m = _GPU.match(cell.strip())
    name, count = m.group("gpu").strip(), int(m.group("n") or 1)
    if name.upper() in _PCIE_ONLY_NAMES:  # the page: "all numbers are based on PCIe"
        name = f"{name} PCIe"
    return name, count


def mlc_perf_bench(text: str, ctx: Context) -> list[BenchmarkRun | RowProblem]:
    versions = _versions(text)
    out: list[BenchmarkRun | RowProblem] = []
    found = [t for t in md.tables(text) if any(_key(h) == "model" for h in t.header)]
    if not found:
        raise ParseError(ctx.where, "Model", "no table with a `Model` column (the layout changed)")
    for table in found:
        precision = _precision(table.heading)
        if precision is None:
            raise ParseError(
                ctx.where,
                table.heading or f"table at line {table.header_line}",
                "the heading names no precision ('4-bit', 'FP16')",
            )
        model_at = md.column(table, ctx.where, "Model")
        gpu_at = md.column(table, ctx.where, "GPU")
        stacks = {}
        for i, h in enumerate(table.header):
            if i in (model_at, gpu_at):
                continue
            stack = _STACKS.get(_key(h))
            if stack is None:
                raise ParseError(
                    ctx.where, h, f"column at line {table.header_line} names no known stack"
                )
            stacks[i] = (h, stack)
        model = None
        for n, row in table.rows:
            cell = dict(enumerate(row))
            model = cell.get(model_at) or model
            gpu_cell = cell.get(gpu_at, "")
            if not model or not gpu_cell:
                out.append(RowProblem(f"line {n}", "no model or GPU in this row", " | ".join(row)))
                continue
            gpu, count = _gpu(gpu_cell)
            for i, (label, stack) in stacks.items():
                ref = f"line {n}: {label}"
                raw = cell.get(i, "").replace("**", "").strip()
                if raw.upper() == "N/A" or (count > 1 and stack in _LAYER_SPLIT):
                    continue
                try:
                    tps = md.number(raw)
                except ValueError as exc:
                    out.append(RowProblem(ref, f"column {label!r}: {exc}", " | ".join(row)))
                    continue
                if tps is None:
                    continue
                out.append(
                    base_run(
                        ctx,
                        ref,
                        "mlc_perf_bench",
                        "mlc llm-perf-bench",
                        model_id=model,
                        precision=precision,
                        serving_stack=stack,
                        serving_stack_version=versions.get(stack),
                        gpu_name_raw=gpu,
                        gpu_count=count,
                        hardware_source="file",
                        tensor_parallel=count if count > 1 else None,
                        scenario="single_stream",
                        input_len=PROMPT_TOKENS,
                        output_len=OUTPUT_TOKENS,
                        concurrency=1.0,
                        output_tokens_per_s=tps,
                        organization=ORGANIZATION,
                    )
                )
    return out
