"""The agent's cluster status controller: its own Cluster's status, collected from the local member.

The same collection the cluster controller runs for Push clusters (`controllers/cluster/collection`):
probe the member's health endpoint, read its version and APIs while it is Ready, its nodes and pods
from informers on the local member (the session's `member_informers`), and apply the status when
it changes — here for the agent's one cluster, reached through the agent's
own kubeconfig, with the field manager `flotilla-agent`. Everything else the cluster controller
does (finalizer, execution namespace, taints, removal) stays with the hub.

The Cluster's events (including the hub marking it `Ready=Unknown` after a silence) bring it back
here at once; otherwise it is looked at once per `cluster_status_interval`.
"""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada import constants
from flotilla.controllers.cluster.collection import StatusCollection
from flotilla.runtime.hubcontroller import ControllerContext, HubController

FIELD_MANAGER = "flotilla-agent"

Object = dict[str, Any]


class ClusterStatusController(HubController):
    NAME = "clusterStatus"
    WORKERS = 1

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._clusters = ctx.informers.get(constants.CLUSTER)
        self._collection = StatusCollection(ctx, field_manager=FIELD_MANAGER, controller=self.NAME)

    def setup(self) -> None:
        self._clusters.add_handler(self._on_cluster)

    def _on_cluster(self, event: str, new: Object | None, old: Object | None) -> None:
        self.enqueue(str(((new or old or {}).get("metadata") or {}).get("name") or ""))

    async def reconcile(self, key: str) -> float | None:
        cluster = self._clusters.get(key)
        if cluster is None or not self.ctx.reaches(cluster):
            await self._collection.forget(key)
            return None
        _, next_probe = await self._collection.sync(cluster)
        return next_probe
