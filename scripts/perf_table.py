"""The scale run's table (scripts/perf_scale.py): every size's figures beside the floor measured
after its round of refreshes, the growth from the smallest size to the largest, and the parts."""


def beside(size: dict, meta: dict, key: str = "") -> dict:
    """The floor measured right after the round of refreshes of `key` (a figure's name,
    `daily_refresh_s`...; every size's refresh of that day ran in it), else right after this
    size's refreshes (runs before 2026-12-03 16:36 UTC measured each size alone), else the run's
    first floor."""
    rounds = size.get("floors_beside") or {}
    return rounds.get(key.split("_")[0]) or size.get("floor_beside") or meta["floor"]


def growth(sizes: list[dict], meta: dict) -> list[str]:
    """From the smallest size to the largest: each refresh's growth in seconds and as multiples
    of the floor measured beside it."""
    if len(sizes) < 2:
        return []
    small, large = sizes[0], sizes[-1]
    lines = [
        f"Growth from {small['days']} to {large['days']} days of history (seconds; in multiples "
        "of the floor measured after the round of each refresh):",
        "",
    ]
    for key, title in [("daily_refresh_s", "D+1"), ("next_refresh_s", "D+2"),
                       ("third_refresh_s", "D+3")]:  # fmt: skip
        if key not in small or key not in large:
            continue
        a, b = small[key], large[key]
        fa, fb = beside(small, meta, key)["floor_s"], beside(large, meta, key)["floor_s"]
        lines.append(
            f"- {title}: {a} -> {b} s ({(b / a - 1) * 100:+.0f} %); "
            f"{a / fa:.2f}x -> {b / fb:.2f}x the floor ({(b / fb) / (a / fa) * 100 - 100:+.0f} %)"
        )
    return lines + [""]


def render(meta: dict, sizes: list[dict]) -> str:
    floor_s = meta["floor"]["floor_s"]

    def times(s: dict, key: str) -> str:
        if key not in s:
            return "-"
        here = beside(s, meta, key)
        return f"{s[key]} ({s[key] / here['floor_s']:.1f}x)"

    lines = [
        f"# gpuledger scale run ({meta['when']})",
        "",
        f"Machine: {meta['machine']}. {meta['providers']} providers x {meta['gpus']} GPUs x "
        f"{meta['regions']} regions x on-demand and spot (every other provider), plus the demo "
        f"archive's real sources; {meta['runs']} benchmark runs. Floor (minimal Dagster + GX + "
        f"dbt run, median of 3, dbt a child process as dagster-dbt runs it; for information): "
        f"{floor_s} s at the start, and again after each round of refreshes "
        f"(every size's D+1, then D+2, then D+3; the column `floor` is the one after D+1); "
        f"each refresh is set against the floor after its round. "
        f"Demo archive load: {meta['base']['demo_refresh_s']} s.",
        "",
        "| days | snapshots | price rows | offer-days | cost rows | backfill s | floor s | "
        "daily refresh D+1 s (x floor) | next day D+2 s (x floor) | D+3 s (x floor) | "
        "query p95 ms (worst) | archive MB | DuckDB MB | peak MB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in sizes:
        q = s["queries"]
        here = beside(s, meta)
        lines.append(
            f"| {s['days']} | {s['snapshots']:,} | {s['price_rows']:,} | "
            f"{s['offer_days']:,} | {s['cost_rows']:,} | {s['backfill_s']} | "
            f"{here['floor_s']} | "
            f"{times(s, 'daily_refresh_s')} | {times(s, 'next_refresh_s')} | "
            f"{times(s, 'third_refresh_s')} | {q['p95_ms']} ({q['worst_query_p95_ms']}) | "
            f"{s['archive_mb']} | {s['duckdb_mb']} | {s['peak_mb']} |"
        )
    lines += ["", *growth(sizes, meta)]
    rounds = sizes[0].get("floors_beside") if sizes else None
    if rounds:
        lines.append(
            "Floors after each round of refreshes (every size's D+1, then D+2, then D+3; runs, "
            "seconds): "
            + "; ".join(
                f"D+{k} {fl['floor_s']} s {fl.get('floor_runs_s')}"
                for k, fl in enumerate(rounds.values(), start=1)
            )
        )
    measured = [s for s in sizes if s.get("floor_beside")] if not rounds else []
    if measured:
        lines.append(
            "Floors beside each size (runs, seconds): "
            + "; ".join(
                f"{s['days']} days {s['floor_beside'].get('floor_runs_s')}" for s in measured
            )
        )
    if meta.get("estimates"):
        lines += ["", f"On the demo archive's real runs, {meta['estimates']} "
                  "(scripts/verify_estimates.py)."]  # fmt: skip
    if all("fresh_index_s" in s for s in sizes):
        lines += [
            "",
            "Not in the refreshes above: a day's run in a process of its own (as the schedule and "
            "`gpuledger refresh` run it) first parses the archive's index, which the refreshes "
            "here find parsed by the backfill; seconds (median of 3): "
            + ", ".join(f"{s['days']} days {s['fresh_index_s']}" for s in sizes),
        ]
    lines += ["", "History load (setup, not part of the figures above), seconds:", ""]
    for s in sizes:
        lines.append(f"- {s['days']} days: {s['history_load']}")
    lines += ["", "The backfill, seconds per step (ingest = all sources together):", ""]
    for s in sizes:
        lines.append(f"- {s['days']} days: {s.get('backfill_steps_s', '-')}")
    lines += [
        "",
        "After the backfill, row groups a day's read scans in the largest per-day marts "
        "(median and max over their days; zone maps skip the rest), of how many:",
        "",
    ]
    for s in sizes:
        lines.append(f"- {s['days']} days: {s.get('backfill_row_group_days', '-')}")
    for key, title in [("daily", "Daily refresh of D+1"), ("next", "The next day, D+2"),
                       ("third", "The day after, D+3")]:  # fmt: skip
        lines += ["", f"{title}, seconds per step (ingest = all sources together):", ""]
        for s in sizes:
            lines.append(f"- {s['days']} days: {s.get(key + '_steps_s')}")
        parts = (
            f"{title}, the publish step's parts, seconds (the flush runs beside the check; "
            "`flush` is what it took beyond it), and how it published:"
        )
        lines += ["", parts, ""]
        for s in sizes:
            lines.append(f"- {s['days']} days: {s.get(key + '_publish_s')} "
                         f"({s.get(key + '_publish_method', '-')})")  # fmt: skip
    lines += ["", "Per-query p95 (ms) at the largest size:", ""]
    for view, ms in sizes[-1]["queries"]["per_query_p95_ms"].items():
        lines.append(f"- {view}: {ms}")
    return "\n".join(lines) + "\n"
