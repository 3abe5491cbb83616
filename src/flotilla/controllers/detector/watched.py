"""Which kinds and objects the detector watches as resource templates, and which changes matter.

Every kind the hub serves can be a template, CRDs included, so the detector reads discovery and
keeps one informer per kind. Like Karmada's detector it takes, per group and kind, the preferred
version of each resource that can be listed, watched and deleted, except:

* the Karmada groups (`*.karmada.io`): policies, bindings, Works and Clusters are the machinery;
* events (core `Event` and `events.k8s.io`) and leases (`coordination.k8s.io`): per-cluster noise.

Objects in reserved namespaces (`karmada-system`, `karmada-cluster`, `karmada-es-*`) and in
`kube-*` namespaces are never templates (Karmada's `--skipped-propagating-namespaces` default),
nor are the Namespace objects of those names. An update matters only when something besides
`status`, `metadata.resourceVersion` and `metadata.managedFields` changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import orjson

from flotilla.api.karmada.names import is_reserved_namespace
from flotilla.api.objects import metadata_of
from flotilla.client.discovery import ResourceInfo, RESTMapper

REQUIRED_VERBS = ("list", "watch", "delete")
SKIPPED_GROUP_SUFFIX = "karmada.io"
SKIPPED_GROUPS = frozenset({"events.k8s.io", "coordination.k8s.io"})
SKIPPED_KINDS = frozenset({("", "Event")})
SKIPPED_NAMESPACE_PREFIX = "kube-"
NAMESPACE_KIND = ("", "Namespace")

_IGNORED_METADATA = ("resourceVersion", "managedFields")


def _skipped_group(group: str) -> bool:
    return (
        group in SKIPPED_GROUPS or group == SKIPPED_GROUP_SUFFIX or group.endswith("." + SKIPPED_GROUP_SUFFIX)
    )


def template_kinds(mapper: RESTMapper) -> list[ResourceInfo]:
    """The resources to watch as templates, one version per group and kind, sorted by group and kind."""
    chosen: dict[tuple[str, str], ResourceInfo] = {}
    for info in mapper.kinds():
        key = (info.group, info.kind)
        if _skipped_group(info.group) or key in SKIPPED_KINDS:
            continue
        if not all(verb in info.verbs for verb in REQUIRED_VERBS):
            continue
        preferred = mapper.preferred_version(info.group, info.kind)
        if preferred is not None and info.version != preferred:
            continue
        chosen.setdefault(key, info)
    return [chosen[key] for key in sorted(chosen)]


def skipped_namespace(namespace: str) -> bool:
    """Namespaces whose objects are never propagated: reserved ones and `kube-*`."""
    return is_reserved_namespace(namespace) or namespace.startswith(SKIPPED_NAMESPACE_PREFIX)


def is_template(obj: Mapping[str, Any]) -> bool:
    """May the object be propagated at all (not in, and not itself, a skipped namespace)?"""
    metadata = metadata_of(obj)
    if skipped_namespace(str(metadata.get("namespace") or "")):
        return False
    api_version = str(obj.get("apiVersion") or "")
    group = api_version.rpartition("/")[0]
    if (group, obj.get("kind")) == NAMESPACE_KIND:
        return not skipped_namespace(str(metadata.get("name") or ""))
    return True


def _specification(obj: Mapping[str, Any]) -> dict[str, Any]:
    trimmed = {key: value for key, value in obj.items() if key != "status"}
    metadata = metadata_of(obj)
    trimmed["metadata"] = {key: value for key, value in metadata.items() if key not in _IGNORED_METADATA}
    return trimmed


def specification_fingerprint(obj: Mapping[str, Any]) -> str:
    """A digest of what `specification_changed` compares: equal for versions that differ in status,
    resourceVersion and managedFields only."""
    encoded = orjson.dumps(_specification(obj), option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(encoded, digest_size=12).hexdigest()


def specification_changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Did anything change besides status, resourceVersion and managedFields?"""
    return _specification(old) != _specification(new)


def enqueue_worthy(event: str, new: Mapping[str, Any] | None, old: Mapping[str, Any] | None) -> bool:
    """Should an informer event of a template lead to a reconcile?

    Additions and real updates do; deletions do not (the binding goes with its template through
    its ownerReference), nor do status-only updates.
    """
    if event == "DELETED" or new is None or not is_template(new):
        return False
    return event != "MODIFIED" or old is None or specification_changed(old, new)
