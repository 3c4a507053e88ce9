"""MLPerf Inference round summaries: the `summary_results.json` (v4.1 to v6.0: a JSON array with
the fields Submitter, System, Accelerator, a#, Nodes, Software, Performance_Result ...) and the
`summary.json` (v6.1: a pandas index-layout object {"0": {...}, "1": {...}} with the fields
Organization, SystemName, accelerator_model_name, accelerators_per_node, total_accelerators,
framework, Result, Units ...) that MLCommons publishes at the root of a round's results repository.

One record per system x benchmark x scenario. What becomes a run:
- closed division (open-division results change the model or the dataset: not comparable);
- an LLM benchmark (llama, mixtral, gpt-j, gpt-oss, deepseek, qwen) measured in tokens/s.
Everything else (resnet, bert, dlrm, sdxl, whisper, a latency-only or queries/s LLM result, a
CPU-only system) is skipped with its reason: not an error. An LLM token-throughput record that
cannot be read (no result, a count that is no number) is quarantined with its field and reason;
the other records go on.

The GPU count is the system's total: `total_accelerators` / `Total Accelerators` where the round
publishes it, else nodes x accelerators per node (`a#` is per node: a 2-node 8-GPU system is 16).
Precision is the lowest precision the record's `weight_data_types` names for weights ("bf16, fp8,
fp4" -> fp4: the bulk of an LLM's weights is in the lowest format; KV-cache formats are not
weights). A record that names none takes the precision of another scenario of the same
organisation, system and benchmark in the same file (precision_source `other_scenario`).
One round's field is known to name the checkpoint's format, not the one served: v4.1 gives every
closed LLM result of NVIDIA's TensorRT harness (NVIDIA's and the 14 other submitters who ran it)
`fp16`, while the harness quantizes: "LLM submissions use FP8 or FP4 if the NVIDIA accelerator
supports that feature" (NVIDIA's calibration notes of that round,
mlcommons/inference_results_v4.1 @ a2f5d66d closed/NVIDIA/documentation/calibration.md: FP8
weights on Hopper and Ada, selected linear and MLP layers in FP4 on Blackwell); from v5.1 the
same harness's records name fp8 and fp4 themselves. Read as fp16, the v4.1 runs reached a median
of 1.33 times what the performance model predicts (v5.1's FP8 runs of the harness: 0.72), some
2.2 times: more than the GPUs' fp16 peak allows (the model takes 70 % of it).
Such a record takes fp8 (Hopper, Ada) or fp4 (Blackwell), precision_source
`submitter_documentation`; on a GPU without FP8 (Ampere, Jetson Orin) it keeps fp16.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sources.benchmarks.common import Context, base_run, num, split_stack

LLM = re.compile(r"llama|mixtral|gpt-?j|gpt-oss|deepseek|qwen", re.I)

# normalised name -> (v6.1 summary.json field, summary_results.json field)
FIELDS = {
    "organization": ("Organization", "Submitter"),
    "division": ("Division", "Category"),
    "suite": ("SystemType", "Suite"),
    "system": ("Platform", "Platform"),  # the results folder's name; else the system's name
    "system_name": ("SystemName", "System"),
    "model": ("Model", "Model"),
    "scenario": ("Scenario", "Scenario"),
    "result": ("Result", "Performance_Result"),
    "units": ("Units", "Performance_Units"),
    "accelerator": ("accelerator_model_name", "Accelerator"),
    "per_node": ("accelerators_per_node", "a#"),
    "total": ("total_accelerators", "Total Accelerators"),
    "nodes": ("number_of_nodes", "Nodes"),
    "software": ("framework", "Software"),
    "weights": ("weight_data_types", "weight_data_types"),
    "round": ("version", "version"),
}
_SCENARIOS = {s.lower(): s for s in ("Offline", "Server", "Interactive", "SingleStream",
                                      "MultiStream")}  # fmt: skip


@dataclass
class Skipped:
    """A record that is no run by design (another benchmark, another unit): not quarantined."""

    run_ref: str
    reason: str


@dataclass
class Problem:
    """An LLM record that should be a run but cannot be read: quarantined with field and reason."""

    run_ref: str
    field: str
    reason: str
    raw: str


def records(doc: Any) -> list[tuple[str, str, dict]]:
    """(reference, layout, record) for both layouts: "[12]" in an array, '["12"]' in v6.1's
    index object. Layout is "index" (v6.1 field names) or "array"."""
    if isinstance(doc, dict):
        keys = sorted(doc, key=lambda k: (not str(k).isdigit(), int(k) if str(k).isdigit() else 0))
        return [(f'["{k}"]', "index", doc[k]) for k in keys]
    return [(f"[{i}]", "array", rec) for i, rec in enumerate(doc)]


def normalise(rec: dict, layout: str) -> dict[str, Any]:
    pick = 0 if layout == "index" else 1
    out = {name: rec.get(fields[pick]) for name, fields in FIELDS.items()}
    if not str(out["system"] or "").strip():
        out["system"] = out["system_name"]
    return out


# precision words in a weight_data_types text, with their bits; KV-cache mentions are removed first
_PRECISIONS = [
    (re.compile(r"(?<![a-z0-9])(?:nv|mx)?fp4|e2m1", re.I), "fp4", 4),
    (re.compile(r"(?<![a-z0-9])u?int4", re.I), "int4", 4),
    (re.compile(r"(?<![a-z0-9])(?:fp8|float8|f8_e4m3|e4m3|f8)(?![0-9])", re.I), "fp8", 8),
    (re.compile(r"(?<![a-z0-9])u?int8", re.I), "int8", 8),
    (re.compile(r"(?<![a-z0-9])(?:bf16|bfloat16)", re.I), "bf16", 16),
    (re.compile(r"(?<![a-z0-9])(?:fp16|float16|half)", re.I), "fp16", 16),
    (re.compile(r"(?<![a-z0-9])(?:fp32|float32|f32)", re.I), "fp32", 32),
]
_KV = re.compile(
    r"(?:fp8|float8|int8)[\s_-]*(?:\(\s*)?kv(?:[\s_-]*cache)?\)?|kv[\s_-]*cache[\s:]*(?:in\s+)?(?:fp8|int8)"
    r"|(?:fp8|e4m3)\s+block\s+scales?",
    re.I,
)


def weight_precision(text: Any) -> str | None:
    """The lowest weight precision a weight_data_types text names ("bf16, fp8, fp4" -> fp4,
    "NVFP4 weights; FP8 KV cache" -> fp4, "BF16/F32/F8_E4M3/U8" -> fp8, "UNSET" -> None)."""
    if not isinstance(text, str) or not text.strip():
        return None
    clean = _KV.sub(" ", text)
    found = []
    for pattern, name, bits in _PRECISIONS:
        m = pattern.search(clean)
        if m:
            found.append((bits, m.start(), name))
    return min(found)[2] if found else None


# the round whose summary names the checkpoint's format for NVIDIA's TensorRT harness (above)
CHECKPOINT_FORMAT_ROUNDS = frozenset({"v4.1"})
# NVIDIA GPUs with FP4 (Blackwell) and with FP8 (Hopper, Ada, Blackwell) tensor cores, as MLPerf
# names its accelerators ("NVIDIA H100-SXM-80GB", "NVIDIA GH200 Grace Hopper Superchip 144GB",
# "NVIDIA L40S", "NVIDIA B200-SXM-180GB")
_FP4_GPU = re.compile(r"(?<![a-z0-9])g?b(?:200|300)(?![0-9])", re.I)
_FP8_GPU = re.compile(
    r"(?<![a-z0-9])(?:g?h(?:100|200)|l40s?|l4|rtx[ -]?\d{4}[ -]?ada|rtx pro|g?b(?:200|300))"
    r"(?![0-9])",
    re.I,
)


def served_precision(
    round_: Any, software: Any, accelerator: Any, precision: str | None
) -> str | None:
    """The precision NVIDIA's TensorRT harness served a v4.1 LLM result in, where the summary
    names the checkpoint's (fp16 / bf16) or nothing: fp4 on Blackwell, fp8 on Hopper and Ada;
    None where the record's own precision stands."""
    if str(round_ or "") not in CHECKPOINT_FORMAT_ROUNDS or precision not in ("fp16", "bf16", None):
        return None
    if not re.search(r"tensorrt", str(software or ""), re.I):
        return None
    name = str(accelerator or "")
    if _FP4_GPU.search(name):
        return "fp4"
    if _FP8_GPU.search(name):
        return "fp8"
    return None


