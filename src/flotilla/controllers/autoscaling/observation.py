"""What a FederatedHPA sees of its target's member copies: their replicas, pods and pod metrics.

Karmada's FederatedHPA reads, in every Ready target cluster, the member copy's `/scale` (its
replicas are summed: none anywhere means no cluster could be read), the pods matching the
target's selector, and their metrics. Here the metrics come from each member's own
metrics.k8s.io (`/apis/metrics.k8s.io/v1beta1/namespaces/NS/pods?labelSelector=…`), read
through the controller manager's member clients (a Pull member through the hub's cluster proxy).
Members are read side by side; one that fails is left out, as Karmada does. A pod without a
metric (a member whose metrics API is down) is a missing pod for the calculator.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from flotilla.api.karmada.autoscaling import METRICS_GROUP, METRICS_VERSION
from flotilla.api.scheme import GroupVersionKind
from flotilla.autoscaling.pods import pod_metrics, pod_sample
from flotilla.autoscaling.replicas import PodMetric, PodSample
from flotilla.client import Client, ClientError
from flotilla.runtime.members import MemberClientProvider, MemberCredentialsError

log = structlog.get_logger("flotilla.controllers.autoscaling")

POD = GroupVersionKind("", "v1", "Pod")
Object = dict[str, Any]


@dataclass(slots=True)
class MemberView:
    cluster: str
    spec_replicas: int = 0
    pods: list[Object] = field(default_factory=list)
    metrics: Object | None = None
    """The member's PodMetricsList; None when its metrics API did not answer."""


@dataclass(slots=True)
class Observation:
    members: list[MemberView]

    @property
    def spec_replicas(self) -> int:
        return sum(member.spec_replicas for member in self.members)

    def samples(self, resource: str, container: str) -> tuple[list[PodSample], dict[str, PodMetric]]:
        pods = [pod_sample(m.cluster, pod, resource) for m in self.members for pod in m.pods]
        metrics: dict[str, PodMetric] = {}
        for member in self.members:
            if member.metrics is not None:
                metrics.update(pod_metrics(member.cluster, member.metrics, resource, container))
        return pods, metrics


async def read_scale(client: Client, gvk: GroupVersionKind, name: str, namespace: str) -> Object:
    """The autoscaling/v1 Scale of an object (raises the client's errors)."""
    info = await client.resource(gvk)
    scale: Object = await client.request("GET", info.path(namespace, name, "scale"))
    return scale


async def observe(
    members: MemberClientProvider,
    clusters: Sequence[Mapping[str, Any]],
    gvk: GroupVersionKind,
    name: str,
    namespace: str,
    selector: str,
) -> Observation:
    views = await asyncio.gather(
        *(_member(members, cluster, gvk, name, namespace, selector) for cluster in clusters)
    )
    return Observation([view for view in views if view is not None])


async def _member(
    members: MemberClientProvider,
    cluster: Mapping[str, Any],
    gvk: GroupVersionKind,
    name: str,
    namespace: str,
    selector: str,
) -> MemberView | None:
    cluster_name = str((cluster.get("metadata") or {}).get("name") or "")
    try:
        client = await members.client_for(dict(cluster), pull_through_proxy=True)
        scale = await read_scale(client, gvk, name, namespace)
        pods, _ = await client.list(POD, namespace=namespace, label_selector=selector)
    except (ClientError, MemberCredentialsError) as error:
        log.info("federatedhpa.member_unread", cluster=cluster_name, name=name, error=str(error))
        return None
    view = MemberView(cluster_name, int((scale.get("spec") or {}).get("replicas") or 0), pods)
    path = f"/apis/{METRICS_GROUP}/{METRICS_VERSION}/namespaces/{namespace}/pods"
    try:
        view.metrics = await client.request("GET", path, query={"labelSelector": selector})
    except ClientError as error:
        log.info("federatedhpa.metrics_unread", cluster=cluster_name, name=name, error=str(error))
    return view
