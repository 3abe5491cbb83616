"""Rules for a ResourceInterpreterWebhookConfiguration, as Karmada's webhook checks it.

Each webhook needs a fully qualified domain name as its `name` (at least two dot-separated
segments), unique within the configuration; each rule at least one operation from Karmada's list
(`*` alone), and at least one API group, version and kind (`*` alone; no empty version or kind); a
timeout of 1 to 30 seconds; exactly one of `clientConfig.url` (https, a host, no user information,
query or fragment — kube's own check, shared with admission webhooks) and `clientConfig.service`;
and `interpreterContextVersions` naming `v1alpha1`, without duplicates.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.admissionregistration import (
    validate_client_config,
    validate_review_versions,
)
from flotilla.apiserver.registry.validation.karmada.fieldchecks import Object
from flotilla.interpreter.lua import Operation

WILDCARD = "*"
OPERATIONS = sorted({WILDCARD, *(str(operation) for operation in Operation)})
"""Karmada's supported operations (sorted, as its error lists them)."""
CONTEXT_VERSIONS = ("v1alpha1",)


def validate_resource_interpreter_webhook_configuration(configuration: Object) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for position, hook in enumerate(fields.items(configuration, "webhooks")):
        path = fielderrors.index("webhooks", position)
        if not isinstance(hook, dict):
            errors.append(fielderrors.invalid(path, hook, "must be an object"))
            continue
        errors.extend(_webhook(hook, path))
        name = fields.text(hook, "name")
        if name in seen:
            errors.append(fielderrors.duplicate(fielderrors.child(path, "name"), name))
        seen.add(name)
    return errors


def validate_resource_interpreter_webhook_configuration_update(new: Object, old: Object) -> list[FieldError]:
    """Every field may change; the new object is checked as a new one."""
    return validate_resource_interpreter_webhook_configuration(new)


def _webhook(hook: dict[str, Any], path: str) -> list[FieldError]:
    errors = _domain_name(fields.text(hook, "name"), fielderrors.child(path, "name"))
    for position, rule in enumerate(fields.items(hook, "rules")):
        rule_path = fielderrors.index(fielderrors.child(path, "rules"), position)
        if isinstance(rule, dict):
            errors.extend(_rule(rule, rule_path))
        else:
            errors.append(fielderrors.invalid(rule_path, rule, "must be an object"))
    timeout = fields.integer(hook, "timeoutSeconds")
    if timeout is not None and not 1 <= timeout <= 30:
        errors.append(
            fielderrors.invalid(
                fielderrors.child(path, "timeoutSeconds"),
                timeout,
                "the timeout value must be between 1 and 30 seconds",
            )
        )
    errors.extend(
        validate_client_config(fields.mapping(hook, "clientConfig"), fielderrors.child(path, "clientConfig"))
    )
    errors.extend(_context_versions(hook.get("interpreterContextVersions"), path))
    return errors


def _domain_name(name: str, path: str) -> list[FieldError]:
    """apimachinery's `IsFullyQualifiedDomainName`."""
    if not name:
        return [fielderrors.required(path)]
    problems = names.dns1123_subdomain_errors(name.removesuffix("."))
    if problems:
        return [fielderrors.invalid(path, name, ",".join(problems))]
    if len(name.removesuffix(".").split(".")) < 2:
        return [
            fielderrors.invalid(path, name, "should be a domain with at least two segments separated by dots")
        ]
    return []


def _strings(rule: dict[str, Any], name: str) -> list[str]:
    return [str(item) for item in fields.items(rule, name)]


def _rule(rule: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    operations = _strings(rule, "operations")
    operations_path = fielderrors.child(path, "operations")
    if not operations:
        errors.append(fielderrors.required(operations_path))
    if len(operations) > 1 and WILDCARD in operations:
        errors.append(
            fielderrors.invalid(
                operations_path, operations, "if '*' is present, must not specify other operations"
            )
        )
    errors.extend(
        fielderrors.not_supported(fielderrors.index(operations_path, position), operation, OPERATIONS)
        for position, operation in enumerate(operations)
        if operation not in OPERATIONS
    )
    for field, what, no_empty in (
        ("apiGroups", "API groups", False),
        ("apiVersions", "API versions", True),
        ("kinds", "kinds", True),
    ):
        values = _strings(rule, field)
        field_path = fielderrors.child(path, field)
        if not values:
            errors.append(fielderrors.required(field_path))
        if len(values) > 1 and WILDCARD in values:
            errors.append(
                fielderrors.invalid(field_path, values, f"if '*' is present, must not specify other {what}")
            )
        if no_empty:
            errors.extend(
                fielderrors.required(fielderrors.index(field_path, position))
                for position, value in enumerate(values)
                if not value
            )
    return errors


def _context_versions(versions: Any, path: str) -> list[FieldError]:
    listed = [str(version) for version in versions] if isinstance(versions, list) else []
    versions_path = fielderrors.child(path, "interpreterContextVersions")
    return validate_review_versions(listed, versions_path, require_known=True, known=CONTEXT_VERSIONS)
