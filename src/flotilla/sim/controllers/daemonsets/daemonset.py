"""The DaemonSet controller: one pod on every node that should run it, rolled node by node.

A node should run the DaemonSet's pod when it matches the template's node selector and required
node affinity and tolerates its NoSchedule/NoExecute taints (`nodeplacement.py`); daemon pods
tolerate the not-ready, unreachable, pressure and unschedulable taints, so cordoned and unready
nodes keep theirs. Like kube, the controller does not bind: each pod is pinned to its node by a
required node affinity on `metadata.name` and the scheduler binds it (`daemonpods.py`). Each
reconcile:

- creates a pod (`generateName: <daemonset>-`, labelled with the template's revision hash) on each
  node that should run one and has none; deletes pods from nodes that may not keep them, finished
  pods, and all but the oldest when a node has several;
- rolls a new template out with RollingUpdate, within `maxUnavailable` or `maxSurge`
  (`rollout.py`);
- records status: desiredNumberScheduled, currentNumberScheduled, numberMisscheduled,
  numberReady, numberAvailable, numberUnavailable, updatedNumberScheduled, observedGeneration.

Template history is kept as ControllerRevisions (`podowners/history.py`); the pods' `controller-revision-hash`
label holds the hash.
"""

from __future__ import annotations

from typing import Any

import structlog

from flotilla.api.objectkeys import ObjectKey
from flotilla.api.objects import copy_object
from flotilla.api.selectors import SelectorError, label_selector_from_object
from flotilla.apiserver import errors
from flotilla.apiserver.localclient import CacheEvent
from flotilla.runtime.controller import TerminalError
from flotilla.sim.controllers.daemonsets import nodeplacement, rollout
from flotilla.sim.controllers.daemonsets.daemonpods import (
    BURST_REPLICAS,
    REVISION_LABEL,
    TEMPLATE_GENERATION_ANNOTATION,
    TEMPLATE_GENERATION_LABEL,
    Pod,
    daemon_pod_spec,
    daemon_set_status,
    oldest_first,
    pin_to_node,
    target_node,
)
from flotilla.sim.controllers.framework.controller import SimController
from flotilla.sim.controllers.framework.events import NORMAL, WARNING
from flotilla.sim.controllers.framework.kinds import DAEMON_SET, NODE, POD
from flotilla.sim.controllers.framework.slowstart import slow_start
from flotilla.sim.controllers.podowners import ownership, pods
from flotilla.sim.controllers.podowners.history import RevisionHistory, revision_name
from flotilla.sim.controllers.podowners.podtemplates import generate_name_prefix, pod_from_template

log = structlog.get_logger("flotilla.sim.controllers")


