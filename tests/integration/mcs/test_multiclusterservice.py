"""Karmada's MultiClusterService (CrossCluster) on simulated members: the Service's binding, provider
EndpointSlices copied into consumers, the finalizer, and the webhook's rules as 422s."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.mcs.clusterset import Member, deployment, port, service, stateful_set
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

HTTP = port("http", 80)
DISPATCHED = "endpointslice.kubernetes.io/managed-by=endpointslice-dispatch-controller.karmada.io"


def multi_cluster_service(
    name: str, providers: list[str], consumers: list[str], **spec: Any
) -> dict[str, Any]:
    return {
        "apiVersion": "networking.karmada.io/v1alpha1",
        "kind": "MultiClusterService",
        "metadata": {"name": name},
        "spec": {
            "types": ["CrossCluster"],
            "providerClusters": [{"name": c} for c in providers],
            "consumerClusters": [{"name": c} for c in consumers],
            **spec,
        },
    }


def workload_on(hub: Kubectl, namespace: str, name: str, clusters: list[str]) -> None:
    """The Deployment placed on `clusters` by a policy, and the Service on the hub (not propagated)."""
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": name},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name}],
            "placement": {"clusterAffinity": {"clusterNames": clusters}},
        },
    }
    hub.apply_yaml([deployment(name), service(name, HTTP), policy], "-n", namespace)


def copies(member: Member, namespace: str) -> list[dict[str, Any]]:
    return member.endpoint_slices(namespace, DISPATCHED)


def test_a_multiclusterservice_propagates_the_service_and_copies_provider_endpoints_into_consumers(
    hub: Kubectl, members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    workload_on(hub, namespace, "web", ["member1"])
    hub.apply_yaml(multi_cluster_service("web", ["member1"], ["member2"]), "-n", namespace)
    for cluster in ("member1", "member2"):
        eventually(
            lambda cluster=cluster: members[cluster].succeeds("get", "service", "web", "-n", namespace),
            what=f"Service in {cluster}",
        )
    binding = hub.json("get", "resourcebinding", "web-service", "-n", namespace)
    assert binding["metadata"]["labels"]["binding.karmada.io/managed-by"] == "MultiClusterService"
    assert binding["spec"]["conflictResolution"] == "Overwrite"
    found = eventually(
        lambda: copies(clients["member2"], namespace),
        until=lambda slices: sum(len(s.get("endpoints") or []) for s in slices) == 1,
        what="member1's endpoints in member2",
    )
    [copy] = found
    assert copy["metadata"]["name"].startswith("member1-web-")
    assert copy["metadata"]["labels"]["kubernetes.io/service-name"] == "web"
    assert copy["metadata"]["annotations"]["endpointslice.karmada.io/provision-cluster"] == "member1"
    assert copies(clients["member1"], namespace) == []
    assert not members["member3"].succeeds("get", "service", "web", "-n", namespace)
    service_status = eventually(
        lambda: hub.json("get", "mcs", "web", "-n", namespace).get("status", {}).get("conditions"),
        what="status conditions",
    )
    assert {c["type"]: c["status"] for c in service_status} == {
        "ServiceApplied": "True",
        "EndpointSliceDispatched": "True",
    }
    assert (
        "karmada.io/multiclusterservice-controller"
        in hub.json("get", "mcs", "web", "-n", namespace)["metadata"]["finalizers"]
    )


def test_empty_provider_and_consumer_lists_mean_every_cluster_and_no_cluster_gets_its_own_copies(
    hub: Kubectl, clients: dict[str, Member], namespace: str
) -> None:
    workload_on(hub, namespace, "web", ["member1", "member2"])
    hub.apply_yaml(multi_cluster_service("web", [], []), "-n", namespace)
    for consumer, providers in {
        "member1": {"member2"},
        "member2": {"member1"},
        "member3": {"member1", "member2"},
    }.items():
        eventually(
            lambda consumer=consumer: {
                s["metadata"]["annotations"]["endpointslice.karmada.io/provision-cluster"]
                for s in copies(clients[consumer], namespace)
                if s.get("endpoints")
            },
            until=lambda found, providers=providers: found == providers,
            what=f"copies in {consumer}",
        )


def test_a_cluster_that_stops_being_a_consumer_and_a_deleted_multiclusterservice_lose_their_copies(
    hub: Kubectl, clients: dict[str, Member], namespace: str
) -> None:
    """…and the Service's binding stays, released (no managed-by label), as in Karmada."""
    workload_on(hub, namespace, "web", ["member1"])
    hub.apply_yaml(multi_cluster_service("web", ["member1"], ["member2", "member3"]), "-n", namespace)
    eventually(lambda: copies(clients["member3"], namespace), what="copies in member3")
    hub.apply_yaml(multi_cluster_service("web", ["member1"], ["member2"]), "-n", namespace)
    eventually(lambda: not copies(clients["member3"], namespace), what="member3's copies removed")
    hub("delete", "mcs", "web", "-n", namespace)
    eventually(lambda: not copies(clients["member2"], namespace), what="member2's copies removed")
    assert hub.json_or_none("get", "mcs", "web", "-n", namespace) is None
    binding = hub.json("get", "resourcebinding", "web-service", "-n", namespace)
    assert "binding.karmada.io/managed-by" not in binding["metadata"].get("labels", {})


