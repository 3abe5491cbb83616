"""Karmada's validation of its own kinds, as its validating webhook and Cluster registry apply it.

Runs after defaulting (so a PropagationPolicy's spread constraints already have a field and a
`minGroups`), beside the CRD schema, which checks types, enums, required fields and bounds. The
rules that need more than one field live here: a policy's placement (clusterAffinity and
clusterAffinities are exclusive; affinity names are qualified, at most 32 characters and unique;
spread constraints use a field or a label, never both, with `minGroups <= maxGroups`, one
constraint per field and a `cluster` one beside any other field; static weights are at least 1;
field selectors test `provider`/`region`/`zone` with `In`/`NotIn`), failover, preemption and
suspension; override rules (legacy and new forms are exclusive, JSON pointers, operators and their
values); Clusters (name, sync mode, endpoint and proxy URLs, taints, resource models).

Messages use Karmada's wording where it has one, at the most precise field path: Karmada reports
some problems at a parent with the whole struct as the value; we name the field itself. Enum and
required checks repeat the schema's on purpose, so the rules hold for objects that never went
through a schema; the API server reports each (type, field) once.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any
from urllib.parse import urlsplit

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import ErrorType, FieldError, child, index
from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import (
    ActivationPreference,
    ClusterSyncMode,
    ConflictResolution,
    DynamicWeightFactor,
    ImageComponent,
    OverriderOperator,
    PreemptionBehavior,
    PurgeMode,
    ReplicaDivisionPreference,
    ReplicaSchedulingType,
    ResourceHealth,
    SpreadByField,
)
from flotilla.api.quantities import QuantityError, parse_quantity
from flotilla.api.selectors import validate_label_selector
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.affinity import validate_taints, validate_tolerations
from flotilla.apiserver.registry.validation.metadata import (
    qualified_name,
    validate_annotations,
    validate_labels,
)

Object = dict[str, Any]

AFFINITY_NAME_MAX = 32
CLUSTER_NAME_MAX = 48
"""Room for the `karmada-es-` prefix of the execution namespace within a 63-character label."""
FIELD_SELECTOR_OPERATORS = ("In", "NotIn")
PROXY_SCHEMES = ("http", "https", "socks5")
RESOURCE_MODEL_NAMES = ("cpu", "ephemeral-storage", "memory", "storage")
MAX_INT64 = 2**63 - 1
GRACEFUL = (PurgeMode.GRACEFULLY, PurgeMode.GRACIOUSLY)


def _enum(obj: Object, key: str, path: str, allowed: Iterable[str]) -> list[FieldError]:
    value = obj.get(key)
    choices = [str(choice) for choice in allowed]
    if value in (None, "") or value in choices:
        return []
    return [fielderrors.not_supported(child(path, key), value, choices)]


def _json_pointer(value: str, path: str) -> list[FieldError]:
    if value and not value.startswith("/"):
        return [fielderrors.invalid(path, value, 'JSON pointer must be empty or start with a "/"')]
    return []


# --- propagation policies ---------------------------------------------------------------------------


def validate_propagation_policy(policy: Object) -> list[FieldError]:
    namespace = fields.text(fields.mapping(policy, "metadata"), "namespace")
    return validate_propagation_spec(fields.mapping(policy, "spec"), namespace)


def validate_propagation_policy_update(new: Object, old: Object) -> list[FieldError]:
    return validate_propagation_policy(new) + _scheduler_name_unchanged(new, old)


def validate_cluster_propagation_policy(policy: Object) -> list[FieldError]:
    return validate_propagation_spec(fields.mapping(policy, "spec"), None)


def validate_cluster_propagation_policy_update(new: Object, old: Object) -> list[FieldError]:
    return validate_cluster_propagation_policy(new) + _scheduler_name_unchanged(new, old)


def _scheduler_name_unchanged(new: Object, old: Object) -> list[FieldError]:
    new_name = fields.text(fields.mapping(new, "spec"), "schedulerName")
    if new_name != fields.text(fields.mapping(old, "spec"), "schedulerName"):
        return [fielderrors.forbidden("spec.schedulerName", "the schedulerName should not be updated")]
    return []


def validate_propagation_spec(spec: Object, namespace: str | None) -> list[FieldError]:
    """A (Cluster)PropagationPolicy's spec; `namespace` is the PropagationPolicy's, None for a cluster one."""
    errors = _resource_selectors(spec, "spec.resourceSelectors", required=True, namespace=namespace)
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
    errors += _failover(failover, "spec.failover")
    errors += _enum(spec, "conflictResolution", "spec", ConflictResolution)
    errors += _enum(spec, "preemption", "spec", PreemptionBehavior)
    errors += _enum(spec, "activationPreference", "spec", ActivationPreference)
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


def _resource_selectors(
    spec: Object, path: str, *, required: bool, namespace: str | None = None
) -> list[FieldError]:
    errors: list[FieldError] = []
    selectors = spec.get("resourceSelectors")
    if required and selectors is None:
        return [fielderrors.required(path, "at least one resource selector is required")]
    if required and selectors == []:
        return [fielderrors.invalid(path, 0, "should have at least 1 items")]
    for position, selector in enumerate(fields.objects(spec, "resourceSelectors")):
        selector_path = index(path, position)
        for key in ("apiVersion", "kind"):
            if not fields.text(selector, key):
                errors.append(fielderrors.required(child(selector_path, key)))
        errors += validate_label_selector(
            selector.get("labelSelector"), child(selector_path, "labelSelector")
        )
        selected = fields.text(selector, "namespace")
        if namespace and selected and selected != namespace:
            errors.append(
                fielderrors.invalid(
                    child(selector_path, "namespace"),
                    selected,
                    f'a PropagationPolicy selects resources of its own namespace only ("{namespace}")',
                )
            )
    return errors


# --- placement ----------------------------------------------------------------------------------------


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
    workload = fields.mapping(placement, "workloadAffinity")
    for key in ("affinity", "antiAffinity"):
        term = fields.mapping(workload, key)
        if term:
            label_key = fields.text(term, "groupByLabelKey")
            term_path = child(child(child(path, "workloadAffinity"), key), "groupByLabelKey")
            errors += qualified_name(label_key, term_path) if label_key else [fielderrors.required(term_path)]
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
        errors += _enum(constraint, "spreadByField", constraint_path, SpreadByField)
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
    errors = _enum(scheduling, "replicaSchedulingType", path, ReplicaSchedulingType)
    errors += _enum(scheduling, "replicaDivisionPreference", path, ReplicaDivisionPreference)
    preference = fields.mapping(scheduling, "weightPreference")
    preference_path = child(path, "weightPreference")
    errors += _enum(preference, "dynamicWeight", preference_path, DynamicWeightFactor)
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


def _failover(failover: Object, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    application = failover.get("application")
    application_path = child(path, "application")
    if isinstance(application, dict):
        errors += _enum(application, "purgeMode", application_path, PurgeMode)
        seconds = fields.integer(fields.mapping(application, "decisionConditions"), "tolerationSeconds")
        if seconds is not None and seconds < 0:
            errors.append(
                fielderrors.invalid(
                    f"{application_path}.decisionConditions.tolerationSeconds",
                    seconds,
                    "must be greater than or equal to 0",
                )
            )
        graceful = application.get("purgeMode") in GRACEFUL
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
    cluster = fields.mapping(failover, "cluster")
    errors += _enum(cluster, "purgeMode", child(path, "cluster"), (PurgeMode.DIRECTLY, PurgeMode.GRACEFULLY))
    return errors


# --- override policies --------------------------------------------------------------------------------


def validate_override_policy(policy: Object) -> list[FieldError]:
    spec = fields.mapping(policy, "spec")
    errors = _resource_selectors(spec, "spec.resourceSelectors", required=False)
    rules_given = spec.get("overrideRules") is not None
    target = spec.get("targetCluster")
    if isinstance(target, dict):
        errors += validate_cluster_affinity(target, "spec.targetCluster")
        if rules_given:
            errors.append(
                fielderrors.invalid(
                    "spec.targetCluster", target, "overrideRules and targetCluster can't co-exist"
                )
            )
    legacy = fields.mapping(spec, "overriders")
    if any(legacy.get(key) for key in legacy) and rules_given:
        errors.append(
            fielderrors.invalid("spec.overriders", legacy, "overrideRules and overriders can't co-exist")
        )
    errors += validate_overriders(legacy, "spec.overriders")
    for position, rule in enumerate(fields.objects(spec, "overrideRules")):
        rule_path = f"spec.overrideRules[{position}]"
        rule_target = rule.get("targetCluster")
        if isinstance(rule_target, dict):
            errors += validate_cluster_affinity(rule_target, child(rule_path, "targetCluster"))
        errors += validate_overriders(fields.mapping(rule, "overriders"), child(rule_path, "overriders"))
    return errors


def validate_override_policy_update(new: Object, old: Object) -> list[FieldError]:
    return validate_override_policy(new)


def validate_overriders(overriders: Object, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    operators = list(OverriderOperator)
    for position, plaintext in enumerate(fields.objects(overriders, "plaintext")):
        item_path = index(child(path, "plaintext"), position)
        pointer = fields.text(plaintext, "path")
        errors += _json_pointer(pointer, child(item_path, "path"))
        if not pointer:
            errors.append(fielderrors.required(child(item_path, "path")))
        errors += _operation(plaintext, item_path, operators)
    for position, image in enumerate(fields.objects(overriders, "imageOverrider")):
        item_path = index(child(path, "imageOverrider"), position)
        predicate = image.get("predicate")
        if isinstance(predicate, dict):
            errors += _json_pointer(
                fields.text(predicate, "path"), child(child(item_path, "predicate"), "path")
            )
        errors += _enum(image, "component", item_path, ImageComponent)
        errors += _enum(image, "operator", item_path, operators)
        for key in ("component", "operator"):
            if not fields.text(image, key):
                errors.append(fielderrors.required(child(item_path, key)))
    for kind in ("commandOverrider", "argsOverrider"):
        for position, overrider in enumerate(fields.objects(overriders, kind)):
            item_path = index(child(path, kind), position)
            if not fields.text(overrider, "containerName"):
                errors.append(fielderrors.required(child(item_path, "containerName")))
            errors += _enum(
                overrider, "operator", item_path, (OverriderOperator.ADD, OverriderOperator.REMOVE)
            )
    for kind, check in (("labelsOverrider", validate_labels), ("annotationsOverrider", validate_annotations)):
        for position, overrider in enumerate(fields.objects(overriders, kind)):
            item_path = index(child(path, kind), position)
            errors += _enum(overrider, "operator", item_path, operators)
            errors += check(fields.string_map(overrider, "value"), child(item_path, "value"))
    for position, overrider in enumerate(fields.objects(overriders, "fieldOverrider")):
        item_path = index(child(path, "fieldOverrider"), position)
        errors += _json_pointer(fields.text(overrider, "fieldPath"), child(item_path, "fieldPath"))
        json_ops, yaml_ops = fields.objects(overrider, "json"), fields.objects(overrider, "yaml")
        if json_ops and yaml_ops:
            errors.append(
                fielderrors.invalid(
                    item_path, overrider, "FieldOverrider has both YAML and JSON set. Only one is allowed"
                )
            )
        elif not json_ops and not yaml_ops:
            errors.append(fielderrors.required(item_path, "FieldOverrider must have either YAML or JSON set"))
        for key, operations in (("json", json_ops), ("yaml", yaml_ops)):
            for op_position, operation in enumerate(operations):
                op_path = index(child(item_path, key), op_position)
                errors += _json_pointer(fields.text(operation, "subPath"), child(op_path, "subPath"))
                errors += _operation(operation, op_path, operators)
    return errors


def _operation(operation: Object, path: str, operators: list[OverriderOperator]) -> list[FieldError]:
    """An add/remove/replace operation: add and replace need a value, remove takes none."""
    errors = _enum(operation, "operator", path, operators)
    operator = operation.get("operator")
    has_value = operation.get("value") is not None
    if operator in (OverriderOperator.ADD, OverriderOperator.REPLACE) and not has_value:
        errors.append(
            fielderrors.required(child(path, "value"), "value is required for add or replace operation")
        )
    if operator == OverriderOperator.REMOVE and has_value:
        errors.append(
            fielderrors.invalid(
                child(path, "value"), operation["value"], "value is not allowed for remove operation"
            )
        )
    return errors


# --- bindings and works -------------------------------------------------------------------------------


def validate_resource_binding(binding: Object) -> list[FieldError]:
    spec = fields.mapping(binding, "spec")
    resource = fields.mapping(spec, "resource")
    errors = [
        fielderrors.required(f"spec.resource.{key}")
        for key in ("apiVersion", "kind", "name")
        if not fields.text(resource, key)
    ]
    errors += _not_negative(spec, "replicas", "spec")
    errors += _enum(spec, "conflictResolution", "spec", ConflictResolution)
    seen: set[str] = set()
    for position, target in enumerate(fields.objects(spec, "clusters")):
        target_path = f"spec.clusters[{position}]"
        name = fields.text(target, "name")
        if not name:
            errors.append(fielderrors.required(child(target_path, "name")))
        elif name in seen:
            errors.append(fielderrors.duplicate(child(target_path, "name"), name))
        seen.add(name)
        errors += _not_negative(target, "replicas", target_path)
    for position, task in enumerate(fields.objects(spec, "gracefulEvictionTasks")):
        task_path = f"spec.gracefulEvictionTasks[{position}]"
        for key in ("fromCluster", "reason", "producer"):
            if not fields.text(task, key):
                errors.append(fielderrors.required(child(task_path, key)))
        if task.get("gracePeriodSeconds") is not None and task.get("suppressDeletion") is not None:
            errors.append(
                fielderrors.forbidden(
                    child(task_path, "suppressDeletion"),
                    "gracePeriodSeconds and suppressDeletion are exclusive",
                )
            )
    for position, item in enumerate(fields.objects(fields.mapping(binding, "status"), "aggregatedStatus")):
        errors += _enum(item, "health", f"status.aggregatedStatus[{position}]", ResourceHealth)
    return errors


def validate_resource_binding_update(new: Object, old: Object) -> list[FieldError]:
    return validate_resource_binding(new)


def validate_work(work: Object) -> list[FieldError]:
    """Every manifest names what it is: apiVersion, kind and metadata.name."""
    errors: list[FieldError] = []
    manifests = fields.items(fields.mapping(fields.mapping(work, "spec"), "workload"), "manifests")
    for position, manifest in enumerate(manifests):
        manifest_path = f"spec.workload.manifests[{position}]"
        if not isinstance(manifest, dict):
            errors.append(fielderrors.invalid(manifest_path, manifest, "must be an object"))
            continue
        for key in ("apiVersion", "kind"):
            if not fields.text(manifest, key):
                errors.append(fielderrors.required(child(manifest_path, key)))
        if not fields.text(fields.mapping(manifest, "metadata"), "name"):
            errors.append(fielderrors.required(child(manifest_path, "metadata.name")))
    for position, status in enumerate(fields.objects(fields.mapping(work, "status"), "manifestStatuses")):
        errors += _enum(status, "health", f"status.manifestStatuses[{position}]", ResourceHealth)
    return errors


def validate_work_update(new: Object, old: Object) -> list[FieldError]:
    return validate_work(new)


def _not_negative(obj: Object, key: str, path: str) -> list[FieldError]:
    value = fields.integer(obj, key)
    if value is not None and value < 0:
        return [fielderrors.invalid(child(path, key), value, "must be greater than or equal to 0")]
    return []


# --- clusters -----------------------------------------------------------------------------------------


def validate_cluster(cluster: Object) -> list[FieldError]:
    errors = _cluster_name(fields.text(fields.mapping(cluster, "metadata"), "name"))
    spec = fields.mapping(cluster, "spec")
    sync_mode = spec.get("syncMode")
    modes = sorted(str(mode) for mode in ClusterSyncMode)
    if not sync_mode:
        errors.append(fielderrors.required("spec.syncMode"))
    elif sync_mode not in modes:
        errors.append(fielderrors.not_supported("spec.syncMode", sync_mode, modes))
    endpoint = fields.text(spec, "apiEndpoint")
    if endpoint:
        errors += validate_api_endpoint(endpoint, "spec.apiEndpoint")
    for key in ("secretRef", "impersonatorSecretRef"):
        reference = spec.get(key)
        if isinstance(reference, dict):
            for part in ("namespace", "name"):
                if not fields.text(reference, part):
                    errors.append(fielderrors.required(f"spec.{key}.{part}"))
    proxy = fields.text(spec, "proxyURL")
    if proxy:
        scheme = urlsplit(proxy).scheme if "://" in proxy else ""
        if scheme not in PROXY_SCHEMES:
            errors.append(
                fielderrors.invalid(
                    "spec.proxyURL", proxy, f'unsupported scheme "{scheme}", must be http, https, or socks5'
                )
            )
    errors += validate_taints(fields.objects(spec, "taints"), "spec.taints")
    errors += _resource_models(fields.objects(spec, "resourceModels"), "spec.resourceModels")
    return errors


def validate_cluster_update(new: Object, old: Object) -> list[FieldError]:
    return validate_cluster(new)


def _cluster_name(name: str) -> list[FieldError]:
    if len(name) > CLUSTER_NAME_MAX:
        return [
            fielderrors.invalid("metadata.name", name, f"must be no more than {CLUSTER_NAME_MAX} characters")
        ]
    return [
        fielderrors.invalid("metadata.name", name, problem) for problem in names.dns1123_label_errors(name)
    ]


def validate_api_endpoint(endpoint: str, path: str) -> list[FieldError]:
    """A URL naming a host, without user information, query or fragment."""
    form = "; desired format: hostname, hostname:port, IP or IP:port"
    try:
        url = urlsplit(endpoint)
        host = url.hostname or ""
    except ValueError as error:
        return [fielderrors.invalid(path, endpoint, f"apiEndpoint must be a valid URL: {error}{form}")]
    errors: list[FieldError] = []
    if not url.netloc or not host:
        errors.append(fielderrors.invalid(path, host, "host must be provided" + form))
    if "@" in url.netloc:
        errors.append(
            fielderrors.invalid(
                path, url.netloc.rpartition("@")[0], "user information is not permitted in the URL"
            )
        )
    if url.fragment:
        errors.append(fielderrors.invalid(path, url.fragment, "fragments are not permitted in the URL"))
    if url.query:
        errors.append(fielderrors.invalid(path, url.query, "query parameters are not permitted in the URL"))
    return errors


def _resource_models(models: list[Object], path: str) -> list[FieldError]:
    """Grades distinct, one range per resource in the same order, contiguous from 0 to MaxInt64."""
    for position, model in enumerate(models):
        model_path = index(path, position)
        ranges = fields.objects(model, "ranges")
        previous = models[position - 1] if position else None
        if previous is not None and model.get("grade") == previous.get("grade"):
            return [
                fielderrors.invalid(
                    child(model_path, "grade"),
                    model.get("grade"),
                    "The grade of each models should not be the same",
                )
            ]
        previous_ranges = fields.objects(previous, "ranges") if previous is not None else []
        if previous is not None and len(previous_ranges) != len(ranges):
            return [
                fielderrors.invalid(
                    child(model_path, "ranges"),
                    len(ranges),
                    "The number of resource types should be the same",
                )
            ]
        for range_position, model_range in enumerate(ranges):
            range_path = index(child(model_path, "ranges"), range_position)
            name = fields.text(model_range, "name")
            if name not in RESOURCE_MODEL_NAMES:
                return [fielderrors.not_supported(child(range_path, "name"), name, RESOURCE_MODEL_NAMES)]
            low, high = _quantity(model_range.get("min")), _quantity(model_range.get("max"))
            if low is None or high is None:
                continue  # the schema's pattern reported it
            problem = ""
            if high <= low:
                problem = "The max value of each resource must be greater than the min value"
            elif previous is None and low != 0:
                problem = "The min value of each resource in the first model should be 0"
            elif previous is not None and fields.text(previous_ranges[range_position], "name") != name:
                problem = "The resource types of each models should be the same"
            elif previous is not None and _quantity(previous_ranges[range_position].get("max")) != low:
                problem = "Model intervals for resources must be contiguous and non-overlapping"
            elif position == len(models) - 1 and high != MAX_INT64:
                problem = "The max value of each resource in the last model should be MaxInt64"
            if problem:
                return [fielderrors.invalid(range_path, model_range, problem)]
    return []


def _quantity(value: Any) -> Fraction | None:
    try:
        return parse_quantity(value).amount
    except QuantityError:
        return None
