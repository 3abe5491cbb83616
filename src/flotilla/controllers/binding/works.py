"""Works as the binding controller writes them, and which Works belong to which binding.

A Work carries one rendered manifest to one cluster's execution namespace. The binding controller
owns its labels (the binding's permanent id), its annotations (the binding's name, the conflict
resolution, the applied overrides) and its spec, and creates it with the execution controller's
finalizer (only the execution controller removes it); the execution controller owns the `Applied`
condition, the work-status controller the manifest statuses.

Before writing, the controller compares the Work it wants with the one the informer holds
(`work_up_to_date`), so a re-render that changes nothing costs no request. Works of clusters a
binding no longer targets are found through `WorksByBinding`, an index the Work informer's events
keep current: deleting them needs no scan of every Work. `WrittenWorks` remembers what this
process last wrote to each Work, so a reconcile that runs before the informer has seen that write
does not send it again.

A cluster the binding is being evicted from keeps its Work while a graceful eviction task names it
with any purge mode but `Directly` (`clusters_keeping_works`, Karmada's
`ObtainBindingSpecExistingClusters`): the old copy serves until the task is dropped, and the Work
is neither deleted nor rendered again meanwhile. A `Directly` task keeps nothing: its Work goes at
once, as an orphan.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import orjson

from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import PurgeMode
from flotilla.api.karmada.work import ResourceBindingSpec
from flotilla.api.objectkeys import ObjectKey
from flotilla.controllers.binding.render import BindingReference, RenderedManifest

BindingKey = tuple[str, str, str]
"""(`ResourceBinding` or `ClusterResourceBinding`, namespace, name)."""

OWNED_ANNOTATIONS = frozenset(
    {
        constants.RESOURCE_BINDING_NAMESPACE_ANNOTATION,
        constants.RESOURCE_BINDING_NAME_ANNOTATION,
        constants.CLUSTER_RESOURCE_BINDING_NAME_ANNOTATION,
        constants.CONFLICT_RESOLUTION_ANNOTATION,
        constants.APPLIED_OVERRIDES_ANNOTATION,
        constants.APPLIED_CLUSTER_OVERRIDES_ANNOTATION,
    }
)
"""Every annotation the binding controller may put on a Work: one it no longer wants must go."""


def work_object(
    rendered: RenderedManifest,
    *,
    binding: BindingReference,
    name: str,
    namespace: str,
    suspend_dispatching: bool,
    preserve_resources_on_deletion: bool,
) -> dict[str, Any]:
    """The Work delivering `rendered` to the cluster of execution namespace `namespace`."""
    return {
        "apiVersion": constants.WORK.api_version,
        "kind": constants.WORK.kind,
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": binding.labels(),
            "annotations": dict(rendered.work_annotations),
            # Set at creation, as Karmada does, so no Work ever reaches a member without it.
            "finalizers": [constants.EXECUTION_CONTROLLER_FINALIZER],
        },
        "spec": {
            "workload": {"manifests": [rendered.manifest]},
            "suspendDispatching": suspend_dispatching,
            "preserveResourcesOnDeletion": preserve_resources_on_deletion,
        },
    }


def work_up_to_date(existing: Mapping[str, Any], desired: Mapping[str, Any]) -> bool:
    """Whether applying `desired` would leave `existing` as it is (so the write can be skipped)."""
    if existing.get("spec") != desired.get("spec"):
        return False
    current = existing.get("metadata") or {}
    wanted = desired.get("metadata") or {}
    for field in ("labels", "annotations"):
        have = current.get(field) or {}
        want = wanted.get(field) or {}
        if any(have.get(key) != value for key, value in want.items()):
            return False
    if not set(wanted.get("finalizers") or ()) <= set(current.get("finalizers") or ()):
        return False
    stale = (OWNED_ANNOTATIONS & set(current.get("annotations") or {})) - set(wanted.get("annotations") or {})
    return not stale


REMOVED_AT_ONCE = frozenset({PurgeMode.DIRECTLY})
"""Purge modes whose eviction task keeps no Work (the API server stores Directly's first name,
`Immediately`, as `Directly`)."""


def clusters_keeping_works(spec: ResourceBindingSpec) -> frozenset[str]:
    """Clusters whose Work stays as it is while an eviction task names them (purge mode not Directly)."""
    return frozenset(
        task.from_cluster
        for task in spec.graceful_eviction_tasks
        if task.from_cluster and task.purge_mode not in REMOVED_AT_ONCE
    )


def binding_key_of_work(work: Mapping[str, Any]) -> BindingKey | None:
    """The binding a Work was rendered from, by its annotations; None for Works of other origins."""
    annotations = (work.get("metadata") or {}).get("annotations") or {}
    name = annotations.get(constants.RESOURCE_BINDING_NAME_ANNOTATION)
    if name:
        namespace = annotations.get(constants.RESOURCE_BINDING_NAMESPACE_ANNOTATION, "")
        return (constants.RESOURCE_BINDING.kind, str(namespace), str(name))
    name = annotations.get(constants.CLUSTER_RESOURCE_BINDING_NAME_ANNOTATION)
    if name:
        return (constants.CLUSTER_RESOURCE_BINDING.kind, "", str(name))
    return None


class WorksByBinding:
    """Which Works each binding has, kept current from the Work informer's events."""

    def __init__(self) -> None:
        self._works: dict[BindingKey, set[ObjectKey]] = {}
        self._owner: dict[ObjectKey, BindingKey] = {}

    def observe(self, event: str, new: Mapping[str, Any] | None, old: Mapping[str, Any] | None) -> None:
        """Record one informer event (`ADDED`, `MODIFIED` or `DELETED`)."""
        work = new if new is not None else old
        if work is None:
            return
        key = ObjectKey.of(work)
        self._forget(key)
        owner = binding_key_of_work(work) if event != "DELETED" else None
        if owner is not None:
            self._owner[key] = owner
            self._works.setdefault(owner, set()).add(key)

    def works_of(self, binding: BindingKey) -> frozenset[ObjectKey]:
        return frozenset(self._works.get(binding, ()))

    def binding_of(self, work: ObjectKey) -> BindingKey | None:
        return self._owner.get(work)

    def _forget(self, key: ObjectKey) -> None:
        owner = self._owner.pop(key, None)
        if owner is None:
            return
        works = self._works.get(owner)
        if works is not None:
            works.discard(key)
            if not works:
                del self._works[owner]


