"""AMD's published vLLM performance tables for Instinct GPUs: the README of the ROCm vLLM
container (ROCm/vllm, docs/dev-docker/README.md: "vllm FP8 Latency and Throughput benchmarks
with vLLM on the AMD Instinct MI300X accelerator"), read by header meaning:

- "Throughput Measurements": `Model | Precision | TP Size | Input | Output | Num Prompts |
  Max Num Seqs | Throughput (tokens/s)`, from vLLM's `benchmark_throughput.py` with every prompt
  sent at once. A max-throughput run (`scenario` max_throughput) whose `concurrency` is the
  published `--max-num-seqs` (the most sequences vLLM keeps in flight) and whose `attempted` is
  the number of prompts. The header does not say whether "tokens/s" counts output tokens or input
  and output: gpuledger reads it as output tokens per second of the whole run, and says why in
  docs/evidence.md (read as total tokens, these rows against NVIDIA's published H100 rows of the
  same model and lengths would swing from 0.74x to 0.43x as the input grows; read as output tokens
  they stay within 0.75x-0.86x). Marked `tool_version` "throughput-table" so such runs can be told
  apart.
- "Latency Measurements": `Model | Precision | TP Size | Batch Size | Input | Output | <GPU>
  Latency (sec)`, from `benchmark_latency.py`: one batch of `Batch Size` requests end to end, so
  `concurrency` is the batch, `e2e_mean_ms` the latency and the output rate batch x output /
  latency (as gpuledger reads vLLM's own latency JSON).

A blank Model / Precision / TP Size cell means "as above"; the model is the checkpoint in
parentheses ("Llama 3.1 70B (amd/Llama-3.1-70B-Instruct-FP8-KV)"). The GPU and its count in the
system line after each table ("8x AMD Instinct MI300X (192GiB, 750W) GPUs"); a run uses TP Size of
them. The vLLM version from the image's component list ("- vLLM v0.10.0"). A cell that is no
number is quarantined with its line and column; a missing column fails the file.
"""

from __future__ import annotations

import re

from sources._internal.records import BenchmarkRun, ParseError
from sources.benchmarks import markdown_tables as md
from sources.benchmarks.common import Context, base_run, params_b
from sources.benchmarks.csv_tables import RowProblem

ORGANIZATION = "AMD"
_VLLM = re.compile(r"^\s*[-*]\s*vLLM\s+v?(\d[\w.+\-]*)", re.M)
_SYSTEM_GPU = re.compile(r"(\d+)\s*x\s*(AMD Instinct\S*\s+MI\d+\w*)", re.I)
_MODEL = re.compile(r"\(([\w.\-]+/[\w.\-]+)\)")
_LATENCY_COL = re.compile(r"^(?:(?P<gpu>MI\d+\w*)\s+)?Latency \((?P<unit>sec|s|ms)\)$", re.I)
_TITLE_GPU = re.compile(r"AMD Instinct\S*\s+(MI\d+\w*)", re.I)


def is_rocm_vllm_tables(text: str) -> bool:
    return (
        "AMD Instinct" in text
        and "vLLM" in text
        and ("| Throughput (tokens/s) |" in text or "Latency (sec) |" in text)
    )


def rocm_vllm_tables(text: str, ctx: Context) -> list[BenchmarkRun | RowProblem]:
    m = _VLLM.search(text)
    version = m.group(1) if m else None
    out: list[BenchmarkRun | RowProblem] = []
    seen = False
    for table in md.tables(text):
        keys = [_k(h) for h in table.header]
        # a table is told by what it measures; its other columns are then required
        if "batch size" in keys or any(_LATENCY_COL.match(h.strip()) for h in table.header):
            seen = True
            out.extend(_latency(table, ctx, text, version))
        elif "num prompts" in keys or any(k.startswith("throughput") for k in keys):
            seen = True
            out.extend(_throughput(table, ctx, text, version))
    if not seen:
        raise ParseError(
            ctx.where,
            "Throughput (tokens/s)",
            "no table with a `Throughput (tokens/s)` or `<GPU> Latency (sec)` column (the "
            "README's layout changed)",
        )
    return out


