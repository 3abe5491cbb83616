"""Validation of rbac.authorization.k8s.io/v1: Roles, ClusterRoles and their bindings.

RBAC names only have to be usable as one URL path segment (`system:controller:foo` is fine). Rules
need verbs and either resources with API groups or, in cluster roles only, non-resource URLs. A
binding's `roleRef` must point at a Role or ClusterRole of this API group and can never change;
subjects are users, groups or service accounts.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.api.selectors import SelectorError, label_selector_from_object, validate_label_selector
from flotilla.apiserver.registry.validation import fields, metadata

GROUP = "rbac.authorization.k8s.io"
SUBJECT_KINDS = ("ServiceAccount", "User", "Group")


def validate_policy_rule(rule: dict[str, Any], *, namespaced: bool, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not fields.items(rule, "verbs"):
        errors.append(
            fielderrors.required(fielderrors.child(path, "verbs"), "verbs must contain at least one value")
        )
    urls = fields.items(rule, "nonResourceURLs")
    if urls:
        urls_path = fielderrors.child(path, "nonResourceURLs")
        if namespaced:
            errors.append(
                fielderrors.invalid(urls_path, urls, "namespaced rules cannot apply to non-resource URLs")
            )
        if (
            fields.items(rule, "apiGroups")
            or fields.items(rule, "resources")
            or fields.items(rule, "resourceNames")
        ):
            errors.append(
                fielderrors.invalid(
                    urls_path, urls, "rules cannot apply to both regular resources and non-resource URLs"
                )
            )
        return errors
    if not fields.items(rule, "apiGroups"):
        errors.append(
            fielderrors.required(
                fielderrors.child(path, "apiGroups"), "resource rules must supply at least one api group"
            )
        )
    if not fields.items(rule, "resources"):
        errors.append(
            fielderrors.required(
                fielderrors.child(path, "resources"), "resource rules must supply at least one resource"
            )
        )
    return errors


def _rules(role: dict[str, Any], *, namespaced: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    for position, rule in enumerate(fields.objects(role, "rules")):
        errors.extend(
            validate_policy_rule(rule, namespaced=namespaced, path=fielderrors.index("rules", position))
        )
    return errors


def validate_role(role: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(role, namespaced=True, name_rule=metadata.path_segment_name)
    errors.extend(_rules(role, namespaced=True))
    return errors


def validate_cluster_role(role: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(role, namespaced=False, name_rule=metadata.path_segment_name)
    errors.extend(_rules(role, namespaced=False))
    if role.get("aggregationRule") is not None:
        selectors_path = "aggregationRule.clusterRoleSelectors"
        selectors = fields.items(fields.mapping(role, "aggregationRule"), "clusterRoleSelectors")
        if not selectors:
            errors.append(
                fielderrors.required(
                    selectors_path, "at least one clusterRoleSelector required if aggregationRule is non-nil"
                )
            )
        for position, selector in enumerate(selectors):
            selector_path = fielderrors.index(selectors_path, position)
            errors.extend(validate_label_selector(selector, selector_path))
            try:
                label_selector_from_object(selector)
            except SelectorError:
                errors.append(fielderrors.invalid(selector_path, selector, "invalid label selector."))
    return errors


def validate_role_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = validate_role(new)
    errors.extend(metadata.validate_object_meta_update(new, old))
    return errors


def validate_cluster_role_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = validate_cluster_role(new)
    errors.extend(metadata.validate_object_meta_update(new, old))
    return errors


def validate_subject(subject: dict[str, Any], *, namespaced: bool, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    name = fields.text(subject, "name")
    kind = fields.text(subject, "kind")
    group = fields.text(subject, "apiGroup")
    if not name:
        errors.append(fielderrors.required(fielderrors.child(path, "name")))
    if kind == "ServiceAccount":
        if name:
            errors.extend(
                fielderrors.invalid(fielderrors.child(path, "name"), name, message)
                for message in metadata.dns_subdomain_name(name, False)
            )
        if group:
            errors.append(fielderrors.not_supported(fielderrors.child(path, "apiGroup"), group, ("",)))
        if not namespaced and not fields.text(subject, "namespace"):
            errors.append(fielderrors.required(fielderrors.child(path, "namespace")))
    elif kind in ("User", "Group"):
        if group != GROUP:
            errors.append(fielderrors.not_supported(fielderrors.child(path, "apiGroup"), group, (GROUP,)))
    else:
        errors.append(fielderrors.not_supported(fielderrors.child(path, "kind"), kind, SUBJECT_KINDS))
    return errors


def _binding(binding: dict[str, Any], *, namespaced: bool) -> list[FieldError]:
    errors = metadata.validate_object_meta(
        binding, namespaced=namespaced, name_rule=metadata.path_segment_name
    )
    role_ref = fields.mapping(binding, "roleRef")
    group = fields.text(role_ref, "apiGroup")
    if group != GROUP:
        errors.append(fielderrors.not_supported("roleRef.apiGroup", group, (GROUP,)))
    kind = fields.text(role_ref, "kind")
    kinds = ("Role", "ClusterRole") if namespaced else ("ClusterRole",)
    if kind not in kinds:
        errors.append(fielderrors.not_supported("roleRef.kind", kind, kinds))
    name = fields.text(role_ref, "name")
    if not name:
        errors.append(fielderrors.required("roleRef.name"))
    else:
        errors.extend(
            fielderrors.invalid("roleRef.name", name, message)
            for message in metadata.path_segment_name(name, False)
        )
    for position, subject in enumerate(fields.objects(binding, "subjects")):
        errors.extend(
            validate_subject(subject, namespaced=namespaced, path=fielderrors.index("subjects", position))
        )
    return errors


def validate_role_binding(binding: dict[str, Any]) -> list[FieldError]:
    return _binding(binding, namespaced=True)


def validate_cluster_role_binding(binding: dict[str, Any]) -> list[FieldError]:
    return _binding(binding, namespaced=False)


def _binding_update(new: dict[str, Any], old: dict[str, Any], *, namespaced: bool) -> list[FieldError]:
    errors = _binding(new, namespaced=namespaced)
    errors.extend(metadata.validate_object_meta_update(new, old))
    new_ref, old_ref = fields.mapping(new, "roleRef"), fields.mapping(old, "roleRef")
    if any(fields.text(new_ref, name) != fields.text(old_ref, name) for name in ("apiGroup", "kind", "name")):
        errors.append(fielderrors.invalid("roleRef", new_ref, "cannot change roleRef"))
    return errors


def validate_role_binding_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    return _binding_update(new, old, namespaced=True)


def validate_cluster_role_binding_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    return _binding_update(new, old, namespaced=False)
