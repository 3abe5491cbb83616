"""Validation of `metadata` and of the small rules every kind reuses, worded as kube-apiserver words them.

Every built-in kind runs the same object-metadata checks before its own (apimachinery's
`ValidateObjectMeta` plus core's finalizer rule): a name (or generateName) in the syntax the kind
requires, a namespace exactly when the kind is namespaced, label keys and values, annotation keys
and their total size, owner references and finalizers. On update, identity fields may not change.

Name syntax differs per kind, so callers pass a `NameRule`: a function from `(name, is_prefix)` to
the problems with it, `is_prefix` being true for `generateName`, whose trailing dash is allowed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.equality import semantic_equal

NameRule = Callable[[str, bool], list[str]]

FIELD_IMMUTABLE = "field is immutable"
NONNEGATIVE = "must be greater than or equal to 0"
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
STANDARD_FINALIZERS = frozenset({"kubernetes", "orphan", "foregroundDeletion"})
_BANNED_OWNERS = {("", "v1", "Event"), ("events.k8s.io", "v1", "Event")}


def _masked(name: str, prefix: bool) -> str:
    """A generateName prefix may end in a dash; mask it as kube's `maskTrailingDash` does."""
    if prefix and len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def dns_subdomain_name(name: str, prefix: bool) -> list[str]:
    return names.dns1123_subdomain_errors(_masked(name, prefix))


def dns_label_name(name: str, prefix: bool) -> list[str]:
    return names.dns1123_label_errors(_masked(name, prefix))


def dns1035_name(name: str, prefix: bool) -> list[str]:
    return names.dns1035_label_errors(_masked(name, prefix))


def path_segment_name(name: str, prefix: bool) -> list[str]:
    if prefix:
        return [f"may not contain '{bad}'" for bad in ("/", "%") if bad in name]
    return names.path_segment_name_errors(name)


def validate_object_meta(
    obj: Mapping[str, Any],
    *,
    namespaced: bool,
    name_rule: NameRule = dns_subdomain_name,
    kube_finalizers: bool = True,
) -> list[FieldError]:
    """kube's `ValidateObjectMeta` for the `metadata` of `obj`.

    `kube_finalizers` adds core's rule that unqualified finalizer names must be standard ones; the
    API groups served by extension API servers (CRDs) do not apply it.
    """
    path = "metadata"
    meta = fields.mapping(obj, "metadata")
    errors: list[FieldError] = []
    generate_name = fields.text(meta, "generateName")
    if generate_name:
        errors.extend(
            fielderrors.invalid(fielderrors.child(path, "generateName"), generate_name, message)
            for message in name_rule(generate_name, True)
        )
    name = fields.text(meta, "name")
    name_path = fielderrors.child(path, "name")
    if not name:
        errors.append(fielderrors.required(name_path, "name or generateName is required"))
    else:
        errors.extend(fielderrors.invalid(name_path, name, message) for message in name_rule(name, False))
    namespace = fields.text(meta, "namespace")
    namespace_path = fielderrors.child(path, "namespace")
    if namespaced:
        if not namespace:
            errors.append(fielderrors.required(namespace_path))
        else:
            errors.extend(
                fielderrors.invalid(namespace_path, namespace, message)
                for message in names.dns1123_label_errors(namespace)
            )
    elif namespace:
        errors.append(fielderrors.forbidden(namespace_path, "not allowed on this type"))
    generation = fields.integer(meta, "generation")
    if generation is not None:
        errors.extend(nonnegative(generation, fielderrors.child(path, "generation")))
    errors.extend(validate_labels(fields.string_map(meta, "labels"), fielderrors.child(path, "labels")))
    errors.extend(
        validate_annotations(fields.string_map(meta, "annotations"), fielderrors.child(path, "annotations"))
    )
    errors.extend(
        validate_owner_references(
            fields.objects(meta, "ownerReferences"), fielderrors.child(path, "ownerReferences")
        )
    )
    finalizers = [entry for entry in fields.items(meta, "finalizers") if isinstance(entry, str)]
    errors.extend(validate_finalizers(finalizers, fielderrors.child(path, "finalizers"), kube_finalizers))
    return errors


def validate_object_meta_update(
    new: Mapping[str, Any], old: Mapping[str, Any], path: str = "metadata"
) -> list[FieldError]:
    """kube's `ValidateObjectMetaUpdate`: identity fields are immutable, the rest is re-validated.

    `uid`, `creationTimestamp` and `deletionTimestamp` are compared only when the update carries
    them: kube's registry copies them from the stored object before validating (`BeforeUpdate`).
    """
    new_meta = fields.mapping(new, "metadata")
    old_meta = fields.mapping(old, "metadata")
    errors: list[FieldError] = []
    if old_meta.get("deletionTimestamp"):
        errors.extend(
            no_new_finalizers(
                fields.items(new_meta, "finalizers"),
                fields.items(old_meta, "finalizers"),
                fielderrors.child(path, "finalizers"),
            )
        )
    for name in ("name", "namespace"):
        errors.extend(
            immutable(fields.text(new_meta, name), fields.text(old_meta, name), fielderrors.child(path, name))
        )
    for name in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"):
        if new_meta.get(name) not in (None, ""):
            errors.extend(immutable(new_meta.get(name), old_meta.get(name), fielderrors.child(path, name)))
    errors.extend(validate_labels(fields.string_map(new_meta, "labels"), fielderrors.child(path, "labels")))
    errors.extend(
        validate_annotations(
            fields.string_map(new_meta, "annotations"), fielderrors.child(path, "annotations")
        )
    )
    errors.extend(
        validate_owner_references(
            fields.objects(new_meta, "ownerReferences"), fielderrors.child(path, "ownerReferences")
        )
    )
    return errors


