"""The manifest one member cluster receives: a resource template rendered for that cluster.

The binding controller turns a template into one manifest per target cluster, as Karmada's
`ensureWork` and `CreateOrUpdateWork` do, in this order:

1. **Replicas revised.** Under `Divided` scheduling a workload that asks for replicas gets the
   cluster's share (`interpreter.revise_replica`; a Job's parallelism, and its completions split
   in proportion). `Duplicated` scheduling keeps `spec.replicas` as written.
2. **Overrides applied** (`overrides.apply_override_policies`): ClusterOverridePolicies, then the
   OverridePolicies of the template's namespace, last — override rules win over everything else.
3. **Karmada's labels and annotations.** Label `karmada.io/managed: "true"` and the binding's
   permanent id; annotations naming the binding, the Work, the template's UID and generation,
   the conflict resolution and the overrides that were applied.
4. **Preserved state injected** (Karmada's StatefulFailoverInjection, always on here): after a
   failover, the labels the last eviction task preserved from the failed copy's status
   (`preservedLabelState`) are merged onto the manifest of the cluster the workload moved to —
   only when that task purged `Directly`, the workload now runs in exactly one cluster, and that
   cluster is not one it ran on before the failover (`clustersBeforeFailover`).
5. **Server-owned fields stripped**: `status`, `uid`, `resourceVersion`, `generation`,
   `creationTimestamp`, deletion stamps, `managedFields`, `ownerReferences`, `finalizers`,
   `selfLink`, kubectl's last-applied annotation, and per kind what the member fills in itself
   (a Service's cluster IP, a Job's generated selector, a Deployment's revision annotations…).
6. **Managed keys recorded**: `resourcetemplate.karmada.io/managed-labels` and `…/managed-
   annotations` list, sorted, every label and annotation key the manifest carries.

Everything here is a pure function over plain JSON dicts; the inputs are never modified.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import ConflictResolution, PurgeMode, ReplicaSchedulingType
from flotilla.api.karmada.work import ResourceBindingSpec, TargetCluster
from flotilla.api.objects import copy_object
from flotilla.interpreter import group_kind
from flotilla.interpreter import kinds as interpreter_kinds
from flotilla.interpreter.customized import BUILT_IN, ResourceInterpreter
from flotilla.overrides import apply_override_policies
from flotilla.scheduler.core.apportionment import names_descending, webster

LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"
SERVER_OWNED_METADATA = (
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "generation",
    "managedFields",
    "resourceVersion",
    "selfLink",
    "uid",
    "ownerReferences",
    "finalizers",
)
"""Metadata the hub's API server wrote on the template; the member writes its own."""

DEPLOYMENT_REVISION_ANNOTATIONS = (
    "deployment.kubernetes.io/revision",
    "deployment.kubernetes.io/revision-history",
)
JOB_SELECTOR_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")
JOB_TEMPLATE_LABELS = (*JOB_SELECTOR_LABELS, "job-name", "batch.kubernetes.io/job-name")
SERVICE_ACCOUNT_UID_ANNOTATION = "kubernetes.io/service-account.uid"
SERVICE_ACCOUNT_TOKEN_TYPE = "kubernetes.io/service-account-token"  # noqa: S105 - a Secret type
SELECTED_NODE_ANNOTATION = "volume.kubernetes.io/selected-node"
HEADLESS_CLUSTER_IP = "None"


@dataclass(frozen=True, slots=True)
class BindingReference:
    """The binding a Work is rendered from, as the Work's labels and annotations point back to it."""

    kind: str
    """`ResourceBinding` or `ClusterResourceBinding`."""
    namespace: str
    name: str
    permanent_id: str

    @property
    def namespaced(self) -> bool:
        return self.kind == constants.RESOURCE_BINDING.kind

    def labels(self) -> dict[str, str]:
        """The binding's permanent id, under the label of its kind."""
        if self.namespaced:
            return {constants.RESOURCE_BINDING_PERMANENT_ID_LABEL: self.permanent_id}
        return {constants.CLUSTER_RESOURCE_BINDING_PERMANENT_ID_LABEL: self.permanent_id}

    def annotations(self) -> dict[str, str]:
        """The binding's name (and namespace), under the annotations of its kind."""
        if self.namespaced:
            return {
                constants.RESOURCE_BINDING_NAMESPACE_ANNOTATION: self.namespace,
                constants.RESOURCE_BINDING_NAME_ANNOTATION: self.name,
            }
        return {constants.CLUSTER_RESOURCE_BINDING_NAME_ANNOTATION: self.name}


@dataclass(frozen=True, slots=True)
class RenderedManifest:
    """A manifest for one cluster, and the annotations its Work carries beside it."""

    manifest: dict[str, Any]
    work_annotations: dict[str, str]


def target_clusters(spec: ResourceBindingSpec) -> list[TargetCluster]:
    """The clusters a binding is delivered to: its scheduled clusters, then those its dependents need."""
    targets = list(spec.clusters)
    seen = {target.name for target in targets}
    for snapshot in spec.required_by:
        for target in snapshot.clusters:
            if target.name not in seen:
                seen.add(target.name)
                targets.append(target)
    return targets


