#!/usr/bin/env python3
"""Writes services.yaml beside this file: a Deployment and a Service for each Arbiter process
(the gateway and the back-end processes), all alike but for name, port and replicas.

Ports come from services/runner.py ``PORTS``. Edit here, then run ``python deploy/k8s/render.py``;
tests/unit/test_deploy.py fails when services.yaml differs from what this prints.
"""
from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from services.runner import PORTS  # noqa: E402

OUT = Path(__file__).with_name("services.yaml")
NAMESPACE = "arbiter"
IMAGE = "arbiter:0.1.0"          # deploy/Dockerfile; push it where the cluster pulls from
# Instances per process. Those of game and tournament share its partitions (one consumer group);
# each gateway reads every partition into its own read models and writes its own command streams.
# The webhooks process runs alone (it owns no partitions: two would deliver everything twice).
REPLICAS = {"gateway": 2, "game": 3, "tournament": 2, "webhooks": 1}
ADMIN_TOKEN = {"name": "ARBITER_ADMIN_TOKEN",   # Secret created by the operator (config.yaml)
               "valueFrom": {"secretKeyRef": {"name": "arbiter-admin", "key": "token"}}}
JWT_SECRET = {"name": "ARBITER_JWT_SECRET",  # gateway: identity on (required beyond loopback)
              "valueFrom": {"secretKeyRef": {"name": "arbiter-identity", "key": "secret"}}}
SNAPSHOT_KEY = {"name": "ARBITER_SNAPSHOT_KEY",  # every process: snapshots are sealed with it
                "valueFrom": {"secretKeyRef": {"name": "arbiter-snapshots", "key": "key"}}}
SIGNING_KEY = {"name": "ARBITER_SIGNING_KEY",  # game, tournament: they sign the log's checkpoints
               "valueFrom": {"secretKeyRef": {"name": "arbiter-signing", "key": "key"}}}
WEBHOOK_KEY = {"name": "ARBITER_WEBHOOK_KEY",  # gateway, webhooks: the subscriptions' secrets
               "valueFrom": {"secretKeyRef": {"name": "arbiter-webhooks", "key": "key"}}}
#: The secrets each process is given (the gateway faces the network: no signing key).
ENV = {"gateway": [ADMIN_TOKEN, JWT_SECRET, SNAPSHOT_KEY, WEBHOOK_KEY], "webhooks": [SNAPSHOT_KEY, WEBHOOK_KEY]}


def labels(name: str) -> dict:
    return {"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "arbiter"}


def probe(path: str, period: int, failures: int) -> dict:
    return {"httpGet": {"path": path, "port": "http"}, "periodSeconds": period, "timeoutSeconds": 3,
            "failureThreshold": failures}


def deployment(name: str, port: int) -> dict:
    container = {
        "name": name,
        "image": IMAGE,
        "command": ["python", "-m", f"services.{name}", "--bus", "$(ARBITER_BUS)",
                    "--host", "0.0.0.0", "--port", str(port)],
        "envFrom": [{"configMapRef": {"name": "arbiter-config"}}],
        "env": ENV.get(name, [SNAPSHOT_KEY, SIGNING_KEY]),
        "ports": [{"name": "http", "containerPort": port}],
        # Started and alive: the HTTP server answers. /metrics is 200 whether or not the instance
        # is ready, so restoring partitions (at start or after a rebalance) never gets a pod killed.
        "startupProbe": probe("/metrics", 2, 30),
        "livenessProbe": probe("/metrics", 10, 6),
        # Ready: /healthz is 200 once every partition it owns is restored, 503 before.
        "readinessProbe": probe("/healthz", 5, 2),
        "resources": {"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"memory": "1Gi"}},
        "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                            "capabilities": {"drop": ["ALL"]}},
        "volumeMounts": [{"name": "tmp", "mountPath": "/tmp"}],
    }
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": labels(name)},
        "spec": {
            "replicas": REPLICAS[name],
            **({"strategy": {"type": "Recreate"}} if REPLICAS[name] == 1 else {}),
            "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "template": {
                "metadata": {"labels": labels(name),
                             "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": str(port),
                                             "prometheus.io/path": "/metrics"}},
                "spec": {
                    "enableServiceLinks": False,
                    "terminationGracePeriodSeconds": 30,
                    "securityContext": {"runAsNonRoot": True, "runAsUser": 10001,
                                        "seccompProfile": {"type": "RuntimeDefault"}},
                    "containers": [container],
                    "volumes": [{"name": "tmp", "emptyDir": {}}],
                },
            },
        },
    }


def service(name: str, port: int) -> dict:
    return {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": labels(name)},
        "spec": {"selector": {"app.kubernetes.io/name": name},
                 "ports": [{"name": "http", "port": port, "targetPort": "http"}]},
    }


def render() -> str:
    if missing := set(PORTS) - set(REPLICAS):
        raise SystemExit(f"deploy/k8s/render.py: set REPLICAS for {sorted(missing)}")
    docs = [d for name, port in PORTS.items() for d in (deployment(name, port), service(name, port))]
    return ("# Generated by deploy/k8s/render.py (ports: services/runner.py PORTS); edit that, not this.\n"
            + yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=None, width=110))


if __name__ == "__main__":
    OUT.write_text(render())
    print(f"wrote {OUT}", file=sys.stderr)
