"""The scale run's history: N synthetic providers in SkyPilot's real catalog format, written
to the archive, parsed by the real parser, checked by the real Great Expectations suite and loaded
into raw.* in bulk, plus K benchmark runs replicated from the real ones. See perf_scale.py."""

import csv
import io
import json
import random
import time
from datetime import UTC, date, datetime, timedelta

LOAD_DELAY = timedelta(minutes=5)  # a day's run loads its pages minutes after fetching them
END = date(2026, 8, 22)  # the demo archive's newest day: history ends here, day D+1 is the refresh
# Real GPU models with their median on-demand USD per GPU-hour in the demo archive (2026-08-22)
# and memory; the names are SkyPilot's AcceleratorName spellings.
GPUS = (
    ("H100", 3.19, 80, 8), ("A100-80GB", 2.29, 80, 8), ("H200", 3.79, 141, 8),
    ("B200", 5.29, 180, 8), ("L40S", 2.27, 48, 1), ("L4", 0.44, 24, 1), ("A10", 0.75, 24, 1),
    ("RTX4090", 0.74, 24, 1), ("A6000", 0.80, 48, 1), ("GH200", 1.49, 96, 1),
    ("A40", 0.79, 48, 1), ("L40", 1.14, 48, 1),
)  # fmt: skip
CSV_HEADER = [
    "InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB", "Price",
    "Region", "GpuInfo", "SpotPrice",
]  # fmt: skip


# ------------------------------------------------------------------ synthetic providers


class Market:
    """N providers x M GPUs x R regions, with a price series per offer over the given days."""

    def __init__(self, providers: int, gpus: int, regions: int, days: list[date], seed: int = 7):
        self.days = days
        self.offers = []  # (provider, gpu row, region, series of on-demand prices)
        for p in range(providers):
            rng = random.Random(seed * 1000 + p)
            factor = rng.uniform(0.75, 1.45)
            for i in range(gpus):
                gpu = GPUS[(p + i) % len(GPUS)]
                for r in range(regions):
                    price = gpu[1] * factor * rng.uniform(0.97, 1.05)
                    series = []
                    for _ in days:
                        if rng.random() < 0.03:
                            price = max(0.05, price * rng.uniform(0.90, 1.08))
                        series.append(round(price * gpu[3], 4))
                    self.offers.append((f"perf-cloud-{p:02d}", gpu, f"region-{r + 1}", series))

        self.by_provider: dict[str, list] = {}
        for offer in self.offers:
            self.by_provider.setdefault(offer[0], []).append(offer)

    def providers(self) -> list[str]:
        return sorted(self.by_provider)

    def catalog(self, provider: str, day_index: int) -> bytes:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(CSV_HEADER)
        spot = int(provider[-2:]) % 2 == 0
        for _, gpu, region, series in self.by_provider[provider]:
            model, _, memory, count = gpu
            info = (
                f"{{'Gpus': [{{'Name': '{model}', 'Manufacturer': 'NVIDIA', 'Count': {count}.0, "
                f"'MemoryInfo': {{'SizeInMiB': {memory * 1024}}}}}], "
                f"'TotalGpuMemoryInMiB': {memory * 1024 * count}}}"
            )
            price = series[day_index]
            writer.writerow([
                f"gpu_{count}x_{model.lower()}", model, f"{count}.0", 16 * count, 128 * count,
                price, region, info, round(price * 0.55, 4) if spot else "",
            ])  # fmt: skip
        return out.getvalue().encode()


def catalog_url(base: str, provider: str) -> str:
    return f"{base}/catalogs/v7/{provider}/vms.csv"


# ------------------------------------------------------------------ loading history in bulk


