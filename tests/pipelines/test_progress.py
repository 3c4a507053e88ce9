"""The progress lines reach the console even while Dagster captures the process's stderr."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_progress_lines_reach_the_console_while_stderr_is_captured(tmp_path):
    """Dagster redirects file descriptor 2 to the run's compute log during a run and mirrors it
    to the console with `tail -F`, stopped when the run ends (the last step's line was lost
    that way). A line written through console_kept() goes to the console's own descriptor:
    it is on the console and not in the captured file, even though the capture never ends."""
    captured = tmp_path / "compute.err"
    child = textwrap.dedent(
        f"""
        import os, sys
        from pipelines import progress
        with progress.console_kept():
            fd = os.open({str(captured)!r}, os.O_WRONLY | os.O_CREAT)
            os.dup2(fd, 2)  # what Dagster's capture does to fd 2
            stream = progress._CONSOLE or sys.stderr
            handler = progress.ProgressHandler(stream, 1, {{}})
            handler._line("report (0.4 s)")
            print("captured by the run", file=sys.stderr, flush=True)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", child], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.rstrip().endswith("] report (0.4 s)"), done.stderr
    assert captured.read_text() == "captured by the run\n"


def test_without_a_descriptor_the_lines_go_to_sys_stderr(capsys):
    """A stream without a file descriptor (a test's captured stderr): nothing is duplicated."""
    from pipelines import progress

    with progress.console_kept():
        assert progress._CONSOLE is None
        progress.ProgressHandler(progress._CONSOLE or sys.stderr, 1, {})._line("alerts (0.0 s)")
    assert capsys.readouterr().err.endswith("] alerts (0.0 s)\n")
