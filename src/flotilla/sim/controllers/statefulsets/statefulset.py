"""The StatefulSet controller: pods with stable names and storage, created and replaced in order.

Pods are `<set>-<ordinal>` for ordinals from `spec.ordinals.start` (0), made from the template of
a ControllerRevision (`podowners/history.py`) with a stable identity and storage (`statefulpods.py`). Each
reconcile follows kube's `updateStatefulSet`:

- with `OrderedReady` (the default) it creates one missing pod at a time and waits until every
  pod before it is Running and Ready (and available for `minReadySeconds`); with `Parallel` it
  creates them all at once;
- pods past the replica count are deleted from the highest ordinal down, one at a time when ordered;
- a finished (Succeeded/Failed) pod is deleted and created again;
- the RollingUpdate strategy deletes, from the highest ordinal down to `partition`, one pod at a
  time whose revision is not the update revision, waiting for each replacement to be healthy;
  OnDelete leaves that to the user.

Then the status is recomputed from the pods, and revisions no pod uses beyond
`revisionHistoryLimit` are deleted.
"""

from __future__ import annotations

from typing import Any

import structlog

from flotilla.api.objectkeys import ObjectKey
from flotilla.api.objects import copy_object
from flotilla.api.selectors import SelectorError, label_selector_from_object
from flotilla.apiserver import errors
from flotilla.runtime.controller import TerminalError
from flotilla.sim.controllers.framework.controller import SimController
from flotilla.sim.controllers.framework.events import NORMAL, WARNING
from flotilla.sim.controllers.framework.kinds import PERSISTENT_VOLUME_CLAIM, POD, STATEFUL_SET
from flotilla.sim.controllers.podowners import ownership, pods
from flotilla.sim.controllers.podowners.history import RevisionHistory, template_of
from flotilla.sim.controllers.statefulsets.statefulpods import (
    POD_INDEX_LABEL,
    POD_NAME_LABEL,
    REVISION_HASH_LABEL,
    Pod,
    claim_name,
    is_healthy,
    is_running_and_ready,
    ordinal_of,
    revision_of,
    start_ordinal,
    stateful_pod,
    stateful_set_status,
)

log = structlog.get_logger("flotilla.sim.controllers")


