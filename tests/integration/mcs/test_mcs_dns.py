"""Clusterset DNS as each simulated member's resolver answers it (specification 1.0.0), over UDP.

Named after mcs-api's DNS and connectivity conformance tests: the routing ones ("should only access
the exporting cluster", "should only route traffic to the cluster that exposes the port") are shown
by which endpoints the resolver hands out, since no packets flow between simulated clusters.
"""

from __future__ import annotations

import pytest

from tests.integration.mcs.clusterset import (
    Member,
    deployment,
    port,
    service,
    service_export,
    stateful_set,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

HTTP = port("http", 80)
ADMIN = port("admin", 81)


def clusterset_ip(member: Member, namespace: str, name: str) -> str:
    service_import = eventually(
        lambda: member.service_import(namespace, name),
        until=lambda found: bool((found or {}).get("spec", {}).get("ips")),
        what=f"a clusterset IP in {member.name}",
    )
    ip: str = service_import["spec"]["ips"][0]
    return ip


def test_dns_schema_version_is_1_0_0(clients: dict[str, Member]) -> None:
    assert clients["member1"].dns("dns-version.clusterset.local", "TXT") == ("NOERROR", ["1.0.0"])


def test_a_dns_lookup_of_svc_clusterset_local_for_a_clusterip_service_should_resolve_to_the_clusterset_ip(
    members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    members["member1"].apply_yaml(
        [service("web", HTTP), deployment("web"), service_export("web")], "-n", namespace
    )
    name = f"web.{namespace}.svc.clusterset.local"
    for member in clients.values():
        ip = clusterset_ip(member, namespace, "web")
        assert member.dns(name) == ("NOERROR", [ip])
    # SRV for the named port points at the service's clusterset name.
    srv = clients["member2"].dns(f"_http._tcp.{name}", "SRV")
    assert srv == ("NOERROR", [f"80 {name}"])


def test_dns_lookups_of_the_cluster_local_domain_should_only_resolve_local_services(
    members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    members["member1"].apply_yaml(
        [service("web", HTTP), deployment("web"), service_export("web")], "-n", namespace
    )
    clusterset_ip(clients["member2"], namespace, "web")
    local = clients["member1"].dns(f"web.{namespace}.svc.cluster.local")
    assert local[0] == "NOERROR" and local[1]
    assert clients["member2"].dns(f"web.{namespace}.svc.cluster.local") == ("NXDOMAIN", [])
    assert clients["member2"].dns(f"nothing.{namespace}.svc.clusterset.local") == ("NXDOMAIN", [])


def pod_ips(member: Kubectl, namespace: str, app: str) -> list[str]:
    pods = member.json("get", "pods", "-n", namespace, "-l", f"app={app}")["items"]
    return sorted(p["status"]["podIP"] for p in pods if p.get("status", {}).get("podIP"))


def test_a_headless_service_should_resolve_to_ready_endpoints_across_clusters_and_per_pod_names(
    members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    """…and should only access the exporting clusters: member3 runs the same Service without exporting it."""
    for cluster in ("member1", "member2", "member3"):
        objects = [service("db", HTTP, headless=True), stateful_set("db")]
        if cluster != "member3":
            objects.append(service_export("db"))
        members[cluster].apply_yaml(objects, "-n", namespace)
    exporting = {
        c: eventually(lambda c=c: pod_ips(members[c], namespace, "db"), what=f"pod IP in {c}")
        for c in ("member1", "member2")
    }
    expected = sorted(ip for ips in exporting.values() for ip in ips)
    name = f"db.{namespace}.svc.clusterset.local"
    for member in clients.values():
        eventually(
            lambda member=member: member.dns(name),
            until=lambda a: a == ("NOERROR", expected),
            what=f"{member.name} answers",
        )
    # Simulated clusters reuse pod CIDRs, so member3's pod may share an address with another's: the
    # answer counts one address per exporting pod, and the per-cluster names tell them apart.
    sources = {
        s["metadata"]["labels"]["multicluster.kubernetes.io/source-cluster"]
        for s in clients["member3"].endpoint_slices(namespace, "multicluster.kubernetes.io/service-name=db")
    }
    assert sources == {"member1", "member2"}
    assert clients["member3"].dns(f"db-0.member2.{name}") == ("NOERROR", exporting["member2"])
    assert clients["member1"].dns(f"db-0.member3.{name}") == ("NXDOMAIN", [])
    srv = clients["member3"].dns(f"_http._tcp.{name}", "SRV")
    assert srv == ("NOERROR", [f"80 db-0.member1.{name}", f"80 db-0.member2.{name}"])


def test_traffic_to_a_port_should_only_route_to_the_clusters_that_expose_the_port(
    members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    members["member1"].apply_yaml(
        [service("db", HTTP, headless=True), stateful_set("db"), service_export("db")], "-n", namespace
    )
    members["member2"].apply_yaml(
        [service("db", HTTP, ADMIN, headless=True), stateful_set("db"), service_export("db")], "-n", namespace
    )
    name = f"db.{namespace}.svc.clusterset.local"
    eventually(
        lambda: clients["member3"].dns(f"_http._tcp.{name}", "SRV"),
        until=lambda a: a == ("NOERROR", [f"80 db-0.member1.{name}", f"80 db-0.member2.{name}"]),
        what="http served by both",
    )
    assert clients["member3"].dns(f"_admin._tcp.{name}", "SRV") == ("NOERROR", [f"81 db-0.member2.{name}"])


def test_a_headless_service_without_ready_endpoints_is_nxdomain(
    members: dict[str, Kubectl], clients: dict[str, Member], namespace: str
) -> None:
    members["member1"].apply_yaml([service("db", HTTP, headless=True), service_export("db")], "-n", namespace)
    eventually(lambda: clients["member2"].service_import(namespace, "db"), what="headless import")
    assert clients["member2"].dns(f"db.{namespace}.svc.clusterset.local") == ("NXDOMAIN", [])
