"""The dbt docs site as one static page, offline: `gpuledger docs` (or `make docs`).

dbt's `docs generate --static` writes one self-contained HTML file (manifest and catalog inlined, no
external assets). The catalog (column types, row counts) is read from a scratch copy of the
published warehouse, so generating docs never touches a file a refresh or a reader holds; before
the first publication the site is built from the project alone (`--empty-catalog`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from warehouse.paths import DBT_PROJECT_DIR, Paths, prepare_environment


class DocsError(Exception):
    pass


def build_docs(paths: Paths | None = None, out_dir: Path | None = None) -> Path:
    """Generate the site into OUT_DIR (default $GPULEDGER_HOME/site/docs); return its index.html."""
    paths = prepare_environment(paths)
    out_dir = out_dir or paths.site_dir / "docs"
    beside = Path(sys.executable).parent / "dbt"
    dbt = str(beside) if beside.exists() else "dbt"
    with tempfile.TemporaryDirectory(prefix="gpuledger-docs-") as scratch:
        db = Path(scratch) / "gpuledger.duckdb"
        args = [dbt, "docs", "generate", "--static", "--project-dir", str(DBT_PROJECT_DIR),
                "--profiles-dir", str(DBT_PROJECT_DIR), "--target-path", f"{scratch}/target",
                "--log-path", f"{scratch}/logs"]  # fmt: skip
        if paths.published_db_path.exists():
            shutil.copyfile(paths.published_db_path, db)
        else:
            args.append("--empty-catalog")
        env = {**os.environ, "GPULEDGER_DB_PATH": str(db)}
        done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600)
        page = Path(scratch) / "target" / "static_index.html"
        if done.returncode != 0 or not page.exists():
            raise DocsError(f"dbt docs generate failed:\n{(done.stdout + done.stderr)[-3000:]}")
        out_dir.mkdir(parents=True, exist_ok=True)
        for name in ("manifest.json", "catalog.json"):
            if (Path(scratch) / "target" / name).exists():
                shutil.copyfile(Path(scratch) / "target" / name, out_dir / name)
        shutil.copyfile(page, out_dir / "index.html")
    return out_dir / "index.html"
