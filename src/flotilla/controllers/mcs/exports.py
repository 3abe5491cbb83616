"""Merging a service's exports across the clusterset into one ServiceImport (pure).

Each cluster's ServiceExport exports the Service of the same name and namespace *in that cluster*.
An export is valid when that Service exists and is not `ExternalName` (mcs.md §5.1, rule 5); the
valid ones are merged in the order of their ServiceExport's `creationTimestamp`, oldest first
(ties broken by cluster name, so every reconcile agrees), as the KEP's conflict resolution says:

- ports: the union, merged by name, then by protocol and port; any difference between the exports'
  port sets is a `PortConflict` (traffic to a port goes only to the clusters exposing it: their
  EndpointSlices carry their own ports);
- type (`Headless` for a headless Service, else `ClusterSetIP`), session affinity and its config,
  internal traffic policy, traffic distribution, IP families, and the exported labels and
  annotations: the oldest export's, with the matching `…Conflict` reason when another differs.

Every valid export then carries `Conflict=True` with the reasons comma-joined, or
`Conflict=False`/`NoConflicts`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flotilla.api.multicluster import ExportReason, ServiceImportType

Object = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ClusterExport:
    """One cluster's ServiceExport and the Service of the same name there (None: there is none)."""

    cluster: str
    export: Object
    service: Object | None

    @property
    def created(self) -> str:
        return str((self.export.get("metadata") or {}).get("creationTimestamp") or "")


@dataclass(frozen=True, slots=True)
class Validity:
    valid: bool
    reason: ExportReason
    message: str


def validity(service: Object | None) -> Validity:
    """Whether a Service can be exported, as the `Valid` condition says."""
    if service is None:
        return Validity(False, ExportReason.NO_SERVICE, "the Service of the same name does not exist")
    if (service.get("spec") or {}).get("type") == "ExternalName":
        return Validity(
            False, ExportReason.INVALID_SERVICE_TYPE, "an ExternalName Service cannot be exported"
        )
    return Validity(True, ExportReason.VALID, "the Service can be exported")


@dataclass(frozen=True, slots=True)
class MergedImport:
    """What the ServiceImport of a service says, and the conflicts found merging its exports."""

    spec: dict[str, Any]
    """ports, type, sessionAffinity(Config), ipFamilies, internalTrafficPolicy, trafficDistribution
    (no `ips`: each member's allocator owns them)."""
    labels: dict[str, str]
    annotations: dict[str, str]
    clusters: tuple[str, ...]
    """The exporting clusters (valid exports), sorted."""
    conflicts: tuple[ExportReason, ...] = field(default=())
    conflicting_clusters: tuple[str, ...] = field(default=())


def import_type(service: Object) -> ServiceImportType:
    cluster_ip = (service.get("spec") or {}).get("clusterIP")
    return ServiceImportType.HEADLESS if cluster_ip == "None" else ServiceImportType.CLUSTER_SET_IP


def import_ports(service: Object) -> list[dict[str, Any]]:
    """A Service's ports as ServiceImport ports (name, protocol, appProtocol, port)."""
    ports = []
    for port in (service.get("spec") or {}).get("ports") or ():
        entry: dict[str, Any] = {
            "port": int(port.get("port") or 0),
            "protocol": port.get("protocol") or "TCP",
        }
        if port.get("name"):
            entry["name"] = port["name"]
        if port.get("appProtocol"):
            entry["appProtocol"] = port["appProtocol"]
        ports.append(entry)
    return ports


def _port_key(port: Mapping[str, Any]) -> tuple[str, str, int]:
    return (str(port.get("name") or ""), str(port.get("protocol") or "TCP"), int(port.get("port") or 0))


def union_ports(port_lists: Sequence[Sequence[Mapping[str, Any]]]) -> tuple[list[dict[str, Any]], bool]:
    """The union of the exports' ports, oldest first, and whether they conflict.

    A port whose name is already taken by an older export's port, or whose protocol and port an older
    one already exposes under another name, is left out (the older wins); any difference between the
    port sets is a conflict."""
    merged: list[dict[str, Any]] = []
    for ports in port_lists:
        for port in ports:
            name, protocol, number = _port_key(port)
            if name and any(str(p.get("name") or "") == name for p in merged):
                continue
            if any(_port_key(p)[1:] == (protocol, number) for p in merged):
                continue
            merged.append(dict(port))
    sets = {frozenset(_port_key(p) for p in ports) for ports in port_lists}
    return merged, len(sets) > 1


