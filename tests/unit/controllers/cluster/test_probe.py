"""Where the cluster status reads a member's nodes and pods: the process's member informer caches."""

from __future__ import annotations

from typing import Any

from flotilla.client import Client, ClusterConfig
from flotilla.controllers.cluster.probe import NODE, POD, UNFINISHED_PODS, read_member
from flotilla.runtime.hubcontroller import MANAGED_SELECTOR, MemberInformers

# Nothing listens on port 1: every request is refused at once.
UNREACHABLE = ClusterConfig(server="http://127.0.0.1:1")
CLUSTER = {"apiVersion": "cluster.karmada.io/v1alpha1", "kind": "Cluster", "metadata": {"name": "east"}}


class OneMember:
    """A member client provider that knows one client, whatever the cluster."""

    def __init__(self) -> None:
        self.client = Client(UNREACHABLE)

    async def client_for(self, cluster: dict[str, Any], *, pull_through_proxy: bool = False) -> Client:
        return self.client

    async def forget(self, name: str) -> None:
        return None

    async def close(self) -> None:
        await self.client.close()


async def stopped_informers() -> tuple[MemberInformers, OneMember]:
    """Member informers whose informers are created but never started (so they never list)."""
    member = OneMember()
    informers = MemberInformers(member)
    await informers.stop()
    return informers, member


async def test_node_and_pod_caches_watch_every_object_by_field_not_by_managed_label() -> None:
    """The summaries' informers see unmanaged objects, and the pods' only while they are unfinished."""
    informers, member = await stopped_informers()
    nodes = await informers.cache(CLUSTER, NODE)
    pods = await informers.cache(CLUSTER, POD, field_selector=UNFINISHED_PODS)
    managed_pods = await informers.informer(CLUSTER, POD)
    assert (nodes.label_selector, nodes.field_selector) == ("", "")
    assert (pods.label_selector, pods.field_selector) == ("", UNFINISHED_PODS)
    assert (managed_pods.label_selector, managed_pods.field_selector) == (MANAGED_SELECTOR, "")
    assert await informers.cache(CLUSTER, POD, field_selector=UNFINISHED_PODS) is pods
    await member.close()


async def test_forgetting_the_caches_keeps_the_managed_informers() -> None:
    """A cluster whose status is not collected loses its node and pod caches, not the Works' informers."""
    informers, member = await stopped_informers()
    pods = await informers.cache(CLUSTER, POD, field_selector=UNFINISHED_PODS)
    managed_pods = await informers.informer(CLUSTER, POD)
    await informers.forget("east", caches_only=True)
    assert await informers.informer(CLUSTER, POD) is managed_pods
    assert await informers.cache(CLUSTER, POD, field_selector=UNFINISHED_PODS) is not pods
    await informers.forget("east")
    assert await informers.informer(CLUSTER, POD) is not managed_pods
    await member.close()


async def test_summaries_are_unknown_while_the_caches_have_not_listed() -> None:
    """Before the node and pod informers' first list the summaries are None, so the Cluster keeps its own."""
    informers, member = await stopped_informers()
    status = await read_member(CLUSTER, member.client, informers, sync_timeout=0.05)
    assert status.node_summary is None
    assert status.resource_summary is None
    await member.close()
