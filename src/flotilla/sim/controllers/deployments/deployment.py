"""The Deployment controller: ReplicaSets per pod template, rolled over as the strategy says.

A Deployment owns one ReplicaSet per distinct pod template, named `<deployment>-<hash>` after
the template's `pod-template-hash` (also put on the ReplicaSet's selector, template and so its
pods). The ReplicaSet whose template equals the Deployment's is the *new* one; the rest are old.
Each reconcile follows kube's `syncDeployment`:

- a deleting Deployment only has its status brought up to date;
- pausing / resuming is recorded in the Progressing condition, and a paused Deployment is only
  scaled, never rolled;
- a change of `spec.replicas` (a ReplicaSet's `desired-replicas` annotation disagrees) resizes
  the ReplicaSets in proportion;
- otherwise it rolls: RollingUpdate grows the new ReplicaSet within maxSurge and shrinks old ones
  within maxUnavailable (`rollout.py`); Recreate scales old ReplicaSets to zero, waits until their
  pods are gone, then creates and scales the new one;
- once complete, old ReplicaSets beyond `revisionHistoryLimit` (scaled to zero) are deleted;
- status and conditions are recomputed from the ReplicaSets (`status.py`), and a rollout
  making no progress is looked at again when its progress deadline passes.

ReplicaSets are resized with `update` at the resourceVersion read, so a decision made on a state
that changed meanwhile fails with a conflict and is made again.
"""

from __future__ import annotations

from typing import Any

import structlog

from flotilla.api.conditions import find_condition, set_workload_condition
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.objects import controller_of, copy_object
from flotilla.api.selectors import SelectorError, label_selector_from_object
from flotilla.apiserver import errors
from flotilla.apiserver.localclient import CacheEvent
from flotilla.runtime.controller import TerminalError
from flotilla.sim.controllers.deployments import revisions, rollout
from flotilla.sim.controllers.deployments import status as deploymentstatus
from flotilla.sim.controllers.framework.controller import SimController
from flotilla.sim.controllers.framework.events import NORMAL, WARNING
from flotilla.sim.controllers.framework.kinds import DEPLOYMENT, POD, REPLICA_SET
from flotilla.sim.controllers.podowners import conditions, ownership
from flotilla.sim.controllers.podowners.podtemplates import (
    POD_TEMPLATE_HASH_LABEL,
    compute_hash,
    equal_ignoring_hash,
    with_label,
)

log = structlog.get_logger("flotilla.sim.controllers")

Deployment = dict[str, Any]
ReplicaSet = dict[str, Any]


