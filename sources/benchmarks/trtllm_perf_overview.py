"""TensorRT-LLM's published performance overview (NVIDIA/TensorRT-LLM,
docs/source/performance/perf-overview.md): max-throughput tables measured with `trtllm-bench
throughput` (every request queued at once, fixed input/output lengths), one figure per model,
GPU, parallelism, precision and input/output length, in output tokens per second of the whole
run (all its GPUs).

Two layouts, both read by header meaning:

- releases 0.10-0.17: one wide table. Its header names the GPUs after a `GPU` cell
  ("H200 141GB HBM3", "A100-SXM4-80GB"); a `Precision` row gives each GPU column's precision; a
  row naming `Model`, `Tensor Model Parallel Size` and `Runtime Input/Output Lengths` gives the
  other columns' meaning; a blank model or TP cell means "as above". The release is stated
  ("generated using version 0.17").
- releases 0.18 on: a section per model ("#### Llama 3.3 70B"), tables whose first column is
  `Sequence Length (ISL/OSL)` and whose other columns name the GPU, the parallelism and the
  precision ("B200<br/>TP1 (FP4)", "**4 GPUs**<br/>TP2,PP2 (FP4)", "B200<br/>DEP4 (FP4)"). The
  GPU's full name comes from the document's hardware list ("H100 SXM 80GB (DGX H100)"), or from
  the caption above the table ("RTX 6000 Pro Blackwell Server Edition"); the model from the
  document's checkpoint lists ("nvidia/Llama-3.3-70B-Instruct-FP4"), else the section title. The
  release is the one the document says it adds data for ("NEW for v1.0").

Every figure is a max-throughput run: `concurrency` stays None and `scenario` is
`max_throughput` (the tables publish no batch size: trtllm-bench admits as many requests as the
KV cache holds). The GPU count is TP x PP (or the stated GPU count, or the DEP width). A cell that
is no number is quarantined with its line and column; a table without the columns above is a
layout change and fails the file.
"""

from __future__ import annotations

import re

from sources._internal.records import BenchmarkRun, ParseError
from sources.benchmarks import markdown_tables as md
from sources.benchmarks.common import Context, base_run, precision_of
from sources.benchmarks.csv_tables import RowProblem

ORGANIZATION = "NVIDIA"
MARKER = "performance measurements of TensorRT-LLM"
_LENGTHS = re.compile(r"^\s*(\d+)\s*[,/]\s*(\d+)\s*$")
_VERSION = (
    re.compile(r"generated using version v?(\d[\w.]*\d)", re.I),
    re.compile(r"NEW for v(\d[\w.]*\d)", re.I),
    re.compile(r"data collected for the v(\d[\w.]*\d) benchmarks", re.I),
)
_COLUMN = re.compile(r"^(?P<gpu>.+?)\s*<br\s*/?>\s*(?P<par>.*?)\s*\((?P<prec>[A-Za-z0-9]+)\)\s*$")
_N_GPUS = re.compile(r"^\**\s*(\d+)\s+GPUs?\s*\**$", re.I)
_CHECKPOINT = re.compile(r"^\s*([\w.\-]+/[\w.\-]+)\s*$", re.M)


def is_perf_overview(text: str) -> bool:
    return MARKER in text and "Throughput Measurements" in text


def trtllm_perf_overview(text: str, ctx: Context) -> list[BenchmarkRun | RowProblem]:
    version = next((m.group(1) for p in _VERSION if (m := p.search(text))), None)
    found = md.tables(text)
    by_length = [t for t in found if t.header and _k(t.header[0]) == "sequence length (isl/osl)"]
    wide = [t for t in found if any(_k(h) == "gpu" for h in t.header)]
    if by_length:
        runs: list[BenchmarkRun | RowProblem] = []
        hardware = _hardware(text)
        checkpoints = _CHECKPOINT.findall(text)
        for table in by_length:
            runs.extend(_by_length(table, ctx, version, hardware, checkpoints))
        return runs
    if wide:
        checkpoints = _CHECKPOINT.findall(text)
        return [r for table in wide for r in _wide(table, ctx, version, checkpoints)]
    raise ParseError(
        ctx.where,
        "Throughput Measurements",
        "no throughput table: neither a `Sequence Length (ISL/OSL)` table nor one with a `GPU` "
        "header cell (the overview's layout changed)",
    )


