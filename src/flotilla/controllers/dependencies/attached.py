"""Attached bindings: what a dependency (ConfigMap, Secret…) of propagated workloads should carry.

A binding with `propagateDeps` is an *independent* binding. Its template's dependencies (the
interpreter's `get_dependencies`) are recorded on it as the annotation
`resourcebinding.karmada.io/dependencies`: a JSON list of `{apiVersion, kind, namespace, name}`
(or `labelSelector` instead of `name`), in Go's compact encoding as Karmada writes it.

Each dependency object then gets an *attached* binding, named as any binding of it would be
(`<name>-<kind>`, so a dependency that a policy also propagates shares that policy's binding):

* `spec.requiredBy[]`: one snapshot `{namespace, name, clusters}` per independent binding that
  needs it, sorted by namespace and name;
* labels `resourcebinding.karmada.io/depended-by-<hash>` = the referrer's permanent id, where the
  hash is Karmada's binding reference key (FNV-1a of `namespace/name`, safe-encoded);
* for a binding that exists only for dependencies (no `spec.placement`): the union of the
  referrers' clusters as `spec.clusters` (names only; nothing is scheduled), a controller
  ownerReference to the dependency, `spec.resource`, and two settings resolved across referrers
  as Karmada does: `conflictResolution` is Overwrite if any referrer overwrites, else Abort;
  `preserveResourcesOnDeletion` is true if any referrer preserves.

A binding that a policy placed keeps its own placement, scheduling and settings; only
`requiredBy` and the labels are added to it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from flotilla.api.karmada import constants, names
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.objects import metadata_of, spec_of
from flotilla.api.selectors import SelectorError, label_selector_from_object

DEPENDED_BY_LABEL_PREFIX = "resourcebinding.karmada.io/depended-by-"
DEPENDENCIES_ANNOTATION = constants.BINDING_DEPENDENCIES_ANNOTATION

Object = Mapping[str, Any]
DependencyReference = Mapping[str, Any]

_REFERENCE_FIELDS = ("apiVersion", "kind", "namespace", "name", "labelSelector")
ATTACHED_SPEC_FIELDS = ("resource", "clusters", "conflictResolution", "preserveResourcesOnDeletion")
"""What the dependencies controller owns in a binding that exists only for dependencies."""


def _string_map(obj: Object, field_name: str) -> Mapping[str, str]:
    value = metadata_of(obj).get(field_name)
    return value if isinstance(value, Mapping) else {}


def binding_reference_key(namespace: str, name: str) -> str:
    """Karmada's `GenerateBindingReferenceKey`: the safe-encoded FNV-1a hash of `namespace/name`."""
    return names.safe_encode(str(names.fnv32a(str(ObjectKey(namespace, name)))))


def depended_by_label(namespace: str, name: str) -> str:
    """The label key that marks a binding as needed by binding `namespace/name`."""
    return DEPENDED_BY_LABEL_PREFIX + binding_reference_key(namespace, name)


# --- the dependencies annotation of independent bindings -----------------------------------------------


def dependencies_annotation(dependencies: Iterable[DependencyReference]) -> str:
    """The annotation value listing `dependencies`, compact JSON with Karmada's field order."""
    ordered = [
        {field: dependency[field] for field in _REFERENCE_FIELDS if dependency.get(field)}
        for dependency in dependencies
    ]
    return json.dumps(ordered, separators=(",", ":"), ensure_ascii=False)


def recorded_dependencies(binding: Object) -> list[dict[str, Any]]:
    """The dependencies recorded on an independent binding (none when the annotation is unreadable)."""
    raw = _string_map(binding, "annotations").get(DEPENDENCIES_ANNOTATION)
    if not raw:
        return []
    try:
        parsed = json.loads(raw)
    except ValueError:
        return []
    return [item for item in parsed if isinstance(item, dict)] if isinstance(parsed, list) else []


def propagates_dependencies(binding: Object) -> bool:
    """A live binding whose policy asked for its dependencies to follow it."""
    return bool(spec_of(binding).get("propagateDeps")) and not metadata_of(binding).get("deletionTimestamp")


