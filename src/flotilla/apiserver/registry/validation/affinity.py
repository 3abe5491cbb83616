"""Validation of where pods may run: tolerations, node taints, affinity and topology spread.

These are the scheduling-facing fields of a pod spec plus the taints of a Node, checked with kube's
rules and wording (`ValidateTolerations`, `validateNodeTaints`, `validateAffinity`,
`validateTopologySpreadConstraints`).
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import ErrorType, FieldError
from flotilla.api.selectors import validate_label_selector
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.metadata import qualified_name

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
TOLERATION_OPERATORS = ("Equal", "Exists")
NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
UNSATISFIABLE_CONSTRAINT_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")
NODE_INCLUSION_POLICIES = ("Honor", "Ignore")


def _effect(effect: str, path: str, *, allow_empty: bool) -> list[FieldError]:
    if not effect and not allow_empty:
        return [fielderrors.required(path)]
    if effect and effect not in TAINT_EFFECTS:
        return [fielderrors.not_supported(path, effect, TAINT_EFFECTS)]
    return []


def validate_tolerations(tolerations: list[dict[str, Any]], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for position, toleration in enumerate(tolerations):
        toleration_path = fielderrors.index(path, position)
        key = fields.text(toleration, "key")
        operator = fields.text(toleration, "operator")
        effect = fields.text(toleration, "effect")
        value = fields.text(toleration, "value")
        operator_path = fielderrors.child(toleration_path, "operator")
        if key:
            errors.extend(qualified_name(key, fielderrors.child(toleration_path, "key")))
        if not key and operator != "Exists":
            errors.append(
                fielderrors.invalid(
                    operator_path,
                    operator,
                    "operator must be Exists when `key` is empty, which means "
                    '"match all values and all keys"',
                )
            )
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            errors.append(
                fielderrors.invalid(
                    fielderrors.child(toleration_path, "effect"),
                    effect,
                    "effect must be 'NoExecute' when `tolerationSeconds` is set",
                )
            )
        if operator in ("", "Equal"):
            problems = names.label_value_errors(value)
            if problems:
                errors.append(fielderrors.invalid(operator_path, value, ";".join(problems)))
        elif operator == "Exists":
            if value:
                errors.append(
                    fielderrors.invalid(
                        operator_path, toleration, "value must be empty when `operator` is 'Exists'"
                    )
                )
        else:
            errors.append(fielderrors.not_supported(operator_path, operator, TOLERATION_OPERATORS))
        errors.extend(_effect(effect, fielderrors.child(toleration_path, "effect"), allow_empty=True))
    return errors


def validate_taints(taints: list[dict[str, Any]], path: str) -> list[FieldError]:
    """A node's taints: qualified keys, label values, a known effect, unique by key and effect."""
    errors: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for position, taint in enumerate(taints):
        taint_path = fielderrors.index(path, position)
        key = fields.text(taint, "key")
        value = fields.text(taint, "value")
        effect = fields.text(taint, "effect")
        errors.extend(qualified_name(key, fielderrors.child(taint_path, "key")))
        problems = names.label_value_errors(value)
        if problems:
            errors.append(
                fielderrors.invalid(fielderrors.child(taint_path, "value"), value, ";".join(problems))
            )
        errors.extend(_effect(effect, fielderrors.child(taint_path, "effect"), allow_empty=False))
        if (key, effect) in seen:
            errors.append(
                FieldError(
                    ErrorType.DUPLICATE, taint_path, taint, "taints must be unique by key and effect pair"
                )
            )
            continue
        seen.add((key, effect))
    return errors


