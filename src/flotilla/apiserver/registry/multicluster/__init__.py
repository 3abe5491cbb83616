"""The Multi-Cluster Services API and the ClusterId KEP's ClusterProperty, as CRDs a server installs.

`services` builds the `multicluster.x-k8s.io` CRDs (ServiceExport, ServiceImport) as mcs-api v0.5
ships them: v1beta1 stored, v1alpha1 served beside it with the same schema (`strategy: None`, so
the API server's no-op conversion is mcs-api's own). `about` builds `about.k8s.io`'s ClusterProperty.
A hub installs the MCS kinds with Karmada's (Karmada's chart ships them on its control plane too,
so ServiceExports can be propagated by policy); a simulated member installs both groups, as a
cluster running an MCS implementation has them (`housekeeping.karmadacrds`).
"""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.multicluster.about import cluster_property_crd
from flotilla.apiserver.registry.multicluster.services import service_export_crd, service_import_crd


def multicluster_service_crds() -> list[dict[str, Any]]:
    """ServiceExport and ServiceImport, as fresh dicts."""
    return [service_export_crd(), service_import_crd()]


def member_crds() -> list[dict[str, Any]]:
    """What a member taking part in a clusterset serves: the MCS kinds and ClusterProperty."""
    return [*multicluster_service_crds(), cluster_property_crd()]


__all__ = ["cluster_property_crd", "member_crds", "multicluster_service_crds"]
