"""Karmada's rules for where a policy puts its replicas: a placement, and failover.

A placement's cluster affinity (`clusterAffinity`) and affinity groups (`clusterAffinities`) are
exclusive; affinity names are qualified, at most 32 characters and unique, overflow tiers only
serve dynamic-weight or Aggregated division; field selectors test `provider`/`region`/`zone` with
`In`/`NotIn`. Spread constraints use a field or a label, never both, with `minGroups <=
maxGroups`, one constraint per field and a `cluster` one beside any other field. Static weights
are at least 1 and name their target; cluster tolerations are pod tolerations (`tolerations`);
workload affinity groups by a label key. Failover: applications purge directly, gracefully or
never (Karmada v1.19's modes; defaulting has renamed the older ones), their grace period is given
exactly when they purge gracefully, clusters purge directly or gracefully, and a state
preservation rule's alias is a label key.

A cluster affinity is also how override policies pick their clusters (`overrides`), so
`validate_cluster_affinity` is public.
"""

from __future__ import annotations

from flotilla.api import fielderrors
from flotilla.api.fielderrors import ErrorType, FieldError, child, index
from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import (
    DynamicWeightFactor,
    PurgeMode,
    ReplicaDivisionPreference,
    ReplicaSchedulingType,
    SpreadByField,
)
from flotilla.api.selectors import validate_label_selector
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.karmada.fieldchecks import Object, one_of
from flotilla.apiserver.registry.validation.metadata import qualified_name
from flotilla.apiserver.registry.validation.tolerations import validate_tolerations

AFFINITY_NAME_MAX = 32
FIELD_SELECTOR_OPERATORS = ("In", "NotIn")
APPLICATION_PURGE_MODES = (PurgeMode.DIRECTLY, PurgeMode.GRACEFULLY, PurgeMode.NEVER)
"""Karmada v1.19's purge modes (#7792). The older names Immediately and Graciously never get here:
defaulting has already stored them as Directly and Gracefully (`defaults.karmada`)."""
CLUSTER_PURGE_MODES = (PurgeMode.DIRECTLY, PurgeMode.GRACEFULLY)


