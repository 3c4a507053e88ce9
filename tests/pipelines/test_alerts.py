"""Alert recording and delivery: stable keys, at-least-once delivery, never twice."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from datetime import date
from http.server import BaseHTTPRequestHandler, HTTPServer

import duckdb
import pytest

from pipelines import alerts

CANDIDATES = """
create schema marts;
create table marts.fct_alert_candidates as select * from (values
  ('chat-70b|2026-03-13|nvidia-h100-sxm-80gb', 'rank_change', 'chat-70b', date '2026-03-13',
   date '2026-03-10', 'nvidia-b200-sxm-180gb', 'nebius', 'b200x8', 0.000400, 'estimated',
   'nvidia-h100-sxm-80gb', 'lambda', 'gpu_1x_h100_sxm5', 0.000380, 'measured', 'request',
   -0.05, 'price_change', null, null, null),
  ('chat-8b|2026-03-13|dq|skypilot', 'data_quality', 'chat-8b', date '2026-03-13',
   date '2026-03-10', 'nvidia-a40-48gb', 'lambda', 'gpu_1x_a40', 0.0001, 'estimated',
   null, null, null, null, null, 'request', null, 'vanished_offer', 'skypilot', 33, null),
  ('chat-8b|2026-01-01|old', 'rank_change', 'chat-8b', date '2026-01-01', date '2025-12-31',
   'a', 'p', 'o', 1.0, 'estimated', 'b', 'p', 'o', 0.999, 'estimated', 'request', -0.001,
   'price_change', null, null, null)
) as t(alert_key, alert_kind, workload_class, day, prev_day, old_gpu_id, old_provider,
       old_offer_id, old_cost_per_accepted_output, old_evidence, new_gpu_id, new_provider,
       new_offer_id, new_cost_per_accepted_output, new_evidence, output_unit, change_pct, cause,
       source, days_down, failure_reason);
