"""Karmada's well-known names: kinds and resources, labels, annotations, finalizers, taints, namespaces.

Every component that reads or writes Karmada objects agrees on these strings with Karmada itself
(`pkg/apis/*/well_known_constants.go`, `pkg/util/constants.go`): a template claimed by a policy, a
Work's back-references, a member object's `karmada.io/managed` label. Keeping them in one table
means no module spells one of them by hand, and a grep for a key lands here.
"""

from __future__ import annotations

import enum

from flotilla.api.karmada.autoscaling import (
    CRON_FEDERATED_HPA,
    CRON_FEDERATED_HPAS,
    FEDERATED_HPA,
    FEDERATED_HPAS,
)
from flotilla.api.karmada.config import (
    RESOURCE_INTERPRETER_CUSTOMIZATION,
    RESOURCE_INTERPRETER_CUSTOMIZATIONS,
    RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATION,
    RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATIONS,
)
from flotilla.api.karmada.federatedquota import FEDERATED_RESOURCE_QUOTA, FEDERATED_RESOURCE_QUOTAS
from flotilla.api.karmada.search import RESOURCE_REGISTRIES, RESOURCE_REGISTRY
from flotilla.api.scheme import GroupResource, GroupVersionKind

# --- groups, kinds, resources ---------------------------------------------------------------------

POLICY_GROUP = "policy.karmada.io"
WORK_GROUP = "work.karmada.io"
CLUSTER_GROUP = "cluster.karmada.io"
APPS_GROUP = "apps.karmada.io"
NETWORKING_GROUP = "networking.karmada.io"
CATEGORY = "karmada-io"
"""The discovery category of the policy and work kinds: `kubectl get karmada-io`."""

PROPAGATION_POLICY = GroupVersionKind(POLICY_GROUP, "v1alpha1", "PropagationPolicy")
CLUSTER_PROPAGATION_POLICY = GroupVersionKind(POLICY_GROUP, "v1alpha1", "ClusterPropagationPolicy")
OVERRIDE_POLICY = GroupVersionKind(POLICY_GROUP, "v1alpha1", "OverridePolicy")
CLUSTER_OVERRIDE_POLICY = GroupVersionKind(POLICY_GROUP, "v1alpha1", "ClusterOverridePolicy")
WORK = GroupVersionKind(WORK_GROUP, "v1alpha1", "Work")
RESOURCE_BINDING = GroupVersionKind(WORK_GROUP, "v1alpha2", "ResourceBinding")
CLUSTER_RESOURCE_BINDING = GroupVersionKind(WORK_GROUP, "v1alpha2", "ClusterResourceBinding")
CLUSTER = GroupVersionKind(CLUSTER_GROUP, "v1alpha1", "Cluster")
CLUSTER_TAINT_POLICY = GroupVersionKind(POLICY_GROUP, "v1alpha1", "ClusterTaintPolicy")
WORKLOAD_REBALANCER = GroupVersionKind(APPS_GROUP, "v1alpha1", "WorkloadRebalancer")
MULTI_CLUSTER_SERVICE = GroupVersionKind(NETWORKING_GROUP, "v1alpha1", "MultiClusterService")

PROPAGATION_POLICIES = GroupResource(POLICY_GROUP, "propagationpolicies")
CLUSTER_PROPAGATION_POLICIES = GroupResource(POLICY_GROUP, "clusterpropagationpolicies")
OVERRIDE_POLICIES = GroupResource(POLICY_GROUP, "overridepolicies")
CLUSTER_OVERRIDE_POLICIES = GroupResource(POLICY_GROUP, "clusteroverridepolicies")
WORKS = GroupResource(WORK_GROUP, "works")
RESOURCE_BINDINGS = GroupResource(WORK_GROUP, "resourcebindings")
CLUSTER_RESOURCE_BINDINGS = GroupResource(WORK_GROUP, "clusterresourcebindings")
CLUSTERS = GroupResource(CLUSTER_GROUP, "clusters")
CLUSTER_TAINT_POLICIES = GroupResource(POLICY_GROUP, "clustertaintpolicies")
WORKLOAD_REBALANCERS = GroupResource(APPS_GROUP, "workloadrebalancers")
MULTI_CLUSTER_SERVICES = GroupResource(NETWORKING_GROUP, "multiclusterservices")