def _properties(service: Object, export: Object) -> dict[ExportReason, Any]:
    spec = service.get("spec") or {}
    export_spec = export.get("spec") or {}
    return {
        ExportReason.TYPE_CONFLICT: import_type(service),
        ExportReason.SESSION_AFFINITY_CONFLICT: spec.get("sessionAffinity") or "None",
        ExportReason.SESSION_AFFINITY_CONFIG_CONFLICT: spec.get("sessionAffinityConfig") or None,
        ExportReason.INTERNAL_TRAFFIC_POLICY_CONFLICT: spec.get("internalTrafficPolicy") or "Cluster",
        ExportReason.TRAFFIC_DISTRIBUTION_CONFLICT: spec.get("trafficDistribution") or None,
        ExportReason.IP_FAMILY_CONFLICT: list(spec.get("ipFamilies") or ["IPv4"]),
        ExportReason.LABELS_CONFLICT: dict(export_spec.get("exportedLabels") or {}),
        ExportReason.ANNOTATIONS_CONFLICT: dict(export_spec.get("exportedAnnotations") or {}),
    }


def oldest_first(exports: Sequence[ClusterExport]) -> list[ClusterExport]:
    return sorted(exports, key=lambda export: (export.created, export.cluster))


def merge_exports(exports: Sequence[ClusterExport]) -> MergedImport | None:
    """The ServiceImport of the valid exports among `exports`; None when none is valid (no import)."""
    valid = [e for e in oldest_first(exports) if e.service is not None and validity(e.service).valid]
    if not valid:
        return None
    properties = [_properties(e.service or {}, e.export) for e in valid]
    oldest = properties[0]
    conflicts = [reason for reason, value in oldest.items() if any(p[reason] != value for p in properties)]
    port_lists = [import_ports(e.service or {}) for e in valid]
    ports, port_conflict = union_ports(port_lists)
    if port_conflict:
        conflicts.insert(0, ExportReason.PORT_CONFLICT)
    spec: dict[str, Any] = {"type": str(oldest[ExportReason.TYPE_CONFLICT]), "ports": ports}
    if oldest[ExportReason.TYPE_CONFLICT] == ServiceImportType.CLUSTER_SET_IP:
        spec["sessionAffinity"] = oldest[ExportReason.SESSION_AFFINITY_CONFLICT]
        if oldest[ExportReason.SESSION_AFFINITY_CONFIG_CONFLICT]:
            spec["sessionAffinityConfig"] = oldest[ExportReason.SESSION_AFFINITY_CONFIG_CONFLICT]
    spec["ipFamilies"] = oldest[ExportReason.IP_FAMILY_CONFLICT]
    spec["internalTrafficPolicy"] = oldest[ExportReason.INTERNAL_TRAFFIC_POLICY_CONFLICT]
    if oldest[ExportReason.TRAFFIC_DISTRIBUTION_CONFLICT]:
        spec["trafficDistribution"] = oldest[ExportReason.TRAFFIC_DISTRIBUTION_CONFLICT]
    oldest_ports = {_port_key(p) for p in port_lists[0]}
    differing = tuple(
        sorted(
            export.cluster
            for export, found, own_ports in zip(valid, properties, port_lists, strict=True)
            if {_port_key(p) for p in own_ports} != oldest_ports
            or any(found[reason] != value for reason, value in oldest.items())
        )
    )
    return MergedImport(
        spec=spec,
        labels=oldest[ExportReason.LABELS_CONFLICT],
        annotations=oldest[ExportReason.ANNOTATIONS_CONFLICT],
        clusters=tuple(sorted(e.cluster for e in valid)),
        conflicts=tuple(conflicts),
        conflicting_clusters=differing,
    )