def refers_to(dependency: DependencyReference, obj: Object) -> bool:
    """Does the dependency reference name `obj` (by name, or by label selector)?"""
    metadata = metadata_of(obj)
    if (
        dependency.get("apiVersion") != obj.get("apiVersion")
        or dependency.get("kind") != obj.get("kind")
        or (dependency.get("namespace") or "") != (metadata.get("namespace") or "")
    ):
        return False
    if dependency.get("name"):
        return bool(dependency.get("name") == metadata.get("name"))
    if dependency.get("labelSelector") is None:
        return False
    try:
        selector = label_selector_from_object(dependency.get("labelSelector"))
    except SelectorError:
        return False
    labels = metadata.get("labels")
    return selector.matches(labels if isinstance(labels, Mapping) else {})


def referrer_index_values(binding: Object) -> list[tuple[str, ...]]:
    """The index values under which an independent binding is found by the objects it needs.

    A dependency by name files the binding under `(namespace, apiVersion, kind, name)`; one by
    label selector under `(namespace, apiVersion, kind)`, to be matched against each candidate
    (`referrer_lookups`). Only dependencies in the binding's own namespace count, as `requires`
    finds them.
    """
    if not propagates_dependencies(binding):
        return []
    namespace = str(metadata_of(binding).get("namespace") or "")
    values: list[tuple[str, ...]] = []
    for dependency in recorded_dependencies(binding):
        if (dependency.get("namespace") or "") != namespace:
            continue
        kind = (str(dependency.get("apiVersion") or ""), str(dependency.get("kind") or ""))
        if dependency.get("name"):
            values.append((namespace, *kind, str(dependency["name"])))
        elif dependency.get("labelSelector") is not None:
            values.append((namespace, *kind))
    return values


