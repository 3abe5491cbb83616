"""Karmada's rules for OverridePolicy and ClusterOverridePolicy.

The legacy forms (`targetCluster`, `overriders` inline in the spec) and `overrideRules` are
exclusive; target clusters are cluster affinities (`placement`). Each overrider is checked: paths
are JSON pointers, operators are Karmada's, `add` and `replace` carry a value and `remove` none;
image overriders name a component; command and args overriders a container; label and annotation
overriders carry a value (Karmada's CRD requires it, even to remove) of valid keys and values; a
field overrider uses JSON or YAML operations, not both.
"""

from __future__ import annotations

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError, child, index
from flotilla.api.karmada.constants import ImageComponent, OverriderOperator
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.karmada.fieldchecks import Object, one_of, resource_selectors
from flotilla.apiserver.registry.validation.karmada.placement import validate_cluster_affinity
from flotilla.apiserver.registry.validation.metadata import validate_annotations, validate_labels


def validate_override_policy(policy: Object) -> list[FieldError]:
    spec = fields.mapping(policy, "spec")
    errors = resource_selectors(spec, "spec.resourceSelectors", required=False)
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
        errors += one_of(image, "component", item_path, ImageComponent)
        errors += one_of(image, "operator", item_path, operators)
        for key in ("component", "operator"):
            if not fields.text(image, key):
                errors.append(fielderrors.required(child(item_path, key)))
    for kind in ("commandOverrider", "argsOverrider"):
        for position, overrider in enumerate(fields.objects(overriders, kind)):
            item_path = index(child(path, kind), position)
            if not fields.text(overrider, "containerName"):
                errors.append(fielderrors.required(child(item_path, "containerName")))
            errors += one_of(
                overrider, "operator", item_path, (OverriderOperator.ADD, OverriderOperator.REMOVE)
            )
    for kind, check in (("labelsOverrider", validate_labels), ("annotationsOverrider", validate_annotations)):
        for position, overrider in enumerate(fields.objects(overriders, kind)):
            item_path = index(child(path, kind), position)
            errors += one_of(overrider, "operator", item_path, operators)
            if "value" not in overrider:
                errors.append(fielderrors.required(child(item_path, "value")))
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
    errors = one_of(operation, "operator", path, operators)
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


def _json_pointer(value: str, path: str) -> list[FieldError]:
    if value and not value.startswith("/"):
        return [fielderrors.invalid(path, value, 'JSON pointer must be empty or start with a "/"')]
    return []
