"""The operations files in deploy/ are valid and agree with the code, without a cluster or network:

- every Kubernetes manifest validates against the Kubernetes JSON schemas bundled in
  ``kubernetes-validate`` (strict: an unknown field fails), and the generated ones are current;
- docker-compose.yml runs every process of ``services.runner.PORTS`` from a real module on its port;
- prometheus.yml scrapes every process on its port and loads alerts.yml;
- every ``arbiter_*`` metric that alerts.yml and dashboard.json use is one that shared/metrics.py
  or services/gateway/app.py defines (with the suffixes Prometheus exposes).
"""
from __future__ import annotations

import importlib.util
import json
import re
import runpy
from pathlib import Path

import pytest
import yaml

from services.runner import PORTS

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
K8S_VERSION = "1.33.0"
METRIC = re.compile(r"\barbiter_[a-zA-Z0-9_:]+")


def load(relpath: str):
    return yaml.safe_load((DEPLOY / relpath).read_text())


# ------------------------------------------------------------------------------------ metrics
def defined_metrics() -> set[str]:
    """Series names the Arbiter processes expose: counters as ``x_total``, histograms as
    ``x_bucket`` / ``x_sum`` / ``x_count``, gauges as ``x`` (the registry keeps base names)."""
    import prometheus_client

    import services.gateway.app  # noqa: F401  (registers the arbiter_gateway_* metrics)
    import shared.metrics  # noqa: F401

    suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"),
                "summary": ("", "_sum", "_count"), "gauge": ("",)}
    return {m.name + s for m in prometheus_client.REGISTRY.collect() if m.name.startswith("arbiter_")
            for s in suffixes.get(m.type, ("",))}


def unknown_metrics(text: str) -> set[str]:
    return set(METRIC.findall(text)) - defined_metrics()


def test_the_metric_check_catches_a_name_no_module_defines():
    assert unknown_metrics('sum(rate(arbiter_messages_handled_total[5m])) / arbiter_ready') == set()
    assert unknown_metrics('rate(arbiter_moves_total[5m])') == {"arbiter_moves_total"}
    # a counter is exposed with _total, a histogram only as _bucket/_sum/_count
    assert unknown_metrics('arbiter_messages_handled + arbiter_handle_seconds') == {
        "arbiter_messages_handled", "arbiter_handle_seconds"}


# --------------------------------------------------------------------------------- Kubernetes
def k8s_documents() -> list[tuple[str, dict]]:
    return [(path.name, doc) for path in sorted((DEPLOY / "k8s").glob("*.yaml"))
            for doc in yaml.safe_load_all(path.read_text()) if doc]


def test_every_kubernetes_manifest_validates_against_the_schemas():
    import kubernetes_validate

    docs = k8s_documents()
    for name, doc in docs:
        try:
            kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
        except kubernetes_validate.ValidationError as e:
            pytest.fail(f"{name} {doc['kind']}/{doc['metadata']['name']}: "
                        f"{'.'.join(map(str, e.path))}: {e.message}")
    kinds = {(d["kind"], d["metadata"]["name"]) for _, d in docs}
    assert {("Namespace", "arbiter"), ("ConfigMap", "arbiter-config"), ("Service", "kafka"),
            ("StatefulSet", "kafka")} <= kinds
    assert {("Deployment", n) for n in PORTS} | {("Service", n) for n in PORTS} <= kinds


def test_the_strict_schema_check_rejects_a_misspelt_field():
    import kubernetes_validate

    _, deployment = next(d for d in k8s_documents() if d[1]["kind"] == "Deployment")
    bad = json.loads(json.dumps(deployment))
    bad["spec"]["replica"] = bad["spec"].pop("replicas")
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, K8S_VERSION, strict=True)


def test_each_process_deployment_is_probed_scraped_and_configured_without_a_default_secret():
    docs = [d for _, d in k8s_documents()]
    assert not [d for d in docs if d["kind"] == "Secret"], "the operator creates the Secret"
    deployments = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Deployment"}
    for name, port in PORTS.items():
        pod = deployments[name]["spec"]["template"]
        (c,) = pod["spec"]["containers"]
        assert deployments[name]["spec"]["replicas"] >= 1
        assert c["command"][:3] == ["python", "-m", f"services.{name}"]
        assert c["command"][c["command"].index("--port") + 1] == str(port)
        assert c["ports"] == [{"name": "http", "containerPort": port}]
        assert c["readinessProbe"]["httpGet"]["path"] == "/healthz"
        assert "livenessProbe" in c
        assert pod["metadata"]["annotations"] == {"prometheus.io/scrape": "true",
                                                  "prometheus.io/port": str(port),
                                                  "prometheus.io/path": "/metrics"}
        assert {"configMapRef": {"name": "arbiter-config"}} in c["envFrom"]
    token = deployments["gateway"]["spec"]["template"]["spec"]["containers"][0]["env"]
    assert {"name": "ARBITER_ADMIN_TOKEN",
            "valueFrom": {"secretKeyRef": {"name": "arbiter-admin", "key": "token"}}} in token
    assert {"name": "ARBITER_JWT_SECRET",  # beyond loopback the gateway needs identity on
            "valueFrom": {"secretKeyRef": {"name": "arbiter-identity", "key": "secret"}}} in token
    for d in deployments.values():  # every process seals and checks snapshots with one secret
        assert {"name": "ARBITER_SNAPSHOT_KEY",
                "valueFrom": {"secretKeyRef": {"name": "arbiter-snapshots", "key": "key"}}} in \
            d["spec"]["template"]["spec"]["containers"][0]["env"]
    for name in ("game", "tournament"):  # they sign the checkpoints (beyond loopback: only with it)
        assert {"name": "ARBITER_SIGNING_KEY",
                "valueFrom": {"secretKeyRef": {"name": "arbiter-signing", "key": "key"}}} in \
            deployments[name]["spec"]["template"]["spec"]["containers"][0]["env"]
    assert "ARBITER_SIGNING_KEY" not in str(token)  # the gateway faces the network: no key


