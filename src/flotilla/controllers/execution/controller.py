"""The execution controller: Works in `karmada-es-<cluster>` → objects in that member cluster.

It runs in the controller manager for Push clusters, and in each Pull cluster's agent for that
cluster alone (`ControllerContext.sync_mode`); each leaves the other's Works alone. One exception
keeps a dead agent from blocking an unregistration: a Work being deleted whose Pull cluster is
being deleted and is not Ready (its agent stopped renewing its Lease) is released by the hub,
without member cleanup, as for an unreachable Push member.

For each Work it applies every manifest to the member with server-side apply (field manager
`flotilla-execution`, forced), so fields the member writes under its own managers stay and fields
the manifest no longer sets go. Before an object is first applied by this process it is read from
the member: one that exists without `karmada.io/managed` is a conflict (see `ownership`), and kinds
with member-owned fields get them retained. The outcome is the Work's `Applied` condition, with the
applied generation, so unchanged Works cost nothing after a restart.

The Work carries the finalizer `karmada.io/execution-controller`. When the Work is deleted, the
objects it delivered are deleted from the member (unless `preserveResourcesOnDeletion`), then the
finalizer goes; when the Cluster is gone, or is being deleted and is not Ready or does not answer
(an unreachable member being unjoined), the finalizer goes without member cleanup.

While a Cluster is not Ready its Works wait (looked at again when it turns Ready, and every
`CLUSTER_WAIT` seconds) instead of retrying against an unreachable API.

A member object deleted behind Flotilla's back is re-created, level-based: an applied Work is
checked against the process's member informers (`ControllerContext.member_informers`, shared with
the work-status controller: managed objects per cluster and kind). A manifest whose object is not
in a synced informer is missing, and the Work is applied again. A member object's deletion enqueues
its Work; after a restart every Work is looked at once and waits for its informers' first list, so
an object deleted while the manager was down, or before its status was ever reported, comes back.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import structlog

from flotilla.api.karmada import constants, names
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.objects import metadata_of
from flotilla.api.scheme import GroupVersionKind
from flotilla.client import APIStatusError, Client, ClientError, Unavailable
from flotilla.client.client import MERGE_PATCH
from flotilla.controllers.execution.conditions import (
    applied_condition,
    applied_up_to_date,
    conditions_of,
    dispatching_condition,
    same_conditions,
    set_conditions,
)
from flotilla.controllers.execution.ownership import (
    RetainFailed,
    conflict,
    delivered_by,
    describe,
    desired_object,
    manifest_gvk,
    needs_observed,
    work_of_member_object,
)
from flotilla.interpreter.lua import Operation
from flotilla.runtime.hubcontroller import ControllerContext, HubController
from flotilla.runtime.members import MemberCredentialsError

log = structlog.get_logger("flotilla.controllers.execution")

FIELD_MANAGER = "flotilla-execution"
CLUSTER_WAIT = 30.0
"""Seconds between looks at a Work whose Cluster is not Ready (a Ready transition also wakes it)."""
INFORMER_WAIT = 1.0
"""Seconds before looking again at an applied Work whose member informers have not listed yet."""

OWNED_CONDITIONS = frozenset({constants.WORK_APPLIED, constants.WORK_DISPATCHING})

MemberKey = tuple[str, GroupVersionKind, str, str]
"""(cluster, kind, namespace, name) of a member object."""


class ApplyFailed(Exception):
    """Some manifests of a Work could not be applied; retried with backoff."""


class ManifestConflict(Exception):
    """The member already has the object, not managed by Karmada."""


def cluster_ready(cluster: Mapping[str, Any]) -> bool:
    conditions = (cluster.get("status") or {}).get("conditions") or []
    return any(
        c.get("type") == constants.CLUSTER_CONDITION_READY and c.get("status") == "True" for c in conditions
    )


def manifests_of(work: Mapping[str, Any]) -> list[dict[str, Any]]:
    workload = (work.get("spec") or {}).get("workload") or {}
    return [m for m in workload.get("manifests") or [] if isinstance(m, dict)]


def member_key(manifest: Mapping[str, Any]) -> tuple[GroupVersionKind, str, str]:
    """(kind, namespace, name) of the member object a manifest describes."""
    metadata = metadata_of(manifest)
    return manifest_gvk(manifest), str(metadata.get("namespace") or ""), str(metadata.get("name") or "")


class ExecutionController(HubController):
    NAME = "execution"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._works = ctx.informers.get(constants.WORK)
        self._clusters = ctx.informers.get(constants.CLUSTER)
        self._member_objects = ctx.member_informers
        self._interpretation = ctx.interpretation()
        self._delivered: set[MemberKey] = set()
        """Member objects this process applied: known to be Karmada's, so applied without reading first."""

    def setup(self) -> None:
        self._works.add_handler(self._on_work)
        self._clusters.add_handler(self._on_cluster)
        self._member_objects.add_handler(self._on_member_object)

    async def stop(self) -> None:
        await super().stop()
        await self._member_objects.stop()

    # -- events ---------------------------------------------------------------------------------

    def _on_work(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if new is None:
            return
        key = ObjectKey.of(new)
        if old is None:
            self.enqueue(key)
            return
        old_metadata, new_metadata = metadata_of(old), metadata_of(new)
        if old.get("spec") != new.get("spec") or any(
            old_metadata.get(field) != new_metadata.get(field)
            for field in ("generation", "deletionTimestamp", "finalizers")
        ):
            self.enqueue(key)

    def _on_member_object(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if event != "DELETED" or old is None:
            return
        work = work_of_member_object(old)
        if work is not None:
            self.enqueue(work)

    def _on_cluster(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if new is not None and old is not None:
            unchanged = (
                cluster_ready(new) == cluster_ready(old)
                and metadata_of(new).get("deletionTimestamp") == metadata_of(old).get("deletionTimestamp")
                and new.get("spec") == old.get("spec")
            )
            if unchanged:
                return
        cluster = new if new is not None else old
        if cluster is None:
            return
        namespace = names.execution_namespace(str(metadata_of(cluster).get("name") or ""))
        for work in self._works.list(namespace=namespace):
            self.enqueue(ObjectKey.of(work))

    # -- reconcile ------------------------------------------------------------------------------

    async def reconcile(self, key: ObjectKey) -> float | None:
        namespace, name = key.namespace, key.name
        work = self._works.get(name, namespace=namespace)
        cluster_name = names.cluster_of_execution_namespace(namespace)
        if work is None or cluster_name is None:
            return None
        cluster = self._clusters.get(cluster_name)
        if cluster is not None and not self.ctx.reaches(cluster):
            return await self._release_abandoned(work, cluster)
        if metadata_of(work).get("deletionTimestamp"):
            return await self._finalize(work, cluster_name, cluster)
        await self._set_finalizer(work, present=True)
        if cluster is None:
            return CLUSTER_WAIT
        generation = int(metadata_of(work).get("generation") or 0)
        if (work.get("spec") or {}).get("suspendDispatching"):
            await self._write_conditions(work, [dispatching_condition(generation, suspended=True)])
            return None
        verify = False
        if applied_up_to_date(work):
            await self._write_conditions(work, [dispatching_condition(generation, suspended=False)])
            if not cluster_ready(cluster):
                return None  # its Ready transition brings the Work back to be checked
            missing = await self._missing(cluster, work)
            if missing is None:
                return INFORMER_WAIT
            if not missing:
                return None
            log.info(
                "execution.member_objects_missing",
                namespace=namespace,
                work=name,
                cluster=cluster_name,
                objects=missing,
            )
            verify = True
        if not cluster_ready(cluster):
            return CLUSTER_WAIT
        manifests = manifests_of(work)
        errors: list[str] = []
        try:
            client = await self.ctx.members.client_for(cluster)
        except MemberCredentialsError as exc:
            errors.append(str(exc))
        else:
            errors = await self._apply_manifests(client, cluster_name, manifests, verify=verify)
        await self._write_conditions(
            work,
            [
                applied_condition(generation, errors, len(manifests)),
                dispatching_condition(generation, suspended=False),
            ],
        )
        if errors:
            log.info(
                "execution.apply_failed", namespace=namespace, work=name, cluster=cluster_name, errors=errors
            )
            raise ApplyFailed("; ".join(errors))
        log.info(
            "execution.applied", namespace=namespace, work=name, cluster=cluster_name, generation=generation
        )
        return None

    async def _missing(self, cluster: Mapping[str, Any], work: Mapping[str, Any]) -> list[str] | None:
        """The Work's manifests whose objects the member does not have (managed), as `describe` names
        them; None while a member informer has not listed yet."""
        missing: list[str] = []
        for manifest in manifests_of(work):
            gvk, member_namespace, member_name = member_key(manifest)
            try:
                informer = await self._member_objects.informer(cluster, gvk)
            except MemberCredentialsError:
                return []  # nothing to compare with; the cluster controller reports the credentials
            if not informer.synced:
                return None
            if informer.get(member_name, namespace=member_namespace) is None:
                missing.append(describe(manifest))
        return missing

    async def _apply_manifests(
        self, client: Client, cluster_name: str, manifests: list[dict[str, Any]], *, verify: bool
    ) -> list[str]:
        """Apply each manifest; the errors, one per manifest that failed (the others are applied)."""
        errors: list[str] = []
        for manifest in manifests:
            try:
                await self._apply(client, cluster_name, manifest, verify=verify)
            except (ManifestConflict, RetainFailed) as exc:
                errors.append(str(exc))
            except (APIStatusError, ClientError) as exc:
                errors.append(f"{describe(manifest)}: {exc}")
        return errors

    async def _apply(self, client: Client, cluster: str, manifest: dict[str, Any], *, verify: bool) -> None:
        gvk = manifest_gvk(manifest)
        metadata = metadata_of(manifest)
        member_name, member_namespace = str(metadata.get("name") or ""), str(metadata.get("namespace") or "")
        member = (cluster, gvk, member_namespace, member_name)
        observed = None
        interpreter = self._interpretation.interpreter()
        if verify or member not in self._delivered or needs_observed(manifest, interpreter):
            observed = await client.get_or_none(gvk, member_name, namespace=member_namespace)
            if observed is not None:
                problem = conflict(observed, manifest, cluster)
                if problem is not None:
                    raise ManifestConflict(problem)
        desired = await self._interpretation.off_loop(
            partial(desired_object, manifest, observed, interpreter),
            customized=interpreter.customizes(manifest, Operation.RETAIN),
        )
        await self._interpretation.report_failures(self.ctx.hub, interpreter, controller=self.NAME)
        await client.apply(desired, field_manager=FIELD_MANAGER, force=True)
        self._delivered.add(member)

    async def _finalize(
        self, work: Mapping[str, Any], cluster_name: str, cluster: dict[str, Any] | None
    ) -> float | None:
        """Clean the member up for a deleted Work (when it can and should), then release the Work."""
        namespace, name = (
            str(metadata_of(work).get("namespace") or ""),
            str(metadata_of(work).get("name") or ""),
        )
        preserve = bool((work.get("spec") or {}).get("preserveResourcesOnDeletion"))
        if cluster is not None and not preserve:
            client = await self._cleanup_client(cluster)
            if client is None:
                if not metadata_of(cluster).get("deletionTimestamp"):
                    return CLUSTER_WAIT
                # An unreachable member being unjoined: nothing can be cleaned, nothing must block.
                log.info("execution.cleanup_skipped", namespace=namespace, work=name, cluster=cluster_name)
            else:
                try:
                    for manifest in manifests_of(work):
                        await self._delete(client, cluster_name, namespace, name, manifest)
                except Unavailable:
                    if not metadata_of(cluster).get("deletionTimestamp"):
                        raise
                    # Unjoining a member that stopped answering before its Ready condition said so.
                    log.info(
                        "execution.cleanup_skipped", namespace=namespace, work=name, cluster=cluster_name
                    )
        await self._set_finalizer(work, present=False)
        return None

    async def _release_abandoned(self, work: Mapping[str, Any], cluster: dict[str, Any]) -> float | None:
        """A Work of a cluster someone else delivers to: released only when its deliverer is gone —
        the Work and its Cluster are being deleted, and the cluster is not Ready."""
        abandoned = (
            bool(metadata_of(work).get("deletionTimestamp"))
            and bool(metadata_of(cluster).get("deletionTimestamp"))
            and not cluster_ready(cluster)
        )
        if abandoned:
            await self._set_finalizer(work, present=False)
            log.info(
                "execution.cleanup_skipped",
                namespace=metadata_of(work).get("namespace"),
                work=metadata_of(work).get("name"),
                cluster=metadata_of(cluster).get("name"),
            )
        return None

    async def _cleanup_client(self, cluster: dict[str, Any]) -> Client | None:
        """The member's client for cleaning up, None when the member cannot be reached (not Ready, or
        the credentials of a cluster being deleted are already gone)."""
        if not cluster_ready(cluster):
            return None
        try:
            return await self.ctx.members.client_for(cluster)
        except MemberCredentialsError:
            if metadata_of(cluster).get("deletionTimestamp"):
                return None
            raise

    async def _delete(
        self, client: Client, cluster: str, work_namespace: str, work_name: str, manifest: Mapping[str, Any]
    ) -> None:
        gvk = manifest_gvk(manifest)
        metadata = metadata_of(manifest)
        member_name, member_namespace = str(metadata.get("name") or ""), str(metadata.get("namespace") or "")
        self._delivered.discard((cluster, gvk, member_namespace, member_name))
        observed = await client.get_or_none(gvk, member_name, namespace=member_namespace)
        if observed is None or not delivered_by(observed, work_namespace, work_name):
            return
        await client.delete(
            gvk, member_name, namespace=member_namespace, uid=str(metadata_of(observed).get("uid") or "")
        )
        log.info("execution.member_deleted", cluster=cluster, object=describe(manifest), work=work_name)

    async def _write_conditions(self, work: Mapping[str, Any], updates: list[dict[str, Any]]) -> None:
        current = conditions_of(work)
        wanted = set_conditions(current, updates, self.ctx.clock.now())
        if same_conditions(current, wanted):
            return
        metadata = metadata_of(work)
        # Conditions are a list-map keyed by type: this applies (and owns) Applied and Dispatching only.
        await self.ctx.hub.apply_status(
            {
                "apiVersion": constants.WORK.api_version,
                "kind": constants.WORK.kind,
                "metadata": {"name": metadata.get("name"), "namespace": metadata.get("namespace")},
                "status": {"conditions": [c for c in wanted if c.get("type") in OWNED_CONDITIONS]},
            },
            field_manager=FIELD_MANAGER,
            force=True,
        )

    async def _set_finalizer(self, work: Mapping[str, Any], *, present: bool) -> None:
        metadata = metadata_of(work)
        finalizers = list(metadata.get("finalizers") or [])
        finalizer = constants.EXECUTION_CONTROLLER_FINALIZER
        if (finalizer in finalizers) == present:
            return
        changed = [*finalizers, finalizer] if present else [f for f in finalizers if f != finalizer]
        await self.ctx.hub.patch(
            constants.WORK,
            str(metadata.get("name") or ""),
            {"metadata": {"resourceVersion": metadata.get("resourceVersion"), "finalizers": changed}},
            namespace=str(metadata.get("namespace") or ""),
            patch_type=MERGE_PATCH,
            field_manager=FIELD_MANAGER,
        )