def _k(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _run(ctx, ref, version, model, precision, gpu, count, tp, isl, osl, tps) -> BenchmarkRun:
    return base_run(
        ctx,
        ref,
        "trtllm_perf_overview",
        "trtllm-bench",
        tool_version=version,
        model_id=model,
        precision=precision.lower(),
        serving_stack="tensorrt-llm",
        serving_stack_version=version,
        gpu_name_raw=gpu,
        gpu_count=count,
        hardware_source="file",
        tensor_parallel=tp,
        scenario="max_throughput",
        input_len=float(isl),
        output_len=float(osl),
        output_tokens_per_s=tps,
        organization=ORGANIZATION,
    )


def _lengths(text: str) -> tuple[int, int]:
    m = _LENGTHS.match(text)
    if not m:
        raise ValueError(f"input/output lengths {text!r} are not 'ISL/OSL' or 'ISL, OSL'")
    return int(m.group(1)), int(m.group(2))


def _wide(table: md.Table, ctx: Context, version: str | None, checkpoints: list[str]) -> list:
    gpu_at = next(i for i, h in enumerate(table.header) if _k(h) == "gpu")
    gpus = {i: h for i, h in enumerate(table.header) if i > gpu_at and h}
    precision_row = next((c for _, c in table.rows if any(_k(x) == "precision" for x in c)), None)
    roles = next((c for _, c in table.rows if any(_k(x) == "model" for x in c)), None)
    if roles is None and any(_k(x) == "tp size" for _, c in table.rows for x in c):
        return _wide_by_tp(table, ctx, version, checkpoints, gpu_at)
    if precision_row is None or roles is None:
        raise ParseError(
            ctx.where,
            "Precision" if precision_row is None else "Model",
            f"the table at line {table.header_line} has no "
            f"{'Precision' if precision_row is None else 'Model'} row (the layout changed)",
        )
    role = {_k(x): i for i, x in enumerate(roles)}
    for name in ("model", "tensor model parallel size", "runtime input/output lengths"):
        if name not in role:
            raise ParseError(
                ctx.where, name, f"no `{name}` column in the table at line {table.header_line}"
            )
    out: list = []
    model = tp = None
    for n, row in table.rows:
        if row is precision_row or row is roles:
            continue
        cell = dict(enumerate(row))
        model = cell.get(role["model"]) or model
        tp = cell.get(role["tensor model parallel size"]) or tp
        try:
            isl, osl = _lengths(cell.get(role["runtime input/output lengths"], ""))
            tp_size = int(md.number(tp or "") or 0) or None
            if not model or not tp_size:
                raise ValueError("no model or tensor parallel size above this row")
        except ValueError as exc:
            out.append(RowProblem(f"line {n}", str(exc), " | ".join(row)))
            continue
        for i, gpu in gpus.items():
            ref = f"line {n}: {gpu}"
            try:
                tps = md.number(cell.get(i, ""))
            except ValueError as exc:
                out.append(RowProblem(ref, f"column {gpu!r}: {exc}", " | ".join(row)))
                continue
            if tps is None:
                continue  # not measured (blank cell)
            precision = precision_row[i] if i < len(precision_row) else ""
            out.append(
                _run(
                    ctx,
                    ref,
                    version,
                    _model_name(model),
                    precision,
                    gpu,
                    tp_size,
                    tp_size,
                    isl,
                    osl,
                    tps,
                )
            )
    return out


def _hardware(text: str) -> list[str]:
    """The hardware list ("- H100 SXM 80GB (DGX H100)") under a `Hardware` heading."""
    m = re.search(r"^#+\s*Hardware\s*$(.*?)(?=^#|\Z)", text, re.M | re.S)
    if not m:
        return []
    return [ln.strip()[2:].strip() for ln in m.group(1).splitlines() if ln.strip()[:2] == "- "]


def _gpu_name(label: str, hardware: list[str]) -> str:
    label = label.strip("* ").strip()
    for item in hardware:
        if item.split()[0] == label:
            return item.split(" (")[0].strip()
    return label


def _model_name(title: str, precision: str | None = None, checkpoints: list[str] = ()) -> str:
    """ "LLaMA v3.1 8B" -> "LLaMA-3.1-8B"; with the document's checkpoint list, "Llama 3.3 70B" at
    FP4 -> "nvidia/Llama-3.3-70B-Instruct-FP4"."""
    plain = re.sub(r"\bv(?=\d)", "", title.strip())
    key = re.sub(r"[^a-z0-9]", "", plain.lower())
    for ckpt in checkpoints:
        flat = re.sub(r"[^a-z0-9]", "", ckpt.lower())
        if key and key in flat and (not precision or precision.lower() in ckpt.lower()):
            return ckpt
    return re.sub(r"\s+", "-", plain)


def _parallel(spec: str) -> tuple[int | None, int]:
    """ "TP2,PP2" -> (tp 2, 4 GPUs); "DEP4" -> (None, 4); "TP8" -> (8, 8)."""
    parts = {k.upper(): int(v) for k, v in re.findall(r"\b(TP|PP|EP|DEP)(\d+)", spec, re.I)}
    if not parts:
        raise ValueError(f"no parallelism (TP<n>, PP<n>, DEP<n>) in {spec!r}")
    if "DEP" in parts:
        return None, parts["DEP"]
    tp = parts.get("TP", 1)
    return tp, tp * parts.get("PP", 1)


def _by_length(table: md.Table, ctx, version, hardware, checkpoints) -> list:
    out: list = []
    columns = {}
    for i, h in enumerate(table.header[1:], start=1):
        m = _COLUMN.match(h)
        if not m:
            raise ParseError(
                ctx.where,
                h or f"column {i + 1}",
                f"column header at line {table.header_line} is not '<GPU><br/><parallelism> "
                "(<precision>)' (the layout changed)",
            )
        columns[i] = m
    for n, row in table.rows:
        try:
            isl, osl = _lengths(row[0] if row else "")
        except ValueError as exc:
            out.append(RowProblem(f"line {n}", str(exc), " | ".join(row)))
            continue
        for i, m in columns.items():
            label = table.header[i]
            ref = f"line {n}: {label}"
            try:
                tps = md.number(row[i] if i < len(row) else "")
                tp, count = _parallel(m.group("par"))
            except ValueError as exc:
                out.append(RowProblem(ref, f"column {label!r}: {exc}", " | ".join(row)))
                continue
            if tps is None:
                continue
            gpus = _N_GPUS.match(m.group("gpu").strip())
            if gpus:  # "**4 GPUs**": the GPU is the caption's, the count is stated
                gpu, count = (table.caption or "").strip(), int(gpus.group(1))
            else:
                gpu = _gpu_name(m.group("gpu"), hardware)
            precision = m.group("prec")
            model = _model_name(table.heading, precision, checkpoints)
            out.append(_run(ctx, ref, version, model, precision, gpu or None, count, tp, isl, osl,
                            tps))  # fmt: skip
    return out


def _wide_by_tp(table: md.Table, ctx, version, checkpoints, gpu_at: int) -> list:
    """Release 0.20's tables: a section per model and precision ("#### Llama 3.3 70B FP4"); the
    header names the GPU over its columns (a blank header cell is the GPU to its left), a
    `TP Size` row gives each column's tensor parallelism, and each data row starts with its
    "ISL, OSL"; the label rows ("ISL, OSL", blank) carry no figure."""
    tp_row = next(c for _, c in table.rows if any(_k(x) == "tp size" for x in c))
    precision = precision_of(table.heading)
    if precision is None:
        raise ParseError(
            ctx.where,
            table.heading or f"table at line {table.header_line}",
            "the section title names no precision (FP4, FP8) for its table",
        )
    columns: dict[int, tuple[str, int]] = {}
    gpu = None
    for i, h in enumerate(table.header):
        if i <= gpu_at:
            continue
        gpu = h or gpu
        tp = md.number(tp_row[i]) if i < len(tp_row) and tp_row[i] else None
        if not gpu or not tp:
            raise ParseError(
                ctx.where,
                "TP Size",
                f"column {i + 1} of the table at line {table.header_line} has no GPU or TP size",
            )
        columns[i] = (gpu, int(tp))
    title = re.sub(r"\s+(NV)?(FP4|FP8|FP16|BF16)\s*$", "", table.heading, flags=re.I)
    model = _model_name(title, precision, checkpoints)
    out: list = []
    for n, row in table.rows:
        first = row[0] if row else ""
        if row is tp_row or not any(row) or _k(first) == "isl, osl":
            continue
        try:
            isl, osl = _lengths(first)
        except ValueError as exc:
            out.append(RowProblem(f"line {n}", str(exc), " | ".join(row)))
            continue
        for i, (gpu_name, tp) in columns.items():
            ref = f"line {n}: {gpu_name} TP{tp}"
            try:
                tps = md.number(row[i] if i < len(row) else "")
            except ValueError as exc:
                out.append(RowProblem(ref, f"column {gpu_name!r} TP{tp}: {exc}", " | ".join(row)))
                continue
            if tps is not None:
                out.append(_run(ctx, ref, version, model, precision, gpu_name, tp, tp, isl, osl,
                                tps))  # fmt: skip
    return out