def referrer_lookups(obj: Object) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The index values of `referrer_index_values` that can name `obj`: by name, by selector."""
    metadata = metadata_of(obj)
    kind = (str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""))
    namespace = str(metadata.get("namespace") or "")
    return (namespace, *kind, str(metadata.get("name") or "")), (namespace, *kind)


def requires(binding: Object, obj: Object) -> bool:
    """Is `binding` an independent binding that needs `obj` beside it?"""
    return propagates_dependencies(binding) and any(
        refers_to(dependency, obj) for dependency in recorded_dependencies(binding)
    )


# --- attached bindings ---------------------------------------------------------------------------------


def _snapshot(binding: Object) -> dict[str, Any]:
    metadata = metadata_of(binding)
    clusters = [
        dict(target) for target in spec_of(binding).get("clusters") or () if isinstance(target, Mapping)
    ]
    snapshot: dict[str, Any] = {
        "namespace": metadata.get("namespace") or "",
        "name": metadata.get("name") or "",
    }
    if clusters:
        snapshot["clusters"] = clusters
    return snapshot


def _sorted(referrers: Iterable[Object]) -> list[Object]:
    return sorted(
        referrers,
        key=lambda b: (str(metadata_of(b).get("namespace") or ""), str(metadata_of(b).get("name") or "")),
    )


def required_by(referrers: Iterable[Object]) -> list[dict[str, Any]]:
    """`spec.requiredBy`: a snapshot of each referrer and its clusters."""
    return [_snapshot(binding) for binding in _sorted(referrers)]


def depended_by_labels(referrers: Iterable[Object]) -> dict[str, str]:
    """One `depended-by-<hash>` label per referrer, valued with its permanent id."""
    labels = {}
    for binding in referrers:
        metadata = metadata_of(binding)
        key = depended_by_label(str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))
        labels[key] = str(
            _string_map(binding, "labels").get(constants.RESOURCE_BINDING_PERMANENT_ID_LABEL) or ""
        )
    return labels


def union_of_clusters(referrers: Iterable[Object]) -> list[dict[str, Any]]:
    """Every cluster any referrer is scheduled to, by name, sorted."""
    found = {
        str(target.get("name"))
        for binding in referrers
        for target in spec_of(binding).get("clusters") or ()
        if isinstance(target, Mapping) and target.get("name")
    }
    return [{"name": name} for name in sorted(found)]


def resolved_conflict_resolution(referrers: Sequence[Object]) -> str:
    """Overwrite when any referrer overwrites, else Abort."""
    if any(spec_of(b).get("conflictResolution") == constants.ConflictResolution.OVERWRITE for b in referrers):
        return str(constants.ConflictResolution.OVERWRITE)
    return str(constants.ConflictResolution.ABORT)


def resolved_preserve_resources(referrers: Sequence[Object]) -> bool:
    """True when any referrer keeps member copies on deletion."""
    return any(spec_of(b).get("preserveResourcesOnDeletion") is True for b in referrers)


def is_placed(binding: Object | None) -> bool:
    """A binding a policy placed (it has `spec.placement`), as opposed to one that only follows referrers."""
    return binding is not None and spec_of(binding).get("placement") is not None


def _owner_reference(obj: Object) -> dict[str, Any]:
    metadata = metadata_of(obj)
    return {
        "apiVersion": obj.get("apiVersion"),
        "kind": obj.get("kind"),
        "name": metadata.get("name"),
        "uid": metadata.get("uid"),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def attached_binding(obj: Object, referrers: Sequence[Object], existing: Object | None) -> dict[str, Any]:
    """The binding fields to apply for dependency `obj` needed by `referrers`.

    Against a binding a policy placed (`existing` with a placement), only the labels and
    `requiredBy`; otherwise the whole attached binding.
    """
    metadata = metadata_of(obj)
    namespace = str(metadata.get("namespace") or "")
    binding_metadata: dict[str, Any] = {
        "name": names.binding_name(str(obj.get("kind") or ""), str(metadata.get("name") or "")),
        "namespace": namespace,
    }
    labels = depended_by_labels(referrers)
    if labels:
        binding_metadata["labels"] = labels
    spec: dict[str, Any] = {"requiredBy": required_by(referrers)}
    if not is_placed(existing):
        binding_metadata["ownerReferences"] = [_owner_reference(obj)]
        spec["resource"] = {
            "apiVersion": obj.get("apiVersion"),
            "kind": obj.get("kind"),
            "namespace": namespace,
            "name": metadata.get("name"),
            "uid": metadata.get("uid"),
            "resourceVersion": metadata.get("resourceVersion"),
        }
        spec["clusters"] = union_of_clusters(referrers)
        spec["conflictResolution"] = resolved_conflict_resolution(referrers)
        if resolved_preserve_resources(referrers):
            spec["preserveResourcesOnDeletion"] = True
    return {
        "apiVersion": constants.RESOURCE_BINDING.api_version,
        "kind": constants.RESOURCE_BINDING.kind,
        "metadata": binding_metadata,
        "spec": spec,
    }


def attached_up_to_date(existing: Object, desired: Object) -> bool:
    """Does `existing` already say what `desired` says (and carry no stale depended-by label)?"""
    have_labels = _string_map(existing, "labels")
    want_labels = _string_map(desired, "labels")
    if any(have_labels.get(key) != value for key, value in want_labels.items()):
        return False
    if any(key.startswith(DEPENDED_BY_LABEL_PREFIX) and key not in want_labels for key in have_labels):
        return False
    have_spec, want_spec = spec_of(existing), spec_of(desired)
    fields = ["requiredBy"]
    if "resource" in want_spec:
        if metadata_of(existing).get("ownerReferences") != metadata_of(desired).get("ownerReferences"):
            return False
        fields += ATTACHED_SPEC_FIELDS
    return all(_normal(have_spec.get(field)) == _normal(want_spec.get(field)) for field in fields)


def _normal(value: Any) -> Any:
    """Absent, null and empty lists say the same thing."""
    return None if value in (None, [], False) else value


def needs_attachment_cleanup(existing: Object) -> bool:
    """Does the binding still carry requiredBy entries or depended-by labels?"""
    return bool(spec_of(existing).get("requiredBy")) or any(
        key.startswith(DEPENDED_BY_LABEL_PREFIX) for key in _string_map(existing, "labels")
    )
