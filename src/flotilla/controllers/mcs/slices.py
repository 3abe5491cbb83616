"""EndpointSlices copied from a source cluster into another cluster: names and contents (pure).

Both the MCS API and Karmada's MultiClusterService copy a source cluster's EndpointSlices of a
Service into other clusters; they differ only in labels and owner:

- MCS API (`mcs_slice`): labelled `multicluster.kubernetes.io/service-name` and
  `multicluster.kubernetes.io/source-cluster`, managed by Flotilla's MCS controller (not kube's
  EndpointSlice controller), owned by the ServiceImport with `controller: false`;
- MultiClusterService (`dispatched_slice`): labelled `kubernetes.io/service-name` (the consumer's
  own Service then selects them, so `<svc>.<ns>.svc.cluster.local` reaches the providers), managed
  by `endpointslice-dispatch-controller.karmada.io`, annotated with the provision cluster.

A copy is named `<source cluster>-<source slice name>` (Karmada's dispatch naming), so one source
slice maps to one copy per destination and a copy says where it came from; a name too long for a
DNS subdomain is shortened with a hash. Endpoints keep addresses, conditions, hostname and zone; a
node name or pod reference means nothing in another cluster and is dropped.

The source slices of a Service are the ones labelled `kubernetes.io/service-name` with the
Service's name and not themselves copies (`source_slices`), so copies never feed each other.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from flotilla.api import multicluster
from flotilla.api.karmada import constants

Object = Mapping[str, Any]
MAX_NAME = 253
COPY_MANAGERS = frozenset(
    {multicluster.MCS_ENDPOINT_SLICE_MANAGER, constants.ENDPOINT_SLICE_DISPATCH_MANAGER}
)


def labels_of(obj: Object) -> Mapping[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def source_slices(slices: Iterable[Object], service_name: str) -> list[Object]:
    """A cluster's own EndpointSlices of Service `service_name` (copies left out), by name."""
    found = [
        s
        for s in slices
        if labels_of(s).get(multicluster.KUBE_SERVICE_NAME_LABEL) == service_name
        and labels_of(s).get(multicluster.MANAGED_BY_LABEL) not in COPY_MANAGERS
    ]
    return sorted(found, key=lambda s: str((s.get("metadata") or {}).get("name") or ""))


def copy_name(source_cluster: str, source_slice: str) -> str:
    name = f"{source_cluster}-{source_slice}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:10]
    return f"{name[: MAX_NAME - 11]}-{digest}"


def _endpoint(endpoint: Mapping[str, Any]) -> dict[str, Any]:
    copied: dict[str, Any] = {"addresses": list(endpoint.get("addresses") or [])}
    for key in ("conditions", "hostname", "zone"):
        if endpoint.get(key):
            copied[key] = endpoint[key]
    return copied


def _body(source: Object) -> dict[str, Any]:
    return {
        "addressType": source.get("addressType") or "IPv4",
        "endpoints": [_endpoint(e) for e in source.get("endpoints") or ()],
        "ports": [dict(p) for p in source.get("ports") or ()],
    }


def mcs_slice(
    source: Object, source_cluster: str, service_import: Object, *, namespace: str, service_name: str
) -> dict[str, Any]:
    """The MCS API's copy of `source` for an importing cluster (owned by its ServiceImport)."""
    meta = service_import.get("metadata") or {}
    owner = {
        "apiVersion": service_import.get("apiVersion") or multicluster.SERVICE_IMPORT.api_version,
        "kind": multicluster.SERVICE_IMPORT.kind,
        "name": meta.get("name") or service_name,
        "uid": meta.get("uid") or "",
        "controller": False,
    }
    source_name = str((source.get("metadata") or {}).get("name") or "")
    return {
        "apiVersion": multicluster.ENDPOINT_SLICE.api_version,
        "kind": multicluster.ENDPOINT_SLICE.kind,
        "metadata": {
            "name": copy_name(source_cluster, source_name),
            "namespace": namespace,
            "labels": {
                multicluster.SERVICE_NAME_LABEL: service_name,
                multicluster.SOURCE_CLUSTER_LABEL: source_cluster,
                multicluster.MANAGED_BY_LABEL: multicluster.MCS_ENDPOINT_SLICE_MANAGER,
            },
            "ownerReferences": [owner],
        },
        **_body(source),
    }


def dispatched_slice(
    source: Object, source_cluster: str, *, namespace: str, service_name: str
) -> dict[str, Any]:
    """A MultiClusterService's copy of a provider's `source` for a consumer cluster."""
    source_name = str((source.get("metadata") or {}).get("name") or "")
    return {
        "apiVersion": multicluster.ENDPOINT_SLICE.api_version,
        "kind": multicluster.ENDPOINT_SLICE.kind,
        "metadata": {
            "name": copy_name(source_cluster, source_name),
            "namespace": namespace,
            "labels": {
                multicluster.KUBE_SERVICE_NAME_LABEL: service_name,
                multicluster.MANAGED_BY_LABEL: constants.ENDPOINT_SLICE_DISPATCH_MANAGER,
            },
            "annotations": {constants.ENDPOINT_SLICE_PROVISION_CLUSTER_ANNOTATION: source_cluster},
        },
        **_body(source),
    }


def differs(wanted: Object, existing: Object | None) -> bool:
    """Whether `existing` must be rewritten to say what `wanted` says (labels, annotations, owners,
    address type, endpoints, ports)."""
    if existing is None:
        return True
    wanted_meta = wanted.get("metadata") or {}
    meta = existing.get("metadata") or {}
    for key in ("labels", "annotations"):
        current = meta.get(key) or {}
        if any(current.get(k) != v for k, v in (wanted_meta.get(key) or {}).items()):
            return True
    owners = [(o.get("uid"), o.get("controller")) for o in meta.get("ownerReferences") or ()]
    wanted_owners = [(o.get("uid"), o.get("controller")) for o in wanted_meta.get("ownerReferences") or ()]
    if owners != wanted_owners:
        return True
    return any(
        wanted.get(key) != (existing.get(key) or ([] if key != "addressType" else None))
        for key in ("addressType", "endpoints", "ports")
    )
