"""The Multi-Cluster Services API's names (KEP-1645, mcs-api v0.5) and the ClusterId KEP's (KEP-2149).

Every component that reads or writes ServiceExports, ServiceImports, their EndpointSlices or a
member's ClusterProperties — the hub's CRD install, the MCS controller, the simulated members'
clusterset IP allocator and DNS — agrees on these strings with the specifications, so they are
spelled once, here. Condition types and reasons are the mcs-api v1beta1 constants.
"""

from __future__ import annotations

import enum

from flotilla.api.scheme import GroupVersionKind

# --- groups, kinds ----------------------------------------------------------------------------------

GROUP = "multicluster.x-k8s.io"
STORAGE_VERSION = "v1beta1"
SERVED_VERSIONS = ("v1alpha1", "v1beta1")
"""mcs-api v0.5 serves both; they share one schema, so its CRDs convert with `strategy: None`."""

SERVICE_EXPORT = GroupVersionKind(GROUP, STORAGE_VERSION, "ServiceExport")
SERVICE_IMPORT = GroupVersionKind(GROUP, STORAGE_VERSION, "ServiceImport")
SERVICE_EXPORTS = "serviceexports"
SERVICE_IMPORTS = "serviceimports"

ABOUT_GROUP = "about.k8s.io"
CLUSTER_PROPERTY = GroupVersionKind(ABOUT_GROUP, "v1alpha1", "ClusterProperty")
CLUSTER_PROPERTIES = "clusterproperties"
CLUSTER_ID_PROPERTY = "cluster.clusterset.k8s.io"
"""The ClusterProperty whose value names this cluster within its clusterset."""
CLUSTER_SET_PROPERTY = "clusterset.k8s.io"
"""The ClusterProperty whose value names the clusterset the cluster belongs to."""

SERVICE = GroupVersionKind("", "v1", "Service")
NAMESPACE = GroupVersionKind("", "v1", "Namespace")
ENDPOINT_SLICE = GroupVersionKind("discovery.k8s.io", "v1", "EndpointSlice")

# --- labels, zones -----------------------------------------------------------------------------------

SERVICE_NAME_LABEL = "multicluster.kubernetes.io/service-name"
SOURCE_CLUSTER_LABEL = "multicluster.kubernetes.io/source-cluster"
KUBE_SERVICE_NAME_LABEL = "kubernetes.io/service-name"
MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by"
KUBE_ENDPOINT_SLICE_MANAGER = "endpointslice-controller.k8s.io"
MCS_ENDPOINT_SLICE_MANAGER = "endpointslice-controller.multicluster.flotilla.io"
"""`managed-by` of the EndpointSlices the MCS controller writes into importing clusters (not kube's, so
the cluster's own EndpointSlice controller leaves them alone)."""

IMPORT_MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
MCS_CONTROLLER = "flotilla-mcs-controller"
"""`app.kubernetes.io/managed-by` of the ServiceImports the MCS controller writes: it removes only those."""

CLUSTERSET_ZONE = "clusterset.local"
"""The DNS zone of multi-cluster services (the specification makes it fixed)."""
DNS_SCHEMA_VERSION = "1.0.0"


class ServiceImportType(enum.StrEnum):
    CLUSTER_SET_IP = "ClusterSetIP"
    HEADLESS = "Headless"


# --- conditions ---------------------------------------------------------------------------------------


class ExportCondition(enum.StrEnum):
    VALID = "Valid"
    READY = "Ready"
    CONFLICT = "Conflict"


class ExportReason(enum.StrEnum):
    VALID = "Valid"
    NO_SERVICE = "NoService"
    INVALID_SERVICE_TYPE = "InvalidServiceType"
    EXPORTED = "Exported"
    PENDING = "Pending"
    NO_CONFLICTS = "NoConflicts"
    PORT_CONFLICT = "PortConflict"
    TYPE_CONFLICT = "TypeConflict"
    SESSION_AFFINITY_CONFLICT = "SessionAffinityConflict"
    SESSION_AFFINITY_CONFIG_CONFLICT = "SessionAffinityConfigConflict"
    LABELS_CONFLICT = "LabelsConflict"
    ANNOTATIONS_CONFLICT = "AnnotationsConflict"
    INTERNAL_TRAFFIC_POLICY_CONFLICT = "InternalTrafficPolicyConflict"
    TRAFFIC_DISTRIBUTION_CONFLICT = "TrafficDistributionConflict"
    IP_FAMILY_CONFLICT = "IPFamilyConflict"


class ImportCondition(enum.StrEnum):
    READY = "Ready"


class ImportReason(enum.StrEnum):
    READY = "Ready"
    PENDING = "Pending"
