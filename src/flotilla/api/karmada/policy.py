"""policy.karmada.io/v1alpha1: propagation policies (where templates go) and override policies (how).

A PropagationPolicy (namespaced) or ClusterPropagationPolicy selects resource templates by
apiVersion/kind/name/labels and says where they run: a cluster affinity (or ordered affinity
groups with overflow tiers), tolerations of cluster taints, spread constraints, and how replicas
are divided. An OverridePolicy or ClusterOverridePolicy rewrites the copy each cluster receives.

Field names and JSON keys are Karmada's (`pkg/apis/policy/v1alpha1`); enumerated values are in
`constants` (`ReplicaSchedulingType`, `SpreadByField`, …) and typed as plain strings here, so an
object carrying a value this version does not know still loads. Defaults are not applied by the
models: the API server's admission sets them (see `flotilla.apiserver.registry.defaults.karmada`).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from flotilla.api.karmada import constants
from flotilla.api.karmada.model import (
    KarmadaModel,
    LabelSelector,
    NodeSelectorRequirement,
    ObjectMeta,
    Toleration,
    json_list,
)

# --- selecting templates and clusters ---------------------------------------------------------------


class ResourceSelector(KarmadaModel):
    """Templates of one apiVersion/kind, optionally narrowed by namespace, name or labels."""

    api_version: str = ""
    kind: str = ""
    namespace: str | None = None
    name: str | None = None
    label_selector: LabelSelector | None = None
    """Ignored when `name` is set."""


class FieldSelector(KarmadaModel):
    """Cluster fields (`provider`, `region`, `zone`) tested with `In` / `NotIn`."""

    match_expressions: list[NodeSelectorRequirement] = Field(default_factory=list)


class ClusterAffinity(KarmadaModel):
    """Which clusters qualify: `exclude` always wins, then every non-empty filter must match."""

    label_selector: LabelSelector | None = None
    field_selector: FieldSelector | None = None
    cluster_names: list[str] = Field(default_factory=list)
    exclude_clusters: list[str] = json_list("exclude")


class OverflowClusterAffinity(ClusterAffinity):
    """An extra tier of a `ClusterAffinityTerm`, used once the tiers before it are full."""

    affinity_name: str = ""


class ClusterAffinityTerm(ClusterAffinity):
    """One named group of `placement.clusterAffinities`, tried in order."""

    affinity_name: str = ""
    overflow_affinities: list[OverflowClusterAffinity] = Field(default_factory=list)


# --- placement --------------------------------------------------------------------------------------


class SpreadConstraint(KarmadaModel):
    spread_by_field: str | None = None
    """`cluster`, `region`, `zone` or `provider` (`constants.SpreadByField`)."""
    spread_by_label: str | None = None
    max_groups: int | None = None
    min_groups: int | None = None


class StaticClusterWeight(KarmadaModel):
    target_cluster: ClusterAffinity = Field(default_factory=ClusterAffinity)
    weight: int = 0


class ClusterPreferences(KarmadaModel):
    static_weight_list: list[StaticClusterWeight] = Field(default_factory=list)
    dynamic_weight: str | None = None
    """`AvailableReplicas`; when set, `static_weight_list` is ignored."""


class ReplicaSchedulingStrategy(KarmadaModel):
    replica_scheduling_type: str | None = None
    """`Duplicated` or `Divided` (`constants.ReplicaSchedulingType`)."""
    replica_division_preference: str | None = None
    """`Aggregated` or `Weighted`, for `Divided`."""
    weight_preference: ClusterPreferences | None = None


class WorkloadAffinityTerm(KarmadaModel):
    group_by_label_key: str = ""


class WorkloadAffinity(KarmadaModel):
    affinity: WorkloadAffinityTerm | None = None
    anti_affinity: WorkloadAffinityTerm | None = None


class Placement(KarmadaModel):
    cluster_affinity: ClusterAffinity | None = None
    cluster_affinities: list[ClusterAffinityTerm] = Field(default_factory=list)
    cluster_tolerations: list[Toleration] = Field(default_factory=list)
    spread_constraints: list[SpreadConstraint] = Field(default_factory=list)
    replica_scheduling: ReplicaSchedulingStrategy | None = None
    """None means Duplicated."""
    workload_affinity: WorkloadAffinity | None = None


# --- failover, suspension, priority ---------------------------------------------------------------


class DecisionConditions(KarmadaModel):
    toleration_seconds: int | None = None


class StatePreservationRule(KarmadaModel):
    alias_label_name: str = ""
    json_path: str = ""


class StatePreservation(KarmadaModel):
    rules: list[StatePreservationRule] = Field(default_factory=list)


class ApplicationFailoverBehavior(KarmadaModel):
    decision_conditions: DecisionConditions = Field(default_factory=DecisionConditions)
    purge_mode: str | None = None
    """`Directly`, `Gracefully` or `Never` (`constants.PurgeMode`)."""
    grace_period_seconds: int | None = None
    state_preservation: StatePreservation | None = None


class ClusterFailoverBehavior(KarmadaModel):
    purge_mode: str | None = None
    state_preservation: StatePreservation | None = None


class FailoverBehavior(KarmadaModel):
    application: ApplicationFailoverBehavior | None = None
    cluster: ClusterFailoverBehavior | None = None


class SuspendClusters(KarmadaModel):
    cluster_names: list[str] = Field(default_factory=list)


class Suspension(KarmadaModel):
    dispatching: bool | None = None
    dispatching_on_clusters: SuspendClusters | None = None


class SchedulePriority(KarmadaModel):
    priority_class_source: str | None = None
    priority_class_name: str | None = None


# --- propagation policies ---------------------------------------------------------------------------


class PropagationSpec(KarmadaModel):
    """The spec shared by PropagationPolicy and ClusterPropagationPolicy."""

    resource_selectors: list[ResourceSelector] = Field(default_factory=list)
    association: bool | None = None
    propagate_deps: bool | None = None
    placement: Placement = Field(default_factory=Placement)
    priority: int | None = None
    preemption: str | None = None
    dependent_overrides: list[str] = Field(default_factory=list)
    scheduler_name: str | None = None
    failover: FailoverBehavior | None = None
    conflict_resolution: str | None = None
    activation_preference: str | None = None
    suspension: Suspension | None = None
    preserve_resources_on_deletion: bool | None = None
    schedule_priority: SchedulePriority | None = None


class PropagationPolicy(KarmadaModel):
    api_version: str = constants.PROPAGATION_POLICY.api_version
    kind: str = constants.PROPAGATION_POLICY.kind
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: PropagationSpec = Field(default_factory=PropagationSpec)

    @property
    def permanent_id(self) -> str:
        return self.metadata.labels.get(constants.PROPAGATION_POLICY_PERMANENT_ID_LABEL, "")


class ClusterPropagationPolicy(KarmadaModel):
    api_version: str = constants.CLUSTER_PROPAGATION_POLICY.api_version
    kind: str = constants.CLUSTER_PROPAGATION_POLICY.kind
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: PropagationSpec = Field(default_factory=PropagationSpec)

    @property
    def permanent_id(self) -> str:
        return self.metadata.labels.get(constants.CLUSTER_PROPAGATION_POLICY_PERMANENT_ID_LABEL, "")


# --- override policies ------------------------------------------------------------------------------


class PlaintextOverrider(KarmadaModel):
    """A JSON patch operation: `path` is a JSON pointer, `value` any JSON (none for `remove`)."""

    path: str = ""
    operator: str = ""
    value: Any = None


class ImagePredicate(KarmadaModel):
    path: str = ""
    """JSON pointer to the image field, e.g. `/spec/template/spec/containers/0/image`."""


class ImageOverrider(KarmadaModel):
    """Rewrites one component of `[registry/]repository[:tag|@digest]`."""

    predicate: ImagePredicate | None = None
    component: str = ""
    """`Registry`, `Repository` or `Tag` (`constants.ImageComponent`)."""
    operator: str = ""
    value: str | None = None


class CommandArgsOverrider(KarmadaModel):
    container_name: str = ""
    operator: str = ""
    """`add` appends the values, `remove` deletes matching ones."""
    value: list[str] = Field(default_factory=list)


class LabelAnnotationOverrider(KarmadaModel):
    operator: str = ""
    value: dict[str, str] = Field(default_factory=dict)


class JSONPatchOperation(KarmadaModel):
    sub_path: str = ""
    operator: str = ""
    value: Any = None


class YAMLPatchOperation(KarmadaModel):
    sub_path: str = ""
    operator: str = ""
    value: Any = None


class FieldOverrider(KarmadaModel):
    """Edits a JSON or YAML document held in a string field (ConfigMap data, for instance)."""

    field_path: str = ""
    json_operations: list[JSONPatchOperation] = json_list("json")
    yaml_operations: list[YAMLPatchOperation] = json_list("yaml")


class Overriders(KarmadaModel):
    """Applied in this order within a rule: image, command, args, labels, annotations, field, plaintext."""

    plaintext: list[PlaintextOverrider] = Field(default_factory=list)
    image_overrider: list[ImageOverrider] = Field(default_factory=list)
    command_overrider: list[CommandArgsOverrider] = Field(default_factory=list)
    args_overrider: list[CommandArgsOverrider] = Field(default_factory=list)
    labels_overrider: list[LabelAnnotationOverrider] = Field(default_factory=list)
    annotations_overrider: list[LabelAnnotationOverrider] = Field(default_factory=list)
    field_overrider: list[FieldOverrider] = Field(default_factory=list)


class RuleWithCluster(KarmadaModel):
    target_cluster: ClusterAffinity | None = None
    """None: every cluster."""
    overriders: Overriders = Field(default_factory=Overriders)


class OverrideSpec(KarmadaModel):
    resource_selectors: list[ResourceSelector] = Field(default_factory=list)
    """Empty: every resource."""
    override_rules: list[RuleWithCluster] = Field(default_factory=list)
    target_cluster: ClusterAffinity | None = None
    """Deprecated with `overriders`: one rule, written inline; exclusive with `override_rules`."""
    overriders: Overriders | None = None

    def rules(self) -> list[RuleWithCluster]:
        """The rules to apply, the deprecated inline form included."""
        if self.override_rules:
            return list(self.override_rules)
        if self.overriders is None:
            return []
        return [RuleWithCluster(target_cluster=self.target_cluster, overriders=self.overriders)]


class OverridePolicy(KarmadaModel):
    api_version: str = constants.OVERRIDE_POLICY.api_version
    kind: str = constants.OVERRIDE_POLICY.kind
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: OverrideSpec = Field(default_factory=OverrideSpec)


class ClusterOverridePolicy(KarmadaModel):
    api_version: str = constants.CLUSTER_OVERRIDE_POLICY.api_version
    kind: str = constants.CLUSTER_OVERRIDE_POLICY.kind
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: OverrideSpec = Field(default_factory=OverrideSpec)
