"""Retain: member-owned fields survive the execution controller's updates."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.interpreter import InterpreterError, retain
from tests.unit.interpreter.samples import web_deployment


def _service(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": spec,
    }


def test_service_keeps_the_cluster_ips_node_ports_and_health_check_port_the_member_allocated() -> None:
    """Allocated addresses and ports are immutable in the member, so the update must carry them."""
    desired = _service(
        type="LoadBalancer",
        ports=[
            {"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080},
            {"name": "admin", "port": 9000, "protocol": "TCP", "nodePort": 31000},
            {"name": "metrics", "port": 9100},
        ],
    )
    observed = _service(
        type="LoadBalancer",
        clusterIP="10.96.4.7",
        clusterIPs=["10.96.4.7", "fd00::7"],
        healthCheckNodePort=32100,
        ports=[
            {"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080, "nodePort": 30080},
            {"name": "admin", "port": 9000, "protocol": "TCP", "nodePort": 30900},
            {"name": "metrics", "port": 9100, "protocol": "TCP", "nodePort": 30910},
        ],
    )
    spec = retain(desired, observed)["spec"]
    assert spec["clusterIP"] == "10.96.4.7"
    assert spec["clusterIPs"] == ["10.96.4.7", "fd00::7"]
    assert spec["healthCheckNodePort"] == 32100
    assert [port.get("nodePort") for port in spec["ports"]] == [30080, 31000, 30910]
    assert "clusterIP" not in desired["spec"]


def test_service_without_allocations_in_the_member_is_left_as_desired() -> None:
    """A headless or not-yet-created member Service contributes nothing."""
    desired = _service(clusterIP="None", ports=[{"port": 80}])
    assert retain(desired, _service(clusterIP="", ports=[{"port": 81, "nodePort": 30001}])) == desired


def test_service_account_merges_secrets_and_image_pull_secrets() -> None:
    """The member's token secrets are kept after the template's own references, each once."""
    desired = {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": "runner"},
        "imagePullSecrets": [{"name": "registry"}],
    }
    observed = {
        **desired,
        "secrets": [{"name": "runner-token-x1"}],
        "imagePullSecrets": [{"name": "registry"}, {"name": "runner-dockercfg-x1"}],
    }
    retained = retain(desired, observed)
    assert retained["secrets"] == [{"name": "runner-token-x1"}]
    assert retained["imagePullSecrets"] == [{"name": "registry"}, {"name": "runner-dockercfg-x1"}]


@pytest.mark.parametrize("secret_type", ["kubernetes.io/service-account-token", "kubernetes.io/tls"])
def test_secret_keeps_the_member_token_only_for_service_account_tokens(secret_type: str) -> None:
    """The member's token controller fills token secrets; other secrets are the template's."""
    desired = {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": secret_type,
        "metadata": {"name": "s", "annotations": {"kubernetes.io/service-account.name": "runner"}},
        "data": {"token": "ZGVzaXJlZA=="},
    }
    observed = {
        **desired,
        "metadata": {"name": "s", "annotations": {"kubernetes.io/service-account.uid": "uid-9"}},
        "data": {"token": "b2JzZXJ2ZWQ=", "ca.crt": "Y2E="},
    }
    retained = retain(desired, observed)
    if secret_type == "kubernetes.io/service-account-token":
        assert retained["data"] == {"token": "b2JzZXJ2ZWQ=", "ca.crt": "Y2E="}
        assert retained["metadata"]["annotations"]["kubernetes.io/service-account.uid"] == "uid-9"
    else:
        assert retained == desired


def test_pod_keeps_node_service_account_volumes_and_mounts_of_the_member() -> None:
    """A scheduled pod's node, injected token volume and mounts are the member's."""
    desired = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "app", "image": "app:2"}], "initContainers": [{"name": "init"}]},
    }
    token_mount = [
        {"name": "kube-api-access-x", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}
    ]
    observed: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {
            "nodeName": "node-3",
            "serviceAccountName": "default",
            "volumes": [{"name": "kube-api-access-x", "projected": {"sources": []}}],
            "containers": [{"name": "app", "image": "app:1", "volumeMounts": token_mount}],
            "initContainers": [{"name": "init", "volumeMounts": token_mount}],
        },
    }
    spec = retain(desired, observed)["spec"]
    assert spec["nodeName"] == "node-3"
    assert spec["serviceAccountName"] == "default"
    assert spec["volumes"] == observed["spec"]["volumes"]
    assert spec["containers"] == [{"name": "app", "image": "app:2", "volumeMounts": token_mount}]
    assert spec["initContainers"] == [{"name": "init", "volumeMounts": token_mount}]


def test_claim_keeps_its_bound_volume_and_volume_keeps_its_claim() -> None:
    """Binding is done by the member: PVC volumeName and PV claimRef are retained."""
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"}, "spec": {}}
    bound_claim = {**claim, "spec": {"volumeName": "pvc-123"}}
    assert retain(claim, bound_claim)["spec"]["volumeName"] == "pvc-123"
    volume = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"}, "spec": {}}
    claimed = {**volume, "spec": {"claimRef": {"namespace": "shop", "name": "data"}}}
    assert retain(volume, claimed)["spec"]["claimRef"] == {"namespace": "shop", "name": "data"}


def test_job_keeps_the_selector_and_controller_uid_labels_the_member_generated() -> None:
    """A Job's generated selector and template labels are immutable in the member."""
    desired = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pi"},
        "spec": {
            "template": {"metadata": {"labels": {"app": "pi"}}, "spec": {"containers": [{"name": "pi"}]}}
        },
    }
    generated = {
        "batch.kubernetes.io/controller-uid": "u-1",
        "batch.kubernetes.io/job-name": "pi",
        "app": "pi",
    }
    observed = {
        **desired,
        "spec": {
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u-1"}},
            "template": {"metadata": {"labels": generated}, "spec": {"containers": [{"name": "pi"}]}},
        },
    }
    spec = retain(desired, observed)["spec"]
    assert spec["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": "u-1"}}
    assert spec["template"]["metadata"]["labels"] == generated


def test_deployment_keeps_member_replicas_only_with_the_retain_replicas_label() -> None:
    """An autoscaler in the member owns replicas once the template says so."""
    desired = web_deployment()
    observed = {**web_deployment(), "spec": {**web_deployment()["spec"], "replicas": 9}}
    assert retain(desired, observed)["spec"]["replicas"] == 4
    desired["metadata"]["labels"]["resourcetemplate.karmada.io/retain-replicas"] = "true"
    assert retain(desired, observed)["spec"]["replicas"] == 9


def test_retain_replicas_label_without_member_replicas_is_an_error() -> None:
    """Retaining what the member does not report is an error, as in Karmada."""
    desired = web_deployment()
    desired["metadata"]["labels"]["resourcetemplate.karmada.io/retain-replicas"] = "true"
    with pytest.raises(InterpreterError, match="retain"):
        retain(desired, {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {}})


def test_kinds_without_rules_come_back_as_desired() -> None:
    """A ConfigMap update is the template's, whatever the member holds."""
    desired = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}}
    assert retain(desired, {**desired, "data": {"a": "2"}}) == desired
