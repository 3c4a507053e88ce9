"""Throughput of the generic table extractor on the real page captures in tests/fixtures.

    .venv/bin/python scripts/perf_extractor.py [rounds]

Parses every CoreWeave docs version and the EverXCloud page `rounds` times through their source
parsers (extract tables, classify headers, parse numbers) and prints pages/s and MB/s.
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sources import REGISTRY, coreweave_docs  # noqa: E402

everxcloud = REGISTRY["everxcloud"]  # a price_page configuration entry

FIXTURES = REPO / "tests" / "fixtures"


def main(rounds: int) -> None:
    pages = [
        (coreweave_docs, p.read_bytes())
        for p in sorted((FIXTURES / "coreweave_docs").glob("*"))
        if p.suffix in (".md", ".html")
    ]
    pages += [(everxcloud, p.read_bytes()) for p in (FIXTURES / "everxcloud").glob("*.md")]
    total_bytes = sum(len(c) for _, c in pages)
    at = datetime.now(UTC)
    started = time.perf_counter()
    rows = 0
    for _ in range(rounds):
        for module, content in pages:
            result = module.parse(content, "perf", at)
            rows += len(result.records) + len(result.specs)
    elapsed = time.perf_counter() - started
    n = rounds * len(pages)
    print(
        f"{n} pages ({total_bytes * rounds / 1e6:.2f} MB, {rows} rows) in {elapsed:.2f} s: "
        f"{n / elapsed:.0f} pages/s, {total_bytes * rounds / 1e6 / elapsed:.2f} MB/s"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