def _node_selector_requirements(requirements: list[dict[str, Any]], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for position, requirement in enumerate(requirements):
        requirement_path = fielderrors.index(path, position)
        operator = fields.text(requirement, "operator")
        values = fields.items(requirement, "values")
        values_path = fielderrors.child(requirement_path, "values")
        if operator in ("In", "NotIn"):
            if not values:
                errors.append(
                    fielderrors.required(values_path, "must be specified when `operator` is 'In' or 'NotIn'")
                )
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                errors.append(
                    fielderrors.forbidden(
                        values_path, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                    )
                )
        elif operator in ("Gt", "Lt"):
            if len(values) != 1:
                errors.append(
                    fielderrors.required(
                        values_path, "must be specified single value when `operator` is 'Lt' or 'Gt'"
                    )
                )
        else:
            errors.append(
                fielderrors.invalid(
                    fielderrors.child(requirement_path, "operator"), operator, "not a valid selector operator"
                )
            )
        errors.extend(
            qualified_name(fields.text(requirement, "key"), fielderrors.child(requirement_path, "key"))
        )
    return errors


def _node_selector_term(term: dict[str, Any], path: str) -> list[FieldError]:
    errors = _node_selector_requirements(
        fields.objects(term, "matchExpressions"), fielderrors.child(path, "matchExpressions")
    )
    fields_path = fielderrors.child(path, "matchFields")
    for position, requirement in enumerate(fields.objects(term, "matchFields")):
        requirement_path = fielderrors.index(fields_path, position)
        if fields.text(requirement, "key") != "metadata.name":
            errors.append(
                fielderrors.invalid(
                    fielderrors.child(requirement_path, "key"),
                    fields.text(requirement, "key"),
                    "not a valid field selector key",
                )
            )
        operator = fields.text(requirement, "operator")
        if operator not in ("In", "NotIn"):
            errors.append(
                fielderrors.invalid(
                    fielderrors.child(requirement_path, "operator"), operator, "not a valid selector operator"
                )
            )
        elif len(fields.items(requirement, "values")) != 1:
            errors.append(
                fielderrors.required(
                    fielderrors.child(requirement_path, "values"),
                    "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                )
            )
    return errors


def _pod_affinity_terms(terms: list[dict[str, Any]], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for position, term in enumerate(terms):
        term_path = fielderrors.index(path, position)
        if term.get("labelSelector") is not None:
            errors.extend(
                validate_label_selector(term["labelSelector"], fielderrors.child(term_path, "labelSelector"))
            )
        if term.get("namespaceSelector") is not None:
            errors.extend(
                validate_label_selector(
                    term["namespaceSelector"], fielderrors.child(term_path, "namespaceSelector")
                )
            )
        topology_key = fields.text(term, "topologyKey")
        topology_path = fielderrors.child(term_path, "topologyKey")
        if not topology_key:
            errors.append(fielderrors.required(topology_path, "can not be empty"))
        else:
            errors.extend(qualified_name(topology_key, topology_path))
    return errors


def _weighted(terms: list[dict[str, Any]], path: str, term_name: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for position, weighted in enumerate(terms):
        weighted_path = fielderrors.index(path, position)
        weight = fields.integer(weighted, "weight") or 0
        if not 1 <= weight <= 100:
            errors.append(
                fielderrors.invalid(
                    fielderrors.child(weighted_path, "weight"), weight, "must be in the range 1-100"
                )
            )
        term = fields.mapping(weighted, term_name)
        term_path = fielderrors.child(weighted_path, term_name)
        if term_name == "preference":
            errors.extend(_node_selector_term(term, term_path))
        else:
            errors.extend(_pod_affinity_terms([term], term_path))
    return errors


def validate_affinity(affinity: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    node = fields.mapping(affinity, "nodeAffinity")
    node_path = fielderrors.child(path, "nodeAffinity")
    required_name = "requiredDuringSchedulingIgnoredDuringExecution"
    preferred_name = "preferredDuringSchedulingIgnoredDuringExecution"
    if node.get(required_name) is not None:
        required_path = fielderrors.child(node_path, required_name)
        terms = fields.objects(fields.mapping(node, required_name), "nodeSelectorTerms")
        terms_path = fielderrors.child(required_path, "nodeSelectorTerms")
        if not terms:
            errors.append(fielderrors.required(terms_path, "must have at least one node selector term"))
        for position, term in enumerate(terms):
            errors.extend(_node_selector_term(term, fielderrors.index(terms_path, position)))
    errors.extend(
        _weighted(
            fields.objects(node, preferred_name), fielderrors.child(node_path, preferred_name), "preference"
        )
    )
    for kind in ("podAffinity", "podAntiAffinity"):
        settings = fields.mapping(affinity, kind)
        kind_path = fielderrors.child(path, kind)
        errors.extend(
            _pod_affinity_terms(
                fields.objects(settings, required_name), fielderrors.child(kind_path, required_name)
            )
        )
        errors.extend(
            _weighted(
                fields.objects(settings, preferred_name),
                fielderrors.child(kind_path, preferred_name),
                "podAffinityTerm",
            )
        )
    return errors


def validate_topology_spread_constraints(constraints: list[dict[str, Any]], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for position, constraint in enumerate(constraints):
        constraint_path = fielderrors.index(path, position)
        max_skew = fields.integer(constraint, "maxSkew") or 0
        if max_skew <= 0:
            errors.append(
                fielderrors.invalid(
                    fielderrors.child(constraint_path, "maxSkew"), max_skew, "must be greater than zero"
                )
            )
        topology_key = fields.text(constraint, "topologyKey")
        topology_path = fielderrors.child(constraint_path, "topologyKey")
        if not topology_key:
            errors.append(fielderrors.required(topology_path, "can not be empty"))
        else:
            errors.extend(qualified_name(topology_key, topology_path))
        action = fields.text(constraint, "whenUnsatisfiable")
        action_path = fielderrors.child(constraint_path, "whenUnsatisfiable")
        if action not in UNSATISFIABLE_CONSTRAINT_ACTIONS:
            errors.append(fielderrors.not_supported(action_path, action, UNSATISFIABLE_CONSTRAINT_ACTIONS))
        pair = (topology_key, action)
        if pair in seen:
            errors.append(fielderrors.duplicate(constraint_path, f"{{{topology_key}, {action}}}"))
        seen.add(pair)
        min_domains = fields.integer(constraint, "minDomains")
        if min_domains is not None:
            min_domains_path = fielderrors.child(constraint_path, "minDomains")
            if min_domains <= 0:
                errors.append(fielderrors.invalid(min_domains_path, min_domains, "must be greater than 0"))
            elif action != "DoNotSchedule":
                errors.append(
                    fielderrors.invalid(
                        min_domains_path,
                        min_domains,
                        "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
                    )
                )
        for policy_name in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = constraint.get(policy_name)
            if isinstance(policy, str) and policy not in NODE_INCLUSION_POLICIES:
                errors.append(
                    fielderrors.not_supported(
                        fielderrors.child(constraint_path, policy_name), policy, NODE_INCLUSION_POLICIES
                    )
                )
        if constraint.get("labelSelector") is not None:
            errors.extend(
                validate_label_selector(
                    constraint["labelSelector"], fielderrors.child(constraint_path, "labelSelector")
                )
            )
    return errors