_STACKS = [  # (pattern in the software text, stack name): the first found wins
    (re.compile(r"tensorrt[-_ ]?llm|trt[-_ ]?llm", re.I), "tensorrt-llm"),
    (re.compile(r"sglang", re.I), "sglang"),
    (re.compile(r"vllm", re.I), "vllm"),
    (re.compile(r"llmboost", re.I), "llmboost"),
    (re.compile(r"tensorrt", re.I), "tensorrt"),
]
_VERSION = re.compile(r"^[\s:)(]*(?:\(CentML\)\s*)?v?(\d[\w.+\-]*)", re.I)


def mlperf_stack(text: Any) -> tuple[str | None, str | None]:
    """The serving stack and its version in an MLPerf `framework` / `Software` text: the LLM
    engine named in it ("LLM-D v0.5.0 ,vLLM 0.14.1" -> vllm 0.14.1; "TensorRT 10.14.1.48;
    TensorRT-LLM 1.3.0rc0" -> tensorrt-llm 1.3.0rc0; "TensorRT 10.2.0, CUDA 12.4" -> tensorrt
    10.2.0, as NVIDIA's LLM harness states its engine), else the first component as written."""
    if not isinstance(text, str) or not text.strip() or text.strip().upper() == "TODO":
        return None, None
    for pattern, name in _STACKS:
        m = pattern.search(text)
        if m:
            version = _VERSION.match(text[m.end() :])
            return name, version.group(1).rstrip(".,;") if version else None
    return split_stack(text)