class DeploymentController(SimController):
    NAME = "deployment-controller"
    KIND = DEPLOYMENT

    def watch(self) -> None:
        self.watch_kind(REPLICA_SET, self._replica_set_keys)
        self.client.on_change(POD, self._on_pod_change)

    def _replica_set_keys(self, replica_set: dict[str, Any]) -> list[ObjectKey]:
        namespace = replica_set["metadata"].get("namespace", "")
        owner = ownership.controller_name(replica_set, DEPLOYMENT)
        if owner:
            return [ObjectKey(namespace, owner)]
        if controller_of(replica_set) is not None:
            return []
        labels = replica_set["metadata"].get("labels") or {}
        return [
            ObjectKey(namespace, deployment["metadata"]["name"])
            for deployment in self.client.list(DEPLOYMENT, namespace=namespace)
            if _selects(deployment, labels)
        ]

    def _on_pod_change(self, event: CacheEvent) -> None:
        # A Recreate rollout waits for the old pods to be gone: their deletion is news.
        if event.type != "DELETED":
            return
        owner = ownership.controller_name(event.object.obj, REPLICA_SET)
        replica_set = (
            self.client.peek(REPLICA_SET, owner, namespace=event.object.namespace) if owner else None
        )
        if replica_set is not None:
            self.enqueue(
                ObjectKey(event.object.namespace, ownership.controller_name(replica_set, DEPLOYMENT))
            )

    # -- the sync -------------------------------------------------------------------------------

    async def reconcile(self, key: ObjectKey) -> float | None:
        namespace, name = key.namespace, key.name
        deployment = self.client.get(DEPLOYMENT, name, namespace=namespace)
        if deployment is None:
            return None
        selector = deployment["spec"].get("selector") or {}
        if not selector.get("matchLabels") and not selector.get("matchExpressions"):
            await self.events.record(
                deployment,
                DEPLOYMENT,
                WARNING,
                "SelectingAll",
                "This deployment is selecting all pods. A non-empty selector is required.",
            )
            return None
        await self._claim_replica_sets(deployment)
        if deployment["metadata"].get("deletionTimestamp"):
            deployment, new, old = await self._replica_sets_and_revision(deployment, create=False)
            await self._sync_status(deployment, [*old, new], new)
            return None
        deployment = await self._check_paused_conditions(deployment)
        if deployment["spec"].get("paused") or await self._is_scaling_event(deployment):
            return await self._sync(deployment)
        if not rollout.is_rolling_update(deployment):
            return await self._rollout_recreate(deployment)
        return await self._rollout_rolling(deployment)

    async def _sync(self, deployment: Deployment) -> float | None:
        """Scale only (paused, or `spec.replicas` changed); a paused Deployment is cleaned up too."""
        deployment, new, old = await self._replica_sets_and_revision(deployment, create=False)
        scaling = rollout.scaling_plan(deployment, new, old)
        for replica_set in [rs for rs in [new, *old] if rs is not None]:
            size = scaling.sizes.get(replica_set["metadata"]["name"])
            if size is not None:
                await self._scale(
                    replica_set,
                    size,
                    deployment,
                    refresh_annotations=scaling.proportional,
                    operation=scaling.operation,
                )
        if deployment["spec"].get("paused"):
            await self._cleanup(deployment, old, new)
        deployment, new, old = await self._replica_sets_and_revision(deployment, create=False)
        await self._sync_status(deployment, [*old, new], new)
        return None

    async def _rollout_rolling(self, deployment: Deployment) -> float | None:
        deployment, new, old = await self._replica_sets_and_revision(deployment, create=True)
        assert new is not None
        desired = rollout.desired_replicas(deployment)
        target = desired
        if rollout.spec_replicas(new) < desired:
            target = rollout.new_replica_set_replicas(deployment, [*old, new], new)
        if await self._scale(new, target, deployment):
            return await self._sync_rollout_status(deployment)
        plan = rollout.old_replica_sets_scale_down(deployment, old, new)
        scaled_down = False
        for replica_set in old:
            if replica_set["metadata"]["name"] in plan:
                size = plan[replica_set["metadata"]["name"]]
                scaled_down = await self._scale(replica_set, size, deployment) or scaled_down
        if scaled_down:
            return await self._sync_rollout_status(deployment)
        if deploymentstatus.is_complete(deployment, deployment.get("status") or {}):
            await self._cleanup(deployment, old, new)
        return await self._sync_rollout_status(deployment)

    async def _rollout_recreate(self, deployment: Deployment) -> float | None:
        deployment, new, old = await self._replica_sets_and_revision(deployment, create=False)
        scaled_down = False
        for replica_set in rollout.active(old):
            scaled_down = await self._scale(dict(replica_set), 0, deployment) or scaled_down
        if scaled_down or self._old_pods_running(deployment, new, old):
            return await self._sync_rollout_status(deployment)
        if new is None:
            deployment, new, old = await self._replica_sets_and_revision(deployment, create=True)
            assert new is not None
        await self._scale(new, rollout.desired_replicas(deployment), deployment)
        if deploymentstatus.is_complete(deployment, deployment.get("status") or {}):
            await self._cleanup(deployment, old, new)
        return await self._sync_rollout_status(deployment)

    # -- ReplicaSets ----------------------------------------------------------------------------

    def _owned(self, deployment: Deployment) -> list[ReplicaSet]:
        uid = deployment["metadata"]["uid"]
        namespace = deployment["metadata"]["namespace"]
        return [copy_object(rs) for rs in self.client.controlled_by(REPLICA_SET, uid, namespace=namespace)]

    async def _claim_replica_sets(self, deployment: Deployment) -> None:
        try:
            selector = label_selector_from_object(deployment["spec"].get("selector"))
        except SelectorError as exc:
            raise TerminalError(f"invalid selector: {exc}") from exc
        namespace = deployment["metadata"]["namespace"]
        uid = deployment["metadata"]["uid"]
        candidates = self.client.claim_candidates(REPLICA_SET, uid, namespace=namespace)
        claimed = ownership.claim(candidates, deployment, selector.matches)
        reference = ownership.controller_reference(deployment, DEPLOYMENT)
        for replica_set in claimed.adopt:
            await self.client.mutate(
                REPLICA_SET,
                replica_set["metadata"]["name"],
                lambda rs: ownership.with_controller(rs, reference),
                namespace=namespace,
            )
        for replica_set in claimed.release:
            await self.client.mutate(
                REPLICA_SET,
                replica_set["metadata"]["name"],
                lambda rs: ownership.without_owner(rs, uid),
                namespace=namespace,
            )

    async def _replica_sets_and_revision(
        self, deployment: Deployment, *, create: bool
    ) -> tuple[Deployment, ReplicaSet | None, list[ReplicaSet]]:
        """(deployment, new ReplicaSet, old ReplicaSets), the new one's revision brought up to date."""
        owned = rollout.by_creation(self._owned(deployment))
        template = deployment["spec"]["template"]
        found = next((rs for rs in owned if equal_ignoring_hash(rs["spec"]["template"], template)), None)
        old = [dict(rs) for rs in owned if rs is not found]
        new_revision = revisions.max_revision(old) + 1
        surge = rollout.max_surge(deployment)
        if found is not None:
            new = dict(found)
            changed = revisions.set_new_replica_set_annotations(
                deployment, new, new_revision, exists=True, surge=surge
            )
            min_ready = int(deployment["spec"].get("minReadySeconds") or 0)
            if changed or int(new["spec"].get("minReadySeconds") or 0) != min_ready:
                new["spec"]["minReadySeconds"] = min_ready
                return deployment, await self.client.update(REPLICA_SET, new), old
            deployment = await self._set_revision(deployment, revisions.revision(new))
            if deploymentstatus.has_progress_deadline(deployment) and not _progressing(deployment):
                message = f'Found new replica set "{new["metadata"]["name"]}"'
                deployment = await self._set_progressing(
                    deployment, deploymentstatus.FOUND_NEW_REPLICA_SET, message
                )
            return deployment, new, old
        if not create:
            return deployment, None, old
        return await self._create_new_replica_set(deployment, old, new_revision)

    async def _create_new_replica_set(
        self, deployment: Deployment, old: list[ReplicaSet], new_revision: int
    ) -> tuple[Deployment, ReplicaSet, list[ReplicaSet]]:
        meta = deployment["metadata"]
        collisions = (deployment.get("status") or {}).get("collisionCount")
        template_hash = compute_hash(deployment["spec"]["template"], collisions)
        selector = copy_object(deployment["spec"]["selector"])
        selector.setdefault("matchLabels", {})[POD_TEMPLATE_HASH_LABEL] = template_hash
        template = with_label(deployment["spec"]["template"], POD_TEMPLATE_HASH_LABEL, template_hash)
        new: ReplicaSet = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": f"{meta['name']}-{template_hash}",
                "namespace": meta["namespace"],
                "labels": dict(template["metadata"]["labels"]),
                "ownerReferences": [ownership.controller_reference(deployment, DEPLOYMENT)],
            },
            "spec": {
                "replicas": 0,
                "minReadySeconds": int(deployment["spec"].get("minReadySeconds") or 0),
                "selector": selector,
                "template": template,
            },
        }
        new["spec"]["replicas"] = rollout.new_replica_set_replicas(deployment, [*old, new], new)
        revisions.set_new_replica_set_annotations(
            deployment, new, new_revision, exists=False, surge=rollout.max_surge(deployment)
        )
        already_existed = False
        try:
            created = await self.client.create(REPLICA_SET, new)
        except errors.AlreadyExists:
            existing = self.client.get(REPLICA_SET, new["metadata"]["name"], namespace=meta["namespace"])
            if (
                existing is None
                or not ownership.controlled_by(existing, meta["uid"])
                or not equal_ignoring_hash(existing["spec"]["template"], deployment["spec"]["template"])
            ):
                await self._count_collision(deployment)
                raise
            created, already_existed = existing, True
        if not already_existed and rollout.spec_replicas(created) > 0:
            await self.events.record(
                deployment,
                DEPLOYMENT,
                NORMAL,
                "ScalingReplicaSet",
                f"Scaled up replica set {created['metadata']['name']} "
                f"from 0 to {rollout.spec_replicas(created)}",
            )
        deployment = await self._set_revision(deployment, new_revision)
        if not already_existed and deploymentstatus.has_progress_deadline(deployment):
            message = f'Created new replica set "{created["metadata"]["name"]}"'
            deployment = await self._set_progressing(
                deployment, deploymentstatus.NEW_REPLICA_SET_CREATED, message
            )
        return deployment, created, old

    async def _count_collision(self, deployment: Deployment) -> None:
        def change(obj: dict[str, Any]) -> None:
            status = obj.setdefault("status", {})
            status["collisionCount"] = int(status.get("collisionCount") or 0) + 1

        meta = deployment["metadata"]
        await self.client.mutate(
            DEPLOYMENT, meta["name"], change, namespace=meta["namespace"], subresource="status"
        )

    async def _scale(
        self,
        replica_set: ReplicaSet,
        size: int,
        deployment: Deployment,
        *,
        refresh_annotations: bool = False,
        operation: str = "",
    ) -> bool:
        """Resize a ReplicaSet, refreshing its replicas annotations; whether its size changed.

        At an unchanged size nothing is written unless `refresh_annotations` (proportional scaling).
        """
        desired = rollout.desired_replicas(deployment)
        maximum = desired + rollout.max_surge(deployment)
        current = rollout.spec_replicas(replica_set)
        stale = revisions.replicas_annotations_stale(replica_set, desired, maximum)
        if current == size and not (refresh_annotations and stale):
            return False
        updated = copy_object(replica_set)
        updated["spec"]["replicas"] = size
        annotations = revisions.annotations_of(updated)
        revisions.set_replicas_annotations(annotations, desired, maximum)
        updated["metadata"]["annotations"] = annotations
        await self.client.update(REPLICA_SET, updated)
        if current == size:
            return False
        operation = operation or ("up" if current < size else "down")
        await self.events.record(
            deployment,
            DEPLOYMENT,
            NORMAL,
            "ScalingReplicaSet",
            f"Scaled {operation} replica set {replica_set['metadata']['name']} from {current} to {size}",
        )
        log.info(
            "deployment.scaled",
            namespace=replica_set["metadata"]["namespace"],
            replica_set=replica_set["metadata"]["name"],
            replicas=size,
        )
        return True

    async def _is_scaling_event(self, deployment: Deployment) -> bool:
        _, new, old = await self._replica_sets_and_revision(deployment, create=False)
        return rollout.is_scaling_event(deployment, [*old, new])

    def _old_pods_running(
        self, deployment: Deployment, new: ReplicaSet | None, old: list[ReplicaSet]
    ) -> bool:
        if rollout.total_status(old, "replicas") > 0:
            return True
        namespace = deployment["metadata"]["namespace"]
        return any(
            (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
            for rs in old
            for pod in self.client.controlled_by(POD, rs["metadata"]["uid"], namespace=namespace)
        )

    async def _cleanup(self, deployment: Deployment, old: list[ReplicaSet], new: ReplicaSet | None) -> None:
        """Delete the oldest scaled-down ReplicaSets beyond `revisionHistoryLimit`."""
        for replica_set in revisions.surplus_history(deployment, old, new):
            meta = replica_set["metadata"]
            await self.client.delete(REPLICA_SET, meta["name"], namespace=meta["namespace"], uid=meta["uid"])
            log.info("deployment.history_cleaned", namespace=meta["namespace"], replica_set=meta["name"])

    # -- the Deployment's own writes -------------------------------------------------------------

    async def _set_revision(self, deployment: Deployment, revision: int) -> Deployment:
        if revisions.annotations_of(deployment).get(revisions.REVISION) == str(revision):
            return deployment
        updated = copy_object(deployment)
        updated["metadata"].setdefault("annotations", {})[revisions.REVISION] = str(revision)
        return await self.client.update(DEPLOYMENT, updated)

    async def _set_progressing(self, deployment: Deployment, reason: str, message: str) -> Deployment:
        condition = conditions.deployment_condition(
            deploymentstatus.PROGRESSING, "True", reason, message, self.clock.now()
        )
        return await self._write_conditions(deployment, condition)

    async def _write_conditions(self, deployment: Deployment, condition: dict[str, Any]) -> Deployment:
        updated = copy_object(deployment)
        status = updated.setdefault("status", {})
        status["conditions"] = set_workload_condition(status.get("conditions"), condition)
        if status == (deployment.get("status") or {}):
            return deployment
        return await self.client.update(DEPLOYMENT, updated, subresource="status")

    async def _check_paused_conditions(self, deployment: Deployment) -> Deployment:
        if not deploymentstatus.has_progress_deadline(deployment):
            return deployment
        current = find_condition(
            (deployment.get("status") or {}).get("conditions"), deploymentstatus.PROGRESSING
        )
        if current is not None and current.get("reason") == deploymentstatus.PROGRESS_DEADLINE_EXCEEDED:
            return deployment
        paused_recorded = current is not None and current.get("reason") == deploymentstatus.PAUSED
        paused = bool(deployment["spec"].get("paused"))
        if paused == paused_recorded:
            return deployment
        reason, message = (
            (deploymentstatus.PAUSED, "Deployment is paused")
            if paused
            else (deploymentstatus.RESUMED, "Deployment is resumed")
        )
        condition = conditions.deployment_condition(
            deploymentstatus.PROGRESSING, "Unknown", reason, message, self.clock.now()
        )
        return await self._write_conditions(deployment, condition)

    async def _sync_status(
        self, deployment: Deployment, all_sets: list[ReplicaSet | None], new: ReplicaSet | None
    ) -> None:
        status = deploymentstatus.calculate_status(deployment, all_sets, new, self.clock.now())
        if status != (deployment.get("status") or {}):
            await self.client.update(DEPLOYMENT, {**deployment, "status": status}, subresource="status")

    async def _sync_rollout_status(self, deployment: Deployment) -> float | None:
        current = self.client.get(
            DEPLOYMENT, deployment["metadata"]["name"], namespace=deployment["metadata"]["namespace"]
        )
        if current is None:
            return None
        owned = self._owned(current)
        new = next(
            (rs for rs in owned if equal_ignoring_hash(rs["spec"]["template"], current["spec"]["template"])),
            None,
        )
        now = self.clock.now()
        status = deploymentstatus.rollout_status(current, owned, new, now)
        if status == (current.get("status") or {}):
            return deploymentstatus.progress_recheck(current, status, now)
        await self.client.update(DEPLOYMENT, {**current, "status": status}, subresource="status")
        return None


def _selects(deployment: Deployment, labels: dict[str, str]) -> bool:
    try:
        selector = label_selector_from_object(deployment["spec"].get("selector"))
    except SelectorError:
        return False
    return not selector.empty and selector.matches(labels)


def _progressing(deployment: Deployment) -> bool:
    found = find_condition((deployment.get("status") or {}).get("conditions"), deploymentstatus.PROGRESSING)
    return found is not None
