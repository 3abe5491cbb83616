"""Garbage collection through kubectl and the official client: ownerReferences and --cascade."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl


def reference(owner: dict[str, Any], *, blocking: bool = False) -> dict[str, Any]:
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "blockOwnerDeletion": blocking,
    }


def create(kubectl: Kubectl, namespace: str, manifest: dict[str, Any]) -> dict[str, Any]:
    created: dict[str, Any] = json.loads(
        kubectl("create", "-n", namespace, "-f", "-", "-o", "json", input=json.dumps(manifest))
    )
    return created


def configmap(
    kubectl: Kubectl,
    namespace: str,
    name: str,
    *owners: dict[str, Any],
    blocking: bool = False,
    finalizers: tuple[str, ...] = (),
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if owners:
        meta["ownerReferences"] = [reference(owner, blocking=blocking) for owner in owners]
    if finalizers:
        meta["finalizers"] = list(finalizers)
    return create(kubectl, namespace, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta})


def fetch(kubectl: Kubectl, namespace: str, kind: str, name: str) -> dict[str, Any] | None:
    result = kubectl.run("get", kind, name, "-n", namespace, "-o", "json", check=False)
    if result.returncode != 0:
        assert "NotFound" in result.stderr, result.stderr
        return None
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def gone(kubectl: Kubectl, namespace: str, kind: str, *names: str) -> Callable[[], bool]:
    return lambda: all(fetch(kubectl, namespace, kind, name) is None for name in names)


def test_background_cascade_deletes_the_dependents(kubectl: Kubectl, namespace: str) -> None:
    """kubectl delete --cascade=background removes the owner now and its dependents soon after."""
    owner = configmap(kubectl, namespace, "owner")
    configmap(kubectl, namespace, "first", owner)
    configmap(kubectl, namespace, "second", owner, blocking=True)
    configmap(kubectl, namespace, "bystander")
    kubectl("delete", "cm", "owner", "-n", namespace, "--cascade=background")
    eventually(gone(kubectl, namespace, "cm", "first", "second"), what="the dependents are gone")
    assert fetch(kubectl, namespace, "cm", "bystander") is not None


def test_foreground_cascade_waits_for_a_blocking_dependent(kubectl: Kubectl, namespace: str) -> None:
    """--cascade=foreground keeps the owner, marked for deletion, until its blocking dependent is gone."""
    owner = configmap(kubectl, namespace, "owner")
    configmap(kubectl, namespace, "held", owner, blocking=True, finalizers=("example.com/hold",))
    configmap(kubectl, namespace, "loose", owner)
    kubectl("delete", "cm", "owner", "-n", namespace, "--cascade=foreground", "--wait=false")

    def held_is_deleting() -> bool:
        held = fetch(kubectl, namespace, "cm", "held")
        return held is not None and "deletionTimestamp" in held["metadata"]

    eventually(held_is_deleting, what="the blocking dependent is being deleted")
    eventually(gone(kubectl, namespace, "cm", "loose"), what="the non-blocking dependent is gone")
    waiting = fetch(kubectl, namespace, "cm", "owner")
    assert waiting is not None
    assert waiting["metadata"]["deletionTimestamp"]
    assert waiting["metadata"]["finalizers"] == ["foregroundDeletion"]
    kubectl("patch", "cm", "held", "-n", namespace, "--type=merge", "-p", '{"metadata":{"finalizers":null}}')
    eventually(gone(kubectl, namespace, "cm", "held", "owner"), what="the owner is gone after its dependent")


def test_orphan_cascade_keeps_the_dependents_without_references(kubectl: Kubectl, namespace: str) -> None:
    """--cascade=orphan removes the owner and only the dependents' references to it."""
    owner = configmap(kubectl, namespace, "owner")
    other = configmap(kubectl, namespace, "other")
    configmap(kubectl, namespace, "only", owner, blocking=True)
    configmap(kubectl, namespace, "both", owner, other)
    kubectl("delete", "cm", "owner", "-n", namespace, "--cascade=orphan", "--timeout=30s")
    assert fetch(kubectl, namespace, "cm", "owner") is None
    only = fetch(kubectl, namespace, "cm", "only")
    both = fetch(kubectl, namespace, "cm", "both")
    assert only is not None and "ownerReferences" not in only["metadata"]
    assert both is not None and both["metadata"]["ownerReferences"] == [reference(other)]