def _count(n: dict) -> tuple[int | None, str | None]:
    """Total accelerators, or (None, field) when a count is there but is no number."""
    for key in ("total", "per_node", "nodes"):
        raw = n[key]
        if raw not in (None, "") and num(raw) is None:
            return None, key
    total = num(n["total"])
    if total is not None and total > 0:
        return int(round(total)), None
    per_node, nodes = num(n["per_node"]), num(n["nodes"]) or 1.0
    if per_node is None or per_node <= 0:
        return 0, None
    return int(round(per_node * nodes)), None


def _skip_reason(n: dict) -> str | None:
    model = str(n["model"] or "")
    units = str(n["units"] or "")
    if str(n["division"] or "").lower() != "closed":
        return (
            f"{n['division']} division: MLPerf's open division changes model or data; closed only"
        )
    if not LLM.search(model):
        return f"{model or 'no model'}: not an LLM benchmark (no token throughput)"
    if units.strip().lower() != "tokens/s":
        return f"{model} {n['scenario']}: an LLM result in {units or 'no unit'}, not tokens/s"
    return None


def mlperf_summary(doc: Any, ctx: Context) -> list:
    """Runs (BenchmarkRun), skipped records (Skipped) and unreadable ones (Problem)."""
    out: list = []
    rows = records(doc)
    normal = []
    for ref, layout, rec in rows:
        if not isinstance(rec, dict):
            out.append(
                Problem(ref, "<record>", "not a result record (an object expected)", str(rec))
            )
            continue
        normal.append((ref, rec, normalise(rec, layout)))
    # a precision published for one scenario serves the other scenarios of the same system and
    # benchmark (the record's own first)
    published: dict[tuple, str] = {}
    for _, _, n in normal:
        p = weight_precision(n["weights"])
        key = (n["organization"], n["system"], n["model"])
        if p and key not in published:
            published[key] = p
    for ref, rec, n in normal:
        run_ref = f"{ref} {n['organization']} | {n['system']} | {n['model']} | {n['scenario']}"
        reason = _skip_reason(n)
        if reason:
            out.append(Skipped(run_ref, reason))
            continue
        value = num(n["result"])
        if value is None or value <= 0:
            field = FIELDS["result"][0 if "Result" in rec else 1]
            why = f"not a positive throughput: {n['result']!r}"
            out.append(Problem(run_ref, field, why, _raw(rec)))
            continue
        count, bad = _count(n)
        if bad:
            field = FIELDS[bad][0 if "Organization" in rec else 1]
            out.append(Problem(run_ref, field, f"not a number: {n[bad]!r}", _raw(rec)))
            continue
        if not count:
            out.append(Skipped(run_ref, "no accelerator (a CPU-only system)"))
            continue
        if not str(n["organization"] or "").strip():
            field = FIELDS["organization"][0 if "Organization" in rec else 1]
            out.append(Problem(run_ref, field, "no submitting organisation", _raw(rec)))
            continue
        precision = weight_precision(n["weights"])
        source = "file" if precision else None
        if precision is None:
            precision = published.get((n["organization"], n["system"], n["model"]))
            source = "other_scenario" if precision else None
        served = served_precision(n["round"], n["software"], n["accelerator"], precision)
        if served:
            precision, source = served, "submitter_documentation"
        stack, version = mlperf_stack(n["software"])
        scenario = _SCENARIOS.get(str(n["scenario"] or "").lower(), n["scenario"])
        accelerator = str(n["accelerator"] or "").strip() or None
        out.append(
            base_run(
                ctx,
                run_ref,
                "mlperf_summary_results",
                "mlperf inference",
                tool_version=n["round"],
                model_id=n["model"],
                precision=precision,
                precision_source=source,
                serving_stack=stack,
                serving_stack_version=version,
                gpu_name_raw=accelerator,
                gpu_count=count,
                hardware_source="file" if accelerator else "none",
                scenario=scenario,
                output_tokens_per_s=value,
                output_unit="tokens",
                output_units_per_s=value,
                organization=str(n["organization"]).strip(),
                round=n["round"],
                system=n["system"],
                division=n["division"],
                suite=n["suite"],
            )
        )
    return out


def _raw(rec: dict) -> str:
    import json

    return json.dumps(rec, default=str)[:4000]