def validate_placement(placement: Object, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if placement.get("clusterAffinity") is not None and placement.get("clusterAffinities") is not None:
        errors.append(
            fielderrors.forbidden(
                child(path, "clusterAffinities"), "clusterAffinities cannot co-exist with clusterAffinity"
            )
        )
    affinity = placement.get("clusterAffinity")
    if isinstance(affinity, dict):
        errors += validate_cluster_affinity(affinity, child(path, "clusterAffinity"))
    errors += _cluster_affinities(placement, child(path, "clusterAffinities"))
    errors += validate_tolerations(
        fields.objects(placement, "clusterTolerations"), child(path, "clusterTolerations")
    )
    errors += _spread_constraints(
        fields.objects(placement, "spreadConstraints"), child(path, "spreadConstraints")
    )
    errors += _replica_scheduling(
        fields.mapping(placement, "replicaScheduling"), child(path, "replicaScheduling")
    )
    errors += _workload_affinity(
        fields.mapping(placement, "workloadAffinity"), child(path, "workloadAffinity")
    )
    return errors


def _workload_affinity(workload: Object, path: str) -> list[FieldError]:
    """Each term groups by a qualified label key, and the two terms by different keys (Karmada's webhook:
    one key cannot both gather a group in a cluster and keep it out)."""
    errors: list[FieldError] = []
    label_keys: dict[str, str] = {}
    for key in ("affinity", "antiAffinity"):
        term = fields.mapping(workload, key)
        if term:
            label_key = fields.text(term, "groupByLabelKey")
            term_path = child(child(path, key), "groupByLabelKey")
            errors += qualified_name(label_key, term_path) if label_key else [fielderrors.required(term_path)]
            label_keys[key] = label_key
    if label_keys.get("affinity") and label_keys.get("affinity") == label_keys.get("antiAffinity"):
        errors.append(
            fielderrors.invalid(
                child(child(path, "antiAffinity"), "groupByLabelKey"),
                label_keys["antiAffinity"],
                "affinity and antiAffinity must not use the same groupByLabelKey",
            )
        )
    return errors


def validate_cluster_affinity(affinity: Object, path: str) -> list[FieldError]:
    """Label selector syntax, and field selectors on provider/region/zone with In or NotIn."""
    errors = validate_label_selector(affinity.get("labelSelector"), child(path, "labelSelector"))
    expressions_path = child(child(path, "fieldSelector"), "matchExpressions")
    for position, expression in enumerate(
        fields.objects(fields.mapping(affinity, "fieldSelector"), "matchExpressions")
    ):
        expression_path = index(expressions_path, position)
        key = expression.get("key")
        if key not in constants.CLUSTER_FIELDS:
            errors.append(
                fielderrors.not_supported(child(expression_path, "key"), key, constants.CLUSTER_FIELDS)
            )
        operator = expression.get("operator")
        if operator not in FIELD_SELECTOR_OPERATORS:
            errors.append(
                fielderrors.not_supported(
                    child(expression_path, "operator"), operator, FIELD_SELECTOR_OPERATORS
                )
            )
    return errors


def _affinity_name(name: str, path: str) -> list[FieldError]:
    if not name:
        return [fielderrors.required(path)]
    if len(name) > AFFINITY_NAME_MAX:
        return [fielderrors.too_long(path, AFFINITY_NAME_MAX, "chars")]
    return qualified_name(name, path)


def _cluster_affinities(placement: Object, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    scheduling = fields.mapping(placement, "replicaScheduling")
    preference = fields.text(scheduling, "replicaDivisionPreference")
    overflow_allowed = fields.text(scheduling, "replicaSchedulingType") == ReplicaSchedulingType.DIVIDED and (
        preference == ReplicaDivisionPreference.AGGREGATED
        or bool(fields.text(fields.mapping(scheduling, "weightPreference"), "dynamicWeight"))
    )
    for position, term in enumerate(fields.objects(placement, "clusterAffinities")):
        term_path = index(path, position)
        name = fields.text(term, "affinityName")
        errors += _affinity_name(name, child(term_path, "affinityName"))
        if name in seen:
            errors.append(
                FieldError(
                    ErrorType.DUPLICATE,
                    child(term_path, "affinityName"),
                    name,
                    "each affinity term in a policy must have a unique name",
                )
            )
        seen.add(name)
        errors += validate_cluster_affinity(term, term_path)
        tiers = fields.objects(term, "overflowAffinities")
        tiers_path = child(term_path, "overflowAffinities")
        if tiers and not overflow_allowed:
            errors.append(
                fielderrors.forbidden(
                    tiers_path,
                    "overflowAffinities can only be used with Divided replica scheduling by dynamic "
                    "weight (dynamicWeight: AvailableReplicas) or Aggregated",
                )
            )
        tier_names = {name}
        for tier_position, tier in enumerate(tiers):
            tier_path = index(tiers_path, tier_position)
            tier_name = fields.text(tier, "affinityName")
            errors += _affinity_name(tier_name, child(tier_path, "affinityName"))
            if tier_name in tier_names:
                errors.append(fielderrors.duplicate(child(tier_path, "affinityName"), tier_name))
            tier_names.add(tier_name)
            errors += validate_cluster_affinity(tier, tier_path)
    return errors


def _spread_constraints(constraints: list[Object], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    by_field: dict[str, int] = {}
    for position, constraint in enumerate(constraints):
        constraint_path = index(path, position)
        by = fields.text(constraint, "spreadByField")
        if by and fields.text(constraint, "spreadByLabel"):
            errors.append(
                fielderrors.invalid(
                    constraint_path, constraint, "spreadByLabel should not co-exist with spreadByField"
                )
            )
        errors += one_of(constraint, "spreadByField", constraint_path, SpreadByField)
        low = fields.integer(constraint, "minGroups") or 0
        high = fields.integer(constraint, "maxGroups") or 0
        for key, value in (("minGroups", low), ("maxGroups", high)):
            if value < 0:
                errors.append(
                    fielderrors.invalid(
                        child(constraint_path, key), value, f"{key} lower than 0 is not allowed"
                    )
                )
        if 0 < high < low:
            errors.append(
                fielderrors.invalid(
                    child(constraint_path, "maxGroups"), high, "maxGroups lower than minGroups is not allowed"
                )
            )
        if by:
            by_field[by] = by_field.get(by, 0) + 1
            if by_field[by] == 2:
                errors.append(
                    fielderrors.invalid(
                        child(constraint_path, "spreadByField"),
                        by,
                        f"multiple {by} spread constraints are not allowed",
                    )
                )
    if by_field and SpreadByField.CLUSTER not in by_field:
        errors.append(
            fielderrors.required(
                path,
                "the cluster spread constraint must be enabled in one of the constraints in case of "
                "SpreadByField is enabled",
            )
        )
    return errors


def _replica_scheduling(scheduling: Object, path: str) -> list[FieldError]:
    errors = one_of(scheduling, "replicaSchedulingType", path, ReplicaSchedulingType)
    errors += one_of(scheduling, "replicaDivisionPreference", path, ReplicaDivisionPreference)
    preference = fields.mapping(scheduling, "weightPreference")
    preference_path = child(path, "weightPreference")
    errors += one_of(preference, "dynamicWeight", preference_path, DynamicWeightFactor)
    weights_path = child(preference_path, "staticWeightList")
    for position, entry in enumerate(fields.objects(preference, "staticWeightList")):
        entry_path = index(weights_path, position)
        weight = entry.get("weight")
        if weight is None:
            errors.append(fielderrors.required(child(entry_path, "weight")))
        elif isinstance(weight, int) and not isinstance(weight, bool) and weight < 1:
            errors.append(
                fielderrors.invalid(child(entry_path, "weight"), weight, "must be greater than or equal to 1")
            )
        target = entry.get("targetCluster")
        if isinstance(target, dict):
            errors += validate_cluster_affinity(target, child(entry_path, "targetCluster"))
        else:
            errors.append(fielderrors.required(child(entry_path, "targetCluster")))
    return errors


def validate_failover(failover: Object, path: str) -> list[FieldError]:
    """A policy's `failover`: application purge modes and grace periods, cluster purge modes."""
    errors: list[FieldError] = []
    application = failover.get("application")
    application_path = child(path, "application")
    if isinstance(application, dict):
        errors += one_of(application, "purgeMode", application_path, APPLICATION_PURGE_MODES)
        seconds = fields.integer(fields.mapping(application, "decisionConditions"), "tolerationSeconds")
        if seconds is not None and seconds < 0:
            errors.append(
                fielderrors.invalid(
                    f"{application_path}.decisionConditions.tolerationSeconds",
                    seconds,
                    "must be greater than or equal to 0",
                )
            )
        graceful = application.get("purgeMode") == PurgeMode.GRACEFULLY
        grace_path = child(application_path, "gracePeriodSeconds")
        grace = application.get("gracePeriodSeconds")
        if grace is not None and not graceful:
            errors.append(
                fielderrors.invalid(grace_path, grace, "only takes effect when purgeMode is Gracefully")
            )
        elif grace is None and graceful:
            errors.append(
                fielderrors.required(grace_path, "should not be empty when purgeMode is Gracefully")
            )
        elif isinstance(grace, int) and grace <= 0:
            errors.append(fielderrors.invalid(grace_path, grace, "must be greater than 0"))
        errors += _state_preservation(application, application_path)
    cluster = fields.mapping(failover, "cluster")
    errors += one_of(cluster, "purgeMode", child(path, "cluster"), CLUSTER_PURGE_MODES)
    errors += _state_preservation(cluster, child(path, "cluster"))
    return errors


def _state_preservation(behavior: Object, path: str) -> list[FieldError]:
    """Each rule's `aliasLabelName` becomes a label key on the new copy: it must be a valid one."""
    rules_path = child(child(path, "statePreservation"), "rules")
    errors: list[FieldError] = []
    for position, rule in enumerate(fields.objects(fields.mapping(behavior, "statePreservation"), "rules")):
        name = fields.text(rule, "aliasLabelName")
        errors += qualified_name(name, child(index(rules_path, position), "aliasLabelName"))
    return errors