PLURALS: dict[GroupVersionKind, str] = {
    PROPAGATION_POLICY: PROPAGATION_POLICIES.resource,
    CLUSTER_PROPAGATION_POLICY: CLUSTER_PROPAGATION_POLICIES.resource,
    OVERRIDE_POLICY: OVERRIDE_POLICIES.resource,
    CLUSTER_OVERRIDE_POLICY: CLUSTER_OVERRIDE_POLICIES.resource,
    WORK: WORKS.resource,
    RESOURCE_BINDING: RESOURCE_BINDINGS.resource,
    CLUSTER_RESOURCE_BINDING: CLUSTER_RESOURCE_BINDINGS.resource,
    CLUSTER: CLUSTERS.resource,
    CLUSTER_TAINT_POLICY: CLUSTER_TAINT_POLICIES.resource,
    WORKLOAD_REBALANCER: WORKLOAD_REBALANCERS.resource,
    MULTI_CLUSTER_SERVICE: MULTI_CLUSTER_SERVICES.resource,
    RESOURCE_REGISTRY: RESOURCE_REGISTRIES.resource,
    RESOURCE_INTERPRETER_CUSTOMIZATION: RESOURCE_INTERPRETER_CUSTOMIZATIONS.resource,
    FEDERATED_HPA: FEDERATED_HPAS.resource,
    CRON_FEDERATED_HPA: CRON_FEDERATED_HPAS.resource,
    RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATION: RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATIONS.resource,
    FEDERATED_RESOURCE_QUOTA: FEDERATED_RESOURCE_QUOTAS.resource,
}
"""The resource name of every Karmada kind the hub serves."""

NAMESPACED: dict[GroupVersionKind, bool] = {
    PROPAGATION_POLICY: True,
    CLUSTER_PROPAGATION_POLICY: False,
    OVERRIDE_POLICY: True,
    CLUSTER_OVERRIDE_POLICY: False,
    WORK: True,
    RESOURCE_BINDING: True,
    CLUSTER_RESOURCE_BINDING: False,
    CLUSTER: False,
    CLUSTER_TAINT_POLICY: False,
    WORKLOAD_REBALANCER: False,
    MULTI_CLUSTER_SERVICE: True,
    RESOURCE_REGISTRY: False,
    RESOURCE_INTERPRETER_CUSTOMIZATION: False,
    FEDERATED_HPA: True,
    CRON_FEDERATED_HPA: True,
    RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATION: False,
    FEDERATED_RESOURCE_QUOTA: True,
}

# --- namespaces -----------------------------------------------------------------------------------

KARMADA_SYSTEM_NAMESPACE = "karmada-system"
KARMADA_CLUSTER_NAMESPACE = "karmada-cluster"
"""Where Pull clusters' leases and join credentials live."""
EXECUTION_NAMESPACE_PREFIX = "karmada-es-"
"""Works for cluster `x` live in namespace `karmada-es-x`."""

# --- labels ---------------------------------------------------------------------------------------

PROPAGATION_POLICY_PERMANENT_ID_LABEL = "propagationpolicy.karmada.io/permanent-id"
CLUSTER_PROPAGATION_POLICY_PERMANENT_ID_LABEL = "clusterpropagationpolicy.karmada.io/permanent-id"
RESOURCE_BINDING_PERMANENT_ID_LABEL = "resourcebinding.karmada.io/permanent-id"
CLUSTER_RESOURCE_BINDING_PERMANENT_ID_LABEL = "clusterresourcebinding.karmada.io/permanent-id"
WORK_PERMANENT_ID_LABEL = "work.karmada.io/permanent-id"
MANAGED_BY_KARMADA_LABEL = "karmada.io/managed"
"""`"true"` on member objects Karmada manages (the ADOPTION column of `karmadactl get`)."""
BINDING_MANAGED_BY_LABEL = "binding.karmada.io/managed-by"
"""On a ResourceBinding another controller than the detector made: `MultiClusterService` for a Service's."""
MULTI_CLUSTER_SERVICE_BINDING_MANAGER = "MultiClusterService"
ENDPOINT_SLICE_DISPATCH_MANAGER = "endpointslice-dispatch-controller.karmada.io"
"""`endpointslice.kubernetes.io/managed-by` of the slices a MultiClusterService copies into consumers."""
ENDPOINT_SLICE_PROVISION_CLUSTER_ANNOTATION = "endpointslice.karmada.io/provision-cluster"
DELETION_PROTECTION_LABEL = "resourcetemplate.karmada.io/deletion-protected"
DELETION_PROTECTION_ALWAYS = "Always"
RETAIN_REPLICAS_LABEL = "resourcetemplate.karmada.io/retain-replicas"
SKIP_AUTO_PROPAGATION_LABEL = "namespace.karmada.io/skip-auto-propagation"

# --- annotations ----------------------------------------------------------------------------------

