#!/usr/bin/env python3
"""Writes dashboard.json beside this file: the Grafana dashboard of Arbiter.

Edit the panels here, then run ``python deploy/grafana/render.py``; tests/unit/test_deploy.py
fails when dashboard.json differs from what this prints, or names a metric that
shared/metrics.py or services/gateway/app.py does not define.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).with_name("dashboard.json")
# The dashboard's process filter (game, tournament). Decision latency and handler errors are
# labelled with the core instead (validation, clock, adjudication, penalties, pairing, standings).
SEL = '{service=~"$service"}'
RATE = "$__rate_interval"
QUANTILES = (0.5, 0.95, 0.99)


def quantiles(bucket: str, by: str = "") -> list[tuple[str, str]]:
    """(expr, legend) of p50/p95/p99 of histogram ``bucket`` (``x_bucket`` series), per ``by``."""
    group = f"{by}, le" if by else "le"
    prefix = f"{{{{{by}}}}} " if by else ""
    return [(f"histogram_quantile({q}, sum by ({group}) (rate({bucket}[{RATE}])))", f"{prefix}p{round(q * 100)}")
            for q in QUANTILES]


# Rows of panels: (row title, [(panel title, unit, [(expr, legend)], panel type)]).
ROWS: list[tuple[str, list[tuple[str, str, list[tuple[str, str]], str]]]] = [
    ("Throughput and latency", [
        ("Events in (handled) per service", "ops",
         [(f"sum by (service) (rate(arbiter_messages_handled_total{SEL}[{RATE}]))", "{{service}}")], "timeseries"),
        ("Events out (decisions written) per service", "ops",
         [(f"sum by (service) (rate(arbiter_messages_emitted_total{SEL}[{RATE}]))", "{{service}}")], "timeseries"),
        ("Decision latency per core (validation, clock, ...) p50 / p95 / p99", "s",
         quantiles("arbiter_handle_seconds_bucket", "service"), "timeseries"),
        ("Consume-decide-commit batch p50 / p95 / p99", "s",
         quantiles(f"arbiter_batch_seconds_bucket{SEL}", "service"), "timeseries"),
        ("Handler errors per core and message type", "short",
         [(f"sum by (service, type) (increase(arbiter_handler_errors_total[{RATE}]))",
           "{{service}} {{type}}")], "timeseries"),
        ("Timer commands (CheckClock) published", "ops",
         [(f"sum by (service) (rate(arbiter_timer_commands_total{SEL}[{RATE}]))", "{{service}}")], "timeseries"),
    ]),
    ("Kafka", [
        ("Consumer lag per partition", "short",
         [(f"max by (service, topic, partition) (arbiter_consumer_lag_messages{SEL})",
           "{{service}} {{topic}}/{{partition}}")], "timeseries"),
        ("Rebalances (assignments, revocations)", "short",
         [(f"sum by (service, change) (increase(arbiter_rebalances_total{SEL}[{RATE}]))",
           "{{service}} {{change}}")], "timeseries"),
        ("Assigned partitions per instance", "short",
         [(f"sum by (service, instance) (arbiter_assigned_partitions{SEL})", "{{service}} {{instance}}")],
         "timeseries"),
        ("Transactions committed and aborted", "short",
         [(f"sum by (service) (rate(arbiter_transaction_seconds_count{SEL}[{RATE}]))", "{{service}} commits/s"),
          (f"sum by (service) (increase(arbiter_transaction_aborts_total{SEL}[{RATE}]))",
           "{{service}} aborts")],
         "timeseries"),
    ]),
    ("State and health", [
        ("Ready instances per service", "short",
         [(f"sum by (service) (arbiter_ready{SEL})", "{{service}}")], "stat"),
        ("Restarts (last hour)", "short",
         [(f"sum by (service) (increase(arbiter_restarts_total{SEL}[1h]))", "{{service}}")], "stat"),
        ("Snapshot age", "s",
         [(f"max by (service, instance) (arbiter_snapshot_age_seconds{SEL})", "{{service}} {{instance}}")],
         "timeseries"),
        ("Garbage collector pauses p99 per service and generation", "s",
         [(f"histogram_quantile(0.99, sum by (service, generation, le) "
           f"(rate(arbiter_gc_seconds_bucket{SEL}[{RATE}])))", "{{service}} gen {{generation}}")],
         "timeseries"),
        ("Recovery at the latest assignment", "short",
         [(f"max by (service, instance) (arbiter_recovery_messages{SEL})", "{{service}} {{instance}} messages"),
          (f"max by (service, instance) (arbiter_recovery_seconds{SEL})", "{{service}} {{instance}} seconds")],
         "timeseries"),
    ]),
    ("Gateway", [
        ("Command latency (publish to outcome) p50 / p95 / p99", "s",
         quantiles("arbiter_gateway_command_seconds_bucket"), "timeseries"),
        ("Commands published per type", "ops",
         [(f"sum by (type) (rate(arbiter_gateway_commands_total[{RATE}]))", "{{type}}")], "timeseries"),
        ("Outcomes of waited commands", "ops",
         [(f"sum by (outcome) (rate(arbiter_gateway_outcomes_total[{RATE}]))", "{{outcome}}")], "timeseries"),
        ("HTTP requests refused before publishing", "ops",
         [(f"sum(rate(arbiter_gateway_http_rejections_total[{RATE}]))", "refused")], "timeseries"),
        ("Open SSE streams", "short",
         [("sum(arbiter_gateway_sse_clients)", "clients")], "stat"),
    ]),
]

DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
WIDTH, HEIGHT = 12, 8   # two panels a row on Grafana's 24-column grid


def panel(pid: int, x: int, y: int, title: str, unit: str, targets: list[tuple[str, str]], kind: str) -> dict:
    return {
        "id": pid, "type": kind, "title": title, "datasource": DATASOURCE,
        "gridPos": {"x": x, "y": y, "w": WIDTH, "h": HEIGHT},
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {"legend": {"displayMode": "list", "placement": "bottom"}} if kind == "timeseries" else {},
        "targets": [{"refId": chr(ord("A") + i), "datasource": DATASOURCE, "expr": expr, "legendFormat": legend}
                    for i, (expr, legend) in enumerate(targets)],
    }


def dashboard() -> dict:
    panels, y, pid = [], 0, 1
    for row_title, row_panels in ROWS:
        panels.append({"id": pid, "type": "row", "title": row_title, "collapsed": False,
                       "gridPos": {"x": 0, "y": y, "w": 24, "h": 1}, "panels": []})
        pid, y = pid + 1, y + 1
        for i, spec in enumerate(row_panels):
            panels.append(panel(pid, (i % 2) * WIDTH, y + (i // 2) * HEIGHT, *spec))
            pid += 1
        y += -(-len(row_panels) // 2) * HEIGHT
    return {
        "uid": "arbiter-overview", "title": "Arbiter", "tags": ["arbiter"],
        "schemaVersion": 39, "version": 1, "editable": True,
        "time": {"from": "now-1h", "to": "now"}, "refresh": "30s",
        "templating": {"list": [
            {"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus",
             "current": {"text": "Prometheus", "value": "prometheus"}},
            {"name": "service", "label": "Process", "type": "query", "datasource": DATASOURCE,
             "query": {"query": "label_values(arbiter_messages_handled_total, service)", "refId": "service"},
             "definition": "label_values(arbiter_messages_handled_total, service)",
             "refresh": 2, "includeAll": True, "multi": True, "allValue": ".*",
             "current": {"text": "All", "value": "$__all"}},
        ]},
        "panels": panels,
    }


def render() -> str:
    return json.dumps(dashboard(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    OUT.write_text(render())
    print(f"wrote {OUT}", file=sys.stderr)
