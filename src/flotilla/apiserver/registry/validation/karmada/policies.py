"""Karmada's rules for PropagationPolicy and ClusterPropagationPolicy as a whole.

What a policy's spec needs beyond its placement (`placement`) and its resource selectors
(`fieldchecks`): application failover requires `propagateDeps`; conflict resolution, preemption
and activation preference take Karmada's values; a policy that preempts (`preemption: Always`)
names every resource it selects; suspending dispatching everywhere excludes suspending it on some
clusters; a `schedulePriority` names its source (only `KubePriorityClass`, the one Karmada
implements) and its class, as Karmada's CRD requires; and the `schedulerName` a policy was
created for never changes. Beyond Karmada, a
policy's `failover.flotilla.io/failback-after` annotation, which opts its workloads into moving back
after a recovery, must be a Go duration that is not negative (refused here rather than found out
later by the failback controller).
"""

from __future__ import annotations

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.api.karmada.clustertimes import parse_failback_after
from flotilla.api.karmada.constants import (
    FAILBACK_AFTER_ANNOTATION,
    ActivationPreference,
    ConflictResolution,
    PreemptionBehavior,
    PriorityClassSource,
)
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.karmada.fieldchecks import Object, one_of, resource_selectors
from flotilla.apiserver.registry.validation.karmada.placement import validate_failover, validate_placement


def validate_propagation_policy(policy: Object) -> list[FieldError]:
    namespace = fields.text(fields.mapping(policy, "metadata"), "namespace")
    return validate_propagation_spec(fields.mapping(policy, "spec"), namespace) + _failback_after(policy)


def validate_propagation_policy_update(new: Object, old: Object) -> list[FieldError]:
    return validate_propagation_policy(new) + _scheduler_name_unchanged(new, old)


def validate_cluster_propagation_policy(policy: Object) -> list[FieldError]:
    return validate_propagation_spec(fields.mapping(policy, "spec"), None) + _failback_after(policy)


def validate_cluster_propagation_policy_update(new: Object, old: Object) -> list[FieldError]:
    return validate_cluster_propagation_policy(new) + _scheduler_name_unchanged(new, old)


def _failback_after(policy: Object) -> list[FieldError]:
    annotations = fields.mapping(fields.mapping(policy, "metadata"), "annotations")
    value = annotations.get(FAILBACK_AFTER_ANNOTATION)
    if value is None:
        return []
    try:
        parse_failback_after(str(value))
    except ValueError:
        path = f"metadata.annotations[{FAILBACK_AFTER_ANNOTATION}]"
        return [fielderrors.invalid(path, value, "must be a Go duration that is not negative, such as 10m")]
    return []


def _scheduler_name_unchanged(new: Object, old: Object) -> list[FieldError]:
    new_name = fields.text(fields.mapping(new, "spec"), "schedulerName")
    if new_name != fields.text(fields.mapping(old, "spec"), "schedulerName"):
        return [fielderrors.forbidden("spec.schedulerName", "the schedulerName should not be updated")]
    return []


def _schedule_priority(spec: Object) -> list[FieldError]:
    priority = spec.get("schedulePriority")
    if not isinstance(priority, dict):
        return []
    path = "spec.schedulePriority"
    errors = one_of(priority, "priorityClassSource", path, [PriorityClassSource.KUBE_PRIORITY_CLASS])
    for key in ("priorityClassSource", "priorityClassName"):
        if key not in priority:
            errors.append(fielderrors.required(f"{path}.{key}"))
    return errors


def validate_propagation_spec(spec: Object, namespace: str | None) -> list[FieldError]:
    """A (Cluster)PropagationPolicy's spec; `namespace` is the PropagationPolicy's, None for a cluster one."""
    errors = resource_selectors(spec, "spec.resourceSelectors", required=True, namespace=namespace)
    errors += validate_placement(fields.mapping(spec, "placement"), "spec.placement")
    failover = fields.mapping(spec, "failover")
    if failover.get("application") is not None and spec.get("propagateDeps") is not True:
        errors.append(
            fielderrors.invalid(
                "spec.propagateDeps",
                bool(spec.get("propagateDeps")),
                "application failover is set, propagateDeps must be true",
            )
        )
    errors += validate_failover(failover, "spec.failover")
    errors += one_of(spec, "conflictResolution", "spec", ConflictResolution)
    errors += one_of(spec, "preemption", "spec", PreemptionBehavior)
    errors += one_of(spec, "activationPreference", "spec", ActivationPreference)
    errors += _schedule_priority(spec)
    if spec.get("preemption") == PreemptionBehavior.ALWAYS:
        for position, selector in enumerate(fields.objects(spec, "resourceSelectors")):
            if not fields.text(selector, "name"):
                errors.append(
                    fielderrors.invalid(
                        f"spec.resourceSelectors[{position}].name",
                        "",
                        "name cannot be empty if preemption is Always, the empty name may cause "
                        "unexpected resources preemption",
                    )
                )
    suspension = spec.get("suspension")
    if (
        isinstance(suspension, dict)
        and suspension.get("dispatching") is True
        and fields.items(fields.mapping(suspension, "dispatchingOnClusters"), "clusterNames")
    ):
        errors.append(
            fielderrors.invalid(
                "spec.suspension",
                suspension,
                "suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames",
            )
        )
    return errors