def test_a_dependent_whose_owner_uid_matches_nothing_is_collected(kubectl: Kubectl, namespace: str) -> None:
    """An ownerReference naming an existing object with another uid is dangling: the dependent goes."""
    owner = configmap(kubectl, namespace, "owner")
    impostor = {**owner, "metadata": {**owner["metadata"], "uid": "00000000-0000-0000-0000-000000000000"}}
    configmap(kubectl, namespace, "orphaned", impostor)
    eventually(gone(kubectl, namespace, "cm", "orphaned"), what="the dangling dependent is collected")
    assert fetch(kubectl, namespace, "cm", "owner") is not None


def test_a_deployment_replicaset_pod_chain_cascades(kubectl: Kubectl, namespace: str) -> None:
    """Deleting a Deployment removes the ReplicaSet it owns and the Pod that one owns."""
    labels = {"app": "web"}
    template = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}
    spec = {"replicas": 1, "selector": {"matchLabels": labels}, "template": template}
    deployment = create(
        kubectl,
        namespace,
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": spec},
    )
    owned_by_deployment = {"name": "web-1", "ownerReferences": [reference(deployment, blocking=True)]}
    replica_set = create(
        kubectl,
        namespace,
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": owned_by_deployment, "spec": spec},
    )
    pod_meta = {
        "name": "web-1-a",
        "labels": labels,
        "ownerReferences": [reference(replica_set, blocking=True)],
    }
    create(
        kubectl,
        namespace,
        {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": template["spec"]},
    )
    kubectl("delete", "deployment", "web", "-n", namespace)
    eventually(gone(kubectl, namespace, "replicaset", "web-1"), what="the ReplicaSet is gone")
    eventually(gone(kubectl, namespace, "pod", "web-1-a"), what="the Pod is gone")


def test_a_dependent_with_two_owners_survives_one_of_them(kubectl: Kubectl, namespace: str) -> None:
    """Deleting one of two owners leaves the dependent, referencing only the other."""
    first = configmap(kubectl, namespace, "first")
    second = configmap(kubectl, namespace, "second")
    configmap(kubectl, namespace, "shared", first, second)
    kubectl("delete", "cm", "first", "-n", namespace)

    def only_second_left() -> bool:
        shared = fetch(kubectl, namespace, "cm", "shared")
        assert shared is not None, "the dependent with a live owner was deleted"
        return bool(shared["metadata"]["ownerReferences"] == [reference(second)])

    eventually(only_second_left, what="the reference to the deleted owner is removed")


def test_the_python_client_deletes_in_the_foreground(api_client: object, namespace: str) -> None:
    """delete_namespaced_config_map with propagationPolicy=Foreground in the body cascades."""
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    owner = core.create_namespaced_config_map(
        namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="owner"))
    )
    assert owner.metadata is not None and owner.metadata.uid
    owned = client.V1OwnerReference(
        api_version="v1", kind="ConfigMap", name="owner", uid=owner.metadata.uid, block_owner_deletion=True
    )
    core.create_namespaced_config_map(
        namespace,
        client.V1ConfigMap(metadata=client.V1ObjectMeta(name="dependent", owner_references=[owned])),
    )
    core.delete_namespaced_config_map(
        "owner", namespace, body=client.V1DeleteOptions(propagation_policy="Foreground")
    )

    def both_gone() -> bool:
        names = {cm.metadata.name for cm in core.list_namespaced_config_map(namespace).items if cm.metadata}
        return not names & {"owner", "dependent"}

    eventually(both_gone, what="the owner and its dependent are gone")