PROPAGATION_POLICY_NAME_ANNOTATION = "propagationpolicy.karmada.io/name"
PROPAGATION_POLICY_NAMESPACE_ANNOTATION = "propagationpolicy.karmada.io/namespace"
CLUSTER_PROPAGATION_POLICY_NAME_ANNOTATION = "clusterpropagationpolicy.karmada.io/name"
RESOURCE_BINDING_NAME_ANNOTATION = "resourcebinding.karmada.io/name"
RESOURCE_BINDING_NAMESPACE_ANNOTATION = "resourcebinding.karmada.io/namespace"
CLUSTER_RESOURCE_BINDING_NAME_ANNOTATION = "clusterresourcebinding.karmada.io/name"
WORK_NAME_ANNOTATION = "work.karmada.io/name"
WORK_NAMESPACE_ANNOTATION = "work.karmada.io/namespace"
RESOURCE_TEMPLATE_UID_ANNOTATION = "resourcetemplate.karmada.io/uid"
RESOURCE_TEMPLATE_GENERATION_ANNOTATION = "resourcetemplate.karmada.io/generation"
MANAGED_LABELS_ANNOTATION = "resourcetemplate.karmada.io/managed-labels"
MANAGED_ANNOTATIONS_ANNOTATION = "resourcetemplate.karmada.io/managed-annotations"
CONFLICT_RESOLUTION_ANNOTATION = "work.karmada.io/conflict-resolution"
CONFLICT_RESOLUTION_OVERWRITE = "overwrite"
CONFLICT_RESOLUTION_ABORT = "abort"
APPLIED_OVERRIDES_ANNOTATION = "policy.karmada.io/applied-overrides"
APPLIED_CLUSTER_OVERRIDES_ANNOTATION = "policy.karmada.io/applied-cluster-overrides"
APPLIED_PLACEMENT_ANNOTATION = "policy.karmada.io/applied-placement"
BINDING_DEPENDENCIES_ANNOTATION = "resourcebinding.karmada.io/dependencies"
CACHED_FROM_CLUSTER_ANNOTATION = "resource.karmada.io/cached-from-cluster"
"""karmada-search's mark on an object read from a member: the member's name (`get` across clusters)."""
APPLICATION_FAILED_ON_ANNOTATION = "failover.flotilla.io/application-failed-on"
"""Flotilla's, on a binding: the clusters its application was failed over away from, and when (JSON,
cluster → time; `clustertimes`). Written by application failover, read by the scheduler."""
EVICTED_FROM_ANNOTATION = "failover.flotilla.io/evicted-from"
"""Flotilla's, on a binding: the clusters the taint manager evicted it from, and when (JSON, cluster →
time; `clustertimes`). Written with the eviction; read and cleared by failback."""
FAILBACK_AFTER_ANNOTATION = "failover.flotilla.io/failback-after"
"""Flotilla's, on a (Cluster)PropagationPolicy: opt-in to moving its workloads back to a cluster they
were evicted or failed over from once it has been healthy this long (a Go duration, `10m`)."""

# --- finalizers -----------------------------------------------------------------------------------

EXECUTION_CONTROLLER_FINALIZER = "karmada.io/execution-controller"
BINDING_CONTROLLER_FINALIZER = "karmada.io/binding-controller"
CLUSTER_RESOURCE_BINDING_CONTROLLER_FINALIZER = "karmada.io/cluster-resource-binding-controller"
CLUSTER_CONTROLLER_FINALIZER = "karmada.io/cluster-controller"
PROPAGATION_POLICY_CONTROLLER_FINALIZER = "karmada.io/propagation-policy-controller"
CLUSTER_PROPAGATION_POLICY_CONTROLLER_FINALIZER = "karmada.io/cluster-propagation-policy-controller"
MULTI_CLUSTER_SERVICE_FINALIZER = "karmada.io/multiclusterservice-controller"

# --- cluster taints, conditions, secrets ----------------------------------------------------------

TAINT_CLUSTER_NOT_READY = "cluster.karmada.io/not-ready"
TAINT_CLUSTER_UNREACHABLE = "cluster.karmada.io/unreachable"
TAINT_CLUSTER_UNSCHEDULABLE = "cluster.karmada.io/unschedulable"
TAINT_CLUSTER_TERMINATING = "cluster.karmada.io/terminating"

CLUSTER_CONDITION_READY = "Ready"
CLUSTER_CONDITION_COMPLETE_API_ENABLEMENTS = "CompleteAPIEnablements"
SECRET_TOKEN_KEY = "token"  # noqa: S105 - the name of a Secret key, not a secret
SECRET_CA_BUNDLE_KEY = "caBundle"  # noqa: S105 - the name of a Secret key, not a secret

PROVIDER_FIELD = "provider"
REGION_FIELD = "region"
ZONE_FIELD = "zone"
CLUSTER_FIELDS = (PROVIDER_FIELD, REGION_FIELD, ZONE_FIELD)
"""The Cluster fields a `fieldSelector` may match on."""

