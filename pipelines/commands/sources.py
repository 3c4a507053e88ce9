"""Commands about the sources: `parse` a captured file, the configured price pages (`providers`),
and `import-snapshot` of a captured page into the archive."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path


def _parse_ts(text: str) -> datetime:
    ts = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return ts if ts.tzinfo else ts.replace(tzinfo=UTC)


def _source_module(name: str):
    import sources

    if name not in sources.REGISTRY:
        raise SystemExit(
            f"gpuledger: unknown source {name!r}; known: {', '.join(sources.REGISTRY)}"
        )
    return sources.REGISTRY[name]


def _page_source(provider: str | None):
    """`--source price_page --provider NAME`: the provider's configured entry, or the automatic
    reading alone for a provider not configured yet."""
    from sources import price_page

    if not provider:
        raise SystemExit("gpuledger: --source price_page needs --provider NAME")
    entries, _ = price_page.load()
    try:
        entry = entries.get(provider) or price_page.automatic(provider)
    except price_page.ConfigError as exc:
        raise SystemExit(f"gpuledger: {exc}") from exc
    return price_page.PricePageSource(entry)


def cmd_parse(args: argparse.Namespace) -> int:
    from sources._internal.records import ParseError

    if args.source == "price_page":
        module = _page_source(args.provider)
    else:
        module = _source_module(args.source)
    path = Path(args.file)
    try:
        content = path.read_bytes()
    except OSError as exc:
        print(f"gpuledger parse: {path}: cannot read: {exc.strerror}", file=sys.stderr)
        return 2
    fetched_at = _parse_ts(args.fetched_at) if args.fetched_at else datetime.now(UTC)
    try:
        result = module.parse(content, args.url, fetched_at)
    except ParseError as exc:
        print(f"gpuledger parse: {path}: {exc}", file=sys.stderr)
        return 1
    out = sys.stdout
    for record in result.records:  # price observations, with exactly the record's fields
        out.write(json.dumps(record.as_dict(), default=lambda v: v.isoformat()) + "\n")
    # Spec rows, reference rates and API prices say which kind of record they are.
    for kind, items in (
        ("gpu_spec", result.specs),
        ("fx_rate", result.rates),
        ("api_price", result.api_prices),
        ("benchmark_run", result.benchmark_runs),
    ):
        for item in items:
            row = {"record": kind, **item.as_dict()}
            out.write(json.dumps(row, default=lambda v: v.isoformat()) + "\n")
    for err in result.row_errors:
        print(
            f"gpuledger parse: {path}: {err.row_ref}: field {err.field!r}: {err.reason} "
            "(row rejected)",
            file=sys.stderr,
        )
    return 0


def cmd_providers(args: argparse.Namespace) -> int:
    from sources import price_page
    from sources._internal.records import ParseError

    path = price_page.config_path()
    if args.action != "add":
        entries, errors = price_page.load(path)
        print(f"{path}: {len(entries)} providers")
        for entry in entries.values():
            variable = f"GPULEDGER_{entry.name.upper()}_URLS"
            urls = ", ".join(entry.urls) or f"(no URL: {variable} or imported captures)"
            print(f"  {entry.name}: {entry.description}; {urls}")
        for error in errors:
            print(f"  LEFT OUT {error}")
        return 1 if errors else 0
    body: dict = {"description": args.description or f"{args.name}'s GPU price page"}
    body["urls"] = list(args.url)
    for key in ("pricing_model", "price_basis", "currency"):
        if getattr(args, key):
            body[key] = getattr(args, key)
    for key, given in (("selectors", args.selector), ("pricing_words", args.pricing_word)):
        pairs = {}
        for item in given or []:
            words, sep, value = item.partition("=")
            if not sep or not words.strip() or not value.strip():
                print(f"gpuledger providers add: --{key.replace('_', '-')[:-1]} {item!r}: "
                      "must be NAME=VALUE", file=sys.stderr)  # fmt: skip
                return 2
            pairs[words.strip()] = value.strip()
        if pairs:
            body[key] = pairs
    content = None
    if args.from_capture:
        try:
            content = Path(args.from_capture).read_bytes()
        except OSError as exc:
            print(f"gpuledger providers add: {args.from_capture}: cannot read: {exc.strerror}",
                  file=sys.stderr)  # fmt: skip
            return 2
    try:
        entry = price_page.check_entry(args.name, body, str(path))
        result = None
        if content is not None:  # read before writing: a page nothing can be read from is no entry
            result = price_page.parse_with(entry, content, args.url[0], datetime.now(UTC))
        price_page.add(args.name, body, path)
    except price_page.ConfigError as exc:
        print(f"gpuledger providers add: {exc}", file=sys.stderr)
        return 2
    except ParseError as exc:
        print(f"gpuledger providers add: {args.from_capture}: {exc}; nothing written",
              file=sys.stderr)  # fmt: skip
        return 1
    print(f"added {args.name} to {path}")
    if result is not None:
        print(f"{args.from_capture}: {len(result.records)} prices, {len(result.row_errors)} rows "
              "rejected")  # fmt: skip
        for r in result.records:
            mark = " (from)" if r.price_qualifier else ""
            print(f"  {r.offer_id}: {r.gpu_count} x {r.gpu_name_raw}, {r.pricing_model}, "
                  f"{r.price_per_hour:g} {r.currency}/h{mark}")  # fmt: skip
        for e in result.row_errors:
            print(f"  rejected {e.row_ref}: field {e.field!r}: {e.reason}")
    print("restart the Dagster code location (or the next refresh) to fetch it daily")
    return 0


def cmd_import_snapshot(args: argparse.Namespace) -> int:
    from sources._internal.archive import Archive
    from warehouse.paths import prepare_environment

    module = _source_module(args.source)
    paths = prepare_environment()
    path = Path(args.file)
    try:
        content = path.read_bytes()
    except OSError as exc:
        print(f"gpuledger import-snapshot: {path}: cannot read: {exc.strerror}", file=sys.stderr)
        return 2
    snap = Archive(paths.archive_dir).put(
        module.NAME,
        args.url,
        _parse_ts(args.fetched_at),
        content,
        200,
        args.content_type or "",
        origin="import",
    )
    print(
        f"archived {path} as {snap.sha256} ({snap.size_bytes} bytes) for {snap.source} "
        f"{snap.url} @ {snap.fetched_at}; `gpuledger refresh --offline` loads it"
    )
    return 0