class StatefulSetController(SimController):
    NAME = "statefulset-controller"
    KIND = STATEFUL_SET

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.history = RevisionHistory(self.client, STATEFUL_SET, REVISION_HASH_LABEL)

    def watch(self) -> None:
        self.watch_kind(POD, self._pod_keys)

    def _pod_keys(self, pod: Pod) -> list[ObjectKey]:
        owner = ownership.controller_name(pod, STATEFUL_SET)
        return [ObjectKey(pod["metadata"].get("namespace", ""), owner)] if owner else []

    async def reconcile(self, key: ObjectKey) -> float | None:
        namespace, name = key.namespace, key.name
        stateful_set = self.client.get(STATEFUL_SET, name, namespace=namespace)
        if stateful_set is None:
            return None
        try:
            selector = label_selector_from_object(stateful_set["spec"].get("selector"))
        except SelectorError as exc:
            raise TerminalError(f"invalid selector: {exc}") from exc
        candidates = [
            pod
            for pod in self.client.claim_candidates(POD, stateful_set["metadata"]["uid"], namespace=namespace)
            if ordinal_of(pod, name) is not None
        ]
        claimed = ownership.claim(candidates, stateful_set, selector.matches)
        await self._adopt_and_release(stateful_set, claimed)
        revisions = await self.history.ensure_update_revision(stateful_set)
        update = revisions.update
        current = next(
            (
                r
                for r in revisions.all
                if r["metadata"]["name"] == (stateful_set.get("status") or {}).get("currentRevision")
            ),
            update,
        )
        if not stateful_set["metadata"].get("deletionTimestamp"):
            await self._update_pods(stateful_set, self._owned(stateful_set), current, update)
        owned = self._owned(stateful_set)
        status = stateful_set_status(
            stateful_set,
            owned,
            current["metadata"]["name"],
            update["metadata"]["name"],
            revisions.collision_count,
            self.clock.now(),
        )
        if status != (stateful_set.get("status") or {}):
            await self.client.update(STATEFUL_SET, {**stateful_set, "status": status}, subresource="status")
        live = {current["metadata"]["name"], update["metadata"]["name"]} | {revision_of(pod) for pod in owned}
        await self.history.truncate(stateful_set, live)
        return self._availability_recheck(stateful_set, owned)

    def _owned(self, stateful_set: dict[str, Any]) -> list[Pod]:
        meta = stateful_set["metadata"]
        return self.client.controlled_by(POD, meta["uid"], namespace=meta["namespace"])

    async def _adopt_and_release(self, stateful_set: dict[str, Any], claimed: ownership.Claim) -> None:
        reference = ownership.controller_reference(stateful_set, STATEFUL_SET)
        uid = stateful_set["metadata"]["uid"]
        for pod in claimed.adopt:
            await self.client.mutate(
                POD,
                pod["metadata"]["name"],
                lambda o: ownership.with_controller(o, reference),
                namespace=pod["metadata"]["namespace"],
            )
        for pod in claimed.release:
            await self.client.mutate(
                POD,
                pod["metadata"]["name"],
                lambda o: ownership.without_owner(o, uid),
                namespace=pod["metadata"]["namespace"],
            )

    # -- the ordered walk -----------------------------------------------------------------------

    async def _update_pods(
        self, stateful_set: dict[str, Any], owned: list[Pod], current: dict[str, Any], update: dict[str, Any]
    ) -> None:
        spec = stateful_set["spec"]
        name = stateful_set["metadata"]["name"]
        start, count = start_ordinal(stateful_set), int(spec.get("replicas", 1))
        ordered = spec.get("podManagementPolicy", "OrderedReady") != "Parallel"
        min_ready = int(spec.get("minReadySeconds") or 0)
        now = self.clock.now()
        replicas: dict[int, Pod] = {}
        condemned: list[Pod] = []
        for pod in owned:
            ordinal = ordinal_of(pod, name)
            if ordinal is not None and start <= ordinal < start + count:
                replicas[ordinal] = pod
            else:
                condemned.append(pod)
        condemned.sort(key=lambda pod: ordinal_of(pod, name) or 0, reverse=True)
        walk = [replicas.get(ordinal) for ordinal in range(start, start + count)]
        first_unhealthy = next(
            (pod for pod in [*walk, *condemned] if pod is not None and not is_healthy(pod)), None
        )
        for offset, replica in enumerate(walk):
            ordinal = start + offset
            if replica is not None and pods.is_finished(replica) and not pods.is_terminating(replica):
                await self._delete_pod(stateful_set, replica)
                if ordered:
                    return
                continue
            if replica is None or pods.is_finished(replica):
                if replica is None:
                    await self._create_pod(stateful_set, ordinal, current, update)
                if ordered:
                    return
                continue
            if ordered and (pods.is_terminating(replica) or not is_running_and_ready(replica)):
                return
            if ordered and not pods.is_available(replica, min_ready, now):
                return
            if not pods.is_terminating(replica):
                await self._fix_identity(replica, ordinal)
        for pod in condemned:
            if pods.is_terminating(pod):
                if ordered:
                    return
                continue
            running_and_available = is_running_and_ready(pod) and pods.is_available(pod, min_ready, now)
            if ordered and not running_and_available and pod is not first_unhealthy:
                return
            await self._delete_pod(stateful_set, pod)
            if ordered:
                return
        strategy = spec.get("updateStrategy") or {}
        if strategy.get("type", "RollingUpdate") != "RollingUpdate":
            return
        partition = int((strategy.get("rollingUpdate") or {}).get("partition") or 0)
        update_name = update["metadata"]["name"]
        for ordinal in range(start + count - 1, start + partition - 1, -1):
            target = replicas.get(ordinal)
            if target is None:
                return
            if revision_of(target) != update_name and not pods.is_terminating(target):
                await self._delete_pod(stateful_set, target)
                return
            if not is_healthy(target):
                return

    async def _create_pod(
        self, stateful_set: dict[str, Any], ordinal: int, current: dict[str, Any], update: dict[str, Any]
    ) -> None:
        strategy = stateful_set["spec"].get("updateStrategy") or {}
        partition = (strategy.get("rollingUpdate") or {}).get("partition")
        use_current = (
            strategy.get("type", "RollingUpdate") == "RollingUpdate"
            and partition is not None
            and (ordinal < start_ordinal(stateful_set) + int(partition))
        )
        revision = current if use_current else update
        pod = stateful_pod(stateful_set, template_of(revision), revision["metadata"]["name"], ordinal)
        await self._create_claims(stateful_set, pod)
        set_name = stateful_set["metadata"]["name"]
        try:
            await self.client.create(POD, pod)
        except errors.AlreadyExists:
            return  # a pod of that name is still being deleted; its deletion brings us back
        except errors.APIError as exc:
            await self.events.record(
                stateful_set,
                STATEFUL_SET,
                WARNING,
                "FailedCreate",
                f"create Pod {pod['metadata']['name']} in StatefulSet {set_name} failed error: {exc}",
            )
            raise
        await self.events.record(
            stateful_set,
            STATEFUL_SET,
            NORMAL,
            "SuccessfulCreate",
            f"create Pod {pod['metadata']['name']} in StatefulSet {set_name} successful",
        )

    async def _create_claims(self, stateful_set: dict[str, Any], pod: Pod) -> None:
        pod_name = pod["metadata"]["name"]
        namespace = stateful_set["metadata"]["namespace"]
        selector_labels = (stateful_set["spec"].get("selector") or {}).get("matchLabels") or {}
        for template in stateful_set["spec"].get("volumeClaimTemplates") or []:
            name = claim_name(template, pod_name)
            if self.client.peek(PERSISTENT_VOLUME_CLAIM, name, namespace=namespace) is not None:
                continue
            claim_meta = copy_object(template.get("metadata") or {})
            claim_meta.update(name=name, namespace=namespace)
            claim_meta["labels"] = {**(claim_meta.get("labels") or {}), **selector_labels}
            claim = {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": claim_meta,
                "spec": copy_object(template.get("spec") or {}),
            }
            try:
                await self.client.create(PERSISTENT_VOLUME_CLAIM, claim)
            except errors.AlreadyExists:
                continue
            await self.events.record(
                stateful_set,
                STATEFUL_SET,
                NORMAL,
                "SuccessfulCreate",
                f"create Claim {name} Pod {pod_name} in StatefulSet "
                f"{stateful_set['metadata']['name']} success",
            )

    async def _delete_pod(self, stateful_set: dict[str, Any], pod: Pod) -> None:
        meta = pod["metadata"]
        try:
            await self.client.delete(POD, meta["name"], namespace=meta["namespace"], uid=meta["uid"])
        except errors.Conflict:
            return
        await self.events.record(
            stateful_set,
            STATEFUL_SET,
            NORMAL,
            "SuccessfulDelete",
            f"delete Pod {meta['name']} in StatefulSet {stateful_set['metadata']['name']} successful",
        )
        log.info("statefulset.pod_deleted", namespace=meta["namespace"], pod=meta["name"])

    async def _fix_identity(self, pod: Pod, ordinal: int) -> None:
        """Restore the identity labels of a pod someone relabelled (kube's `updateIdentity`)."""
        name = pod["metadata"]["name"]
        wanted = {POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal)}
        labels = pod["metadata"].get("labels") or {}
        if all(labels.get(key) == value for key, value in wanted.items()):
            return

        def change(obj: dict[str, Any]) -> None:
            obj["metadata"]["labels"] = {**(obj["metadata"].get("labels") or {}), **wanted}

        await self.client.mutate(POD, name, change, namespace=pod["metadata"]["namespace"])

    def _availability_recheck(self, stateful_set: dict[str, Any], owned: list[Pod]) -> float | None:
        min_ready = int(stateful_set["spec"].get("minReadySeconds") or 0)
        if min_ready <= 0:
            return None
        now = self.clock.now()
        waits = [pods.seconds_to_availability(pod, min_ready, now) for pod in owned]
        pending = [wait for wait in waits if wait]
        return min(pending) if pending else None
