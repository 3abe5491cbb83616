"""Whose member object is it: conflicts on apply, ownership on delete, fields the member keeps.

Karmada never silently takes over an object it did not create: an object already in the member
without the label `karmada.io/managed: "true"` is a conflict, reported on the Work and left alone,
unless the manifest says `work.karmada.io/conflict-resolution: overwrite` (the binding's
`conflictResolution: Overwrite`, or the template's annotation). On deletion only the object the
Work itself delivered is deleted — its annotations name the Work.

Server-side apply keeps fields the member wrote under other field managers (a Service's cluster
IP, a Job's generated selector). `interpreter.retain` covers what apply alone does not: fields the
manifest sets that the member must keep anyway — a Deployment's replicas under the label
`resourcetemplate.karmada.io/retain-replicas`, a ServiceAccount's token secrets, a Pod's node.
A retain step that fails on an odd member object is `RetainFailed`: that manifest is reported as
not applied, never a crash of the reconcile.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.objects import metadata_of
from flotilla.api.scheme import GroupVersion, GroupVersionKind
from flotilla.interpreter import RETAIN_KINDS, group_kind
from flotilla.interpreter import kinds as interpreter_kinds
from flotilla.interpreter.customized import BUILT_IN, ResourceInterpreter
from flotilla.interpreter.lua import Operation

Manifest = Mapping[str, Any]


class RetainFailed(Exception):
    """The member-owned fields of an object could not be retained; the manifest is not applied."""


def _labels(obj: Manifest) -> Mapping[str, Any]:
    labels = metadata_of(obj).get("labels")
    return labels if isinstance(labels, Mapping) else {}


def _annotations(obj: Manifest) -> Mapping[str, Any]:
    annotations = metadata_of(obj).get("annotations")
    return annotations if isinstance(annotations, Mapping) else {}


def manifest_gvk(manifest: Manifest) -> GroupVersionKind:
    group_version = GroupVersion.parse(str(manifest.get("apiVersion") or ""))
    return GroupVersionKind(group_version.group, group_version.version, str(manifest.get("kind") or ""))


def describe(manifest: Manifest) -> str:
    """`Deployment default/nginx`, as messages name a manifest."""
    metadata = metadata_of(manifest)
    namespace = metadata.get("namespace")
    name = metadata.get("name", "")
    return (
        f"{manifest.get('kind', '')} {namespace}/{name}"
        if namespace
        else f"{manifest.get('kind', '')} {name}"
    )


def conflict(observed: Manifest, manifest: Manifest, cluster: str) -> str | None:
    """Why applying `manifest` over the member's `observed` object is refused; None when allowed."""
    if _labels(observed).get(constants.MANAGED_BY_KARMADA_LABEL) == "true":
        return None
    if _annotations(manifest).get(constants.CONFLICT_RESOLUTION_ANNOTATION) == (
        constants.CONFLICT_RESOLUTION_OVERWRITE
    ):
        return None
    return (
        f"{describe(manifest)} already exists in cluster {cluster} and is not managed by Karmada; "
        "set conflictResolution: Overwrite in the PropagationPolicy (or annotate the template with "
        f"{constants.CONFLICT_RESOLUTION_ANNOTATION}: {constants.CONFLICT_RESOLUTION_OVERWRITE}) "
        "to take it over"
    )


def delivered_by(observed: Manifest, work_namespace: str, work_name: str) -> bool:
    """Whether the member object was delivered by this Work (so deleting the Work may delete it)."""
    annotations = _annotations(observed)
    return (
        annotations.get(constants.WORK_NAMESPACE_ANNOTATION) == work_namespace
        and annotations.get(constants.WORK_NAME_ANNOTATION) == work_name
    )


def work_of_member_object(observed: Manifest) -> ObjectKey | None:
    """The key of the Work that delivered a member object, from its annotations."""
    annotations = _annotations(observed)
    namespace = annotations.get(constants.WORK_NAMESPACE_ANNOTATION)
    name = annotations.get(constants.WORK_NAME_ANNOTATION)
    if not namespace or not name:
        return None
    return ObjectKey(str(namespace), str(name))


def needs_observed(manifest: Manifest, interpreter: ResourceInterpreter = BUILT_IN) -> bool:
    """Whether the manifest has member-owned fields to retain, so the member object must be read first
    (always, for a kind with a Retain customization)."""
    kind = group_kind(manifest)
    if interpreter.customizes(manifest, Operation.RETAIN):
        return True
    if kind not in RETAIN_KINDS:
        return False
    if kind == interpreter_kinds.DEPLOYMENT:
        return _labels(manifest).get(constants.RETAIN_REPLICAS_LABEL) == "true"
    return True


def desired_object(
    manifest: Manifest, observed: Manifest | None, interpreter: ResourceInterpreter = BUILT_IN
) -> dict[str, Any]:
    """What to apply: the manifest, with the member-owned fields of `observed` retained (by the
    kind's Retain customization, if it has one, else by the built-in rules)."""
    if observed is None or not needs_observed(manifest, interpreter):
        return dict(manifest)
    try:
        return interpreter.retain(manifest, observed)
    except Exception as exc:
        # The interpreter reads member objects of any shape; whatever it trips over is this
        # manifest's failure, reported on the Work and retried, not the reconcile loop's.
        raise RetainFailed(
            f"{describe(manifest)}: cannot retain the member's fields: {exc or type(exc).__name__}"
        ) from exc