# ------------------------------------------------------------------------------ generated files
@pytest.mark.parametrize("script, output", [("k8s/render.py", "k8s/services.yaml"),
                                            ("grafana/render.py", "grafana/dashboard.json")])
def test_generated_files_are_current(script, output):
    render = runpy.run_path(str(DEPLOY / script))["render"]
    assert (DEPLOY / output).read_text() == render(), f"run: python deploy/{script}"


# ------------------------------------------------------------------------------ docker compose
def test_compose_runs_every_process_from_a_real_module_on_its_port():
    compose = load("docker-compose.yml")
    services = compose["services"]
    assert {"kafka", "prometheus", "grafana"} | set(PORTS) == set(services)
    for name, port in PORTS.items():
        svc = services[name]
        cmd = svc["command"].split()
        assert cmd[:3] == ["python", "-m", f"services.{name}"], cmd
        assert importlib.util.find_spec(f"services.{name}.__main__") is not None, f"no module services.{name}"
        assert cmd[cmd.index("--bus") + 1] == "kafka://kafka:9092"
        assert cmd[cmd.index("--host") + 1] == "0.0.0.0"
        assert cmd[cmd.index("--port") + 1] == str(port)
        assert svc["deploy"]["replicas"] >= 1
        assert svc["build"]["dockerfile"] == "deploy/Dockerfile" and svc["depends_on"]["kafka"]
    assert services["game"]["deploy"]["replicas"] > 1
    assert services["gateway"]["environment"]["ARBITER_ADMIN_TOKEN"].startswith("${ARBITER_ADMIN_TOKEN:?")
    assert services["gateway"]["environment"]["ARBITER_JWT_SECRET"].startswith("${ARBITER_JWT_SECRET:?")
    for name in PORTS:
        assert services[name]["environment"]["ARBITER_SNAPSHOT_KEY"].startswith("${ARBITER_SNAPSHOT_KEY:?")
    # the files it mounts exist
    for svc in services.values():
        for volume in svc.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("./"):
                assert (DEPLOY / source).exists(), source
    assert (DEPLOY / services["game"]["build"]["context"] / "pyproject.toml").exists()


# ------------------------------------------------------------------------- Prometheus, Grafana
def test_prometheus_scrapes_every_process_on_its_port_and_loads_the_alerts():
    config = load("prometheus/prometheus.yml")
    scraped = {name: sd["port"] for job in config["scrape_configs"] for sd in job.get("dns_sd_configs", [])
               for name in sd["names"]}
    assert scraped == PORTS
    assert [Path(f).name for f in config["rule_files"]] == ["alerts.yml"]


def test_alert_rules_are_well_formed_and_name_only_defined_metrics():
    rules = [r for group in load("prometheus/alerts.yml")["groups"] for r in group["rules"]]
    for rule in rules:
        assert {"alert", "expr", "labels", "annotations"} <= set(rule), rule
        assert rule["labels"]["severity"] in {"warning", "critical"}
        assert rule["annotations"]["summary"]
    exprs = "\n".join(r["expr"] for r in rules)
    assert unknown_metrics(exprs) == set()
    for metric in ("arbiter_consumer_lag_messages", "arbiter_ready", "arbiter_restarts_total",
                   "arbiter_transaction_aborts_total", "arbiter_snapshot_age_seconds",
                   "arbiter_handler_errors_total", "arbiter_handle_seconds_bucket"):
        assert metric in exprs, f"no alert on {metric}"


def test_dashboard_names_only_defined_metrics_and_shows_the_required_ones():
    text = (DEPLOY / "grafana" / "dashboard.json").read_text()
    dashboard = json.loads(text)
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    assert exprs and all(exprs)
    assert unknown_metrics(text) == set()
    used = set(METRIC.findall(text))
    for metric in ("arbiter_messages_handled_total", "arbiter_messages_emitted_total",
                   "arbiter_handle_seconds_bucket", "arbiter_consumer_lag_messages",
                   "arbiter_rebalances_total", "arbiter_snapshot_age_seconds",
                   "arbiter_transaction_aborts_total", "arbiter_ready", "arbiter_restarts_total",
                   "arbiter_gateway_command_seconds_bucket"):
        assert metric in used, f"dashboard shows no {metric}"


def test_grafana_provisioning_loads_the_dashboard_from_prometheus():
    compose = load("docker-compose.yml")["services"]["grafana"]
    mounts = dict(v.split(":")[:2] for v in compose["volumes"] if v.startswith("./"))
    dashboard_in_container = Path(mounts["./grafana/dashboard.json"])
    (provider,) = load("grafana/provisioning/dashboards/arbiter.yml")["providers"]
    assert Path(provider["options"]["path"]) == dashboard_in_container.parent
    (source,) = load("grafana/provisioning/datasources/prometheus.yml")["datasources"]
    assert source["type"] == "prometheus" and source["url"] == "http://prometheus:9090"
