"""The Multi-Cluster Services API on simulated members, named after mcs-api's conformance behaviours.

The clusterset (`conftest`): a hub, three Push members (`member1..3`) in one sim, a controller
manager. Services are exported from the members themselves, as the specification has it (and once
from the hub by a PropagationPolicy, as Karmada users do).
"""

from __future__ import annotations

import ipaddress
import time
import uuid

import pytest

from tests.integration.federation import Federation
from tests.integration.mcs.clusterset import (
    MEMBERS,
    Member,
    condition,
    deployment,
    port,
    service,
    service_export,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

HTTP = port("http", 80)
METRICS = port("metrics", 9090)


def imports(clients: dict[str, Member], namespace: str, name: str) -> dict[str, dict[str, object]]:
    """The ServiceImport `name` in each member that has it."""
    found = {cluster: member.service_import(namespace, name) for cluster, member in clients.items()}
    return {cluster: obj for cluster, obj in found.items() if obj is not None}


def export_from(
    members: dict[str, Kubectl], cluster: str, namespace: str, name: str, *objects: dict[str, object]
) -> None:
    members[cluster].apply_yaml([*objects, service_export(name)], "-n", namespace)


def test_exporting_a_clusterip_service_creates_a_clusterset_ip_import_in_each_cluster_unexporting_deletes_it(
    members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    export_from(members, "member1", namespace, "web", service("web", HTTP), deployment("web"))
    found = eventually(
        lambda: imports(clients, namespace, "web"),
        until=lambda f: set(f) == set(MEMBERS) and all("status" in i for i in f.values()),
        what="imports everywhere",
    )
    for service_import in found.values():
        spec = service_import["spec"]
        assert spec["type"] == "ClusterSetIP"
        assert spec["ports"] == [HTTP]
        assert service_import["status"]["clusters"] == [{"cluster": "member1"}]
    # "An IP should be allocated for a ClusterSetIP ServiceImport": each member's allocator, from its range.
    ips = eventually(
        lambda: {
            c: (m.service_import(namespace, "web") or {}).get("spec", {}).get("ips")
            for c, m in clients.items()
        },
        until=lambda f: all(f.values()),
        what="clusterset IPs",
    )
    for addresses in ips.values():
        assert ipaddress.ip_address(addresses[0]) in ipaddress.ip_network("10.112.0.0/16")
    exported = eventually(
        lambda: clients["member1"].service_export(namespace, "web"),
        until=lambda e: condition(e, "Ready") == ("True", "Exported"),
        what="export Ready",
    )
    assert condition(exported, "Valid") == ("True", "Valid")
    assert condition(exported, "Conflict") == ("False", "NoConflicts")
    members["member1"]("delete", "serviceexport", "web", "-n", namespace)
    eventually(lambda: not imports(clients, namespace, "web"), what="imports deleted everywhere")


def test_a_serviceimport_should_only_exist_as_long_as_there_is_at_least_one_exporting_cluster(
    members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    for cluster in ("member1", "member2"):
        export_from(members, cluster, namespace, "web", service("web", HTTP), deployment("web"))
    eventually(
        lambda: imports(clients, namespace, "web").get("member3", {}).get("status", {}).get("clusters"),
        until=lambda clusters: clusters == [{"cluster": "member1"}, {"cluster": "member2"}],
        what="both exporters in the import",
    )
    members["member1"]("delete", "serviceexport", "web", "-n", namespace)
    eventually(
        lambda: imports(clients, namespace, "web"),
        until=lambda f: (
            set(f) == set(MEMBERS)
            and all(i.get("status", {}).get("clusters") == [{"cluster": "member2"}] for i in f.values())
        ),
        what="member2 alone in the imports",
    )
    members["member2"]("delete", "serviceexport", "web", "-n", namespace)
    eventually(lambda: not imports(clients, namespace, "web"), what="imports deleted")


def test_a_clusterset_ip_import_exposes_the_union_of_the_constituent_service_ports_and_raises_a_conflict(
    members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    export_from(members, "member1", namespace, "web", service("web", HTTP), deployment("web"))
    eventually(lambda: clients["member1"].service_export(namespace, "web"), what="first export")
    export_from(members, "member2", namespace, "web", service("web", HTTP, METRICS), deployment("web"))
    eventually(
        lambda: imports(clients, namespace, "web").get("member3", {}).get("spec", {}).get("ports"),
        until=lambda ports: ports == [HTTP, METRICS],
        what="the union of ports",
    )
    for cluster in ("member1", "member2"):
        eventually(
            lambda cluster=cluster: clients[cluster].service_export(namespace, "web"),
            until=lambda e: condition(e, "Conflict") == ("True", "PortConflict"),
            what=f"PortConflict on {cluster}'s export",
        )


def test_no_clusterset_ip_is_allocated_for_a_headless_import_and_conflicting_headlessness_is_a_type_conflict(
    members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    export_from(members, "member1", namespace, "db", service("db", HTTP, headless=True), deployment("db"))
    eventually(lambda: imports(clients, namespace, "db").get("member2"), what="headless import")
    export_from(members, "member2", namespace, "db", service("db", HTTP), deployment("db"))
    eventually(
        lambda: clients["member2"].service_export(namespace, "db"),
        until=lambda e: condition(e, "Conflict") == ("True", "TypeConflict"),
        what="TypeConflict on the newer export",
    )
    assert condition(clients["member1"].service_export(namespace, "db"), "Conflict") == (
        "True",
        "TypeConflict",
    )
    for service_import in imports(clients, namespace, "db").values():
        assert service_import["spec"]["type"] == "Headless"
        assert "ips" not in service_import["spec"]


def test_exporting_an_externalname_service_should_set_serviceexport_valid_condition_to_false(
    members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    external = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "ext"},
        "spec": {"type": "ExternalName", "externalName": "example.com"},
    }
    members["member1"].apply_yaml([external, service_export("ext")], "-n", namespace)
    exported = eventually(
        lambda: clients["member1"].service_export(namespace, "ext"),
        until=lambda e: condition(e, "Valid")[0] == "False",
        what="Valid=False",
    )
    assert condition(exported, "Valid") == ("False", "InvalidServiceType")
    assert not imports(clients, namespace, "ext")


def test_exporting_without_a_service_reports_no_service(
    members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    members["member1"].apply_yaml(service_export("nothing"), "-n", namespace)
    eventually(
        lambda: clients["member1"].service_export(namespace, "nothing"),
        until=lambda e: condition(e, "Valid") == ("False", "NoService"),
        what="Valid=False NoService",
    )
    assert not imports(clients, namespace, "nothing")


def test_only_labels_and_annotations_specified_as_exported_are_propagated_to_the_serviceimport(
    members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    labelled = service("web", HTTP)
    labelled["metadata"]["labels"] = {"team": "a", "secret": "no"}
    export = service_export("web", exportedLabels={"team": "a"}, exportedAnnotations={"owner": "ops"})
    members["member1"].apply_yaml([labelled, deployment("web"), export], "-n", namespace)
    found = eventually(lambda: imports(clients, namespace, "web").get("member2"), what="import")
    assert found["metadata"]["labels"]["team"] == "a"
    assert "secret" not in found["metadata"]["labels"]
    assert found["metadata"]["annotations"] == {"owner": "ops"}


def test_exporting_a_service_should_create_an_mcs_endpointslice_in_each_cluster_with_the_required_mcs_labels(
    members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    """…and unexporting should delete the EndpointSlice."""
    export_from(members, "member1", namespace, "web", service("web", HTTP), deployment("web", 2))
    selector = "multicluster.kubernetes.io/service-name=web"

    def ready_addresses(slices: list[dict[str, object]]) -> int:
        return sum(len(s.get("endpoints") or []) for s in slices)  # type: ignore[arg-type]

    for cluster, member in clients.items():
        slices = eventually(
            lambda member=member: member.endpoint_slices(namespace, selector),
            until=lambda found: ready_addresses(found) == 2,
            what=f"an MCS slice with both pods in {cluster}",
        )
        [mcs_slice] = slices
        labels = mcs_slice["metadata"]["labels"]
        assert labels["multicluster.kubernetes.io/source-cluster"] == "member1"
        assert labels["endpointslice.kubernetes.io/managed-by"] != "endpointslice-controller.k8s.io"
        assert "kubernetes.io/service-name" not in labels
        [owner] = mcs_slice["metadata"]["ownerReferences"]
        assert (owner["kind"], owner["name"], owner["controller"]) == ("ServiceImport", "web", False)
        assert owner["uid"] == member.service_import(namespace, "web")["metadata"]["uid"]  # type: ignore[index]
    members["member1"]("delete", "serviceexport", "web", "-n", namespace)
    for cluster, member in clients.items():
        eventually(
            lambda member=member: not member.endpoint_slices(namespace, selector),
            what=f"no MCS slice in {cluster}",
        )


def test_each_member_describes_itself_with_cluster_properties(clients: dict[str, Member]) -> None:
    for cluster, member in clients.items():
        assert member.cluster_properties() == {
            "cluster.clusterset.k8s.io": cluster,
            "clusterset.k8s.io": "flotilla",
        }


def test_a_serviceexport_propagated_from_the_hub_by_policy_exports_each_members_service(
    hub: Kubectl, clients: dict[str, Member], namespace: str
) -> None:
    """As Karmada users do it: the Service, its workload and its ServiceExport placed by one policy."""
    selectors = [
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        {"apiVersion": "v1", "kind": "Service", "name": "web"},
        {"apiVersion": "multicluster.x-k8s.io/v1beta1", "kind": "ServiceExport", "name": "web"},
    ]
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "web"},
        "spec": {
            "resourceSelectors": selectors,
            "placement": {"clusterAffinity": {"clusterNames": ["member1", "member2"]}},
        },
    }
    v1alpha1_export = {**service_export("web"), "apiVersion": "multicluster.x-k8s.io/v1alpha1"}
    hub.apply_yaml([service("web", HTTP), deployment("web"), v1alpha1_export, policy], "-n", namespace)
    eventually(
        lambda: imports(clients, namespace, "web").get("member3", {}).get("status", {}).get("clusters"),
        until=lambda clusters: clusters == [{"cluster": "member1"}, {"cluster": "member2"}],
        what="an import of both members' exports in member3",
    )


def test_a_source_cluster_that_stops_being_ready_loses_its_endpoints_everywhere(
    federation: Federation, members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    selector = "multicluster.kubernetes.io/service-name=web"
    for cluster in ("member1", "member3"):
        export_from(members, cluster, namespace, "web", service("web", HTTP), deployment("web"))

    def sources(member: Member) -> set[str]:
        return {
            s["metadata"]["labels"]["multicluster.kubernetes.io/source-cluster"]
            for s in member.endpoint_slices(namespace, selector)
        }

    eventually(
        lambda: sources(clients["member2"]),
        until=lambda found: found == {"member1", "member3"},
        what="both sources",
    )
    federation.sim.fault("member3", "--unreachable")
    try:
        eventually(
            lambda: sources(clients["member2"]),
            until=lambda found: found == {"member1"},
            timeout=60,
            what="member3's slices gone",
        )
        assert clients["member1"].service_import(namespace, "web")["status"]["clusters"] == [
            {"cluster": "member1"}
        ]  # type: ignore[index]
    finally:
        federation.sim.fault("member3", "--recover")
        federation.wait_clusters_ready()
    eventually(
        lambda: sources(clients["member2"]), until=lambda found: found == {"member1", "member3"}, what="back"
    )


def test_a_converged_export_is_left_alone_and_survives_a_controller_manager_restart(
    federation: Federation, members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    """Level-based and idempotent: once converged nothing is rewritten, and a restarted manager
    (which meets every object anew) changes nothing either."""
    export_from(members, "member1", namespace, "web", service("web", HTTP), deployment("web"))
    selector = "multicluster.kubernetes.io/service-name=web"

    def versions() -> dict[str, tuple[str, ...]]:
        found = {}
        for cluster, member in clients.items():
            service_import = member.service_import(namespace, "web") or {}
            slices = member.endpoint_slices(namespace, selector)
            found[cluster] = (
                service_import.get("metadata", {}).get("resourceVersion", ""),
                *sorted(s["metadata"]["resourceVersion"] for s in slices if s.get("endpoints")),
            )
        export = clients["member1"].service_export(namespace, "web") or {}
        found["export"] = (export.get("metadata", {}).get("resourceVersion", ""),)
        return found

    eventually(
        lambda: clients["member1"].service_export(namespace, "web"),
        until=lambda e: condition(e, "Ready") == ("True", "Exported"),
        what="export Ready",
    )
    settled = eventually(
        versions,
        until=lambda found: (
            all(len(v) == 2 for c, v in found.items() if c != "export")
            and all(
                (clients[c].service_import(namespace, "web") or {}).get("spec", {}).get("ips")
                for c in MEMBERS
            )
        ),
        what="imports with IPs and slices with the pod",
    )
    time.sleep(2)
    assert versions() == settled
    federation.manager.stop()
    federation.manager.start()
    time.sleep(3)
    assert versions() == settled


def test_source_clusters_are_named_by_their_cluster_id_cluster_property(
    members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    """The ClusterId KEP: a member's `cluster.clusterset.k8s.io` names it in imports and slices."""
    rename = '{"spec": {"value": "%s"}}'
    members["member3"](
        "patch", "clusterproperty", "cluster.clusterset.k8s.io", "--type=merge", "-p", rename % "edge-3"
    )
    try:
        export_from(members, "member3", namespace, "web", service("web", HTTP), deployment("web"))
        eventually(
            lambda: imports(clients, namespace, "web").get("member1", {}).get("status", {}).get("clusters"),
            until=lambda clusters: clusters == [{"cluster": "edge-3"}],
            what="edge-3 in member1's import",
        )
        slices = eventually(
            lambda: clients["member1"].endpoint_slices(
                namespace, "multicluster.kubernetes.io/service-name=web"
            ),
            what="member3's slice in member1",
        )
        assert {s["metadata"]["labels"]["multicluster.kubernetes.io/source-cluster"] for s in slices} == {
            "edge-3"
        }
    finally:
        members["member3"](
            "patch", "clusterproperty", "cluster.clusterset.k8s.io", "--type=merge", "-p", rename % "member3"
        )


def test_a_serviceimport_is_created_only_where_the_services_namespace_exists(
    members: dict[str, Kubectl], clients: dict[str, Member]
) -> None:
    """A namespace made in member1 alone (not on the hub, so not synced): the import stays there."""
    local = f"local-{uuid.uuid4().hex[:6]}"
    members["member1"]("create", "namespace", local)
    export_from(members, "member1", local, "web", service("web", HTTP), deployment("web"))
    eventually(
        lambda: imports(clients, local, "web"), until=lambda f: "member1" in f, what="member1's import"
    )
    members["member2"]("create", "namespace", local)
    eventually(
        lambda: imports(clients, local, "web"),
        until=lambda f: set(f) == {"member1", "member2"},
        what="an import in member2 once the namespace is there",
    )


def test_session_affinity_and_internal_traffic_policy_of_a_clusterset_ip_import_match_the_exported_services(
    members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    sticky = service("web", HTTP, sessionAffinity="ClientIP", internalTrafficPolicy="Local")
    export_from(members, "member1", namespace, "web", sticky, deployment("web"))
    found = eventually(lambda: imports(clients, namespace, "web").get("member2"), what="import")
    assert found["spec"]["sessionAffinity"] == "ClientIP"
    assert found["spec"]["sessionAffinityConfig"] == {"clientIP": {"timeoutSeconds": 10800}}
    assert found["spec"]["internalTrafficPolicy"] == "Local"
