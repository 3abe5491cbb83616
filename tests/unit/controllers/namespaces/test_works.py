"""Which Namespaces auto-propagate and the Work that carries one to a cluster."""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.names import work_name
from flotilla.controllers.namespaces.works import namespace_work, should_propagate, work_up_to_date

CLUSTER = {"apiVersion": "cluster.karmada.io/v1alpha1", "kind": "Cluster", "metadata": {"name": "sz"}}


def namespace(name: str = "team-a", **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": name,
            "uid": f"uid-{name}",
            "resourceVersion": "3",
            "creationTimestamp": "2026-01-01T00:00:00Z",
            "managedFields": [{"manager": "kubectl"}],
            "labels": {"kubernetes.io/metadata.name": name, **labels},
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def test_reserved_default_and_kube_namespaces_stay_home() -> None:
    """karmada-*, default and kube-* never propagate; an ordinary namespace does."""
    assert should_propagate(namespace())
    for name in (
        "default",
        "kube-system",
        "kube-node-lease",
        "karmada-system",
        "karmada-cluster",
        "karmada-es-sz",
    ):
        assert not should_propagate(namespace(name))


def test_the_skip_label_and_a_cluster_policy_claim_stop_auto_propagation() -> None:
    """`skip-auto-propagation: "True"` (any case) opts out; a CPP claim takes over."""
    assert not should_propagate(namespace(**{"namespace.karmada.io/skip-auto-propagation": "True"}))
    assert should_propagate(namespace(**{"namespace.karmada.io/skip-auto-propagation": "false"}))
    assert not should_propagate(namespace(**{"clusterpropagationpolicy.karmada.io/permanent-id": "x"}))


def test_the_work_lives_in_the_execution_namespace_and_carries_a_clean_namespace() -> None:
    """Named like every Work of the Namespace, owned by it, one manifest without server fields."""
    work = namespace_work(namespace(), CLUSTER)
    assert work["apiVersion"] == "work.karmada.io/v1alpha1"
    assert work["metadata"]["name"] == work_name("Namespace", "team-a", "")
    assert work["metadata"]["namespace"] == "karmada-es-sz"
    owner = work["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == (
        "Namespace",
        "team-a",
        "uid-team-a",
        True,
    )
    [manifest] = work["spec"]["workload"]["manifests"]
    assert set(manifest) == {"apiVersion", "kind", "metadata", "spec"}
    assert set(manifest["metadata"]) == {"name", "labels", "annotations"}
    assert manifest["metadata"]["labels"]["karmada.io/managed"] == "true"
    annotations = manifest["metadata"]["annotations"]
    assert annotations["work.karmada.io/name"] == work["metadata"]["name"]
    assert annotations["work.karmada.io/namespace"] == "karmada-es-sz"
    assert annotations["resourcetemplate.karmada.io/uid"] == "uid-team-a"
    assert annotations["resourcetemplate.karmada.io/managed-labels"] == (
        "karmada.io/managed,kubernetes.io/metadata.name"
    )
    assert "resourcetemplate.karmada.io/managed-annotations" in annotations[
        "resourcetemplate.karmada.io/managed-annotations"
    ].split(",")


def test_cluster_override_policies_shape_the_namespace_per_cluster() -> None:
    """A COP adding a label on sz only; the Work records the applied override."""
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterOverridePolicy",
        "metadata": {"name": "tag"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "v1", "kind": "Namespace"}],
            "overrideRules": [
                {
                    "targetCluster": {"clusterNames": ["sz"]},
                    "overriders": {"labelsOverrider": [{"operator": "add", "value": {"zone": "south"}}]},
                }
            ],
        },
    }
    work = namespace_work(namespace(), CLUSTER, [policy])
    manifest = work["spec"]["workload"]["manifests"][0]
    assert manifest["metadata"]["labels"]["zone"] == "south"
    assert "policy.karmada.io/applied-cluster-overrides" in work["metadata"]["annotations"]
    other = namespace_work(namespace(), {"metadata": {"name": "fz"}}, [policy])
    assert "zone" not in other["spec"]["workload"]["manifests"][0]["metadata"]["labels"]


def test_a_work_is_current_until_the_namespace_changes() -> None:
    """Same manifest and owner: no write; a new label: write."""
    desired = namespace_work(namespace(), CLUSTER)
    existing = {
        **desired,
        "status": {"conditions": []},
        "metadata": {**desired["metadata"], "resourceVersion": "9"},
    }
    assert work_up_to_date(existing, desired)
    assert not work_up_to_date(existing, namespace_work(namespace(team="b"), CLUSTER))
