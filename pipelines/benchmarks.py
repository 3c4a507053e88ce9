"""Benchmark result files into the archive: `gpuledger ingest PATH...` and the inbox folder.

Both take files as they are, store each by content hash under `file:<path as ingested>` (plus the
operator's hardware hints), and leave parsing and validation to the benchmark_files source, so a
file reaches the warehouse the same way whichever door it came through. What cannot be archived
(unreadable, over the size cap, a symlink) is reported with the file and the reason and recorded
in raw.quarantine; nothing is deleted. Files taken from the inbox move to inbox/ingested/ (or
inbox/rejected/ with a .reason.txt beside them), so the next run does not see them again.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sources import benchmark_files, benchmarks
from sources._internal.archive import Archive

# Documentation and scripts that travel with result files: not results, not quarantined.
_NOT_RESULTS = re.compile(
    r"^(readme|license|licence|copying|notice)([._-].*)?$|\.(md|sh|py|yaml|yml|png|jpe?g|svg|"
    r"ipynb|pdf|html?)$|\.sh\.txt$",
    re.IGNORECASE,
)


@dataclass
class FileOutcome:
    display: str  # the path as ingested (what the URL names)
    status: str  # archived | unchanged | rejected | skipped
    reason: str = ""
    sha256: str = ""
    url: str = ""


# MLPerf submission files that are not performance results: accuracy and compliance runs,
# their logs and the configuration beside the measurements
_MLPERF_NOT_RESULTS = re.compile(
    r"(^|/)(accuracy|compliance)/|(^|/)(mlperf_log_accuracy\.json|mlperf_log_trace\.json|"
    r"accuracy\.txt|verify_[^/]*\.txt|[^/]*\.conf|[^/]*\.adoc)$",
    re.IGNORECASE,
)


def is_documentation(path: Path) -> bool:
    """A README, licence, script or document beside results; a Markdown file that is a vendor's
    published performance table (TensorRT-LLM's overview, the ROCm vLLM tables) is a result."""
    if not _NOT_RESULTS.search(path.name):
        return False
    if path.suffix.lower() == ".md" and not _DOCUMENT_NAMES.match(path.name):
        try:
            with path.open("rb") as fh:
                head = fh.read(benchmark_files.MAX_FILE_BYTES).decode("utf-8", errors="replace")
        except OSError:
            return False  # unreadable: archiving reports it with its reason
        return not benchmarks.is_published_table(head)
    return True


_DOCUMENT_NAMES = re.compile(r"^(readme|license|licence|copying|notice)([._-].*)?$", re.I)


def not_a_result(path: Path, display: str) -> str | None:
    """Why a file in a benchmark folder is no result to ingest (None: it may be one)."""
    if is_documentation(path):
        return "documentation, not a result"
    if benchmarks.mlperf_layout(display) or "mlperf" in display.lower():
        if _MLPERF_NOT_RESULTS.search(display.replace(os.sep, "/")):
            return "MLPerf accuracy, compliance or configuration file, not a performance result"
        summary = path.parent / "mlperf_log_summary.txt"
        if path.name == "mlperf_log_detail.txt" and summary.exists():
            return "the run's mlperf_log_summary.txt beside it is ingested (same measurement)"
    return None


def collect(paths: list[Path]) -> tuple[list[tuple[Path, str]], list[FileOutcome]]:
    """Files to ingest with their display paths (relative to the parent of what was named), and
    what was skipped. Folders are walked in name order; hidden entries and documentation are
    skipped; symlinks are never followed (a link could point anywhere on the machine)."""
    files: list[tuple[Path, str]] = []
    skipped: list[FileOutcome] = []
    for root in paths:
        base = root.parent
        display = root.name if base == Path(".") else f"{base.name}/{root.name}"
        if root.is_symlink():  # named as the inbox names it, so its reason file lands beside it
            skipped.append(FileOutcome(display, "rejected", "symlink: not followed"))
            continue
        if root.is_file():
            files.append((root, display))
            continue
        if not root.is_dir():
            skipped.append(FileOutcome(display, "rejected", "no such file or folder"))
            continue
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                path = Path(dirpath) / name
                display = str(path.relative_to(base)).replace(os.sep, "/")
                if name.startswith("."):
                    continue
                if path.is_symlink():
                    skipped.append(FileOutcome(display, "rejected", "symlink: not followed"))
                elif why := not_a_result(path, display):
                    skipped.append(FileOutcome(display, "skipped", why))
                else:
                    files.append((path, display))
    return files, skipped


def _system_hints(files: list[tuple[Path, str]]) -> dict[Path, dict[str, str]]:
    """MLPerf system descriptions and measurement files, by path: a system JSON names the
    hardware of the results beside it (and in that folder's subfolders), or, in MLCommons'
    results tree, of the results of the system it is named after; a measurements JSON the
    precision of its system's results for that benchmark and scenario."""
    found: dict[Path, dict[str, str]] = {}
    for path, _ in files:
        if path.suffix.lower() != ".json" or path.stat().st_size > 1_000_000:
            continue
        try:
            doc = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(doc, dict) and "accelerator_model_name" in doc:
            found[path] = benchmarks.mlperf_system_hints(doc)
        elif isinstance(doc, dict) and "weight_data_types" in doc:
            found[path] = benchmarks.mlperf_measurement_hints(doc)
    return found


def _tree_files(path: Path, layout: dict[str, str]) -> tuple[list[Path], list[Path], bool]:
    """Where MLCommons keeps the system and measurement files of a result in its tree. A
    submission that published measurements/ for one scenario only serves the other scenarios of
    the same system and benchmark from it (the third value says so)."""
    parts = path.parts
    if not layout.get("submitter"):
        return [], [], False
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] == "results" and i >= 1 and parts[i - 1] == layout["submitter"]:
            sub = Path(*parts[:i])  # .../closed/<submitter>
            system = sub / "systems" / f"{layout['system']}.json"
            measured = sub / "measurements" / layout["system"] / layout["benchmark"]
            own = sorted((measured / layout["scenario"]).glob("*.json"))
            if any(_read_hints(m).get("precision") for m in own):
                return [system], own, False
            others = sorted(
                m for m in measured.glob("*/*.json") if m.parent.name != layout["scenario"]
            )
            return [system], [*own, *others], bool(others)
    return [], [], False


