"""A member's identity within its clusterset: the ClusterProperties of the ClusterId KEP.

`cluster.clusterset.k8s.io` holds the cluster id (the member's name: the hub's Cluster name, so the
`multicluster.kubernetes.io/source-cluster` label and DNS names agree with what users see), and
`clusterset.k8s.io` the clusterset id. Each is created when missing; a value someone else set is
left as it is (the KEP makes the id stable for the cluster's lifetime in the clusterset).
"""

from __future__ import annotations

import structlog

from flotilla.api import multicluster
from flotilla.apiserver import errors
from flotilla.apiserver.localclient import LocalClient

log = structlog.get_logger("flotilla.sim.multicluster")

DEFAULT_CLUSTER_SET = "flotilla"


class ClusterIdentity:
    def __init__(self, client: LocalClient, cluster_id: str, cluster_set: str = DEFAULT_CLUSTER_SET) -> None:
        self.client = client
        self.properties = {
            multicluster.CLUSTER_ID_PROPERTY: cluster_id,
            multicluster.CLUSTER_SET_PROPERTY: cluster_set,
        }

    async def start(self) -> None:
        for name, value in self.properties.items():
            if self.client.get(multicluster.CLUSTER_PROPERTY, name) is not None:
                continue
            prop = {
                "apiVersion": multicluster.CLUSTER_PROPERTY.api_version,
                "kind": multicluster.CLUSTER_PROPERTY.kind,
                "metadata": {"name": name},
                "spec": {"value": value},
            }
            try:
                await self.client.create(multicluster.CLUSTER_PROPERTY, prop)
            except errors.AlreadyExists:
                continue
            log.info("sim.cluster_property_created", name=name, value=value)

    async def stop(self) -> None:
        return None
