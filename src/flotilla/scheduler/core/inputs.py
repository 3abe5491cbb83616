"""What the scheduler reads from a ResourceBinding and from each Cluster, as small frozen records.

The scheduling core never touches wire objects: `BindingInfo.from_object` and
`ClusterInfo.from_object` read exactly the fields the decision needs, by their Karmada JSON names
(`spec.replicaRequirements.resourceRequest`, `status.resourceSummary.allocatable`…), and
everything downstream works on these records. The placement has its own module (`placement`).
Reading is tolerant (`wirefields`): the API server has already validated the objects. A
deprecated `spec.zone` becomes `spec.zones`, as Karmada's mutation does.

The core does no I/O and keeps no clock: the moment a round schedules at comes in with the binding
(`BindingInfo.now`, from the shell's clock), so filters that depend on time — a NoExecute
toleration that has run out — are functions of their inputs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from fractions import Fraction
from typing import Any

from flotilla.api.karmada.clustertimes import failed_clusters
from flotilla.api.nodeaffinity import RequiredNodeAffinity
from flotilla.api.quantities import QuantityError, milli_units, parse_quantity, whole_units
from flotilla.api.times import timestamp
from flotilla.api.tolerations import Taint, Toleration, taints_of, tolerations_of
from flotilla.scheduler.core.placement import Placement, placement_from_object
from flotilla.scheduler.core.wirefields import integer_of, mapping_of, mappings_of, strings_of, text_of
from flotilla.scheduler.core.workloadgroups import GroupMember, WorkloadGroups

APPLIED_PLACEMENT_ANNOTATION = "policy.karmada.io/applied-placement"
_ANY_NODE = RequiredNodeAffinity.of_pod_spec({})


@dataclass(frozen=True, slots=True)
class TargetCluster:
    """One entry of `spec.clusters`: a cluster and the replicas it runs."""

    name: str
    replicas: int = 0


@dataclass(frozen=True, slots=True)
class ReplicaRequirements:
    """What one replica asks for: `resourceRequest` amounts by resource name, and the nodes it may
    run on (`nodeClaim`: its node selector and required node affinity, and its tolerations of node
    taints — what the accurate estimator matches each member node against).

    `request_units` holds each amount rounded up in whole units and in thousandths, computed once,
    because the estimator compares them for every cluster.
    """

    resource_request: Mapping[str, Fraction] = field(default_factory=dict)
    priority_class_name: str = ""
    node_affinity: RequiredNodeAffinity = field(default_factory=lambda: _ANY_NODE)
    tolerations: tuple[Toleration, ...] = ()
    request_units: Mapping[str, tuple[int, int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        units = {
            name: (whole_units(amount), milli_units(amount)) for name, amount in self.resource_request.items()
        }
        object.__setattr__(self, "request_units", units)


@dataclass(frozen=True, slots=True)
class BindingInfo:
    """The parts of a ResourceBinding (or ClusterResourceBinding) that decide where it goes."""

    name: str
    namespace: str = ""
    uid: str = ""
    template_uid: str = ""
    """The resource template's UID (`spec.resource.uid`): its hash breaks replica ties, as in Karmada.
    Empty for a template not created yet."""
    api_version: str = ""
    kind: str = ""
    replicas: int = 0
    replica_requirements: ReplicaRequirements | None = None
    placement: Placement = field(default_factory=Placement)
    clusters: tuple[TargetCluster, ...] = ()
    graceful_eviction_clusters: frozenset[str] = frozenset()
    application_failed_clusters: frozenset[str] = frozenset()
    """Clusters the application failed over away from (Flotilla's
    `failover.flotilla.io/application-failed-on`), less those a later reschedule request forgave."""
    reschedule_triggered_at: datetime | None = None
    last_scheduled_time: datetime | None = None
    scheduler_observed_affinity_name: str = ""
    applied_placement: Placement | None = None
    deleting: bool = False
    now: datetime | None = None
    """When this round schedules (the shell's clock); None without a clock, and then no toleration
    runs out."""
    workload_groups: WorkloadGroups = field(default_factory=WorkloadGroups)
    """`spec.workloadAffinityGroups`, with the peers' placements once `with_group_peers` found them."""

    def assigned_replicas(self, cluster_name: str) -> int:
        """Replicas the previous result gave `cluster_name` (0 when it had none)."""
        for target in self.clusters:
            if target.name == cluster_name:
                return target.replicas
        return 0

    def targets(self, cluster_name: str) -> bool:
        """True when `cluster_name` is in the previous result."""
        return any(target.name == cluster_name for target in self.clusters)

    def with_group_peers(self, members: Iterable[GroupMember]) -> BindingInfo:
        """This binding with the placements of its workload (anti-)affinity peers among `members`."""
        if not self.workload_groups.grouped:
            return self
        groups = self.workload_groups.with_peers(self.namespace, self.name, members)
        return replace(self, workload_groups=groups)

    @classmethod
    def from_object(cls, binding: Mapping[str, Any], *, now: datetime | None = None) -> BindingInfo:
        """Read a ResourceBinding/ClusterResourceBinding wire object (any version from v1alpha2), to
        be scheduled at `now`."""
        metadata = mapping_of(binding.get("metadata"))
        spec = mapping_of(binding.get("spec"))
        status = mapping_of(binding.get("status"))
        resource = mapping_of(spec.get("resource"))
        placement = placement_from_object(spec.get("placement"))
        annotations = mapping_of(metadata.get("annotations"))
        reschedule_triggered_at = timestamp(spec.get("rescheduleTriggeredAt"))
        return cls(
            name=text_of(metadata.get("name")),
            namespace=text_of(metadata.get("namespace")),
            uid=text_of(metadata.get("uid")),
            template_uid=text_of(resource.get("uid")),
            api_version=text_of(resource.get("apiVersion")),
            kind=text_of(resource.get("kind")),
            replicas=integer_of(spec.get("replicas")),
            replica_requirements=_replica_requirements(spec.get("replicaRequirements")),
            placement=placement,
            clusters=tuple(
                TargetCluster(text_of(item.get("name")), integer_of(item.get("replicas")))
                for item in mappings_of(spec.get("clusters"))
            ),
            graceful_eviction_clusters=frozenset(
                text_of(task.get("fromCluster")) for task in mappings_of(spec.get("gracefulEvictionTasks"))
            ),
            application_failed_clusters=failed_clusters(annotations, reschedule_triggered_at),
            reschedule_triggered_at=reschedule_triggered_at,
            last_scheduled_time=timestamp(status.get("lastScheduledTime")),
            scheduler_observed_affinity_name=text_of(status.get("schedulerObservingAffinityName")),
            applied_placement=_applied_placement(annotations, placement),
            deleting=bool(metadata.get("deletionTimestamp")),
            now=now,
            workload_groups=WorkloadGroups.of_binding(binding),
        )


@dataclass(frozen=True, slots=True)
class ResourceSummary:
    """`status.resourceSummary`: amounts by resource name, and node counts per model grade.

    `free_units` is `allocatable - allocated - allocating` per allocatable resource, rounded up in
    whole units and in thousandths (`Value()`, `MilliValue()`), and `pod_budget` the pods left (never
    below 0), both computed once per cluster.
    """

    allocatable: Mapping[str, Fraction] = field(default_factory=dict)
    allocated: Mapping[str, Fraction] = field(default_factory=dict)
    allocating: Mapping[str, Fraction] = field(default_factory=dict)
    allocatable_modelings: tuple[int, ...] = ()
    free_units: Mapping[str, tuple[int, int]] = field(init=False, repr=False, compare=False)
    pod_budget: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        zero = Fraction(0)
        units = {}
        for name, amount in self.allocatable.items():
            free = amount - self.allocated.get(name, zero) - self.allocating.get(name, zero)
            units[name] = (whole_units(free), milli_units(free))
        object.__setattr__(self, "free_units", units)
        pods = (
            whole_units(self.allocatable.get("pods", zero))
            - whole_units(self.allocated.get("pods", zero))
            - whole_units(self.allocating.get("pods", zero))
        )
        object.__setattr__(self, "pod_budget", max(pods, 0))


@dataclass(frozen=True, slots=True)
class ResourceModelRange:
    name: str
    min: Fraction
    max: Fraction | None = None


@dataclass(frozen=True, slots=True)
class ResourceModel:
    grade: int
    ranges: tuple[ResourceModelRange, ...] = ()


@dataclass(frozen=True, slots=True)
class ClusterInfo:
    """The parts of a Cluster the scheduler filters, scores and sizes by."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    provider: str = ""
    region: str = ""
    zones: tuple[str, ...] = ()
    taints: tuple[Taint, ...] = ()
    api_enablements: frozenset[tuple[str, str]] = frozenset()
    resource_summary: ResourceSummary | None = None
    resource_models: tuple[ResourceModel, ...] = ()
    deleting: bool = False

    @classmethod
    def from_object(cls, cluster: Mapping[str, Any]) -> ClusterInfo:
        """Read a `cluster.karmada.io/v1alpha1` Cluster wire object."""
        metadata = mapping_of(cluster.get("metadata"))
        spec = mapping_of(cluster.get("spec"))
        status = mapping_of(cluster.get("status"))
        zones = tuple(strings_of(spec.get("zones")))
        if not zones and text_of(spec.get("zone")):
            zones = (text_of(spec.get("zone")),)
        return cls(
            name=text_of(metadata.get("name")),
            labels={str(k): str(v) for k, v in mapping_of(metadata.get("labels")).items()},
            provider=text_of(spec.get("provider")),
            region=text_of(spec.get("region")),
            zones=zones,
            taints=taints_of(spec.get("taints")),
            api_enablements=frozenset(
                (text_of(enablement.get("groupVersion")), text_of(resource.get("kind")))
                for enablement in mappings_of(status.get("apiEnablements"))
                for resource in mappings_of(enablement.get("resources"))
            ),
            resource_summary=_resource_summary(status.get("resourceSummary")),
            resource_models=tuple(
                _resource_model(model) for model in mappings_of(spec.get("resourceModels"))
            ),
            deleting=bool(metadata.get("deletionTimestamp")),
        )


def clusters_from_objects(clusters: list[Mapping[str, Any]]) -> tuple[ClusterInfo, ...]:
    """Every Cluster wire object read as a `ClusterInfo`, in the given order."""
    return tuple(ClusterInfo.from_object(cluster) for cluster in clusters)


def _applied_placement(annotations: Mapping[str, Any], current: Placement) -> Placement | None:
    text = annotations.get(APPLIED_PLACEMENT_ANNOTATION)
    if not isinstance(text, str) or not text:
        return None
    try:
        return placement_from_object(json.loads(text))
    except ValueError:
        # Karmada logs an unreadable annotation and treats the placement as unchanged.
        return current


# --- resources ---------------------------------------------------------------------------------


def _replica_requirements(value: object) -> ReplicaRequirements | None:
    if not isinstance(value, Mapping):
        return None
    claim = mapping_of(value.get("nodeClaim"))
    return ReplicaRequirements(
        resource_request=_amounts(value.get("resourceRequest")),
        priority_class_name=text_of(value.get("priorityClassName")),
        node_affinity=_node_affinity(claim),
        tolerations=tolerations_of(claim.get("tolerations")),
    )


def _node_affinity(claim: Mapping[str, Any]) -> RequiredNodeAffinity:
    """The claim's node selector and `hardNodeAffinity` read as a pod's would be (Karmada builds a
    pod of them for kube's `GetRequiredNodeAffinity`)."""
    pod_spec: dict[str, Any] = {"nodeSelector": mapping_of(claim.get("nodeSelector"))}
    hard = claim.get("hardNodeAffinity")
    if isinstance(hard, Mapping):
        pod_spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": hard}}
    return RequiredNodeAffinity.of_pod_spec(pod_spec)


def _resource_summary(value: object) -> ResourceSummary | None:
    if not isinstance(value, Mapping):
        return None
    modelings = sorted(
        mappings_of(value.get("allocatableModelings")), key=lambda item: integer_of(item.get("grade"))
    )
    return ResourceSummary(
        allocatable=_amounts(value.get("allocatable")),
        allocated=_amounts(value.get("allocated")),
        allocating=_amounts(value.get("allocating")),
        allocatable_modelings=tuple(integer_of(item.get("count")) for item in modelings),
    )


def _resource_model(model: Mapping[str, Any]) -> ResourceModel:
    ranges = []
    for item in mappings_of(model.get("ranges")):
        try:
            minimum = parse_quantity(item.get("min", 0)).amount
            maximum = parse_quantity(item["max"]).amount if item.get("max") is not None else None
        except QuantityError:
            continue
        ranges.append(ResourceModelRange(text_of(item.get("name")), minimum, maximum))
    return ResourceModel(integer_of(model.get("grade")), tuple(ranges))


def _amounts(value: object) -> dict[str, Fraction]:
    amounts: dict[str, Fraction] = {}
    for name, quantity in mapping_of(value).items():
        try:
            amounts[str(name)] = parse_quantity(quantity).amount
        except QuantityError:
            continue
    return amounts
