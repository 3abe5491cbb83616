"""Member client providers: an agent's only member is its own cluster; sync modes decide who reaches whom."""

from __future__ import annotations

import pytest

from flotilla.api.karmada.constants import ClusterSyncMode
from flotilla.client import Client, ClusterConfig
from flotilla.runtime.hubcontroller import ControllerContext, cluster_sync_mode
from flotilla.runtime.informers import SharedInformers
from flotilla.runtime.members import LocalMemberClient, MemberCredentialsError


def cluster(name: str, sync_mode: str | None = None) -> dict[str, object]:
    spec = {"syncMode": sync_mode} if sync_mode else {}
    return {"metadata": {"name": name}, "spec": spec}


async def test_the_local_member_client_serves_its_own_cluster_only() -> None:
    """The agent's member is reached for its own Cluster; any other Cluster has no client there."""
    member = Client(ClusterConfig(server="http://127.0.0.1:1"))
    local = LocalMemberClient("a", member)
    assert await local.client_for(cluster("a")) is member
    with pytest.raises(MemberCredentialsError, match="not reachable from the agent of cluster a"):
        await local.client_for(cluster("b"))
    await local.forget("a")
    assert await local.client_for(cluster("a")) is member
    await local.close()


def test_a_cluster_without_a_sync_mode_is_push() -> None:
    """Karmada defaults syncMode to Push."""
    assert cluster_sync_mode(cluster("a")) == "Push"
    assert cluster_sync_mode(cluster("a", "Pull")) == "Pull"


def test_the_manager_reaches_push_clusters_and_an_agent_pull_ones() -> None:
    """A context's sync mode says which clusters' members its controllers deliver to."""
    hub = Client(ClusterConfig(server="http://127.0.0.1:1"))
    informers = SharedInformers(hub)
    local = LocalMemberClient("a", hub)
    manager = ControllerContext(hub, informers, local)
    agent = ControllerContext(hub, informers, local, sync_mode=ClusterSyncMode.PULL)
    assert manager.reaches(cluster("a", "Push")) and not manager.reaches(cluster("a", "Pull"))
    assert agent.reaches(cluster("a", "Pull")) and not agent.reaches(cluster("a"))