# --- binding and work conditions ------------------------------------------------------------------

CONDITION_SCHEDULED = "Scheduled"
CONDITION_FULLY_APPLIED = "FullyApplied"
REASON_SCHEDULING_SUCCESS = "Success"
REASON_SCHEDULER_ERROR = "SchedulerError"
REASON_NO_CLUSTER_FIT = "NoClusterFit"
REASON_UNSCHEDULABLE = "Unschedulable"
REASON_QUOTA_EXCEEDED = "QuotaExceeded"

WORK_APPLIED = "Applied"
WORK_PROGRESSING = "Progressing"
WORK_AVAILABLE = "Available"
WORK_DEGRADED = "Degraded"
WORK_DISPATCHING = "Dispatching"

DEFAULT_SCHEDULER_NAME = "default-scheduler"

# --- failover: who evicted a cluster from a binding, and why (gracefulEvictionTasks) ------------------

EVICTION_PRODUCER_TAINT_MANAGER = "TaintManager"
EVICTION_PRODUCER_APPLICATION_FAILOVER = "resource-binding-application-failover-controller"
EVICTION_REASON_TAINT_UNTOLERATED = "TaintUntolerated"
EVICTION_REASON_APPLICATION_FAILURE = "ApplicationFailure"
DEFAULT_GRACEFUL_EVICTION_SECONDS = 600
"""How long an eviction task keeps the old copy when it says no `gracePeriodSeconds` (10m)."""


# --- enumerated field values ----------------------------------------------------------------------


class ReplicaSchedulingType(enum.StrEnum):
    DUPLICATED = "Duplicated"
    DIVIDED = "Divided"


class ReplicaDivisionPreference(enum.StrEnum):
    AGGREGATED = "Aggregated"
    WEIGHTED = "Weighted"


class DynamicWeightFactor(enum.StrEnum):
    AVAILABLE_REPLICAS = "AvailableReplicas"


class SpreadByField(enum.StrEnum):
    CLUSTER = "cluster"
    REGION = "region"
    ZONE = "zone"
    PROVIDER = "provider"


class ConflictResolution(enum.StrEnum):
    ABORT = "Abort"
    OVERWRITE = "Overwrite"


class PreemptionBehavior(enum.StrEnum):
    ALWAYS = "Always"
    NEVER = "Never"


class ActivationPreference(enum.StrEnum):
    LAZY = "Lazy"


class PurgeMode(enum.StrEnum):
    """Karmada v1.19's purge modes, the only ones ever stored (`OLDER_PURGE_MODES`)."""

    DIRECTLY = "Directly"
    GRACEFULLY = "Gracefully"
    NEVER = "Never"


OLDER_PURGE_MODES: dict[str, PurgeMode] = {
    "Immediately": PurgeMode.DIRECTLY,
    "Graciously": PurgeMode.GRACEFULLY,
}
"""Karmada's first names of two purge modes (deprecated in v1.15, refused since v1.19), and the
mode each stands for. The API server accepts them, so older manifests apply, and stores the
current name, so controllers compare against `PurgeMode` alone."""


class PriorityClassSource(enum.StrEnum):
    KUBE_PRIORITY_CLASS = "KubePriorityClass"
    """The only source Karmada implements, and the only one its CRD accepts."""
    POD_PRIORITY_CLASS = "PodPriorityClass"
    """Declared by Karmada's API, not implemented, refused by its CRD."""
    FEDERATED_PRIORITY_CLASS = "FederatedPriorityClass"
    """Declared by Karmada's API, not implemented, refused by its CRD."""


class OverriderOperator(enum.StrEnum):
    ADD = "add"
    REMOVE = "remove"
    REPLACE = "replace"


class ImageComponent(enum.StrEnum):
    REGISTRY = "Registry"
    REPOSITORY = "Repository"
    TAG = "Tag"


class ClusterSyncMode(enum.StrEnum):
    PUSH = "Push"
    PULL = "Pull"


class MatchConditionOperator(enum.StrEnum):
    """How a ClusterTaintPolicy's condition test compares a Cluster condition's status."""

    IN = "In"
    NOT_IN = "NotIn"


class RebalanceResult(enum.StrEnum):
    """A WorkloadRebalancer's outcome for one workload."""

    SUCCESSFUL = "Successful"
    FAILED = "Failed"


class RebalanceFailedReason(enum.StrEnum):
    REFERENCED_BINDING_NOT_FOUND = "ReferencedBindingNotFound"


class ResourceHealth(enum.StrEnum):
    HEALTHY = "Healthy"
    UNHEALTHY = "Unhealthy"
    UNKNOWN = "Unknown"
