"""The ResourceBinding (or ClusterResourceBinding) the detector wants for a template and its policy.

A binding stands for one claimed template: a namespaced template gets a ResourceBinding in its
namespace, a cluster-scoped one a ClusterResourceBinding; either is named `<name>-<kind>` in lower
case. The detector owns these parts and writes them with server-side apply (field manager
`flotilla-detector`), leaving `spec.clusters` to the scheduler and `status` to the status writers:

* metadata: the policy's claim (labels and annotations, see `claims`), the binding's permanent id
  label, and a controller ownerReference to the template, so deleting the template deletes the
  binding;
* `spec.resource`: the template's apiVersion, kind, namespace, name, uid and resourceVersion —
  the resourceVersion of the last version whose specification changed: the annotation
  `detector.flotilla.io/template-specification` holds a digest of the template less its status,
  resourceVersion and managedFields, and a binding whose digest matches is left as it is. A
  template's status moves its resourceVersion at every aggregation; the detector ignores those
  changes as they happen (Karmada's does too), and the digest keeps a restarted detector, which
  meets every template anew, from rewriting every binding (and, through the new generation, making
  the scheduler and its Events go round again) for them;
* `spec.replicas` and `spec.replicaRequirements`, from the resource interpreter, for workloads;
* copied from the policy: `placement`, `propagateDeps` (or the deprecated `association`),
  `schedulerName`, `failover`, `conflictResolution`, `preserveResourcesOnDeletion`, `suspension`;
* `conflictResolution` is overridden by the template's `work.karmada.io/conflict-resolution`
  annotation when it says `overwrite` or `abort`;
* `schedulePriority.priority`: the value of the policy's PriorityClass, which the caller looks up;
* `workloadAffinityGroups` (ResourceBindings only): `key=value` of the template's labels named by
  the policy's workload affinity and anti-affinity.

`binding_up_to_date` tells whether an existing binding already says all that, so an unchanged
template costs no write.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flotilla.api.karmada import constants, names
from flotilla.api.karmada.model import ObjectMeta, OwnerReference
from flotilla.api.karmada.work import (
    BindingSchedulePriority,
    BindingSuspension,
    ClusterResourceBinding,
    ObjectReference,
    ReplicaRequirements,
    ResourceBinding,
    ResourceBindingSpec,
    WorkloadAffinityGroups,
)
from flotilla.api.objects import metadata_of
from flotilla.api.scheme import GroupVersionKind
from flotilla.controllers.detector.claims import CLAIM_ANNOTATIONS, CLAIM_LABELS, claim_of
from flotilla.controllers.detector.matching import Policy
from flotilla.controllers.detector.watched import specification_fingerprint
from flotilla.interpreter.customized import BUILT_IN, ResourceInterpreter

Template = Mapping[str, Any]

DETECTOR_SPEC_FIELDS = (
    "resource",
    "propagateDeps",
    "replicas",
    "replicaRequirements",
    "placement",
    "schedulerName",
    "failover",
    "conflictResolution",
    "preserveResourcesOnDeletion",
    "suspension",
    "schedulePriority",
    "workloadAffinityGroups",
)
TEMPLATE_SPECIFICATION_ANNOTATION = "detector.flotilla.io/template-specification"
"""A digest of the template version `spec.resource` names, less status (see the module docstring)."""
"""The `spec` fields the detector owns; everything else in a binding belongs to other writers."""

_CONFLICT_RESOLUTION_ANNOTATION_VALUES = {
    constants.CONFLICT_RESOLUTION_OVERWRITE: constants.ConflictResolution.OVERWRITE,
    constants.CONFLICT_RESOLUTION_ABORT: constants.ConflictResolution.ABORT,
}


def spec_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """The object's `spec`, empty when it has none."""
    spec = obj.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def _string_map(template: Template, field_name: str) -> Mapping[str, str]:
    value = metadata_of(template).get(field_name)
    return value if isinstance(value, Mapping) else {}


