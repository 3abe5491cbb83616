"""work.karmada.io: ResourceBinding / ClusterResourceBinding (v1alpha2) and Work (v1alpha1).

A binding is the scheduler's unit: one per claimed template, carrying a reference to it, its
replicas and per-replica requirements, a copy of the policy's placement, and — once scheduled —
the target clusters with their replica counts. Its status collects each cluster's applied state
and raw status. A Work is what one cluster receives: the rendered manifests, in that cluster's
execution namespace, with the member objects' status reflected back per manifest.

Raw embedded objects (manifests, member statuses) are plain dicts; the rest follows Karmada's
types field for field (`pkg/apis/work/v1alpha1`, `v1alpha2`).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from flotilla.api.karmada import constants
from flotilla.api.karmada.model import (
    Condition,
    KarmadaModel,
    NodeSelector,
    ObjectMeta,
    ResourceList,
    Toleration,
    json_name,
)
from flotilla.api.karmada.policy import FailoverBehavior, Placement, Suspension

# --- ResourceBinding spec -------------------------------------------------------------------------


class ObjectReference(KarmadaModel):
    """The resource template a binding stands for."""

    api_version: str = ""
    kind: str = ""
    namespace: str | None = None
    name: str = ""
    uid: str | None = None
    resource_version: str | None = None


class NodeClaim(KarmadaModel):
    """Where each replica's pods may run, as the template's pod spec says."""

    hard_node_affinity: NodeSelector | None = None
    node_selector: dict[str, str] = Field(default_factory=dict)
    tolerations: list[Toleration] = Field(default_factory=list)


class ReplicaRequirements(KarmadaModel):
    """What one replica needs: node constraints and summed container resource requests."""

    node_claim: NodeClaim | None = None
    resource_request: ResourceList = Field(default_factory=dict)
    namespace: str | None = None
    priority_class_name: str | None = None


class ComponentReplicaRequirements(KarmadaModel):
    node_claim: NodeClaim | None = None
    resource_request: ResourceList = Field(default_factory=dict)
    priority_class_name: str | None = None


class Component(KarmadaModel):
    """One pod template of a multi-template workload (FlinkDeployment, VolcanoJob…)."""

    name: str = ""
    replicas: int = 0
    replica_requirements: ComponentReplicaRequirements | None = None


class TargetComponent(KarmadaModel):
    """One component's share of a target cluster's replicas (workloads of several pod templates)."""

    name: str = ""
    replicas: int = 0


class TargetCluster(KarmadaModel):
    """A scheduling decision: this cluster runs `replicas` of the workload (split by component if any)."""

    name: str = ""
    replicas: int | None = None
    components: list[TargetComponent] = Field(default_factory=list)


class GracefulEvictionTask(KarmadaModel):
    """A cluster being evicted from, kept until the workload is healthy elsewhere (or time runs out)."""

    from_cluster: str = ""
    purge_mode: str | None = None
    replicas: int | None = None
    reason: str = ""
    message: str | None = None
    producer: str = ""
    grace_period_seconds: int | None = None
    suppress_deletion: bool | None = None
    preserved_label_state: dict[str, str] = Field(default_factory=dict)
    clusters_before_failover: list[str] = Field(default_factory=list)
    creation_timestamp: str | None = None


class BindingSnapshot(KarmadaModel):
    """A binding that depends on this one (propagateDeps), with the clusters it was scheduled to."""

    namespace: str | None = None
    name: str = ""
    clusters: list[TargetCluster] = Field(default_factory=list)


class BindingSuspension(Suspension):
    scheduling: bool | None = None


class BindingSchedulePriority(KarmadaModel):
    priority: int | None = None


class WorkloadAffinityGroups(KarmadaModel):
    affinity_group: str | None = None
    anti_affinity_group: str | None = None


class ResourceBindingSpec(KarmadaModel):
    resource: ObjectReference = Field(default_factory=ObjectReference)
    propagate_deps: bool | None = None
    replica_requirements: ReplicaRequirements | None = None
    replicas: int | None = None
    components: list[Component] = Field(default_factory=list)
    clusters: list[TargetCluster] = Field(default_factory=list)
    placement: Placement | None = None
    graceful_eviction_tasks: list[GracefulEvictionTask] = Field(default_factory=list)
    required_by: list[BindingSnapshot] = Field(default_factory=list)
    scheduler_name: str | None = None
    failover: FailoverBehavior | None = None
    conflict_resolution: str | None = None
    reschedule_triggered_at: str | None = None
    suspension: BindingSuspension | None = None
    preserve_resources_on_deletion: bool | None = None
    schedule_priority: BindingSchedulePriority | None = None
    workload_affinity_groups: WorkloadAffinityGroups | None = None


# --- ResourceBinding status -------------------------------------------------------------------------


class AggregatedStatusItem(KarmadaModel):
    """One cluster's view of the workload: applied or not, its raw status and health."""

    cluster_name: str = ""
    status: dict[str, Any] | None = None
    applied: bool | None = None
    applied_message: str | None = None
    health: str | None = None