def load_history(paths, market: Market, base_url: str) -> dict:
    """Archive every provider-day catalog, parse it with the real parser, run the real GX price
    suite once over all rows, and insert raw.page_snapshots / price_observations /
    snapshot_validations in bulk. Returns counts and timings."""
    import duckdb
    import pandas as pd

    from pipelines.ingest import records_frame, split_gpu_slices
    from pipelines.quality import validate_prices
    from sources import skypilot
    from sources._internal.archive import Archive, Snapshot, sha256_hex, utc_iso
    from warehouse import db

    began = time.perf_counter()
    archive = Archive(paths.archive_dir)
    snapshots, frames, index_lines = [], [], []
    for di, day in enumerate(market.days):
        fetched_at = datetime(day.year, day.month, day.day, 6, 0, tzinfo=UTC)
        for provider in market.providers():
            url = catalog_url(base_url, provider)
            content = market.catalog(provider, di)
            digest = sha256_hex(content)
            obj = paths.archive_dir / "objects" / digest[:2] / digest
            if not obj.exists():
                obj.parent.mkdir(parents=True, exist_ok=True)
                obj.write_bytes(content)
            snap = Snapshot(
                source="skypilot", url=url, fetched_at=utc_iso(fetched_at), http_status=200,
                content_type="text/csv", size_bytes=len(content), sha256=digest, etag=None,
                last_modified=None, origin="live",
            )  # fmt: skip
            index_lines.append(json.dumps(snap.__dict__, sort_keys=True))
            result = skypilot.parse(content, url, fetched_at)
            whole, _ = split_gpu_slices(result.records)
            frame = records_frame(whole)
            frame["source"], frame["snapshot_url"] = "skypilot", url
            frame["snapshot_fetched_at"], frame["snapshot_sha256"] = fetched_at, digest
            frame["row_index"] = range(len(frame))
            frame["parser_version"] = skypilot.PARSER_VERSION
            frames.append(frame)
            snapshots.append((snap, fetched_at, len(frame)))
    with archive.index_path.open("a", encoding="utf-8") as fh:
        fh.write("\n".join(index_lines) + "\n")
    parsed = time.perf_counter()
    prices = pd.concat(frames, ignore_index=True)
    for start in range(0, len(prices), 250_000):  # the real suite, over every generated row
        chunk = prices.iloc[start : start + 250_000].drop(columns=["row_index"])
        verdict = validate_prices(chunk, (1, 10**9))
        if not verdict.success:
            raise SystemExit(f"the generated history fails the price suite: {verdict}")
    validated = time.perf_counter()
    # loaded and validated minutes after the fetch, as that day's run left them (the tests over
    # every price row check the rows of snapshots loaded since the last whole build)
    pages = pd.DataFrame(
        [
            ("skypilot", s.url, at, 200, "text/csv", s.size_bytes, s.sha256, None, None,
             s.archive_path, "live", skypilot.PARSER_VERSION, at + LOAD_DELAY)
            for s, at, _ in snapshots
        ],
        columns=["source", "url", "fetched_at", "http_status", "content_type", "size_bytes",
                 "sha256", "etag", "last_modified", "archive_path", "origin", "parser_version",
                 "loaded_at"],
    )  # fmt: skip
    checks = pd.DataFrame(
        [
            ("skypilot", s.url, at, s.sha256, verdict.suite, True, n, "[]", "[]", at + LOAD_DELAY)
            for s, at, n in snapshots
        ],
        columns=["source", "snapshot_url", "snapshot_fetched_at", "snapshot_sha256", "suite",
                 "success", "row_count", "failed_expectations", "sample_rows", "validated_at"],
    )  # fmt: skip
    con = duckdb.connect(str(paths.db_path))
    try:
        db.ensure_raw_schema(con)
        for table, frame in (
            ("page_snapshots", pages), ("price_observations", prices),
            ("snapshot_validations", checks),
        ):  # fmt: skip
            con.register("_bulk", frame)
            con.execute(f"insert into raw.{table} by name select * from _bulk")
            con.unregister("_bulk")
    finally:
        con.close()
    return {
        "snapshots": len(snapshots),
        "price_rows": len(prices),
        "parse_s": parsed - began,
        "gx_s": validated - parsed,
        "load_s": time.perf_counter() - validated,
    }


def add_benchmark_runs(paths, total: int) -> int:
    """Replicate the real runs (throughputs jittered by up to 5 %) until there are `total`."""
    import duckdb

    con = duckdb.connect(str(paths.db_path))
    try:
        real = con.execute("select count(*) from raw.benchmark_runs").fetchone()[0]
        copies = max(0, -(-total // real) - 1) if real else 0
        throughput = [
            r[0]
            for r in con.execute(
                "select column_name from information_schema.columns where table_schema = 'raw' "
                "and table_name = 'benchmark_runs' and column_name like '%throughput%'"
            ).fetchall()
        ]
        jitter = ", ".join(f"b.{c} * (0.95 + 0.1 * random()) as {c}" for c in throughput)
        con.execute("select setseed(0.42)")
        con.execute(
            f"""insert into raw.benchmark_runs by name
                select b.* replace (b.snapshot_url || '#copy' || t.i as snapshot_url, {jitter})
                from raw.benchmark_runs as b, range(1, {copies + 1}) as t(i)
                where b.snapshot_url not like '%#copy%'"""
        )
        return con.execute("select count(*) from raw.benchmark_runs").fetchone()[0]
    finally:
        con.close()


class MarketDays:
    """The first `days` days of a Market (same series, shorter history)."""

    def __init__(self, market: Market, days: int):
        self.market, self.days = market, market.days[:days]

    def providers(self):
        return self.market.providers()

    def catalog(self, provider, day_index):
        return self.market.catalog(provider, day_index)