def divides_replicas(spec: ResourceBindingSpec) -> bool:
    """Whether each cluster gets its own share of the replicas (Divided scheduling of a workload)."""
    if not spec.replicas or spec.placement is None or spec.placement.replica_scheduling is None:
        return False
    scheduling_type = spec.placement.replica_scheduling.replica_scheduling_type
    # The CRD defaults an omitted type to Divided; only an absent replicaScheduling means Duplicated.
    return scheduling_type in (None, ReplicaSchedulingType.DIVIDED)


def job_completions(
    template: Mapping[str, Any], targets: Iterable[TargetCluster], template_uid: str
) -> dict[str, int] | None:
    """A Job's completions split over the clusters in proportion to their replicas; None if not a Job
    with completions. Ties go by the template's UID, as Karmada's `divideReplicasByJobCompletions`."""
    if group_kind(template) != interpreter_kinds.JOB:
        return None
    completions = interpreter_kinds.nested(template, "spec", "completions")
    if isinstance(completions, bool) or not isinstance(completions, int):
        return None
    votes = {target.name: target.replicas or 0 for target in targets}
    return webster(completions, votes, descending_names=names_descending(template_uid))


def conflict_resolution(template: Mapping[str, Any], spec: ResourceBindingSpec) -> str:
    """The Work's conflict resolution: the template's annotation when valid, else the binding's."""
    annotations = interpreter_kinds.nested_mapping(template, "metadata", "annotations")
    from_template = annotations.get(constants.CONFLICT_RESOLUTION_ANNOTATION)
    if from_template in (constants.CONFLICT_RESOLUTION_OVERWRITE, constants.CONFLICT_RESOLUTION_ABORT):
        return str(from_template)
    if spec.conflict_resolution == ConflictResolution.OVERWRITE:
        return constants.CONFLICT_RESOLUTION_OVERWRITE
    return constants.CONFLICT_RESOLUTION_ABORT


def suspends_dispatching(spec: ResourceBindingSpec, cluster: str) -> bool:
    """Whether dispatching to `cluster` is suspended, everywhere or on that cluster."""
    suspension = spec.suspension
    if suspension is None:
        return False
    if suspension.dispatching:
        return True
    on_clusters = suspension.dispatching_on_clusters
    return on_clusters is not None and cluster in on_clusters.cluster_names


def preserved_labels(spec: ResourceBindingSpec, cluster: str) -> dict[str, str]:
    """The labels a failover preserved for the copy `cluster` receives; empty when none apply.

    Karmada's rules (`injectReservedLabelState`): the workload runs in exactly one cluster (a
    failover of one copy to another), the binding's last eviction task purged `Directly` (the old
    copy is gone before the new one starts, so the state is handed over, not shared), and `cluster`
    is not one the workload ran on before that failover. After consecutive failovers the last
    task's state is the one handed on.
    """
    if len(target_clusters(spec)) != 1 or not spec.graceful_eviction_tasks:
        return {}
    task = spec.graceful_eviction_tasks[-1]
    if task.purge_mode != PurgeMode.DIRECTLY or cluster in task.clusters_before_failover:
        return {}
    return dict(task.preserved_label_state)


def render_manifest(
    template: Mapping[str, Any],
    *,
    binding: BindingReference,
    spec: ResourceBindingSpec,
    cluster: Mapping[str, Any],
    replicas: int | None,
    completions: int | None,
    work_name: str,
    work_namespace: str,
    cluster_override_policies: Iterable[Mapping[str, Any]] = (),
    override_policies: Iterable[Mapping[str, Any]] = (),
    interpreter: ResourceInterpreter = BUILT_IN,
) -> RenderedManifest:
    """The template as `cluster` receives it, with the annotations of its Work.

    `replicas` is the cluster's share from the scheduling result, `completions` a Job's share of
    its completions (see `job_completions`); both are ignored unless the binding divides replicas.
    Raises `interpreter.InterpreterError` or `overrides.OverrideError` on templates or override
    rules that cannot be applied. `interpreter` revises the replicas (a customization's
    ReviseReplica before the built-in rules).
    """
    manifest = copy_object(dict(template))
    if divides_replicas(spec) and interpreter.revises_replica(manifest):
        manifest = interpreter.revise_replica(manifest, replicas or 0)
        if completions is not None:
            manifest["spec"]["completions"] = completions
    overridden = apply_override_policies(
        manifest,
        cluster,
        cluster_override_policies=cluster_override_policies,
        override_policies=override_policies,
    )
    manifest = overridden.manifest
    resolution = conflict_resolution(manifest, spec)
    metadata = _section(manifest, "metadata")
    labels = _section(metadata, "labels")
    labels.update(binding.labels())
    labels[constants.MANAGED_BY_KARMADA_LABEL] = "true"
    labels.update(preserved_labels(spec, str(interpreter_kinds.nested(cluster, "metadata", "name") or "")))
    annotations = _section(metadata, "annotations")
    generation = interpreter_kinds.nested(template, "metadata", "generation")
    if isinstance(generation, int) and generation > 0:
        annotations[constants.RESOURCE_TEMPLATE_GENERATION_ANNOTATION] = str(generation)
    annotations.update(binding.annotations())
    annotations[constants.RESOURCE_TEMPLATE_UID_ANNOTATION] = str(
        interpreter_kinds.nested(template, "metadata", "uid") or ""
    )
    annotations[constants.WORK_NAME_ANNOTATION] = work_name
    annotations[constants.WORK_NAMESPACE_ANNOTATION] = work_namespace
    annotations[constants.CONFLICT_RESOLUTION_ANNOTATION] = resolution
    annotations.update(overridden.annotations)
    strip_server_fields(manifest)
    record_managed_keys(manifest)
    work_annotations = {
        **binding.annotations(),
        constants.CONFLICT_RESOLUTION_ANNOTATION: resolution,
        **overridden.annotations,
    }
    return RenderedManifest(manifest, work_annotations)


