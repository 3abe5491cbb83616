"""Server-side apply and managedFields with kubectl and the Python client, against a real server."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from tests.support.kubectl import Kubectl

pytestmark = pytest.mark.kubectl


def deployment(replicas: int = 2, image: str = "nginx:1.25", **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ssa", "labels": labels or {"app": "ssa"}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "ssa"}},
            "template": {
                "metadata": {"labels": {"app": "ssa"}},
                "spec": {"containers": [{"name": "nginx", "image": image}]},
            },
        },
    }


def managers(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f"{m['manager']}/{m['operation']}": m for m in obj["metadata"].get("managedFields", [])}


def apply(kubectl: Kubectl, namespace: str, manifest: dict[str, Any], *extra: str, check: bool = True) -> Any:
    return kubectl.run(
        "apply",
        "--server-side",
        "-n",
        namespace,
        *extra,
        "-f",
        "-",
        input=yaml.safe_dump(manifest),
        check=check,
    )


def test_apply_twice_is_idempotent_and_records_ownership(kubectl: Kubectl, namespace: str) -> None:
    """Two identical server-side applies leave one Apply entry and an unchanged resourceVersion."""
    assert "serverside-applied" in apply(kubectl, namespace, deployment()).stdout
    first = kubectl.json("get", "deploy", "ssa", "-n", namespace, "--show-managed-fields")
    apply(kubectl, namespace, deployment())
    second = kubectl.json("get", "deploy", "ssa", "-n", namespace, "--show-managed-fields")
    assert second["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    entry = managers(second)["kubectl/Apply"]
    assert entry["fieldsType"] == "FieldsV1" and entry["apiVersion"] == "apps/v1"
    fields = entry["fieldsV1"]["f:spec"]
    assert "f:replicas" in fields
    assert 'k:{"name":"nginx"}' in fields["f:template"]["f:spec"]["f:containers"]


def test_show_managed_fields_hides_them_by_default(kubectl: Kubectl, namespace: str) -> None:
    """kubectl get -o yaml omits managedFields unless --show-managed-fields is given."""
    apply(kubectl, namespace, deployment())
    assert "managedFields" not in kubectl.json("get", "deploy", "ssa", "-n", namespace)["metadata"]
    shown = yaml.safe_load(
        kubectl("get", "deploy", "ssa", "-n", namespace, "-o", "yaml", "--show-managed-fields")
    )
    assert shown["metadata"]["managedFields"]


def test_conflict_with_another_manager_then_force(kubectl: Kubectl, namespace: str) -> None:
    """A field another manager set conflicts (409 naming it) until --force-conflicts takes it over."""
    apply(kubectl, namespace, deployment(replicas=2))
    kubectl("scale", "deploy", "ssa", "-n", namespace, "--replicas=5")
    conflict = apply(kubectl, namespace, deployment(replicas=3), check=False)
    assert conflict.returncode != 0
    assert "Apply failed with 1 conflict" in conflict.stderr
    assert ".spec.replicas" in conflict.stderr
    assert kubectl.json("get", "deploy", "ssa", "-n", namespace)["spec"]["replicas"] == 5
    apply(kubectl, namespace, deployment(replicas=3), "--force-conflicts")
    live = kubectl.json("get", "deploy", "ssa", "-n", namespace, "--show-managed-fields")
    assert live["spec"]["replicas"] == 3
    owners = [
        m["manager"]
        for m in live["metadata"]["managedFields"]
        if "f:replicas" in m.get("fieldsV1", {}).get("f:spec", {})
    ]
    assert owners == ["kubectl"]


def test_fields_a_manager_stops_applying_are_removed(kubectl: Kubectl, namespace: str) -> None:
    """Dropping a label from the applied manifest removes it; labels others set stay."""
    apply(kubectl, namespace, deployment(app="ssa", tier="web"))
    kubectl("label", "deploy", "ssa", "-n", namespace, "team=ops")
    apply(kubectl, namespace, deployment(app="ssa"))
    labels = kubectl.json("get", "deploy", "ssa", "-n", namespace)["metadata"]["labels"]
    assert labels == {"app": "ssa", "team": "ops"}


def test_migration_from_client_side_apply(kubectl: Kubectl, namespace: str) -> None:
    """An object made by client-side apply can be taken over by server-side apply (kubectl's migration)."""
    kubectl("apply", "-n", namespace, "-f", "-", input=yaml.safe_dump(deployment(replicas=2)))
    before = kubectl.json("get", "deploy", "ssa", "-n", namespace, "--show-managed-fields")
    assert "kubectl-client-side-apply/Update" in managers(before)
    apply(kubectl, namespace, deployment(replicas=4))
    after = kubectl.json("get", "deploy", "ssa", "-n", namespace, "--show-managed-fields")
    assert after["spec"]["replicas"] == 4
    assert "kubectl/Apply" in managers(after)


def test_apply_creates_custom_resources_and_dry_run_stores_nothing(kubectl: Kubectl, namespace: str) -> None:
    """Server-side apply creates objects; with --dry-run=server it only returns the would-be object."""
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "applied"},
        "data": {"a": "1"},
    }
    out = apply(kubectl, namespace, config_map, "--dry-run=server", "-o", "json").stdout
    assert json.loads(out)["data"] == {"a": "1"}
    assert kubectl.run("get", "cm", "applied", "-n", namespace, check=False).returncode != 0
    apply(kubectl, namespace, config_map)
    assert kubectl.json("get", "cm", "applied", "-n", namespace)["data"] == {"a": "1"}


def test_python_client_updates_are_recorded_under_their_user_agent(api_client: Any, namespace: str) -> None:
    """Writes without fieldManager are recorded under the client's user-agent name, as Update."""
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    core.create_namespaced_config_map(
        namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py"), data={"a": "1"})
    )
    core.patch_namespaced_config_map("py", namespace, {"data": {"k": "v"}})
    entries = core.read_namespaced_config_map("py", namespace).metadata.managed_fields
    assert {(e.manager, e.operation) for e in entries} == {("OpenAPI-Generator", "Update")}
    assert set(entries[0].fields_v1["f:data"]) == {"f:a", "f:k"}


def test_dry_run_on_every_write_verb_stores_nothing(kubectl: Kubectl, namespace: str) -> None:
    """--dry-run=server on patch, replace, scale, label and delete changes nothing."""
    kubectl("create", "configmap", "dry", "-n", namespace, "--from-literal=a=1")
    revision = kubectl.json("get", "cm", "dry", "-n", namespace)["metadata"]["resourceVersion"]
    kubectl("patch", "cm", "dry", "-n", namespace, "--dry-run=server", "-p", '{"data":{"a":"2"}}')
    kubectl("label", "cm", "dry", "-n", namespace, "--dry-run=server", "x=y")
    live = kubectl.json("get", "cm", "dry", "-n", namespace)
    live["data"]["a"] = "3"
    kubectl("replace", "--dry-run=server", "-f", "-", input=json.dumps(live))
    kubectl("delete", "cm", "dry", "-n", namespace, "--dry-run=server")
    after = kubectl.json("get", "cm", "dry", "-n", namespace)
    assert after["metadata"]["resourceVersion"] == revision
    assert after["data"] == {"a": "1"}
