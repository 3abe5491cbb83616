"""What a member's DNS answers for `clusterset.local` and `cluster.local`, from its own API objects.

The Multi-Cluster Services DNS specification (schema 1.0.0), answered as a DNS provider in the
member would, from the member's ServiceImports and the EndpointSlices the MCS controller put there
(one source cluster each, labelled `multicluster.kubernetes.io/service-name` and `source-cluster`):

- `dns-version.clusterset.local` TXT `"1.0.0"`;
- `<svc>.<ns>.svc.clusterset.local`: a `ClusterSetIP` import's `spec.ips` (A for IPv4, AAAA for
  IPv6); a `Headless` import's *ready* endpoints across all source clusters, NXDOMAIN if none;
- `<hostname>.<clusterid>.<svc>.<ns>.svc.clusterset.local` (headless): that cluster's endpoint of
  that hostname (an endpoint without one is named by its address, dashes for dots);
- `_<port>._<proto>.<svc>.<ns>.svc.clusterset.local` SRV, for named ports only: the service name
  and port for `ClusterSetIP`; one record per ready endpoint of a source cluster exposing that
  port for `Headless` — so only the clusters that expose a port are reached through it;
- `<svc>.<ns>.svc.cluster.local` and `<hostname>.<svc>.<ns>.svc.cluster.local`: the member's own
  Service only (its cluster IPs, or for a headless one the ready endpoints of slices labelled
  `kubernetes.io/service-name`), never another cluster's export.

A name that exists without records of the asked type gets an empty answer (NODATA); a name that
does not exist gets NXDOMAIN. Pure: the member's objects come through `MemberObjects`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from flotilla.api import multicluster

Object = Mapping[str, Any]
TTL = 5
"""Seconds resolvers may keep an answer (short: endpoints change as pods come and go)."""
CLUSTER_ZONE = "cluster.local"


class MemberObjects(Protocol):
    def service_import(self, namespace: str, name: str) -> Object | None: ...

    def service(self, namespace: str, name: str) -> Object | None: ...

    def endpoint_slices(self, namespace: str) -> Sequence[Object]: ...


@dataclass(frozen=True, slots=True)
class Record:
    name: str
    type: str
    """A, AAAA, SRV or TXT."""
    value: str
    """The address, the SRV target or the TXT text."""
    port: int = 0
    """The SRV port."""


@dataclass(frozen=True, slots=True)
class Answer:
    exists: bool
    """False: NXDOMAIN."""
    records: tuple[Record, ...] = field(default=())


NXDOMAIN = Answer(False)


def resolve(objects: MemberObjects, name: str, query_type: str) -> Answer:
    """The answer to `query_type` (A, AAAA, SRV, TXT) for `name` in this member."""
    name = name.lower().rstrip(".")
    if name == f"dns-version.{multicluster.CLUSTERSET_ZONE}":
        found = [Record(name, "TXT", multicluster.DNS_SCHEMA_VERSION)]
        return Answer(True, tuple(r for r in found if r.type == query_type))
    for zone, answer in ((multicluster.CLUSTERSET_ZONE, _clusterset), (CLUSTER_ZONE, _cluster)):
        suffix = f".svc.{zone}"
        if name.endswith(suffix):
            labels = name[: -len(suffix)].split(".")
            records = answer(objects, name, labels)
            if records is None:
                return NXDOMAIN
            return Answer(True, tuple(r for r in records if r.type == query_type))
    return NXDOMAIN


def _clusterset(objects: MemberObjects, name: str, labels: list[str]) -> list[Record] | None:
    if len(labels) < 2:
        return None
    service_name, namespace = labels[-2], labels[-1]
    service_import = objects.service_import(namespace, service_name)
    if service_import is None:
        return None
    spec = service_import.get("spec") or {}
    headless = spec.get("type") == multicluster.ServiceImportType.HEADLESS
    service_domain = f"{service_name}.{namespace}.svc.{multicluster.CLUSTERSET_ZONE}"
    endpoints = list(_clusterset_endpoints(objects, namespace, service_name)) if headless else []
    prefix = labels[:-2]
    if not prefix:
        if headless:
            records = [_address(name, ip) for endpoint in endpoints for ip in endpoint.addresses]
            return records or None
        return [_address(name, str(ip)) for ip in spec.get("ips") or ()]
    if len(prefix) == 2 and prefix[0].startswith("_") and prefix[1].startswith("_"):
        port_name, protocol = prefix[0][1:], prefix[1][1:].upper()
        if headless:
            records = [
                Record(name, "SRV", f"{endpoint.hostname}.{endpoint.cluster}.{service_domain}", port)
                for endpoint in endpoints
                for port in endpoint.ports(port_name, protocol)
            ]
            return records or None
        ports = [
            int(p.get("port") or 0)
            for p in spec.get("ports") or ()
            if p.get("name") == port_name and str(p.get("protocol") or "TCP") == protocol
        ]
        return [Record(name, "SRV", service_domain, port) for port in ports] or None
    if len(prefix) == 2 and headless:
        hostname, cluster = prefix
        records = [
            _address(name, ip)
            for endpoint in endpoints
            if endpoint.cluster == cluster and endpoint.hostname == hostname
            for ip in endpoint.addresses
        ]
        return records or None
    return None


def _cluster(objects: MemberObjects, name: str, labels: list[str]) -> list[Record] | None:
    if len(labels) < 2:
        return None
    service_name, namespace = labels[-2], labels[-1]
    service = objects.service(namespace, service_name)
    if service is None:
        return None
    spec = service.get("spec") or {}
    prefix = labels[:-2]
    cluster_ips = [str(ip) for ip in spec.get("clusterIPs") or [spec.get("clusterIP")] if ip and ip != "None"]
    if cluster_ips:
        return [_address(name, ip) for ip in cluster_ips] if not prefix else None
    endpoints = [
        endpoint
        for endpoint_slice in objects.endpoint_slices(namespace)
        if _labels(endpoint_slice).get(multicluster.KUBE_SERVICE_NAME_LABEL) == service_name
        for endpoint in _ready_endpoints(endpoint_slice, "")
    ]
    if not prefix:
        return [_address(name, ip) for endpoint in endpoints for ip in endpoint.addresses] or None
    if len(prefix) == 1:
        found = [_address(name, ip) for e in endpoints if e.hostname == prefix[0] for ip in e.addresses]
        return found or None
    return None


@dataclass(frozen=True, slots=True)
class _Endpoint:
    cluster: str
    hostname: str
    addresses: tuple[str, ...]
    slice_ports: tuple[Mapping[str, Any], ...]

    def ports(self, name: str, protocol: str) -> list[int]:
        return [
            int(p.get("port") or 0)
            for p in self.slice_ports
            if p.get("name") == name and str(p.get("protocol") or "TCP") == protocol and p.get("port")
        ]


def _labels(obj: Object) -> Mapping[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def _clusterset_endpoints(objects: MemberObjects, namespace: str, service_name: str) -> Iterator[_Endpoint]:
    for endpoint_slice in objects.endpoint_slices(namespace):
        labels = _labels(endpoint_slice)
        if labels.get(multicluster.SERVICE_NAME_LABEL) != service_name:
            continue
        yield from _ready_endpoints(endpoint_slice, labels.get(multicluster.SOURCE_CLUSTER_LABEL, ""))


def _ready_endpoints(endpoint_slice: Object, cluster: str) -> Iterator[_Endpoint]:
    ports = tuple(endpoint_slice.get("ports") or ())
    for endpoint in endpoint_slice.get("endpoints") or ():
        # A nil `ready` means ready (discovery.k8s.io/v1).
        if (endpoint.get("conditions") or {}).get("ready") is False:
            continue
        addresses = tuple(str(a) for a in endpoint.get("addresses") or ())
        if not addresses:
            continue
        hostname = str(endpoint.get("hostname") or "") or addresses[0].replace(".", "-").replace(":", "-")
        yield _Endpoint(cluster, hostname, addresses, ports)


def _address(name: str, ip: str) -> Record:
    try:
        version = ipaddress.ip_address(ip).version
    except ValueError:
        version = 4
    return Record(name, "AAAA" if version == 6 else "A", ip)
