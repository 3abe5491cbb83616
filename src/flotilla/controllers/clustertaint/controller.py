"""The ClusterTaintPolicy reconciler: one Cluster at a time, against every policy.

The queue key is a Cluster's `ObjectKey`. A Cluster event enqueues that Cluster (its conditions,
labels or taints may have changed; a pass that changes nothing writes nothing); a policy created,
or changed in its spec, enqueues every Cluster it selects. A deleted policy enqueues nothing: its
taints stay, as Karmada promises. The reconcile reads the Cluster and the policies from the
informers, computes the new taint list (`policies.policy_taints`) and merge-patches it with the
Cluster's resourceVersion as a precondition; a 409 means someone else wrote the Cluster meanwhile
(the cluster controller's health taints, a user's `kubectl taint`), so the live Cluster is read and
the list computed again — never written over. Each write is reported as Karmada reports it: an
Event `TaintClusterSucceed` (or `TaintClusterFailed`) on the Cluster. As in Karmada, the
controller runs only with the `Failover` feature gate on (the default here; `registry.switched_off`).
"""

from __future__ import annotations

from typing import Any

import structlog

from flotilla.api import tolerations
from flotilla.api.karmada import constants
from flotilla.api.karmada.clustertaints import describe_taints, taints_patch
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.times import format_time
from flotilla.client import ClientError, Conflict
from flotilla.controllers.clustertaint.policies import ordered_policies, policy_taints, selects
from flotilla.runtime.events import NORMAL, WARNING, object_event, record_event
from flotilla.runtime.hubcontroller import ControllerContext, HubController

log = structlog.get_logger("flotilla.controllers.clustertaint")

FIELD_MANAGER = "flotilla-cluster-taint-policy"
COMPONENT = "cluster-taint-policy-controller"
"""Karmada's name for this controller: the Events' source."""
EVENT_TAINT_SUCCEEDED = "TaintClusterSucceed"
EVENT_TAINT_FAILED = "TaintClusterFailed"

Object = dict[str, Any]


class ClusterTaintPolicyController(HubController):
    NAME = "clustertaintpolicy"
    """Karmada's name in `--controllers` (its Events say `cluster-taint-policy-controller`)."""

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._clusters = ctx.informers.get(constants.CLUSTER)
        self._policies = ctx.informers.get(constants.CLUSTER_TAINT_POLICY)

    # -- events: enqueue Cluster keys -------------------------------------------------------------------

    def setup(self) -> None:
        self._clusters.add_handler(self._on_cluster)
        self._policies.add_handler(self._on_policy)

    def _on_cluster(self, event: str, new: Object | None, old: Object | None) -> None:
        if event != "DELETED" and new is not None:
            self.enqueue(ObjectKey.of(new))

    def _on_policy(self, event: str, new: Object | None, old: Object | None) -> None:
        if event == "DELETED" or new is None:
            return
        if event == "MODIFIED" and old is not None and old.get("spec") == new.get("spec"):
            return
        policy = ordered_policies([new])[0]
        for cluster in self._clusters.list():
            if selects(policy, cluster):
                self.enqueue(ObjectKey.of(cluster))

    # -- reconcile ----------------------------------------------------------------------------------

    async def reconcile(self, key: ObjectKey) -> float | None:
        cluster = self._clusters.get(key.name)
        if cluster is None:
            return None
        try:
            await self._sync(cluster)
        except Conflict:
            # Someone wrote the Cluster since the informer's copy (often the cluster controller's
            # status or health taints): compute again from the live object; a second 409 backs off.
            live = await self.ctx.hub.get_or_none(constants.CLUSTER, key.name)
            if live is not None:
                await self._sync(live)
        return None

    async def _sync(self, cluster: Object) -> None:
        now = self.ctx.clock.now()
        taints = policy_taints(cluster, ordered_policies(self._policies.list()), now)
        if taints is None:
            return
        name = cluster["metadata"]["name"]
        patch = taints_patch(cluster["metadata"]["resourceVersion"], taints)
        try:
            updated = await self.ctx.hub.patch(constants.CLUSTER, name, patch, field_manager=FIELD_MANAGER)
        except Conflict:
            raise  # not a failure to report: the reconcile computes the list again
        except ClientError as error:
            await self._event(cluster, WARNING, EVENT_TAINT_FAILED, str(error))
            raise
        log.info(
            "clustertaint.taints_updated",
            controller=self.NAME,
            cluster=name,
            taints=[str(tolerations.Taint(t.key, t.value or "", t.effect)) for t in taints],
        )
        message = f"Update Cluster({name}) with taints({describe_taints(taints)}) succeed"
        await self._event(updated, NORMAL, EVENT_TAINT_SUCCEEDED, message)

    async def _event(self, cluster: Object, event_type: str, reason: str, message: str) -> None:
        now = format_time(self.ctx.clock.now())
        event = object_event(cluster, event_type, reason, message, component=COMPONENT, now=now)
        await record_event(self.ctx.hub, event, controller=self.NAME, field_manager=FIELD_MANAGER)