def no_new_finalizers(new: list[Any], old: list[Any], path: str) -> list[FieldError]:
    added = sorted({str(finalizer) for finalizer in new} - {str(finalizer) for finalizer in old})
    if not added:
        return []
    listed = ", ".join(f'"{finalizer}"' for finalizer in added)
    detail = (
        "no new finalizers can be added if the object is being deleted, "
        f"found new finalizers []string{{{listed}}}"
    )
    return [fielderrors.forbidden(path, detail)]


def validate_labels(labels: Mapping[str, str], path: str) -> list[FieldError]:
    """Label keys are qualified names and values label values; kube reports both at `path`."""
    if all(_valid_label(key, value) for key, value in labels.items()):
        return []
    errors: list[FieldError] = []
    for key in sorted(labels):
        errors.extend(qualified_name(key, path))
        errors.extend(
            fielderrors.invalid(path, labels[key], message)
            for message in names.label_value_errors(labels[key])
        )
    return errors


# Every write validates its object's labels and annotation keys again, mostly the same few strings:
# whether one is valid is remembered (the messages of an invalid one are worked out when needed).
@functools.lru_cache(maxsize=8192)
def _valid_label(key: str, value: str) -> bool:
    return not names.qualified_name_errors(key) and not names.label_value_errors(value)


@functools.lru_cache(maxsize=8192)
def _valid_annotation_key(key: str) -> bool:
    return not names.qualified_name_errors(key.lower())


def qualified_name(value: str, path: str) -> list[FieldError]:
    return [fielderrors.invalid(path, value, message) for message in names.qualified_name_errors(value)]


def validate_annotations(annotations: Mapping[str, str], path: str) -> list[FieldError]:
    """Annotation keys are qualified names (case-insensitively); all of them weigh at most 256 KiB."""
    errors: list[FieldError] = []
    for key in sorted(annotations):
        if _valid_annotation_key(key):
            continue
        errors.extend(
            fielderrors.invalid(path, key, message) for message in names.qualified_name_errors(key.lower())
        )
    size = sum(len(key.encode()) + len(value.encode()) for key, value in annotations.items())
    if size > TOTAL_ANNOTATION_SIZE_LIMIT:
        errors.append(fielderrors.too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return errors


def validate_owner_references(references: list[dict[str, Any]], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    first_controller = ""
    for reference in references:
        api_version = fields.text(reference, "apiVersion")
        kind = fields.text(reference, "kind")
        group, _, version = api_version.rpartition("/")
        if not version:
            errors.append(
                fielderrors.invalid(
                    fielderrors.child(path, "apiVersion"), api_version, "version must not be empty"
                )
            )
        if not kind:
            errors.append(
                fielderrors.invalid(fielderrors.child(path, "kind"), kind, "kind must not be empty")
            )
        for name, label in (("name", "name"), ("uid", "uid")):
            if not fields.text(reference, name):
                errors.append(
                    fielderrors.invalid(
                        fielderrors.child(path, name),
                        fields.text(reference, name),
                        f"{label} must not be empty",
                    )
                )
        if (group, version, kind) in _BANNED_OWNERS:
            gvk = f"{api_version}, Kind={kind}"
            errors.append(fielderrors.invalid(path, reference, f"{gvk} is disallowed from being an owner"))
        if reference.get("controller") is True:
            current = f"{kind}/{fields.text(reference, 'name')}"
            if first_controller:
                errors.append(
                    fielderrors.invalid(
                        path,
                        references,
                        'Only one reference can have Controller set to true. Found "true" in references '
                        f"for {first_controller} and {current}",
                    )
                )
            else:
                first_controller = current
    return errors


def validate_finalizers(finalizers: list[str], path: str, kube_finalizers: bool = True) -> list[FieldError]:
    errors: list[FieldError] = []
    for finalizer in finalizers:
        errors.extend(qualified_name(finalizer, path))
    if "orphan" in finalizers and "foregroundDeletion" in finalizers:
        errors.append(
            fielderrors.invalid(
                path, finalizers, "finalizer orphan and foregroundDeletion cannot be both set"
            )
        )
    if kube_finalizers:
        for position, finalizer in enumerate(finalizers):
            if "/" not in finalizer and finalizer not in STANDARD_FINALIZERS:
                errors.append(
                    fielderrors.invalid(
                        fielderrors.index(path, position),
                        finalizer,
                        "name is neither a standard finalizer name nor is it fully qualified",
                    )
                )
    return errors


def immutable(new: Any, old: Any, path: str) -> list[FieldError]:
    """kube's `ValidateImmutableField` (semantic equality: absent and empty are the same)."""
    return [] if semantic_equal(new, old) else [fielderrors.invalid(path, new, FIELD_IMMUTABLE)]


def nonnegative(value: int, path: str) -> list[FieldError]:
    """kube's `ValidateNonnegativeField`."""
    return [fielderrors.invalid(path, value, NONNEGATIVE)] if value < 0 else []