def fingerprint(work: Mapping[str, Any]) -> str:
    """A digest of a Work as the controller wants it (key order does not matter)."""
    return hashlib.sha256(orjson.dumps(work, option=orjson.OPT_SORT_KEYS)).hexdigest()


class WrittenWorks:
    """The last write of this process to each Work, forgotten as soon as anyone else writes it.

    After an apply the informer may lag behind, and comparing with its stale copy would apply the
    same Work again. A remembered write stands in for the informer's copy until an event shows a
    resourceVersion that is not the one our write produced — someone else changed the Work, and
    the informer's copy is the truth again.
    """

    def __init__(self) -> None:
        self._written: dict[ObjectKey, tuple[str, str]] = {}

    def remember(self, key: ObjectKey, desired: Mapping[str, Any], written: Mapping[str, Any]) -> None:
        version = str((written.get("metadata") or {}).get("resourceVersion") or "")
        self._written[key] = (fingerprint(desired), version)

    def already_written(self, key: ObjectKey, desired: Mapping[str, Any]) -> bool:
        entry = self._written.get(key)
        return entry is not None and entry[0] == fingerprint(desired)

    def observe(self, event: str, new: Mapping[str, Any] | None, old: Mapping[str, Any] | None) -> None:
        """Forget a Work deleted, or written by someone else, according to an informer event."""
        work = new if new is not None else old
        if work is None:
            return
        key = ObjectKey.of(work)
        entry = self._written.get(key)
        if entry is None:
            return
        version = str((work.get("metadata") or {}).get("resourceVersion") or "")
        if event == "DELETED" or version != entry[1]:
            del self._written[key]
