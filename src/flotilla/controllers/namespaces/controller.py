"""The namespace controller: every eligible hub Namespace exists in every member cluster.

The queue key is a Namespace name. Namespace events enqueue it; a Cluster added (or starting to
be deleted) enqueues every Namespace, so a new member gets them all; a change to a
ClusterOverridePolicy enqueues every Namespace (their manifests may change); a Work of a Namespace
that someone edits or deletes enqueues that Namespace, which restores it.

Reconciling a Namespace, from the informer caches: when it is gone or being deleted, its Works are
deleted (the execution controller then removes it from the members; the garbage collector would
get there too, later); when `works.should_propagate` says no, nothing is touched; otherwise the
Work for each Cluster not being deleted is server-side applied as `flotilla-namespace` unless it is
already up to date. A cluster whose execution namespace does not exist yet fails alone and is
retried with backoff.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import structlog

from flotilla.api.karmada import constants, names
from flotilla.api.objects import metadata_of
from flotilla.api.scheme import GroupVersionKind
from flotilla.client import NotFound
from flotilla.controllers.namespaces.works import (
    is_namespace_work,
    namespace_work,
    propagated_name,
    should_propagate,
    work_name,
    work_up_to_date,
)
from flotilla.overrides import OverrideError
from flotilla.runtime.controller import TerminalError
from flotilla.runtime.hubcontroller import ControllerContext, HubController

log = structlog.get_logger("flotilla.controllers.namespaces")

FIELD_MANAGER = "flotilla-namespace"
NAMESPACE = GroupVersionKind("", "v1", "Namespace")


class ClustersNotReached(Exception):
    """Some clusters' Works could not be written yet (their execution namespace is missing, say)."""


def _selects_namespaces(policy: Mapping[str, Any]) -> bool:
    """Can this ClusterOverridePolicy apply to Namespaces (no selectors, or one for v1 Namespace)?"""
    spec = policy.get("spec")
    selectors = spec.get("resourceSelectors") if isinstance(spec, Mapping) else None
    if not selectors:
        return True
    return any(
        isinstance(selector, Mapping)
        and selector.get("apiVersion") == "v1"
        and selector.get("kind") == "Namespace"
        for selector in selectors
    )


class NamespaceSyncController(HubController):
    NAME = "namespace"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._namespaces = ctx.informers.get(NAMESPACE)
        self._clusters = ctx.informers.get(constants.CLUSTER)
        self._works = ctx.informers.get(constants.WORK)
        self._cluster_override_policies = ctx.informers.get(constants.CLUSTER_OVERRIDE_POLICY)

    # -- wiring -------------------------------------------------------------------------------------

    def setup(self) -> None:
        self._namespaces.add_handler(self._on_namespace)
        self._clusters.add_handler(self._on_cluster)
        self._works.add_handler(self._on_work)
        self._cluster_override_policies.add_handler(self._on_cluster_override_policy)

    def _enqueue_namespace(self, name: str) -> None:
        if name and propagated_name(name):
            self.enqueue(name)

    def _on_namespace(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        self._enqueue_namespace(str(metadata_of(new or old or {}).get("name") or ""))

    def _enqueue_all(self) -> None:
        for namespace in self._namespaces.list():
            self._enqueue_namespace(str(metadata_of(namespace).get("name") or ""))

    def _on_cluster(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if event == "ADDED" or (
            event == "MODIFIED"
            and new is not None
            and old is not None
            and metadata_of(new).get("deletionTimestamp") != metadata_of(old).get("deletionTimestamp")
        ):
            self._enqueue_all()

    def _on_work(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        """Someone else deleted or rewrote a Namespace's Work: put it back."""
        if event == "ADDED" or (
            event == "MODIFIED"
            and new is not None
            and old is not None
            and new.get("spec") == old.get("spec")
            and metadata_of(new).get("ownerReferences") == metadata_of(old).get("ownerReferences")
        ):
            return
        for reference in metadata_of(old or new or {}).get("ownerReferences") or ():
            if isinstance(reference, Mapping) and reference.get("kind") == "Namespace":
                self._enqueue_namespace(str(reference.get("name") or ""))

    def _on_cluster_override_policy(
        self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None
    ) -> None:
        if any(policy is not None and _selects_namespaces(policy) for policy in (new, old)):
            self._enqueue_all()

    # -- reconcile ----------------------------------------------------------------------------------

    async def reconcile(self, key: Any) -> float | None:
        name = str(key)
        namespace = self._namespaces.get(name)
        clusters = [c for c in self._clusters.list() if not metadata_of(c).get("deletionTimestamp")]
        if namespace is None or metadata_of(namespace).get("deletionTimestamp"):
            await self._remove_works(name, clusters)
            return None
        if not should_propagate(namespace):
            return None
        policies = self._cluster_override_policies.list()
        missed = []
        for cluster in clusters:
            cluster_name = str(metadata_of(cluster).get("name") or "")
            try:
                desired = namespace_work(namespace, cluster, policies)
            except OverrideError as exc:
                raise TerminalError(f"namespace {name} for cluster {cluster_name}: {exc}") from exc
            existing = self._works.get(work_name(name), namespace=names.execution_namespace(cluster_name))
            if existing is not None and work_up_to_date(existing, desired):
                continue
            try:
                await self.ctx.hub.apply(desired, field_manager=FIELD_MANAGER, force=True)
            except NotFound:
                missed.append(cluster_name)
                continue
            log.info("namespace.work_applied", controller=self.NAME, namespace=name, cluster=cluster_name)
        if missed:
            raise ClustersNotReached(f"namespace {name}: no execution namespace yet for {', '.join(missed)}")
        return None

    async def _remove_works(self, name: str, clusters: list[dict[str, Any]]) -> None:
        for cluster in clusters:
            cluster_name = str(metadata_of(cluster).get("name") or "")
            existing = self._works.get(work_name(name), namespace=names.execution_namespace(cluster_name))
            if (
                existing is None
                or not is_namespace_work(existing, name)
                or metadata_of(existing).get("deletionTimestamp")
            ):
                continue
            answer = await self.ctx.hub.delete(
                constants.WORK,
                work_name(name),
                namespace=names.execution_namespace(cluster_name),
                uid=str(metadata_of(existing).get("uid") or ""),
            )
            if answer is None:
                continue
            log.info("namespace.work_deleted", controller=self.NAME, namespace=name, cluster=cluster_name)