def strip_server_fields(manifest: dict[str, Any]) -> None:
    """Remove, in place, what the hub's API server and controllers wrote and the member writes itself."""
    manifest.pop("status", None)
    metadata = _section(manifest, "metadata")
    for field in SERVER_OWNED_METADATA:
        metadata.pop(field, None)
    annotations = metadata.get("annotations")
    if isinstance(annotations, dict):
        annotations.pop(LAST_APPLIED_ANNOTATION, None)
    kind = group_kind(manifest)
    if kind == interpreter_kinds.DEPLOYMENT:
        _drop_keys(annotations, DEPLOYMENT_REVISION_ANNOTATIONS)
    elif kind == interpreter_kinds.SERVICE:
        _strip_service(manifest)
    elif kind == interpreter_kinds.JOB:
        _strip_job(manifest)
    elif kind == interpreter_kinds.SERVICE_ACCOUNT:
        _strip_service_account(manifest)
    elif kind == interpreter_kinds.SECRET and manifest.get("type") == SERVICE_ACCOUNT_TOKEN_TYPE:
        _drop_keys(annotations, (SERVICE_ACCOUNT_UID_ANNOTATION,))
        manifest.pop("data", None)
    elif kind == interpreter_kinds.PERSISTENT_VOLUME_CLAIM:
        _drop_keys(annotations, (SELECTED_NODE_ANNOTATION,))
    if isinstance(annotations, dict) and not annotations:
        metadata.pop("annotations")


def record_managed_keys(manifest: dict[str, Any]) -> None:
    """Write the managed-labels and managed-annotations annotations (sorted keys, comma-separated)."""
    metadata = _section(manifest, "metadata")
    annotations = _section(metadata, "annotations")
    annotation_keys = {*annotations, constants.MANAGED_ANNOTATIONS_ANNOTATION}
    annotation_keys.add(constants.MANAGED_LABELS_ANNOTATION)
    annotations[constants.MANAGED_ANNOTATIONS_ANNOTATION] = ",".join(sorted(annotation_keys))
    labels = metadata.get("labels")
    annotations[constants.MANAGED_LABELS_ANNOTATION] = ",".join(
        sorted(labels) if isinstance(labels, dict) else []
    )


def _strip_service(manifest: dict[str, Any]) -> None:
    spec = manifest.get("spec")
    if isinstance(spec, dict) and spec.get("clusterIP") not in (None, HEADLESS_CLUSTER_IP):
        spec.pop("clusterIP", None)
        spec.pop("clusterIPs", None)


def _strip_job(manifest: dict[str, Any]) -> None:
    spec = manifest.get("spec")
    if not isinstance(spec, dict):
        return
    # A member's ttl-after-finished controller would delete the Job, and the hub would re-create it.
    spec.pop("ttlSecondsAfterFinished", None)
    if spec.get("manualSelector") is True:
        return
    _drop_keys(interpreter_kinds.nested(spec, "selector", "matchLabels"), JOB_SELECTOR_LABELS)
    _drop_keys(interpreter_kinds.nested(spec, "template", "metadata", "labels"), JOB_TEMPLATE_LABELS)


def _strip_service_account(manifest: dict[str, Any]) -> None:
    secrets = manifest.get("secrets")
    if not isinstance(secrets, list):
        return
    token_prefix = f"{interpreter_kinds.nested(manifest, 'metadata', 'name')}-token-"
    kept = [
        secret
        for secret in secrets
        if not (isinstance(secret, Mapping) and str(secret.get("name", "")).startswith(token_prefix))
    ]
    if kept:
        manifest["secrets"] = kept
    else:
        manifest.pop("secrets")


def _drop_keys(mapping: Any, keys: Iterable[str]) -> None:
    if isinstance(mapping, dict):
        for key in keys:
            mapping.pop(key, None)


def _section(obj: dict[str, Any], name: str) -> dict[str, Any]:
    value = obj.get(name)
    if not isinstance(value, dict):
        value = obj[name] = {}
    return value