class ResourceBindingStatus(KarmadaModel):
    scheduler_observed_generation: int | None = None
    scheduler_observed_affinity_name: str | None = json_name("schedulerObservingAffinityName")
    last_scheduled_time: str | None = None
    conditions: list[Condition] = Field(default_factory=list)
    aggregated_status: list[AggregatedStatusItem] = Field(default_factory=list)


class ResourceBinding(KarmadaModel):
    api_version: str = constants.RESOURCE_BINDING.api_version
    kind: str = constants.RESOURCE_BINDING.kind
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: ResourceBindingSpec = Field(default_factory=ResourceBindingSpec)
    status: ResourceBindingStatus = Field(default_factory=ResourceBindingStatus)

    @property
    def permanent_id(self) -> str:
        return self.metadata.labels.get(constants.RESOURCE_BINDING_PERMANENT_ID_LABEL, "")


class ClusterResourceBinding(KarmadaModel):
    api_version: str = constants.CLUSTER_RESOURCE_BINDING.api_version
    kind: str = constants.CLUSTER_RESOURCE_BINDING.kind
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: ResourceBindingSpec = Field(default_factory=ResourceBindingSpec)
    status: ResourceBindingStatus = Field(default_factory=ResourceBindingStatus)

    @property
    def permanent_id(self) -> str:
        return self.metadata.labels.get(constants.CLUSTER_RESOURCE_BINDING_PERMANENT_ID_LABEL, "")


# --- Work ---------------------------------------------------------------------------------------------


class WorkloadTemplate(KarmadaModel):
    manifests: list[dict[str, Any]] = Field(default_factory=list)


class WorkSpec(KarmadaModel):
    workload: WorkloadTemplate = Field(default_factory=WorkloadTemplate)
    suspend_dispatching: bool | None = None
    preserve_resources_on_deletion: bool | None = None


class ResourceIdentifier(KarmadaModel):
    """Which manifest a status belongs to: its position and its group/version/kind/resource/name."""

    ordinal: int = 0
    group: str = ""
    version: str = ""
    kind: str = ""
    resource: str = ""
    namespace: str = ""
    name: str = ""


class ManifestStatus(KarmadaModel):
    identifier: ResourceIdentifier = Field(default_factory=ResourceIdentifier)
    status: dict[str, Any] | None = None
    health: str | None = None
    """`Healthy`, `Unhealthy` or `Unknown` (`constants.ResourceHealth`)."""


class WorkStatus(KarmadaModel):
    conditions: list[Condition] = Field(default_factory=list)
    manifest_statuses: list[ManifestStatus] = Field(default_factory=list)


class Work(KarmadaModel):
    api_version: str = constants.WORK.api_version
    kind: str = constants.WORK.kind
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: WorkSpec = Field(default_factory=WorkSpec)
    status: WorkStatus = Field(default_factory=WorkStatus)

    @property
    def permanent_id(self) -> str:
        return self.metadata.labels.get(constants.WORK_PERMANENT_ID_LABEL, "")
