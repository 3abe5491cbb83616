"""The ReplicaSet controller: as many active pods as `spec.replicas`, and their counts in status.

Each reconcile lists the namespace's active pods, claims those the ReplicaSet's selector picks
(adopting orphans, releasing pods that no longer match), then creates pods from the template
(`generateName: <replicaset>-`, owned by it) or deletes the surplus in kube's order (unscheduled,
pending, not ready, newest first). Creations go in slow-start batches of 1, 2, 4… and stop at the
first failure, as in kube, which records a `ReplicaFailure` condition. Status counts the pods
seen at the start: replicas, fullyLabeledReplicas (carrying every template label),
readyReplicas, availableReplicas (ready for `minReadySeconds`; the key is looked at again when
the last of them should become available) and observedGeneration.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import structlog

from flotilla.api.conditions import find_condition, set_workload_condition
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.objects import controller_of
from flotilla.api.selectors import SelectorError, label_selector_from_object, label_selector_from_set
from flotilla.apiserver import errors
from flotilla.runtime.controller import TerminalError
from flotilla.sim.controllers.framework.controller import SimController
from flotilla.sim.controllers.framework.events import NORMAL, WARNING
from flotilla.sim.controllers.framework.kinds import POD, REPLICA_SET
from flotilla.sim.controllers.framework.slowstart import slow_start
from flotilla.sim.controllers.podowners import conditions, ownership, pods
from flotilla.sim.controllers.podowners.podtemplates import generate_name_prefix, pod_from_template

log = structlog.get_logger("flotilla.sim.controllers")

BURST_REPLICAS = 500
"""Most pods created or deleted in one reconcile (kube's `burstReplicas`)."""
REPLICA_FAILURE = "ReplicaFailure"


class ReplicaSetController(SimController):
    NAME = "replicaset-controller"
    KIND = REPLICA_SET

    def watch(self) -> None:
        self.watch_kind(POD, self._pod_keys)

    def _pod_keys(self, pod: dict[str, Any]) -> list[ObjectKey]:
        namespace = pod["metadata"].get("namespace", "")
        owner = ownership.controller_name(pod, REPLICA_SET)
        if owner:
            return [ObjectKey(namespace, owner)]
        if controller_of(pod) is not None or not pods.is_active(pod):
            return []
        labels = pod["metadata"].get("labels") or {}
        return [
            ObjectKey(namespace, rs["metadata"]["name"])
            for rs in self.client.list(REPLICA_SET, namespace=namespace)
            if _selects(rs, labels)
        ]

    async def reconcile(self, key: ObjectKey) -> float | None:
        namespace, name = key.namespace, key.name
        replica_set = self.client.get(REPLICA_SET, name, namespace=namespace)
        if replica_set is None:
            return None
        try:
            selector = label_selector_from_object(replica_set["spec"].get("selector"))
        except SelectorError as exc:
            raise TerminalError(f"invalid selector: {exc}") from exc
        uid = replica_set["metadata"]["uid"]
        candidates = [
            pod for pod in self.client.claim_candidates(POD, uid, namespace=namespace) if pods.is_active(pod)
        ]
        claimed = ownership.claim(candidates, replica_set, selector.matches)
        await self._adopt_and_release(replica_set, claimed)
        active = claimed.owned
        failure: Exception | None = None
        if not replica_set["metadata"].get("deletionTimestamp"):
            try:
                await self._manage_replicas(replica_set, active)
            except errors.APIError as exc:
                failure = exc
        await self._update_status(replica_set, active, failure)
        if failure is not None:
            raise failure
        return self._availability_recheck(replica_set, active)

    # -- pods -----------------------------------------------------------------------------------

    async def _adopt_and_release(self, replica_set: dict[str, Any], claimed: ownership.Claim) -> None:
        reference = ownership.controller_reference(replica_set, REPLICA_SET)
        uid = replica_set["metadata"]["uid"]
        for pod in claimed.adopt:
            await self._change_pod(pod, lambda obj: ownership.with_controller(obj, reference))
        for pod in claimed.release:
            await self._change_pod(pod, lambda obj: ownership.without_owner(obj, uid))

    async def _change_pod(self, pod: dict[str, Any], change: Any) -> None:
        meta = pod["metadata"]
        try:
            await self.client.mutate(POD, meta["name"], change, namespace=meta["namespace"])
        except errors.NotFound:
            return

    async def _manage_replicas(self, replica_set: dict[str, Any], active: list[dict[str, Any]]) -> None:
        wanted = int(replica_set["spec"].get("replicas", 1))
        difference = len(active) - wanted
        if difference < 0:
            await self._create_pods(replica_set, min(-difference, BURST_REPLICAS))
        elif difference > 0:
            await self._delete_pods(replica_set, active, min(difference, BURST_REPLICAS))

    async def _create_pods(self, replica_set: dict[str, Any], count: int) -> None:
        meta = replica_set["metadata"]
        reference = ownership.controller_reference(replica_set, REPLICA_SET)
        template = replica_set["spec"]["template"]

        async def create_one() -> None:
            pod = pod_from_template(
                template,
                namespace=meta["namespace"],
                owner_reference=reference,
                generate_name=generate_name_prefix(meta["name"]),
            )
            try:
                created = await self.client.create(POD, pod)
            except errors.APIError as exc:
                await self.events.record(
                    replica_set, REPLICA_SET, WARNING, "FailedCreate", f"Error creating: {exc}"
                )
                raise
            await self.events.record(
                replica_set,
                REPLICA_SET,
                NORMAL,
                "SuccessfulCreate",
                f"Created pod: {created['metadata']['name']}",
            )

        created = await slow_start(count, create_one)
        log.info("replicaset.pods_created", namespace=meta["namespace"], name=meta["name"], count=created)

    async def _delete_pods(
        self, replica_set: dict[str, Any], active: list[dict[str, Any]], count: int
    ) -> None:
        meta = replica_set["metadata"]
        victims = active if count >= len(active) else pods.deletion_order(active, self.clock.now())[:count]
        for pod in victims:
            pod_name = pod["metadata"]["name"]
            try:
                await self.client.delete(
                    POD, pod_name, namespace=meta["namespace"], uid=pod["metadata"]["uid"]
                )
            except errors.Conflict:
                continue  # replaced since we looked: the next reconcile judges the new one
            await self.events.record(
                replica_set, REPLICA_SET, NORMAL, "SuccessfulDelete", f"Deleted pod: {pod_name}"
            )
        log.info(
            "replicaset.pods_deleted", namespace=meta["namespace"], name=meta["name"], count=len(victims)
        )

    # -- status ---------------------------------------------------------------------------------

    async def _update_status(
        self, replica_set: dict[str, Any], active: list[dict[str, Any]], failure: Exception | None
    ) -> None:
        status = replica_set_status(replica_set, active, failure, self.clock.now())
        if status == (replica_set.get("status") or {}):
            return
        updated = dict(replica_set)
        updated["status"] = status
        await self.client.update(REPLICA_SET, updated, subresource="status")

    def _availability_recheck(
        self, replica_set: dict[str, Any], active: list[dict[str, Any]]
    ) -> float | None:
        min_ready = int(replica_set["spec"].get("minReadySeconds") or 0)
        if min_ready <= 0:
            return None
        now = self.clock.now()
        waits = [pods.seconds_to_availability(pod, min_ready, now) for pod in active]
        pending = [wait for wait in waits if wait]
        return min(pending) if pending else None


def _selects(replica_set: dict[str, Any], labels: dict[str, str]) -> bool:
    try:
        selector = label_selector_from_object(replica_set["spec"].get("selector"))
    except SelectorError:
        return False
    return not selector.empty and selector.matches(labels)


def replica_set_status(
    replica_set: dict[str, Any], active: list[dict[str, Any]], failure: Exception | None, now: datetime
) -> dict[str, Any]:
    """The status a ReplicaSet should have for these active pods (kube's `calculateStatus`)."""
    previous = replica_set.get("status") or {}
    template_labels = label_selector_from_set(
        (replica_set["spec"]["template"].get("metadata") or {}).get("labels")
    )
    min_ready = int(replica_set["spec"].get("minReadySeconds") or 0)
    fully_labeled = sum(1 for pod in active if template_labels.matches(pod["metadata"].get("labels") or {}))
    ready = [pod for pod in active if pods.is_ready(pod)]
    available = sum(1 for pod in ready if pods.is_available(pod, min_ready, now))
    status_conditions = [dict(c) for c in previous.get("conditions") or ()]
    has_failure = find_condition(status_conditions, REPLICA_FAILURE) is not None
    if failure is not None and not has_failure:
        wanted = int(replica_set["spec"].get("replicas", 1))
        reason = "FailedCreate" if len(active) < wanted else "FailedDelete"
        status_conditions = set_workload_condition(
            status_conditions,
            conditions.replica_set_condition(REPLICA_FAILURE, "True", reason, str(failure), now),
        )
    elif failure is None and has_failure:
        status_conditions = conditions.without(status_conditions, REPLICA_FAILURE)
    status: dict[str, Any] = {"replicas": len(active)}
    # kube leaves out the counts that are zero (`omitempty`); clients read them as absent.
    optional = {
        "fullyLabeledReplicas": fully_labeled,
        "readyReplicas": len(ready),
        "availableReplicas": available,
        "observedGeneration": replica_set["metadata"].get("generation", 1),
    }
    status.update({field: value for field, value in optional.items() if value})
    if status_conditions:
        status["conditions"] = status_conditions
    return status
