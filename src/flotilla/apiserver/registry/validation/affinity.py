"""Validation of a pod's affinity: node affinity, and pod affinity and anti-affinity.

kube's rules and wording (`validateAffinity`): node selector requirements use an operator with
the values it needs (`In`/`NotIn` some, `Exists`/`DoesNotExist` none, `Gt`/`Lt` exactly one), field
requirements only `metadata.name`; a required node affinity has at least one term; pod affinity
terms have well-formed selectors and a qualified topology key; preferred terms weigh 1 to 100.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.api.selectors import validate_label_selector
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.metadata import qualified_name

NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


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