def _hints_for(path: Path, display: str, found: dict[Path, dict[str, str]]) -> dict[str, str]:
    if path in found:  # a system or measurements file itself: hints for others, none for it
        return {}
    layout = benchmarks.mlperf_layout(display)
    if layout:
        systems, measurements, borrowed = _tree_files(path, layout)
        # the system file of the tree, or one given beside the result folder under its name
        named = [p for p in found if p.stem == layout["system"] and "gpu" in found[p]]
        hints: dict[str, str] = {}
        for candidate in [*systems, *named]:
            if candidate in found or candidate.is_file():
                hints.update(found.get(candidate) or _read_hints(candidate))
                break
        for m in measurements:
            measured = found.get(m) or _read_hints(m)
            if measured.get("precision") and "precision" not in hints:
                hints.update(measured)
        if borrowed and "precision" in hints:
            hints["precision_source"] = "other_scenario"
        if hints:
            return hints
    for folder in [path.parent, *path.parent.parents]:
        beside = [h for p, h in found.items() if p.parent == folder and "gpu" in h]
        if beside:
            return beside[0]
    return {}


def _read_hints(path: Path) -> dict[str, str]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, json.JSONDecodeError):
        return {}
    if isinstance(doc, dict) and "accelerator_model_name" in doc:
        return benchmarks.mlperf_system_hints(doc)
    if isinstance(doc, dict) and "weight_data_types" in doc:
        return benchmarks.mlperf_measurement_hints(doc)
    return {}


def archive_files(
    archive: Archive,
    paths: list[Path],
    operator_hints: dict[str, str] | None = None,
    origin: str = "import",
    now: datetime | None = None,
    folder_hints: dict[str, dict[str, str]] | None = None,
) -> list[FileOutcome]:
    """Archive every result file under `paths`. Returns one outcome per file seen.
    `folder_hints` are operator hints for the files under a display-path prefix (what the operator
    would pass as `--gpu/--model/...` when ingesting that folder alone)."""
    now = now or datetime.now(UTC)
    files, outcomes = collect(paths)
    systems = _system_hints(files)
    for path, display in files:
        for_folder = [h for prefix, h in (folder_hints or {}).items() if display.startswith(prefix)]
        hints = {**(operator_hints or {}), **(for_folder[0] if for_folder else {}),
                 **_hints_for(path, display, systems)}  # fmt: skip
        url = benchmark_files.file_url(display, hints)
        try:
            size = path.stat().st_size
            cap_mb = benchmark_files.MAX_FILE_BYTES / 1e6
            if size > benchmark_files.MAX_FILE_BYTES:
                outcomes.append(
                    FileOutcome(
                        display,
                        "rejected",
                        f"{size / 1e6:.0f} MB is over the {cap_mb:.0f} MB cap for a result "
                        "file (GPULEDGER_MAX_BENCHMARK_MB)",
                        _sha256_file(path),
                        url,
                    )
                )
                continue
            content = path.read_bytes()
        except OSError as exc:
            outcomes.append(
                FileOutcome(display, "rejected", f"cannot read: {exc.strerror}", "", url)
            )
            continue
        snap, created = archive.put_once(benchmark_files.NAME, url, now, content, "", origin)
        outcomes.append(
            FileOutcome(display, "archived" if created else "unchanged", "", snap.sha256, snap.url)
        )
    return outcomes


def _sha256_file(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def take_inbox(archive: Archive, inbox: Path, now: datetime | None = None) -> list[FileOutcome]:
    """Archive what waits in the inbox and move it out of the way (never delete)."""
    if not inbox.is_dir():
        return []
    entries = sorted(p for p in inbox.iterdir() if p.name not in ("ingested", "rejected"))
    entries = [p for p in entries if not p.name.startswith(".")]
    if not entries:
        return []
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S")
    outcomes = archive_files(archive, entries, origin="inbox", now=now)
    by_top: dict[str, list[FileOutcome]] = {}
    for o in outcomes:
        by_top.setdefault(o.display.split("/")[1] if "/" in o.display else o.display, []).append(o)
    for entry in entries:
        results = by_top.get(entry.name, [])
        rejected = [o for o in results if o.status == "rejected"]
        target = inbox / ("rejected" if rejected else "ingested") / stamp
        target.mkdir(parents=True, exist_ok=True)
        dest = target / _safe_name(entry.name)
        shutil.move(str(entry), str(dest))
        if rejected:
            (target / f"{_safe_name(entry.name)}.reason.txt").write_text(
                "\n".join(f"{o.display}: {o.reason}" for o in rejected) + "\n", encoding="utf-8"
            )
    return outcomes


def _safe_name(name: str) -> str:
    """A name safe to create inside the inbox: no separators, no control characters, not . or .."""
    clean = re.sub(r"[\x00-\x1f/\\]", "_", name).strip()
    return clean if clean not in ("", ".", "..") else "_"
