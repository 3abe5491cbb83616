"""What `flotilla promote` writes on the hub for an object that already runs in a member.

Promotion turns the member's live object into a resource template: a copy without what the
member's API server and controllers wrote (`status`, `uid`, `resourceVersion`, `managedFields`,
`ownerReferences`, `finalizers`, timestamps, kubectl's last-applied annotation, and per kind what
a cluster fills in itself — a Service's cluster IP, a Job's generated selector; the binding
controller's own `strip_server_fields` is the one rule for this), and without the labels and
annotations Karmada puts on member objects it manages (an object promoted again after an unjoin
must not carry a stale Work's name). The template is annotated
`work.karmada.io/conflict-resolution: overwrite`, as karmadactl does, so the member object is taken
over in place — same UID, no restart — and from then on carries `karmada.io/managed: "true"`.

With `--dependencies`, the ConfigMaps, Secrets, ServiceAccounts and PersistentVolumeClaims the
workload references (the interpreter's `get_dependencies`) are promoted the same way, and the
policy gets `propagateDeps: true` so they follow the workload to its cluster.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.scheme import GroupVersionKind
from flotilla.controllers.binding.render import strip_server_fields
from flotilla.interpreter import get_dependencies

KARMADA_MEMBER_LABELS = (
    constants.MANAGED_BY_KARMADA_LABEL,
    constants.RESOURCE_BINDING_PERMANENT_ID_LABEL,
    constants.CLUSTER_RESOURCE_BINDING_PERMANENT_ID_LABEL,
    constants.WORK_PERMANENT_ID_LABEL,
)
"""Labels Karmada's binding controller puts on the objects it delivers to members."""

KARMADA_MEMBER_ANNOTATIONS = (
    constants.RESOURCE_BINDING_NAME_ANNOTATION,
    constants.RESOURCE_BINDING_NAMESPACE_ANNOTATION,
    constants.CLUSTER_RESOURCE_BINDING_NAME_ANNOTATION,
    constants.WORK_NAME_ANNOTATION,
    constants.WORK_NAMESPACE_ANNOTATION,
    constants.RESOURCE_TEMPLATE_UID_ANNOTATION,
    constants.RESOURCE_TEMPLATE_GENERATION_ANNOTATION,
    constants.MANAGED_LABELS_ANNOTATION,
    constants.MANAGED_ANNOTATIONS_ANNOTATION,
    constants.APPLIED_OVERRIDES_ANNOTATION,
    constants.APPLIED_CLUSTER_OVERRIDES_ANNOTATION,
)
"""Annotations Karmada's binding controller puts on the objects it delivers to members."""


@dataclass(frozen=True, slots=True)
class ObjectReference:
    """A dependency of a promoted workload: which object, in which namespace."""

    gvk: GroupVersionKind
    namespace: str
    name: str


def promoted_template(member_object: Mapping[str, Any]) -> dict[str, Any]:
    """The hub template for `member_object`: server fields and Karmada's marks gone, overwrite set."""
    template = copy.deepcopy(dict(member_object))
    strip_server_fields(template)
    metadata = template.setdefault("metadata", {})
    labels = metadata.get("labels")
    if isinstance(labels, dict):
        for key in KARMADA_MEMBER_LABELS:
            labels.pop(key, None)
        if not labels:
            metadata.pop("labels")
    annotations = metadata.get("annotations")
    if not isinstance(annotations, dict):
        annotations = metadata["annotations"] = {}
    for key in KARMADA_MEMBER_ANNOTATIONS:
        annotations.pop(key, None)
    annotations.setdefault(constants.CONFLICT_RESOLUTION_ANNOTATION, constants.CONFLICT_RESOLUTION_OVERWRITE)
    return template


def dependency_references(member_object: Mapping[str, Any]) -> list[ObjectReference]:
    """The named objects `member_object` needs beside it (selector-based references are left out)."""
    references = []
    for dependency in get_dependencies(member_object):
        name = dependency.get("name")
        if not name:
            continue
        references.append(
            ObjectReference(
                GroupVersionKind.of(dependency),
                str(dependency.get("namespace") or ""),
                str(name),
            )
        )
    return references