def binding_kind(template: Template) -> GroupVersionKind:
    """ResourceBinding for a namespaced template, ClusterResourceBinding for a cluster-scoped one."""
    if metadata_of(template).get("namespace"):
        return constants.RESOURCE_BINDING
    return constants.CLUSTER_RESOURCE_BINDING


def binding_name_of(template: Template) -> str:
    """The name of the template's binding: `<name>-<kind>`, lower case."""
    return names.binding_name(str(template.get("kind") or ""), str(metadata_of(template).get("name") or ""))


def owner_reference(template: Template) -> dict[str, Any]:
    """A controller reference to the template (blocking its foreground deletion)."""
    metadata = metadata_of(template)
    return {
        "apiVersion": str(template.get("apiVersion") or ""),
        "kind": str(template.get("kind") or ""),
        "name": str(metadata.get("name") or ""),
        "uid": str(metadata.get("uid") or ""),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def controller_uid(obj: Mapping[str, Any]) -> str | None:
    """The uid of the object's controller (the ownerReference with `controller: true`), if any."""
    for reference in metadata_of(obj).get("ownerReferences") or ():
        if isinstance(reference, Mapping) and reference.get("controller"):
            return str(reference.get("uid") or "")
    return None


def conflict_resolution(template: Template, policy: Policy) -> str | None:
    """The template's `work.karmada.io/conflict-resolution` annotation if valid, else the policy's."""
    annotated = _string_map(template, "annotations").get(constants.CONFLICT_RESOLUTION_ANNOTATION)
    chosen = _CONFLICT_RESOLUTION_ANNOTATION_VALUES.get(str(annotated or "").lower())
    if chosen is not None:
        return str(chosen)
    return policy.spec.conflict_resolution


def workload_affinity_groups(template: Template, policy: Policy) -> WorkloadAffinityGroups | None:
    """The `key=value` groups the template joins under the policy's workload (anti-)affinity."""
    affinity = policy.spec.placement.workload_affinity
    if affinity is None:
        return None
    labels = _string_map(template, "labels")
    groups = WorkloadAffinityGroups()
    if affinity.affinity is not None and affinity.affinity.group_by_label_key in labels:
        key = affinity.affinity.group_by_label_key
        groups.affinity_group = f"{key}={labels[key]}"
    if affinity.anti_affinity is not None and affinity.anti_affinity.group_by_label_key in labels:
        key = affinity.anti_affinity.group_by_label_key
        groups.anti_affinity_group = f"{key}={labels[key]}"
    if groups.affinity_group is None and groups.anti_affinity_group is None:
        return None
    return groups


def _spec(
    template: Template,
    policy: Policy,
    schedule_priority: int | None,
    interpreter: ResourceInterpreter = BUILT_IN,
) -> ResourceBindingSpec:
    metadata = metadata_of(template)
    namespace = metadata.get("namespace") or None
    spec = ResourceBindingSpec(
        resource=ObjectReference(
            api_version=str(template.get("apiVersion") or ""),
            kind=str(template.get("kind") or ""),
            namespace=namespace,
            name=str(metadata.get("name") or ""),
            uid=metadata.get("uid"),
            resource_version=metadata.get("resourceVersion"),
        ),
        propagate_deps=True if (policy.spec.propagate_deps or policy.spec.association) else None,
        placement=policy.spec.placement.model_copy(deep=True),
        scheduler_name=policy.spec.scheduler_name or constants.DEFAULT_SCHEDULER_NAME,
        failover=policy.spec.failover.model_copy(deep=True) if policy.spec.failover else None,
        conflict_resolution=conflict_resolution(template, policy),
        preserve_resources_on_deletion=policy.spec.preserve_resources_on_deletion,
    )
    workload = interpreter.get_replicas(template)
    if workload is not None:
        spec.replicas = workload.replicas
        if workload.requirements is not None:
            spec.replica_requirements = ReplicaRequirements.from_object(workload.requirements)
    suspension = policy.spec.suspension
    if suspension is not None:
        spec.suspension = BindingSuspension.from_object(suspension.to_object())
    if schedule_priority is not None:
        spec.schedule_priority = BindingSchedulePriority(priority=schedule_priority)
    if namespace:
        spec.workload_affinity_groups = workload_affinity_groups(template, policy)
    return spec


def build_binding(
    template: Template,
    policy: Policy,
    *,
    permanent_id: str,
    schedule_priority: int | None = None,
    interpreter: ResourceInterpreter = BUILT_IN,
) -> dict[str, Any]:
    """The binding object to server-side apply for `template` claimed by `policy`.

    `permanent_id` is the binding's `…binding.karmada.io/permanent-id` (the existing binding's, or
    a fresh one); `schedule_priority` the value of the policy's PriorityClass, if it names one;
    `interpreter` answers the template's replicas (the hub's customizations over the built-in rules).
    """
    claim = claim_of(policy)
    namespace = metadata_of(template).get("namespace") or None
    metadata = ObjectMeta(
        name=binding_name_of(template),
        namespace=namespace,
        owner_references=[OwnerReference.from_object(owner_reference(template))],
    )
    spec = _spec(template, policy, schedule_priority, interpreter)
    fingerprint = specification_fingerprint(template)
    annotations = {**claim.annotations, TEMPLATE_SPECIFICATION_ANNOTATION: fingerprint}
    if namespace:
        metadata.labels = {**claim.labels, constants.RESOURCE_BINDING_PERMANENT_ID_LABEL: permanent_id}
        metadata.annotations = annotations
        return ResourceBinding(metadata=metadata, spec=spec).to_object()
    metadata.labels = {**claim.labels, constants.CLUSTER_RESOURCE_BINDING_PERMANENT_ID_LABEL: permanent_id}
    metadata.annotations = annotations
    return ClusterResourceBinding(metadata=metadata, spec=spec).to_object()


def _without_scheduling(suspension: Any) -> Any:
    """A binding's suspension minus `scheduling`, which other writers own."""
    if not isinstance(suspension, Mapping):
        return suspension
    rest = {key: value for key, value in suspension.items() if key != "scheduling"}
    return rest or None


def _without_version(resource: Any) -> Any:
    """`spec.resource` less its resourceVersion (the specification digest annotation stands for it)."""
    if not isinstance(resource, Mapping):
        return resource
    return {key: value for key, value in resource.items() if key != "resourceVersion"}


def binding_up_to_date(existing: Mapping[str, Any], desired: Mapping[str, Any]) -> bool:
    """Does `existing` already carry every label, annotation, owner and spec field of `desired`?

    The template's resourceVersion in `spec.resource` counts only through the specification digest
    annotation: a newer version that differs in status alone leaves the binding up to date.
    """
    for field_name, claim_keys in (("labels", CLAIM_LABELS), ("annotations", CLAIM_ANNOTATIONS)):
        have = _string_map(existing, field_name)
        want = _string_map(desired, field_name)
        if any(have.get(key) != value for key, value in want.items()):
            return False
        if any(key in have for key in claim_keys if key not in want):
            return False
    if metadata_of(existing).get("ownerReferences") != metadata_of(desired).get("ownerReferences"):
        return False
    have_spec, want_spec = spec_of(existing), spec_of(desired)
    for field_name in DETECTOR_SPEC_FIELDS:
        have_value, want_value = have_spec.get(field_name), want_spec.get(field_name)
        if field_name == "resource":  # its resourceVersion moves with the template's status too
            have_value, want_value = _without_version(have_value), _without_version(want_value)
        elif field_name == "suspension":
            have_value, want_value = _without_scheduling(have_value), _without_scheduling(want_value)
        if have_value != want_value:
            return False
    return True