def _k(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _gpu(table: md.Table, ctx: Context, text: str) -> str:
    """The GPU of a table's runs: the first system line after the table ("... 8x AMD Instinct
    MI300X (192GiB, 750W) GPUs ..."; some versions give one line for both tables, after the
    second), else the GPU the document's title names ("... on the AMD Instinct MI300X
    accelerator")."""
    lines = text.splitlines()
    for line in lines[table.header_line :]:
        m = _SYSTEM_GPU.search(line)
        if m:
            return m.group(2).replace("\u2122", "")
    title = next((ln for ln in lines if ln.startswith("# ")), "")
    m = _TITLE_GPU.search(title)
    if m:
        return f"AMD Instinct {m.group(1)}"
    raise ParseError(
        ctx.where,
        f"system line after the table at line {table.header_line}",
        "no '<N>x AMD Instinct MI...' system description after the table and no GPU in the title",
    )


class _Carry:
    """Model, precision and TP size carried down blank cells. A model cell whose name and
    checkpoint disagree on the size ("Llama 3.1 405B (amd/Llama-3.1-70B-Instruct-FP8-KV)") is
    not guessed: its row and the rows that carry it are quarantined."""

    def __init__(self, table: md.Table, ctx: Context):
        self.col = {n: md.column(table, ctx.where, n) for n in ("Model", "Precision", "TP Size")}
        self.model = self.precision = self.tp = self.bad = None

    def read(self, row: list[str]) -> tuple[str, str, int]:
        cell = dict(enumerate(row))
        model = cell.get(self.col["Model"], "")
        if model:
            found = _MODEL.search(model)
            self.model, self.bad = (found.group(1) if found else model), None
            named = params_b(model.split("(")[0])
            if found and named and params_b(found.group(1)) not in (None, named):
                self.bad = f"model {model!r}: the name and the checkpoint disagree on its size"
        if self.bad:
            raise ValueError(self.bad)
        self.precision = cell.get(self.col["Precision"]) or self.precision
        tp = cell.get(self.col["TP Size"])
        self.tp = int(md.number(tp)) if tp else self.tp
        if not (self.model and self.precision and self.tp):
            raise ValueError("no model, precision or TP size in this row or above it")
        return self.model, self.precision.lower(), self.tp


def _run(ctx, ref, version, kind, model, precision, gpu, tp, **fields) -> BenchmarkRun:
    return base_run(
        ctx,
        ref,
        "rocm_vllm_tables",
        "vllm benchmark_throughput" if kind == "throughput" else "vllm benchmark_latency",
        tool_version=f"{kind}-table",
        model_id=model,
        precision=precision,
        serving_stack="vllm",
        serving_stack_version=version,
        gpu_name_raw=gpu,
        gpu_count=tp,
        hardware_source="file",
        tensor_parallel=tp,
        organization=ORGANIZATION,
        **fields,
    )


def _throughput(table: md.Table, ctx: Context, text: str, version: str | None) -> list:
    gpu = _gpu(table, ctx, text)
    carry = _Carry(table, ctx)
    col = {
        n: md.column(table, ctx.where, n)
        for n in ("Input", "Output", "Num Prompts", "Max Num Seqs", "Throughput (tokens/s)")
    }
    out: list = []
    for n, row in table.rows:
        cell = dict(enumerate(row))
        try:
            model, precision, tp = carry.read(row)
            v = {k: md.number(cell.get(i, "")) for k, i in col.items()}
            missing = [k for k, x in v.items() if x is None]
            if missing:
                raise ValueError(f"empty cell(s): {', '.join(missing)}")
        except ValueError as exc:
            out.append(RowProblem(f"line {n}", str(exc), " | ".join(row)))
            continue
        out.append(
            _run(
                ctx,
                f"line {n}",
                version,
                "throughput",
                model,
                precision,
                gpu,
                tp,
                scenario="max_throughput",
                input_len=v["Input"],
                output_len=v["Output"],
                concurrency=v["Max Num Seqs"],
                attempted=int(v["Num Prompts"]),
                output_tokens_per_s=v["Throughput (tokens/s)"],
            )
        )
    return out


def _latency(table: md.Table, ctx: Context, text: str, version: str | None) -> list:
    gpu = _gpu(table, ctx, text)
    carry = _Carry(table, ctx)
    lat_at = next((i for i, h in enumerate(table.header) if _LATENCY_COL.match(h.strip())), None)
    if lat_at is None:
        raise ParseError(
            ctx.where,
            "<GPU> Latency (sec)",
            f"column not found in the latency table at line {table.header_line} (header: "
            f"{' | '.join(table.header)}): the layout changed",
        )
    to_s = 0.001 if _LATENCY_COL.match(table.header[lat_at].strip()).group("unit") == "ms" else 1.0
    col = {n: md.column(table, ctx.where, n) for n in ("Batch Size", "Input", "Output")}
    out: list = []
    for n, row in table.rows:
        cell = dict(enumerate(row))
        try:
            model, precision, tp = carry.read(row)
            v = {k: md.number(cell.get(i, "")) for k, i in col.items()}
            latency_s = md.number(cell.get(lat_at, ""))
            latency_s = latency_s * to_s if latency_s is not None else None
            if latency_s is None or None in v.values() or latency_s <= 0:
                raise ValueError("empty batch, length or latency cell")
        except ValueError as exc:
            out.append(RowProblem(f"line {n}", str(exc), " | ".join(row)))
            continue
        batch = v["Batch Size"]
        out.append(
            _run(
                ctx,
                f"line {n}",
                version,
                "latency",
                model,
                precision,
                gpu,
                tp,
                scenario="offline",
                input_len=v["Input"],
                output_len=v["Output"],
                concurrency=batch,
                output_tokens_per_s=batch * v["Output"] / latency_s,
                e2e_mean_ms=latency_s * 1000,
                percentile_source="tool_summary",
            )
        )
    return out
