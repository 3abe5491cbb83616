"""A member's DNS answers for clusterset.local and cluster.local from its own objects (spec 1.0.0)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flotilla.sim.multicluster.dns.records import Record, resolve


class Objects:
    def __init__(
        self,
        imports: Sequence[dict[str, Any]] = (),
        services: Sequence[dict[str, Any]] = (),
        slices: Sequence[dict[str, Any]] = (),
    ) -> None:
        self.imports = {(o["metadata"]["namespace"], o["metadata"]["name"]): o for o in imports}
        self.services = {(o["metadata"]["namespace"], o["metadata"]["name"]): o for o in services}
        self.slices = list(slices)

    def service_import(self, namespace: str, name: str) -> Mapping[str, Any] | None:
        return self.imports.get((namespace, name))

    def service(self, namespace: str, name: str) -> Mapping[str, Any] | None:
        return self.services.get((namespace, name))

    def endpoint_slices(self, namespace: str) -> Sequence[Mapping[str, Any]]:
        return [s for s in self.slices if s["metadata"]["namespace"] == namespace]


def service_import(name: str, kind: str, ips: list[str] | None = None, ports: Any = ()) -> dict[str, Any]:
    spec: dict[str, Any] = {"type": kind, "ports": list(ports)}
    if ips:
        spec["ips"] = ips
    return {"metadata": {"name": name, "namespace": "demo"}, "spec": spec}


def mcs_slice(service: str, cluster: str, *endpoints: dict[str, Any], ports: Any = ()) -> dict[str, Any]:
    return {
        "metadata": {
            "name": f"{cluster}-{service}",
            "namespace": "demo",
            "labels": {
                "multicluster.kubernetes.io/service-name": service,
                "multicluster.kubernetes.io/source-cluster": cluster,
            },
        },
        "endpoints": list(endpoints),
        "ports": list(ports),
    }


def endpoint(ip: str, hostname: str = "", ready: bool = True) -> dict[str, Any]:
    found: dict[str, Any] = {"addresses": [ip], "conditions": {"ready": ready}}
    if hostname:
        found["hostname"] = hostname
    return found


HTTP = {"name": "http", "port": 80, "protocol": "TCP"}


def addresses(objects: Objects, name: str, kind: str = "A") -> list[str]:
    answer = resolve(objects, name, kind)
    return sorted(r.value for r in answer.records)


def test_the_schema_version_is_1_0_0() -> None:
    answer = resolve(Objects(), "dns-version.clusterset.local.", "TXT")
    assert answer.records == (Record("dns-version.clusterset.local", "TXT", "1.0.0"),)


def test_a_clusterset_ip_service_resolves_to_its_clusterset_ip() -> None:
    objects = Objects([service_import("web", "ClusterSetIP", ["10.112.0.7"], [HTTP])])
    assert addresses(objects, "web.demo.svc.clusterset.local") == ["10.112.0.7"]
    assert resolve(objects, "web.demo.svc.clusterset.local", "AAAA").records == ()
    assert resolve(objects, "web.demo.svc.clusterset.local", "AAAA").exists


def test_named_ports_get_srv_records_pointing_at_the_service() -> None:
    objects = Objects([service_import("web", "ClusterSetIP", ["10.112.0.7"], [HTTP, {"port": 9090}])])
    answer = resolve(objects, "_http._tcp.web.demo.svc.clusterset.local", "SRV")
    assert answer.records == (
        Record("_http._tcp.web.demo.svc.clusterset.local", "SRV", "web.demo.svc.clusterset.local", 80),
    )
    assert not resolve(objects, "_metrics._tcp.web.demo.svc.clusterset.local", "SRV").exists


def test_a_name_nobody_imports_does_not_exist() -> None:
    assert not resolve(Objects(), "web.demo.svc.clusterset.local", "A").exists
    assert not resolve(Objects(), "example.com", "A").exists


def test_a_headless_service_resolves_to_ready_endpoints_across_clusters() -> None:
    objects = Objects(
        [service_import("db", "Headless")],
        slices=[
            mcs_slice(
                "db", "member1", endpoint("10.0.1.5", "db-0"), endpoint("10.0.1.6", "db-1", ready=False)
            ),
            mcs_slice("db", "member2", endpoint("10.0.2.5", "db-0")),
        ],
    )
    assert addresses(objects, "db.demo.svc.clusterset.local") == ["10.0.1.5", "10.0.2.5"]
    assert addresses(objects, "db-0.member2.db.demo.svc.clusterset.local") == ["10.0.2.5"]
    assert not resolve(objects, "db-1.member1.db.demo.svc.clusterset.local", "A").exists


def test_a_headless_service_without_ready_endpoints_is_nxdomain() -> None:
    objects = Objects(
        [service_import("db", "Headless")],
        slices=[mcs_slice("db", "member1", endpoint("10.0.1.5", ready=False))],
    )
    assert not resolve(objects, "db.demo.svc.clusterset.local", "A").exists


def test_headless_srv_reaches_only_the_clusters_that_expose_the_port() -> None:
    objects = Objects(
        [service_import("db", "Headless", ports=[HTTP, {"name": "admin", "port": 81}])],
        slices=[
            mcs_slice("db", "member1", endpoint("10.0.1.5", "db-0"), ports=[HTTP]),
            mcs_slice(
                "db", "member2", endpoint("10.0.2.5", "db-0"), ports=[HTTP, {"name": "admin", "port": 81}]
            ),
        ],
    )
    admin = resolve(objects, "_admin._tcp.db.demo.svc.clusterset.local", "SRV").records
    assert [(r.value, r.port) for r in admin] == [("db-0.member2.db.demo.svc.clusterset.local", 81)]
    http = resolve(objects, "_http._tcp.db.demo.svc.clusterset.local", "SRV").records
    assert sorted(r.value for r in http) == [
        "db-0.member1.db.demo.svc.clusterset.local",
        "db-0.member2.db.demo.svc.clusterset.local",
    ]


def test_cluster_local_names_resolve_only_local_services() -> None:
    local = {
        "metadata": {"name": "web", "namespace": "demo"},
        "spec": {"clusterIP": "10.96.0.9", "clusterIPs": ["10.96.0.9"]},
    }
    objects = Objects(
        [
            service_import("web", "ClusterSetIP", ["10.112.0.7"]),
            service_import("api", "ClusterSetIP", ["10.112.0.8"]),
        ],
        [local],
    )
    assert addresses(objects, "web.demo.svc.cluster.local") == ["10.96.0.9"]
    assert not resolve(objects, "api.demo.svc.cluster.local", "A").exists
