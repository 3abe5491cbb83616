"""Validation of taints and tolerations: a pod's tolerations, a Node's taints, and Karmada's alike.

kube's rules and wording (`ValidateTolerations`, `validateNodeTaints`): keys are qualified names
and values label values; a toleration without a key must use `Exists`, only `NoExecute` takes
`tolerationSeconds`, `Exists` takes no value; a taint has a known effect and is unique by key and
effect. Karmada reuses both for a policy's cluster tolerations and a Cluster's taints
(`karmada/placement`, `karmada/clusters`).
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import ErrorType, FieldError
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.metadata import qualified_name

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
TOLERATION_OPERATORS = ("Equal", "Exists")


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