def test_the_webhook_rules_refuse_bad_multiclusterservices_with_field_causes(
    hub: Kubectl, namespace: str
) -> None:
    two_types = multi_cluster_service("web", [], [], types=["CrossCluster", "LoadBalancer"])
    refused = hub.run("apply", "-f", "-", "-n", namespace, input=_json(two_types), check=False)
    assert refused.returncode != 0
    assert "spec.types: Invalid value" in refused.stderr
    assert "should not contain more than one type" in refused.stderr
    bad_ports = multi_cluster_service(
        "web", [], [], ports=[{"name": "http", "port": 80}, {"name": "http", "port": 70000}]
    )
    refused = hub.run("apply", "-f", "-", "-n", namespace, input=_json(bad_ports), check=False)
    assert 'spec.ports[1].name: Duplicate value: "http"' in refused.stderr
    refused = hub.run(
        "apply", "-f", "-", "-n", namespace, input=_json(multi_cluster_service("1web", [], [])), check=False
    )
    assert "a DNS-1035 label" in refused.stderr
    hub.apply_yaml(multi_cluster_service("web", [], []), "-n", namespace)
    changed = multi_cluster_service("web", [], [], types=["LoadBalancer"])
    refused = hub.run("apply", "-f", "-", "-n", namespace, input=_json(changed), check=False)
    assert "MultiClusterService types are immutable" in refused.stderr


def _json(obj: dict[str, Any]) -> str:
    import json

    return json.dumps(obj)


def test_consumers_reach_the_providers_through_the_services_own_cluster_local_name(
    hub: Kubectl, members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    """The point of MultiClusterService: member2 runs no pod of the headless `db`, yet its own
    `db.<ns>.svc.cluster.local` answers with member1's pod, through the dispatched slice."""
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "db"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db"}],
            "placement": {"clusterAffinity": {"clusterNames": ["member1"]}},
        },
    }
    hub.apply_yaml([stateful_set("db"), service("db", HTTP, headless=True), policy], "-n", namespace)
    hub.apply_yaml(multi_cluster_service("db", ["member1"], ["member2"]), "-n", namespace)
    pods = eventually(
        lambda: members["member1"].json("get", "pods", "-n", namespace, "-l", "app=db")["items"],
        until=lambda found: bool(found) and all(p.get("status", {}).get("podIP") for p in found),
        what="db-0 running in member1",
    )
    address = pods[0]["status"]["podIP"]
    eventually(
        lambda: clients["member2"].dns(f"db.{namespace}.svc.cluster.local"),
        until=lambda answer: answer == ("NOERROR", [address]),
        what="member2's cluster.local name answering with member1's pod",
    )
    assert members["member2"].json("get", "pods", "-n", namespace)["items"] == []
