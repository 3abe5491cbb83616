"""Validation of namespace resource policy: LimitRanges and ResourceQuotas.

A LimitRange bounds what one pod, container or claim may request (`min ≤ defaultRequest ≤ default ≤
max`, ratios at least 1); a ResourceQuota caps the namespace's totals of standard or fully
qualified resources, optionally only for pods in certain scopes.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError
from flotilla.api.quantities import Quantity, parse_quantity
from flotilla.apiserver.registry.validation import fields, metadata, resources

LIMIT_TYPES = ("Container", "PersistentVolumeClaim", "Pod")
QUOTA_SCOPES = (
    "BestEffort",
    "CrossNamespacePodAffinity",
    "NotBestEffort",
    "NotTerminating",
    "PriorityClass",
    "Terminating",
)
SCOPE_OPERATORS = ("DoesNotExist", "Exists", "In", "NotIn")
_ONE = parse_quantity("1")


def _limit_type(value: str, path: str) -> list[FieldError]:
    errors = [fielderrors.invalid(path, value, message) for message in names.qualified_name_errors(value)]
    if not errors and "/" not in value and value not in LIMIT_TYPES:
        errors.append(fielderrors.invalid(path, value, "must be a standard limit type or fully qualified"))
    return errors


def _limit_section(
    limit: dict[str, Any], section: str, path: str, kind: str, errors: list[FieldError]
) -> dict[str, Quantity]:
    quantities: dict[str, Quantity] = {}
    for name, value in sorted(fields.mapping(limit, section).items()):
        entry_path = fielderrors.key(fielderrors.child(path, section), name)
        if kind == "Container":
            errors.extend(resources.container_resource_name(name, entry_path))
        else:
            errors.extend(resources.resource_name(name, entry_path))
        quantity = resources.parsed(value, entry_path, errors)
        if quantity is not None:
            quantities[name] = quantity
    return quantities


def validate_limit_range(limit_range: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(limit_range, namespaced=True)
    seen_types: set[str] = set()
    for position, limit in enumerate(fields.objects(fields.mapping(limit_range, "spec"), "limits")):
        path = fielderrors.index("spec.limits", position)
        kind = fields.text(limit, "type")
        errors.extend(_limit_type(kind, fielderrors.child(path, "type")))
        if kind in seen_types:
            errors.append(fielderrors.duplicate(fielderrors.child(path, "type"), kind))
        seen_types.add(kind)
        maximum = _limit_section(limit, "max", path, kind, errors)
        minimum = _limit_section(limit, "min", path, kind, errors)
        defaults: dict[str, Quantity] = {}
        default_requests: dict[str, Quantity] = {}
        if kind == "Pod":
            for section in ("default", "defaultRequest"):
                if fields.mapping(limit, section):
                    errors.append(
                        fielderrors.forbidden(
                            fielderrors.child(path, section), "may not be specified when `type` is 'Pod'"
                        )
                    )
        else:
            defaults = _limit_section(limit, "default", path, kind, errors)
            default_requests = _limit_section(limit, "defaultRequest", path, kind, errors)
        if kind == "PersistentVolumeClaim" and "storage" not in minimum and "storage" not in maximum:
            errors.append(
                fielderrors.required(
                    fielderrors.child(path, "limits"),
                    "either minimum or maximum storage value is required, but neither was provided",
                )
            )
        ratios = _limit_section(limit, "maxLimitRequestRatio", path, kind, errors)
        for name in sorted(set(maximum) | set(minimum) | set(defaults) | set(default_requests) | set(ratios)):
            errors.extend(
                _limit_consistency(
                    name,
                    path,
                    minimum=minimum.get(name),
                    maximum=maximum.get(name),
                    default=defaults.get(name),
                    default_request=default_requests.get(name),
                    ratio=ratios.get(name),
                )
            )
    return errors


def _limit_consistency(
    name: str,
    path: str,
    *,
    minimum: Quantity | None,
    maximum: Quantity | None,
    default: Quantity | None,
    default_request: Quantity | None,
    ratio: Quantity | None,
) -> list[FieldError]:
    errors: list[FieldError] = []

    def at(section: str) -> str:
        return fielderrors.key(fielderrors.child(path, section), name)

    if minimum is not None and maximum is not None and minimum > maximum:
        errors.append(
            fielderrors.invalid(
                at("min"), str(minimum), f"min value {minimum} is greater than max value {maximum}"
            )
        )
    if default_request is not None and minimum is not None and minimum > default_request:
        errors.append(
            fielderrors.invalid(
                at("defaultRequest"),
                str(default_request),
                f"min value {minimum} is greater than default request value {default_request}",
            )
        )
    if default_request is not None and maximum is not None and default_request > maximum:
        errors.append(
            fielderrors.invalid(
                at("defaultRequest"),
                str(default_request),
                f"default request value {default_request} is greater than max value {maximum}",
            )
        )
    if default_request is not None and default is not None and default_request > default:
        errors.append(
            fielderrors.invalid(
                at("defaultRequest"),
                str(default_request),
                f"default request value {default_request} is greater than default limit value {default}",
            )
        )
    if default is not None and minimum is not None and minimum > default:
        errors.append(
            fielderrors.invalid(
                at("default"), str(minimum), f"min value {minimum} is greater than default value {default}"
            )
        )
    if default is not None and maximum is not None and default > maximum:
        errors.append(
            fielderrors.invalid(
                at("default"), str(maximum), f"default value {default} is greater than max value {maximum}"
            )
        )
    if ratio is not None and ratio < _ONE:
        errors.append(
            fielderrors.invalid(at("maxLimitRequestRatio"), str(ratio), f"ratio {ratio} is less than 1")
        )
    if ratio is not None and minimum is not None and maximum is not None and minimum.amount > 0:
        limit = maximum.amount / minimum.amount
        if ratio.amount > limit:
            errors.append(
                fielderrors.invalid(
                    at("maxLimitRequestRatio"),
                    str(ratio),
                    f"ratio {ratio} is greater than max/min = {float(limit):f}",
                )
            )
    if (
        not resources.overcommit_allowed(name)
        and default is not None
        and default_request is not None
        and default != default_request
    ):
        errors.append(
            fielderrors.invalid(
                at("defaultRequest"),
                str(default_request),
                f"default value {default} must equal to defaultRequest value {default_request} in {name}",
            )
        )
    return errors


def validate_limit_range_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_limit_range(new))
    return errors


def _quota_resource_name(name: str, path: str) -> list[FieldError]:
    errors = resources.resource_name(name, path)
    if not errors and "/" not in name and not resources.is_standard(name):
        errors.append(fielderrors.invalid(path, name, "must be a standard resource for quota"))
    return errors


def validate_resource_quota(quota: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(quota, namespaced=True)
    spec = fields.mapping(quota, "spec")
    for name, value in sorted(fields.mapping(spec, "hard").items()):
        path = fielderrors.key("spec.hard", name)
        errors.extend(_quota_resource_name(name, path))
        quantity = resources.parsed(value, path, errors)
        if quantity is not None:
            errors.extend(resources.quantity_value(name, quantity, path))
    for position, scope in enumerate(fields.items(spec, "scopes")):
        if scope not in QUOTA_SCOPES:
            errors.append(
                fielderrors.not_supported(fielderrors.index("spec.scopes", position), scope, QUOTA_SCOPES)
            )
    expressions = fields.objects(fields.mapping(spec, "scopeSelector"), "matchExpressions")
    for position, expression in enumerate(expressions):
        path = fielderrors.index("spec.scopeSelector.matchExpressions", position)
        scope = fields.text(expression, "scopeName")
        if scope not in QUOTA_SCOPES:
            errors.append(
                fielderrors.not_supported(fielderrors.child(path, "scopeName"), scope, QUOTA_SCOPES)
            )
        operator = fields.text(expression, "operator")
        if operator not in SCOPE_OPERATORS:
            errors.append(
                fielderrors.not_supported(fielderrors.child(path, "operator"), operator, SCOPE_OPERATORS)
            )
    return errors


def validate_resource_quota_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_resource_quota(new))
    return errors
