"""Alerts: recorded once by a stable key, delivered at least once to every configured sink.

Candidates come from marts.fct_alert_candidates (rank changes and data-quality alerts). A run
records the new ones in ops.alerts (the first record of a key stands: rebuilding history never
re-raises an alert), then offers every alert that a sink has not yet accepted to that sink; every
attempt is a row in ops.alert_deliveries. A failed delivery stays pending and is retried on the
next run; a delivered alert is never sent to that sink again.

Sinks (GPULEDGER_ALERT_SINKS, comma separated, default "log,jsonl"):
- log: one line per alert in the run's log;
- jsonl: one JSON object per line appended to GPULEDGER_ALERT_JSONL
  (default $GPULEDGER_HOME/alerts.jsonl);
- webhook: a Slack-compatible JSON body ({"text": ..., "alert": {...}}) POSTed to
  GPULEDGER_ALERT_WEBHOOK_URL; with GPULEDGER_ALERT_WEBHOOK_SECRET the body is signed
  (X-Gpuledger-Signature: sha256=<HMAC of the body>); timeout GPULEDGER_ALERT_WEBHOOK_TIMEOUT_S
  (10), GPULEDGER_ALERT_WEBHOOK_RETRIES (3) attempts with exponential backoff starting at
  GPULEDGER_ALERT_WEBHOOK_BACKOFF_S (1.0).

GPULEDGER_ALERT_MIN_CHANGE_PCT (default 0) marks rank changes whose cost moved less than that many
percent as marginal (`is_marginal`), so near-ties can be filtered; they are recorded and sent
like the others, flagged. GPULEDGER_ALERT_LOOKBACK_DAYS (default 7) limits new alerts to the last
days before the as-of day, so a first run on years of history does not page anyone for all of it
(a backfill passes its own window).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import requests

from warehouse.units import cost_scale, money

OPS_DDL = """
create schema if not exists ops;
create table if not exists ops.alerts (
    alert_key        varchar primary key,
    alert_kind       varchar not null,
    workload_class   varchar,
    day              date not null,
    is_marginal      boolean not null,
    message          varchar not null,
    payload          varchar not null,
    created_at       timestamptz not null
);
create table if not exists ops.alert_deliveries (
    alert_key      varchar not null,
    sink           varchar not null,
    attempted_at   timestamptz not null,
    status         varchar not null,
    error          varchar,
    primary key (alert_key, sink, attempted_at)
);
"""


def ensure_ops_schema(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(OPS_DDL)


def _times(value: float | None, factor: int) -> float | None:
    return None if value is None else value * factor


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:+.1f} %"


def message_of(a: dict[str, Any]) -> str:
    """The alert as one line a person can act on."""
    unit = a.get("output_unit") or "output"
    if a["alert_kind"] == "rank_change":
        factor, label = cost_scale(
            [a["new_cost_per_accepted_output"], a["old_cost_per_accepted_output"]], unit
        )
        text = (
            f"[{a['workload_class']}] {a['day']}: cheapest GPU is now {a['new_gpu_id']} "
            f"({a['new_provider']} {a['new_offer_id']}, "
            f"{money(a['new_cost_per_accepted_output'] * factor)} {label}, "
            f"{a['new_evidence']}), was {a['old_gpu_id']} ({a['old_provider']} "
            f"{a['old_offer_id']}, {money(_times(a['old_cost_per_accepted_output'], factor))} "
            f"on {a['prev_day']}); change {_pct(a['change_pct'])}; cause {a['cause']}"
        )
        if a.get("is_within_uncertainty"):
            # fct_rank_changes: the two leaders' p10-p90 costs overlap, or one has none (an
            # uncalibrated estimate): nothing shows the change to be real
            text += (
                "; WITHIN THE EVIDENCE'S UNCERTAINTY: the old and new leader's p10-p90 costs "
                "overlap (or one has no interval: an uncalibrated estimate), so the change may "
                "not be real"
            )
        if a.get("new_slo_status") == "unknown":  # the class has a latency target
            text += (
                "; SLO UNCHECKED: no run near the class reports the new leader's latency, so "
                "nothing shows it meets the class's latency target"
            )
        elif a.get("new_slo_status") == "estimated_met":
            text += "; the new leader meets the class's latency target by estimate only"
        if a.get("is_low_coverage"):  # few providers priced that day: the change may not hold
            text += (
                f"; LOW COVERAGE that day: {a.get('providers_fresh') or 0} of "
                f"{a.get('providers_recent') or 0} recent providers fresh"
            )
        return text
    if a["cause"] == "capture_failed":
        return (
            f"[{a['workload_class']}] {a['day']}: data quality: today's capture of source "
            f"{a['source']} failed its checks ({a['failure_reason']}); the leader "
            f"{a['old_gpu_id']} ({a['old_provider']}) rests on its capture from "
            f"{a['days_down']} day(s) ago"
        )
    return (
        f"[{a['workload_class']}] {a['day']}: data quality: source {a['source']} down for "
        f"{a['days_down']} days; leader for class {a['workload_class']} unknown (was "
        f"{a['old_gpu_id']} from {a['old_provider']}); not a ranking change"
    )


def sync(
    con: duckdb.DuckDBPyConnection,
    as_of: date,
    start: date | None = None,
    min_change_pct: float | None = None,
) -> int:
    """Record the candidates of [start, as_of] not recorded yet. Returns how many are new."""
    ensure_ops_schema(con)
    if min_change_pct is None:
        min_change_pct = float(os.environ.get("GPULEDGER_ALERT_MIN_CHANGE_PCT", "0"))
    if start is None:
        start = as_of - timedelta(days=int(os.environ.get("GPULEDGER_ALERT_LOOKBACK_DAYS", "7")))
    cur = con.execute(
        """select * from marts.fct_alert_candidates
           where day between ? and ?
             and alert_key not in (select alert_key from ops.alerts)
           order by day, workload_class, alert_key""",
        [start, as_of],
    )
    cols = [d[0] for d in cur.description]
    candidates = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    now = datetime.now(UTC)
    for a in candidates:
        marginal = (
            a["alert_kind"] == "rank_change"
            and a["change_pct"] is not None
            and abs(a["change_pct"]) * 100 < min_change_pct
        )
        payload = {k: (v.isoformat() if isinstance(v, date) else v) for k, v in a.items()}
        payload["is_marginal"] = marginal
        con.execute(
            "insert or ignore into ops.alerts values (?,?,?,?,?,?,?,?)",
            [a["alert_key"], a["alert_kind"], a["workload_class"], a["day"], marginal,
             message_of(a), json.dumps(payload, default=str), now],
        )  # fmt: skip
    return len(candidates)


# --- sinks ------------------------------------------------------------------------------


class DeliveryError(Exception):
    pass


@dataclass
class LogSink:
    log: Any
    name: str = "log"

    def send(self, alert: dict) -> None:
        self.log.warning(f"ALERT {alert['message']}")


@dataclass
class JsonlSink:
    path: Path
    name: str = "jsonl"

    def send(self, alert: dict) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(
                json.dumps(json.loads(alert["payload"]) | {"message": alert["message"]}) + "\n"
            )
            fh.flush()
            os.fsync(fh.fileno())


@dataclass
class WebhookSink:
    url: str
    secret: str | None = None
    timeout_s: float = 10.0
    retries: int = 3
    backoff_s: float = 1.0
    name: str = "webhook"

    def send(self, alert: dict) -> None:
        body = json.dumps(
            {"text": alert["message"], "alert": json.loads(alert["payload"])}
        ).encode()
        headers = {"Content-Type": "application/json", "User-Agent": "gpuledger-alerts"}
        if self.secret:
            digest = hmac.new(self.secret.encode(), body, hashlib.sha256).hexdigest()
            headers["X-Gpuledger-Signature"] = f"sha256={digest}"
        last = ""
        for attempt in range(max(1, self.retries)):
            if attempt:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
                response = requests.post(
                    self.url, data=body, headers=headers, timeout=self.timeout_s
                )
            except requests.RequestException as exc:
                last = f"{type(exc).__name__}: {exc}"
                continue
            if 200 <= response.status_code < 300:
                return
            last = f"HTTP {response.status_code}: {response.text[:200]}"
            if 400 <= response.status_code < 500 and response.status_code != 429:
                break  # the receiver refuses this alert: retrying the same body will not help
        raise DeliveryError(f"webhook {self.url}: {last}")


def configured_sinks(home: Path, log) -> list:
    names = [n.strip() for n in os.environ.get("GPULEDGER_ALERT_SINKS", "log,jsonl").split(",")]
    sinks = []
    for name in filter(None, names):
        if name == "log":
            sinks.append(LogSink(log))
        elif name == "jsonl":
            path = os.environ.get("GPULEDGER_ALERT_JSONL") or str(home / "alerts.jsonl")
            sinks.append(JsonlSink(Path(path)))
        elif name == "webhook":
            url = os.environ.get("GPULEDGER_ALERT_WEBHOOK_URL")
            if not url:
                raise ValueError(
                    "GPULEDGER_ALERT_SINKS names webhook but GPULEDGER_ALERT_WEBHOOK_URL is empty"
                )
            sinks.append(
                WebhookSink(
                    url,
                    os.environ.get("GPULEDGER_ALERT_WEBHOOK_SECRET") or None,
                    float(os.environ.get("GPULEDGER_ALERT_WEBHOOK_TIMEOUT_S", "10")),
                    int(os.environ.get("GPULEDGER_ALERT_WEBHOOK_RETRIES", "3")),
                    float(os.environ.get("GPULEDGER_ALERT_WEBHOOK_BACKOFF_S", "1.0")),
                )
            )
        else:
            raise ValueError(f"unknown alert sink {name!r} in GPULEDGER_ALERT_SINKS")
    return sinks


def deliver(con: duckdb.DuckDBPyConnection, sinks: list) -> dict[str, dict[str, int]]:
    """Offer every alert a sink has not accepted yet; record each attempt. Returns counts."""
    ensure_ops_schema(con)
    counts: dict[str, dict[str, int]] = {}
    for sink in sinks:
        cur = con.execute(
            """select alert_key, message, payload from ops.alerts
               where alert_key not in (select alert_key from ops.alert_deliveries
                                       where sink = ? and status = 'delivered')
               order by day, alert_key""",
            [sink.name],
        )
        pending = [
            dict(zip(("alert_key", "message", "payload"), r, strict=True)) for r in cur.fetchall()
        ]
        tally = counts.setdefault(sink.name, {"delivered": 0, "failed": 0})
        for alert in pending:
            try:
                sink.send(alert)
                status, error = "delivered", None
            except (DeliveryError, OSError) as exc:
                status, error = "failed", str(exc)
            tally[status] += 1
            con.execute(
                "insert into ops.alert_deliveries values (?,?,?,?,?)",
                [alert["alert_key"], sink.name, datetime.now(UTC), status, error],
            )
    return counts


def record_operational(
    con: duckdb.DuckDBPyConnection, key: str, message: str, payload: dict
) -> None:
    """An alert about gpuledger itself (a failed run), delivered like the others."""
    ensure_ops_schema(con)
    con.execute(
        "insert or ignore into ops.alerts values (?,?,?,?,?,?,?,?)",
        [key, "operational", None, datetime.now(UTC).date(), False, message,
         json.dumps(payload, default=str), datetime.now(UTC)],
    )  # fmt: skip


def run_alerts(
    db_path: Path,
    home: Path,
    as_of: date,
    log=None,
    start: date | None = None,
    deliver_now: bool = True,
):
    """Record new alerts and (unless told not to) deliver pending ones. The caller is the only
    writer of the warehouse."""
    log = log or logging.getLogger("gpuledger.alerts")
    con = duckdb.connect(str(db_path))
    try:
        new = sync(con, as_of, start)
        counts = deliver(con, configured_sinks(home, log)) if deliver_now else {}
    finally:
        con.close()
    return new, counts


def list_alerts(db_path: Path, since: date | None = None) -> list[dict]:
    """Alerts with their delivery state, read-only (the CLI passes the published copy)."""
    if not db_path.exists():
        return []
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        tables = {
            r[0]
            for r in con.execute(
                "select table_name from information_schema.tables where table_schema = 'ops'"
            ).fetchall()
        }
        if "alerts" not in tables:
            return []
        cur = con.execute(
            """select a.alert_key, a.alert_kind, a.workload_class, a.day, a.is_marginal, a.message,
                      coalesce(string_agg(distinct d.sink, ',' order by d.sink)
                               filter (where d.status = 'delivered'), '') as delivered_to,
                      count(d.*) filter (where d.status = 'failed') as failed_attempts,
                      max(d.error) filter (where d.status = 'failed') as last_error
               from ops.alerts as a
               left join ops.alert_deliveries as d using (alert_key)
               where ? is null or a.day >= ?
               group by all
               order by a.day, a.alert_key""",
            [since, since],
        )
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    finally:
        con.close()