"""


@pytest.fixture
def con(tmp_path):
    c = duckdb.connect(str(tmp_path / "w.duckdb"))
    c.execute(CANDIDATES)
    yield c
    c.close()


class Hook(BaseHTTPRequestHandler):
    script: list[int] = []
    received: list[tuple[int, dict, dict]] = []

    def do_POST(self):  # noqa: N802
        body = self.rfile.read(int(self.headers["Content-Length"]))
        status = Hook.script.pop(0) if Hook.script else 200
        Hook.received.append((status, json.loads(body), dict(self.headers)))
        self.send_response(status)
        self.end_headers()
        self.wfile.write(b"ok" if status == 200 else b"busy")

    def log_message(self, *args):
        pass


@pytest.fixture
def hook():
    Hook.script, Hook.received = [], []
    server = HTTPServer(("127.0.0.1", 0), Hook)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()


def test_alerts_are_recorded_once_with_their_message_and_window(con):
    assert alerts.sync(con, date(2026, 3, 14), start=date(2026, 3, 1)) == 2
    assert alerts.sync(con, date(2026, 3, 14), start=date(2026, 3, 1)) == 0  # same days again
    rows = dict(con.execute("select alert_key, message from ops.alerts").fetchall())
    assert set(rows) == {
        "chat-70b|2026-03-13|nvidia-h100-sxm-80gb",
        "chat-8b|2026-03-13|dq|skypilot",
    }
    change = rows["chat-70b|2026-03-13|nvidia-h100-sxm-80gb"]
    # 0.000380 USD per request, said in a unit that fits its size
    assert (
        "cheapest GPU is now nvidia-h100-sxm-80gb (lambda gpu_1x_h100_sxm5, 0.38 USD per 1,000 "
        "requests" in change
    )
    assert "(nebius b200x8, 0.4 on 2026-03-10)" in change
    assert "was nvidia-b200-sxm-180gb" in change and "change -5.0 %" in change
    assert "cause price_change" in change and "measured" in change
    dq = rows["chat-8b|2026-03-13|dq|skypilot"]
    assert "source skypilot down for 33 days; leader for class chat-8b unknown" in dq


def test_a_change_on_a_thin_day_says_so_in_its_text_and_payload(con):
    """fct_alert_candidates carries the day's coverage (fct_coverage_daily): a leader change on a
    day when 1 of 6 recent providers had fresh prices is flagged, one on a covered day is not."""
    con.execute(
        """alter table marts.fct_alert_candidates add column providers_fresh bigint;
           alter table marts.fct_alert_candidates add column providers_recent bigint;
           alter table marts.fct_alert_candidates add column is_low_coverage boolean;
           update marts.fct_alert_candidates set providers_fresh = 1, providers_recent = 6,
               is_low_coverage = true where workload_class = 'chat-70b';
           update marts.fct_alert_candidates set providers_fresh = 5, providers_recent = 6,
               is_low_coverage = false where workload_class = 'chat-8b';"""
    )
    alerts.sync(con, date(2026, 3, 14), start=date(2025, 12, 1))
    got = {
        k: (m, json.loads(p))
        for k, m, p in con.execute("select alert_key, message, payload from ops.alerts").fetchall()
    }
    thin, payload = got["chat-70b|2026-03-13|nvidia-h100-sxm-80gb"]
    assert thin.endswith("; LOW COVERAGE that day: 1 of 6 recent providers fresh")
    coverage = [payload[k] for k in ("is_low_coverage", "providers_fresh", "providers_recent")]
    assert coverage == [True, 1, 6]
    covered, payload = got["chat-8b|2026-01-01|old"]
    assert "LOW COVERAGE" not in covered and payload["is_low_coverage"] is False


def test_near_ties_are_marked_marginal(con):
    alerts.sync(con, date(2026, 3, 14), start=date(2025, 12, 1), min_change_pct=1.0)
    marginal = dict(con.execute("select alert_key, is_marginal from ops.alerts").fetchall())
    assert marginal["chat-8b|2026-01-01|old"] is True  # -0.1 %
    assert marginal["chat-70b|2026-03-13|nvidia-h100-sxm-80gb"] is False  # -5 %


def test_webhook_that_fails_first_gets_each_alert_exactly_once_in_the_end(con, hook):
    alerts.sync(con, date(2026, 3, 14), start=date(2026, 3, 1))
    url = f"http://127.0.0.1:{hook.server_port}/hook"
    sink = alerts.WebhookSink(url, secret="s3cret", timeout_s=5, retries=2, backoff_s=0.01)
    Hook.script = [500, 503, 500, 500]  # run 1: both alerts fail twice; run 2: 200s
    first = alerts.deliver(con, [sink])
    assert first == {"webhook": {"delivered": 0, "failed": 2}}
    second = alerts.deliver(con, [sink])
    assert second == {"webhook": {"delivered": 2, "failed": 0}}
    third = alerts.deliver(con, [sink])
    assert third == {"webhook": {"delivered": 0, "failed": 0}}  # never twice
    accepted = [body["alert"]["alert_key"] for status, body, _ in Hook.received if status == 200]
    assert sorted(accepted) == sorted(
        ["chat-70b|2026-03-13|nvidia-h100-sxm-80gb", "chat-8b|2026-03-13|dq|skypilot"]
    )
    status, body, headers = Hook.received[-1]
    assert body["text"].startswith("[chat-")  # Slack-compatible body
    expected = hmac.new(b"s3cret", json.dumps(body).encode(), hashlib.sha256).hexdigest()
    assert headers["X-Gpuledger-Signature"] == f"sha256={expected}"


def test_webhook_down_for_good_leaves_alerts_pending_not_lost(con, tmp_path):
    alerts.sync(con, date(2026, 3, 14), start=date(2026, 3, 1))
    down = alerts.WebhookSink("http://127.0.0.1:9/hook", timeout_s=1, retries=2, backoff_s=0.01)
    jsonl = alerts.JsonlSink(tmp_path / "alerts.jsonl")
    for _ in range(2):
        counts = alerts.deliver(con, [down, jsonl])
        assert counts["webhook"]["failed"] == 2
    assert [json.loads(line)["alert_key"] for line in (tmp_path / "alerts.jsonl").open()] == [
        "chat-70b|2026-03-13|nvidia-h100-sxm-80gb", "chat-8b|2026-03-13|dq|skypilot"
    ]  # fmt: skip
    con.close()
    listed = alerts.list_alerts(tmp_path / "w.duckdb")
    assert {r["delivered_to"] for r in listed} == {"jsonl"}
    assert {r["failed_attempts"] for r in listed} == {2}
    assert all("ConnectionError" in r["last_error"] for r in listed)


def test_sinks_come_from_the_environment(monkeypatch, tmp_path):
    import logging

    monkeypatch.setenv("GPULEDGER_ALERT_SINKS", "log,jsonl,webhook")
    monkeypatch.setenv("GPULEDGER_ALERT_WEBHOOK_URL", "https://hooks.example/x")
    sinks = alerts.configured_sinks(tmp_path, logging.getLogger("t"))
    assert [s.name for s in sinks] == ["log", "jsonl", "webhook"]
    assert sinks[1].path == tmp_path / "alerts.jsonl"
    monkeypatch.delenv("GPULEDGER_ALERT_WEBHOOK_URL")
    with pytest.raises(ValueError, match="GPULEDGER_ALERT_WEBHOOK_URL"):
        alerts.configured_sinks(tmp_path, logging.getLogger("t"))


def messages_with(con, column: str, chat70b: str, old: str) -> dict[str, str]:
    """The alerts' messages once the candidates carry `column` (a name and type), set to
    `chat70b` on chat-70b's change and to `old` on chat-8b's old one."""
    name = column.split()[0]
    con.execute(
        f"""alter table marts.fct_alert_candidates add column {column};
            update marts.fct_alert_candidates set {name} = {chat70b}
                where workload_class = 'chat-70b';
            update marts.fct_alert_candidates set {name} = {old}
                where alert_key = 'chat-8b|2026-01-01|old';"""
    )
    alerts.sync(con, date(2026, 3, 14), start=date(2025, 12, 1))
    return dict(con.execute("select alert_key, message from ops.alerts").fetchall())


def test_a_change_within_the_evidences_uncertainty_says_so(con):
    """fct_alert_candidates carries is_within_uncertainty (fct_rank_changes: the old and new
    leader's p10-p90 costs overlap, or one has no interval): such a change says it may not be
    real, and does not claim two intervals where an uncalibrated estimate has none (the demo's
    lora-finetune-8b alert of 2026-08-20 did); one whose intervals are apart says nothing."""
    got = messages_with(con, "is_within_uncertainty boolean", "true", "false")
    assert got["chat-70b|2026-03-13|nvidia-h100-sxm-80gb"].endswith(
        "; WITHIN THE EVIDENCE'S UNCERTAINTY: the old and new leader's p10-p90 costs overlap "
        "(or one has no interval: an uncalibrated estimate), so the change may not be real"
    )
    assert "UNCERTAINTY" not in got["chat-8b|2026-01-01|old"]


def test_a_new_leader_whose_latency_was_not_checked_says_so(con):
    """fct_alert_candidates carries the new leader's slo_status (fct_rank_changes): a class with a
    latency target whose new leader no run could check says so; one with no target, or a leader
    checked against it, says nothing; an estimate says it is one."""
    got = messages_with(con, "new_slo_status varchar", "'unknown'", "'none'")
    assert got["chat-70b|2026-03-13|nvidia-h100-sxm-80gb"].endswith(
        "; SLO UNCHECKED: no run near the class reports the new leader's latency, so nothing "
        "shows it meets the class's latency target"
    )
    assert "SLO" not in got["chat-8b|2026-01-01|old"]
    payload = con.execute(
        "select payload from ops.alerts where workload_class = 'chat-70b'"
    ).fetchall()[0][0]
    assert json.loads(payload)["new_slo_status"] == "unknown"  # what the webhook and file carry
    con.execute("update marts.fct_alert_candidates set new_slo_status = 'estimated_met'")
    cur = con.execute("select * from marts.fct_alert_candidates where workload_class = 'chat-70b'")
    candidate = dict(zip([d[0] for d in cur.description], cur.fetchall()[0], strict=True))
    estimated = alerts.message_of(candidate)
    assert estimated.endswith("; the new leader meets the class's latency target by estimate only")
