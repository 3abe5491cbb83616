"""Validation of the names and versions of apiextensions.k8s.io/v1 CustomResourceDefinitions.

This covers what does not need the schema: the CRD is named `<plural>.<group>`, the group is a DNS
subdomain with a dot, the scope is Cluster or Namespaced, the names are DNS-1035 labels (kinds may be
mixed case), there is at least one version and exactly one storage version, and the conversion
strategy is known. Structural-schema checks belong to the API server's CRD support. Once created, the
group and plural never change; once established, neither do the scope and kind. On every update
`status.storedVersions` must list the storage version and only versions the spec still has: a
version objects may still be stored at cannot leave the CRD until a user removes it from there.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.validation import fields, metadata

SCOPES = ("Cluster", "Namespaced")
CONVERSION_STRATEGIES = ("None", "Webhook")


def _name_rule(crd: dict[str, Any]) -> metadata.NameRule:
    spec = fields.mapping(crd, "spec")
    required = f"{fields.text(fields.mapping(spec, 'names'), 'plural')}.{fields.text(spec, 'group')}"

    def rule(name: str, prefix: bool) -> list[str]:
        problems = metadata.dns_subdomain_name(name, prefix)
        if name != required:
            problems.append('must be spec.names.plural+"."+spec.group')
        return problems

    return rule


def _dns1035(value: str, path: str, *, mixed_case: bool = False) -> list[FieldError]:
    problems = names.dns1035_label_errors(value.lower() if mixed_case else value)
    if not value or not problems:
        return []
    detail = ",".join(problems)
    if mixed_case:
        detail = f"may have mixed case, but should otherwise match: {detail}"
    return [fielderrors.invalid(path, value, detail)]


def _names(crd_names: dict[str, Any], path: str) -> list[FieldError]:
    errors = [
        fielderrors.required(fielderrors.child(path, name))
        for name in ("plural", "singular", "kind", "listKind")
        if not fields.text(crd_names, name)
    ]
    errors.extend(_dns1035(fields.text(crd_names, "plural"), fielderrors.child(path, "plural")))
    errors.extend(_dns1035(fields.text(crd_names, "singular"), fielderrors.child(path, "singular")))
    kind = fields.text(crd_names, "kind")
    list_kind = fields.text(crd_names, "listKind")
    errors.extend(_dns1035(kind, fielderrors.child(path, "kind"), mixed_case=True))
    errors.extend(_dns1035(list_kind, fielderrors.child(path, "listKind"), mixed_case=True))
    for list_name in ("shortNames", "categories"):
        for position, value in enumerate(fields.items(crd_names, list_name)):
            errors.extend(
                _dns1035(str(value), fielderrors.index(fielderrors.child(path, list_name), position))
            )
    if kind and kind == list_kind:
        errors.append(
            fielderrors.invalid(
                fielderrors.child(path, "listKind"), list_kind, "kind and listKind may not be the same"
            )
        )
    return errors


def _spec(spec: dict[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    group = fields.text(spec, "group")
    if not group:
        errors.append(fielderrors.required("spec.group"))
    elif names.dns1123_subdomain_errors(group):
        errors.append(
            fielderrors.invalid("spec.group", group, ",".join(names.dns1123_subdomain_errors(group)))
        )
    elif "." not in group:
        errors.append(fielderrors.invalid("spec.group", group, "should be a domain with at least one dot"))
    scope = fields.text(spec, "scope")
    if not scope:
        errors.append(fielderrors.required("spec.scope"))
    elif scope not in SCOPES:
        errors.append(fielderrors.not_supported("spec.scope", scope, SCOPES))
    versions = fields.objects(spec, "versions")
    if not versions:
        errors.append(fielderrors.required("spec.versions"))
    seen: set[str] = set()
    unique = True
    for position, version in enumerate(versions):
        name = fields.text(version, "name")
        unique = unique and name not in seen
        seen.add(name)
        errors.extend(_dns1035(name, fielderrors.child(fielderrors.index("spec.versions", position), "name")))
        if not name:
            errors.append(
                fielderrors.required(fielderrors.child(fielderrors.index("spec.versions", position), "name"))
            )
    if not unique:
        errors.append(fielderrors.invalid("spec.versions", versions, "must contain unique version names"))
    if sum(1 for version in versions if version.get("storage") is True) != 1:
        errors.append(
            fielderrors.invalid(
                "spec.versions", versions, "must have exactly one version marked as storage version"
            )
        )
    errors.extend(_names(fields.mapping(spec, "names"), "spec.names"))
    conversion = fields.mapping(spec, "conversion")
    strategy = fields.text(conversion, "strategy")
    if spec.get("conversion") is not None:
        if strategy not in CONVERSION_STRATEGIES:
            errors.append(
                fielderrors.not_supported("spec.conversion.strategy", strategy, CONVERSION_STRATEGIES)
            )
        elif strategy == "Webhook" and conversion.get("webhook") is None:
            errors.append(
                fielderrors.required("spec.conversion.webhook", "required when strategy is set to Webhook")
            )
        elif strategy == "None" and conversion.get("webhook") is not None:
            errors.append(
                fielderrors.forbidden(
                    "spec.conversion.webhook", "should not be set when strategy is not set to Webhook"
                )
            )
    return errors


def validate_custom_resource_definition(crd: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(
        crd, namespaced=False, name_rule=_name_rule(crd), kube_finalizers=False
    )
    errors.extend(_spec(fields.mapping(crd, "spec")))
    return errors


def _established(crd: dict[str, Any]) -> bool:
    return any(
        fields.text(condition, "type") == "Established" and fields.text(condition, "status") == "True"
        for condition in fields.objects(fields.mapping(crd, "status"), "conditions")
    )


def validate_custom_resource_definition_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(_spec(fields.mapping(new, "spec")))
    new_spec, old_spec = fields.mapping(new, "spec"), fields.mapping(old, "spec")
    new_names, old_names = fields.mapping(new_spec, "names"), fields.mapping(old_spec, "names")
    if _established(old):
        errors.extend(
            metadata.immutable(fields.text(new_spec, "scope"), fields.text(old_spec, "scope"), "spec.scope")
        )
        errors.extend(
            metadata.immutable(
                fields.text(new_names, "kind"), fields.text(old_names, "kind"), "spec.names.kind"
            )
        )
    errors.extend(
        metadata.immutable(fields.text(new_spec, "group"), fields.text(old_spec, "group"), "spec.group")
    )
    errors.extend(
        metadata.immutable(
            fields.text(new_names, "plural"), fields.text(old_names, "plural"), "spec.names.plural"
        )
    )
    return errors


def stored_versions_errors(crd: dict[str, Any]) -> list[FieldError]:
    """kube's `ValidateCustomResourceDefinitionStoredVersions`: `status.storedVersions` is not empty,
    holds the storage version, and names only versions of `spec.versions`."""
    path = "status.storedVersions"
    listed = fields.items(fields.mapping(crd, "status"), "storedVersions")
    stored = [version if isinstance(version, str) else "" for version in listed]
    if not stored:
        return [fielderrors.invalid(path, [], "must have at least one stored version")]
    found: list[FieldError] = []
    remaining = {version: position for position, version in enumerate(stored)}
    for version in fields.objects(fields.mapping(crd, "spec"), "versions"):
        name = fields.text(version, "name")
        if version.get("storage") and name not in remaining:
            found.append(fielderrors.invalid(path, name, f"must have the storage version {name}"))
        remaining.pop(name, None)
    for leftover, position in sorted(remaining.items(), key=lambda item: item[1]):
        found.append(fielderrors.invalid(f"{path}[{position}]", leftover, "must appear in spec.versions"))
    return found
