"""No Python file of the project is longer than 600 lines (issue 44): a module that grows past it
is split by what it is for, as warehouse/queries/leaders.py was split from workloads.py."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("pipelines", "sources", "warehouse", "scripts", "tests")
MAX_LINES = 600


def too_long(folder: Path, limit: int = MAX_LINES) -> dict[str, int]:
    """The Python files under `folder` with more than `limit` lines, by path."""
    found = {}
    for path in sorted(folder.rglob("*.py")):
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > limit:
            found[str(path.relative_to(folder))] = n
    return found


def test_no_module_of_the_project_is_longer_than_600_lines():
    assert {f: too_long(ROOT / f) for f in FOLDERS} == {f: {} for f in FOLDERS}
    # what it scans: workloads.py, the longest module this round, is within the limit
    lines = len((ROOT / "warehouse/queries/workloads.py").read_text().splitlines())
    assert 500 < lines <= MAX_LINES


def test_a_module_past_the_limit_is_named_with_its_length(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "long.py").write_text("x = 1\n" * 601)
    (tmp_path / "pkg" / "short.py").write_text("x = 1\n" * 600)
    assert too_long(tmp_path) == {"pkg/long.py": 601}
