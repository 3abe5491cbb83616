"""A hub serves Karmada's API groups: discovery, Karmada's defaults, validation and columns, via kubectl."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.support.kubectl import Kubectl
from tests.support.processes import ServerProcess

pytestmark = pytest.mark.kubectl

WALKTHROUGH_POLICY: dict[str, Any] = {
    "apiVersion": "policy.karmada.io/v1alpha1",
    "kind": "PropagationPolicy",
    "metadata": {"name": "nginx-propagation"},
    "spec": {
        "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}],
        "placement": {
            "clusterAffinity": {"clusterNames": ["sz", "fz"]},
            "replicaScheduling": {
                "replicaDivisionPreference": "Weighted",
                "replicaSchedulingType": "Divided",
                "weightPreference": {
                    "staticWeightList": [
                        {"targetCluster": {"clusterNames": ["sz"]}, "weight": 1},
                        {"targetCluster": {"clusterNames": ["fz"]}, "weight": 1},
                    ]
                },
            },
        },
    },
}


def rows(output: str) -> list[list[str]]:
    return [line.split() for line in output.strip().splitlines()]


def test_api_resources_lists_the_policy_kinds_with_short_names(kubectl: Kubectl) -> None:
    """pp, cpp, op and cop in policy.karmada.io, with their scopes."""
    table = rows(kubectl("api-resources", "--api-group", "policy.karmada.io"))
    assert table[0][:3] == ["NAME", "SHORTNAMES", "APIVERSION"]
    found = {row[0]: row[1:] for row in table[1:]}
    assert found["propagationpolicies"] == ["pp", "policy.karmada.io/v1alpha1", "true", "PropagationPolicy"]
    assert found["clusterpropagationpolicies"] == [
        "cpp",
        "policy.karmada.io/v1alpha1",
        "false",
        "ClusterPropagationPolicy",
    ]
    assert found["overridepolicies"][0] == "op"
    assert found["clusteroverridepolicies"][0] == "cop"


def test_api_resources_lists_work_and_cluster_kinds(kubectl: Kubectl) -> None:
    """Bindings at v1alpha2, Works and Clusters at v1alpha1."""
    work = {row[0]: row[1:] for row in rows(kubectl("api-resources", "--api-group", "work.karmada.io"))[1:]}
    assert work["resourcebindings"][:2] == ["rb", "work.karmada.io/v1alpha2"]
    assert work["clusterresourcebindings"][:2] == ["crb", "work.karmada.io/v1alpha2"]
    assert work["works"][:2] == ["wk", "work.karmada.io/v1alpha1"]
    cluster = rows(kubectl("api-resources", "--api-group", "cluster.karmada.io"))[1:]
    assert cluster == [["clusters", "cluster.karmada.io/v1alpha1", "false", "Cluster"]]


def test_the_walkthrough_policy_applies_with_karmadas_defaults(kubectl: Kubectl, namespace: str) -> None:
    """The getting-started policy applies as written, reads back defaulted with a permanent id, re-applies."""
    assert "created" in kubectl.apply_yaml(WALKTHROUGH_POLICY, "-n", namespace)
    policy = kubectl.json("get", "pp", "nginx-propagation", "-n", namespace)
    spec = policy["spec"]
    assert spec["placement"] == WALKTHROUGH_POLICY["spec"]["placement"]
    assert spec["resourceSelectors"][0]["namespace"] == namespace
    assert (spec["conflictResolution"], spec["priority"], spec["schedulerName"]) == (
        "Abort",
        0,
        "default-scheduler",
    )
    assert policy["metadata"]["labels"]["propagationpolicy.karmada.io/permanent-id"]
    # kubectl re-sends the selector list (the server added its namespace); the server writes nothing.
    kubectl.apply_yaml(WALKTHROUGH_POLICY, "-n", namespace)
    again = kubectl.json("get", "pp", "nginx-propagation", "-n", namespace)
    assert again["metadata"]["resourceVersion"] == policy["metadata"]["resourceVersion"]


def test_kubectl_get_pp_shows_karmadas_columns(kubectl: Kubectl, namespace: str) -> None:
    """NAME CONFLICT-RESOLUTION PRIORITY AGE, as on a Karmada control plane."""
    kubectl.apply_yaml(WALKTHROUGH_POLICY, "-n", namespace)
    table = rows(kubectl("get", "pp", "-n", namespace))
    assert table[0] == ["NAME", "CONFLICT-RESOLUTION", "PRIORITY", "AGE"]
    assert table[1][:3] == ["nginx-propagation", "Abort", "0"]


def test_an_invalid_policy_is_refused_and_kubectl_names_the_fields(kubectl: Kubectl, namespace: str) -> None:
    """Negative weight, empty resourceSelectors, bad enum, bad label selector: one 422, every field named."""
    bad = copy.deepcopy(WALKTHROUGH_POLICY)
    bad["metadata"]["name"] = "broken"
    bad["spec"]["resourceSelectors"] = []
    bad["spec"]["conflictResolution"] = "Sometimes"
    placement = bad["spec"]["placement"]
    placement["replicaScheduling"]["weightPreference"]["staticWeightList"][0]["weight"] = -2
    placement["clusterAffinity"]["labelSelector"] = {"matchExpressions": [{"key": "env", "operator": "Like"}]}
    result = kubectl.run("apply", "-n", namespace, "-f", "-", input=_yaml(bad), check=False)
    assert result.returncode != 0
    assert 'The PropagationPolicy "broken" is invalid' in result.stderr
    for field in (
        "spec.resourceSelectors: Invalid value: 0",
        "spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight: Invalid value: -2",
        'spec.conflictResolution: Unsupported value: "Sometimes"',
        "spec.placement.clusterAffinity.labelSelector.matchExpressions[0].operator",
    ):
        assert field in result.stderr, result.stderr
    assert kubectl.run("get", "pp", "broken", "-n", namespace, check=False).returncode != 0


def test_an_invalid_policy_is_a_422_for_the_python_client(api_client: Any, namespace: str) -> None:
    """The Status is Invalid with a cause per field, as any Kubernetes client expects."""
    from kubernetes import client
    from kubernetes.client.rest import ApiException

    bad = copy.deepcopy(WALKTHROUGH_POLICY)
    bad["metadata"]["name"] = "typed"
    bad["spec"]["placement"]["spreadConstraints"] = [{"spreadByField": "region"}]
    with pytest.raises(ApiException) as raised:
        client.CustomObjectsApi(api_client).create_namespaced_custom_object(
            "policy.karmada.io", "v1alpha1", namespace, "propagationpolicies", bad
        )
    assert raised.value.status == 422
    assert '"field":"spec.placement.spreadConstraints"' in raised.value.body.replace(" ", "")


def test_kubectl_get_clusters_shows_karmadas_columns(kubectl: Kubectl) -> None:
    """NAME VERSION MODE READY AGE; -o wide adds the topology and endpoints."""
    cluster = {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": "member-columns"},
        "spec": {
            "syncMode": "Push",
            "apiEndpoint": "https://10.0.0.5:6443",
            "region": "eu-west",
            "provider": "kind",
        },
    }
    kubectl.apply_yaml(cluster)
    table = rows(kubectl("get", "clusters"))
    assert table[0] == ["NAME", "VERSION", "MODE", "READY", "AGE"]
    assert table[1][:2] == ["member-columns", "Push"]
    wide = rows(kubectl("get", "clusters", "-o", "wide"))
    assert wide[0] == [
        "NAME",
        "VERSION",
        "MODE",
        "READY",
        "AGE",
        "ZONES",
        "REGION",
        "PROVIDER",
        "API-ENDPOINT",
        "PROXY-URL",
    ]
    # Empty cells (no version, no Ready condition yet) print as blanks, so match by value.
    assert wide[1][0] == "member-columns"
    assert {"Push", "eu-west", "kind", "https://10.0.0.5:6443"} <= set(wide[1])
    kubectl("delete", "cluster", "member-columns")


def test_bindings_and_works_show_their_columns(kubectl: Kubectl, namespace: str) -> None:
    """rb: SCHEDULED FULLYAPPLIED AGE; wk: WORKLOAD-KIND APPLIED AGE."""
    binding = {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": {"name": "nginx-deployment"},
        "spec": {"resource": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}},
    }
    work = {
        "apiVersion": "work.karmada.io/v1alpha1",
        "kind": "Work",
        "metadata": {"name": "nginx-687f7fb96f"},
        "spec": {
            "workload": {"manifests": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}]}
        },
    }
    kubectl.apply_yaml([binding, work], "-n", namespace)
    assert rows(kubectl("get", "rb", "-n", namespace))[0] == ["NAME", "SCHEDULED", "FULLYAPPLIED", "AGE"]
    works = rows(kubectl("get", "wk", "-n", namespace))
    assert works[0] == ["NAME", "WORKLOAD-KIND", "APPLIED", "AGE"]
    assert works[1][:2] == ["nginx-687f7fb96f", "ConfigMap"]
    listed = kubectl("get", "karmada-io", "-n", namespace, "-o", "name")
    assert "resourcebinding.work.karmada.io/nginx-deployment" in listed
    assert "work.work.karmada.io/nginx-687f7fb96f" in listed


def test_a_server_started_with_no_karmada_serves_none_of_it(tmp_path: Path) -> None:
    """`--no-karmada` (the simulated members' choice) leaves the Karmada groups out."""
    plain = ServerProcess(tmp_path / "plain", ["--no-karmada"]).start()
    try:
        kubectl = Kubectl(plain.kubeconfig, tmp_path / "cache")
        groups = kubectl("api-versions")
        assert "policy.karmada.io" not in groups and "apps/v1" in groups
    finally:
        assert plain.stop() == 0


def _yaml(obj: dict[str, Any]) -> str:
    import yaml

    return yaml.safe_dump(obj)