class DaemonSetController(SimController):
    NAME = "daemonset-controller"
    KIND = DAEMON_SET

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.history = RevisionHistory(self.client, DAEMON_SET, REVISION_LABEL)

    def watch(self) -> None:
        self.watch_kind(POD, self._pod_keys)
        self.client.on_change(NODE, self._on_node_change)

    def _pod_keys(self, pod: Pod) -> list[ObjectKey]:
        owner = ownership.controller_name(pod, DAEMON_SET)
        return [ObjectKey(pod["metadata"].get("namespace", ""), owner)] if owner else []

    def _on_node_change(self, event: CacheEvent) -> None:
        # Heartbeats change only a node's status: they cannot change where daemons run.
        if event.prev is not None and event.type == "MODIFIED":
            before, after = event.prev.obj, event.object.obj
            if before.get("spec") == after.get("spec") and before["metadata"].get("labels") == after[
                "metadata"
            ].get("labels"):
                return
        for daemon_set in self.client.list(DAEMON_SET):
            self.enqueue(ObjectKey.of(daemon_set))

    async def reconcile(self, key: ObjectKey) -> float | None:
        namespace, name = key.namespace, key.name
        daemon_set = self.client.get(DAEMON_SET, name, namespace=namespace)
        if daemon_set is None:
            return None
        try:
            selector = label_selector_from_object(daemon_set["spec"].get("selector"))
        except SelectorError as exc:
            raise TerminalError(f"invalid selector: {exc}") from exc
        candidates = self.client.claim_candidates(POD, daemon_set["metadata"]["uid"], namespace=namespace)
        claimed = ownership.claim(candidates, daemon_set, selector.matches)
        await self._adopt_and_release(daemon_set, claimed)
        revisions = await self.history.ensure_update_revision(daemon_set)
        revision_hash = str(revisions.update["metadata"]["labels"][REVISION_LABEL])
        nodes = sorted(self.client.list(NODE), key=lambda node: node["metadata"]["name"])
        if not daemon_set["metadata"].get("deletionTimestamp"):
            await self._manage(daemon_set, nodes, revision_hash)
            if (daemon_set["spec"].get("updateStrategy") or {}).get(
                "type", "RollingUpdate"
            ) == "RollingUpdate":
                await self._rolling_update(daemon_set, nodes, revision_hash)
        by_node = self._pods_by_node(daemon_set)
        live = {revisions.update["metadata"]["name"]}
        live |= {
            revision_name(name, pod["metadata"]["labels"][REVISION_LABEL])
            for node_pods in by_node.values()
            for pod in node_pods
            if REVISION_LABEL in (pod["metadata"].get("labels") or {})
        }
        await self.history.truncate(daemon_set, live)
        now = self.clock.now()
        status = daemon_set_status(daemon_set, nodes, by_node, revision_hash, revisions.collision_count, now)
        if status != (daemon_set.get("status") or {}):
            await self.client.update(DAEMON_SET, {**daemon_set, "status": status}, subresource="status")
        min_ready = int(daemon_set["spec"].get("minReadySeconds") or 0)
        if min_ready > 0 and status.get("numberReady", 0) != status.get("numberAvailable", 0):
            return float(min_ready)
        return None

    def _owned(self, daemon_set: dict[str, Any]) -> list[Pod]:
        meta = daemon_set["metadata"]
        return self.client.controlled_by(POD, meta["uid"], namespace=meta["namespace"])

    def _pods_by_node(self, daemon_set: dict[str, Any]) -> dict[str, list[Pod]]:
        """Daemon pods by the node they are for (finished pods being deleted left out)."""
        by_node: dict[str, list[Pod]] = {}
        for pod in self._owned(daemon_set):
            if pods.is_finished(pod) and pods.is_terminating(pod):
                continue
            node = target_node(pod)
            if node:
                by_node.setdefault(node, []).append(pod)
        return by_node

    async def _adopt_and_release(self, daemon_set: dict[str, Any], claimed: ownership.Claim) -> None:
        reference = ownership.controller_reference(daemon_set, DAEMON_SET)
        uid = daemon_set["metadata"]["uid"]
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

    # -- placing pods ---------------------------------------------------------------------------

    async def _manage(
        self, daemon_set: dict[str, Any], nodes: list[dict[str, Any]], revision_hash: str
    ) -> None:
        spec = daemon_pod_spec(daemon_set["spec"]["template"].get("spec") or {})
        surge = rollout.max_surge(daemon_set, len(nodes)) > 0
        by_node = self._pods_by_node(daemon_set)
        needing: list[str] = []
        to_delete: list[Pod] = []
        for node in nodes:
            node_name = node["metadata"]["name"]
            run, keep = nodeplacement.should_run(spec, node)
            node_pods = by_node.get(node_name, [])
            if run and not node_pods:
                needing.append(node_name)
            elif keep:
                running = []
                for pod in node_pods:
                    if pods.is_terminating(pod):
                        continue
                    if pods.is_finished(pod):
                        to_delete.append(pod)
                    else:
                        running.append(pod)
                if len(running) > 1 and not surge:
                    to_delete.extend(oldest_first(running)[1:])
            else:
                to_delete.extend(pod for pod in node_pods if not pods.is_terminating(pod))
        known = {node["metadata"]["name"] for node in nodes}
        for pod in self._owned(daemon_set):
            if not pods.node_name(pod) and target_node(pod) not in known and not pods.is_terminating(pod):
                to_delete.append(pod)
        await self._sync_nodes(daemon_set, to_delete, needing, revision_hash)

    async def _sync_nodes(
        self, daemon_set: dict[str, Any], to_delete: list[Pod], needing: list[str], revision_hash: str
    ) -> None:
        meta = daemon_set["metadata"]
        template = copy_object(daemon_set["spec"]["template"])
        template["spec"] = daemon_pod_spec(template.get("spec") or {})
        labels = {REVISION_LABEL: revision_hash}
        generation = (meta.get("annotations") or {}).get(TEMPLATE_GENERATION_ANNOTATION)
        if generation is not None:
            labels[TEMPLATE_GENERATION_LABEL] = generation
        reference = ownership.controller_reference(daemon_set, DAEMON_SET)
        queue = list(needing[:BURST_REPLICAS])

        async def create_one() -> None:
            node_name = queue.pop(0)
            pod = pod_from_template(
                template,
                namespace=meta["namespace"],
                owner_reference=reference,
                generate_name=generate_name_prefix(meta["name"]),
                labels=labels,
            )
            pin_to_node(pod["spec"], node_name)
            try:
                created = await self.client.create(POD, pod)
            except errors.APIError as exc:
                await self.events.record(
                    daemon_set, DAEMON_SET, WARNING, "FailedCreate", f"Error creating: {exc}"
                )
                raise
            await self.events.record(
                daemon_set,
                DAEMON_SET,
                NORMAL,
                "SuccessfulCreate",
                f"Created pod: {created['metadata']['name']}",
            )

        await slow_start(len(queue), create_one)
        for pod in to_delete[:BURST_REPLICAS]:
            pod_name = pod["metadata"]["name"]
            try:
                await self.client.delete(
                    POD, pod_name, namespace=meta["namespace"], uid=pod["metadata"]["uid"]
                )
            except errors.Conflict:
                continue
            await self.events.record(
                daemon_set, DAEMON_SET, NORMAL, "SuccessfulDelete", f"Deleted pod: {pod_name}"
            )
        if needing or to_delete:
            log.info(
                "daemonset.synced",
                namespace=meta["namespace"],
                name=meta["name"],
                created=len(needing),
                deleted=len(to_delete),
            )

    # -- rolling update -------------------------------------------------------------------------

    async def _rolling_update(
        self, daemon_set: dict[str, Any], nodes: list[dict[str, Any]], revision_hash: str
    ) -> None:
        spec = daemon_pod_spec(daemon_set["spec"]["template"].get("spec") or {})
        by_node = self._pods_by_node(daemon_set)
        desired = [node["metadata"]["name"] for node in nodes if nodeplacement.should_run(spec, node)[0]]
        for node_name in desired:
            by_node.setdefault(node_name, [])
        max_surge = rollout.max_surge(daemon_set, len(desired))
        max_unavailable = rollout.max_unavailable(daemon_set, len(desired))
        if desired and max_surge == 0 and max_unavailable == 0:
            max_unavailable = 1
        generation = (daemon_set["metadata"].get("annotations") or {}).get(TEMPLATE_GENERATION_ANNOTATION)
        min_ready = int(daemon_set["spec"].get("minReadySeconds") or 0)
        now = self.clock.now()
        plan = (
            rollout.surge_plan(by_node, revision_hash, generation, min_ready, now, max_surge)
            if max_surge > 0
            else rollout.unavailable_plan(by_node, revision_hash, generation, min_ready, now, max_unavailable)
        )
        to_delete, to_create = plan
        if to_delete or to_create:
            await self._sync_nodes(daemon_set, to_delete, to_create, revision_hash)
