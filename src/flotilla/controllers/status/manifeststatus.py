"""A member object's status as its Work reports it: `Work.status.manifestStatuses[]`.

Each entry names the manifest it belongs to — its position in `spec.workload.manifests` and its
group, version, kind, resource, namespace and name — and carries what the resource interpreter
reflects of the member object's status (`interpreter.reflect_status`: replica counters and
generations for workloads, the load balancer of a Service, the whole status of other kinds) and
its health (`interpreter.interpret_health`). A manifest whose object does not exist in the member
(yet, or any more) has no entry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersion
from flotilla.interpreter.customized import BUILT_IN, ResourceInterpreter

ManifestStatus = dict[str, Any]


def identifier(ordinal: int, manifest: Mapping[str, Any], resource: str) -> dict[str, Any]:
    """Which manifest a status belongs to."""
    group_version = GroupVersion.parse(str(manifest.get("apiVersion") or ""))
    metadata = manifest.get("metadata") or {}
    return {
        "ordinal": ordinal,
        "group": group_version.group,
        "version": group_version.version,
        "kind": str(manifest.get("kind") or ""),
        "resource": resource,
        "namespace": str(metadata.get("namespace") or ""),
        "name": str(metadata.get("name") or ""),
    }


def manifest_status(
    ordinal: int,
    manifest: Mapping[str, Any],
    observed: Mapping[str, Any],
    resource: str,
    interpreter: ResourceInterpreter = BUILT_IN,
) -> ManifestStatus:
    """The status entry of the manifest at `ordinal`, whose member object is `observed`
    (reflected and judged by `interpreter`: a customization's ReflectStatus and InterpretHealth
    before the built-in rules)."""
    entry: ManifestStatus = {"identifier": identifier(ordinal, manifest, resource)}
    reflected = interpreter.reflect_status(observed)
    if reflected is not None:
        entry["status"] = reflected
    entry["health"] = str(interpreter.interpret_health(observed))
    return entry


def delivered_by(observed: Mapping[str, Any], work_namespace: str, work_name: str) -> bool:
    """Whether the member object is the one this Work delivered (not an unmanaged one of the same name)."""
    annotations = (observed.get("metadata") or {}).get("annotations") or {}
    return (
        annotations.get(constants.WORK_NAMESPACE_ANNOTATION) == work_namespace
        and annotations.get(constants.WORK_NAME_ANNOTATION) == work_name
    )


def work_of_member_object(observed: Mapping[str, Any]) -> ObjectKey | None:
    """The key of the Work that delivered a member object, from its annotations."""
    annotations = (observed.get("metadata") or {}).get("annotations") or {}
    namespace = annotations.get(constants.WORK_NAMESPACE_ANNOTATION)
    name = annotations.get(constants.WORK_NAME_ANNOTATION)
    if not namespace or not name:
        return None
    return ObjectKey(str(namespace), str(name))


def statuses_of(work: Mapping[str, Any]) -> list[ManifestStatus]:
    statuses = (work.get("status") or {}).get("manifestStatuses") or []
    return [dict(s) for s in statuses if isinstance(s, Mapping)]


def same_statuses(current: Sequence[Mapping[str, Any]], wanted: Sequence[Mapping[str, Any]]) -> bool:
    return [dict(s) for s in current] == [dict(s) for s in wanted]
