"""An accepted agent's RBAC brought to this release's grants when a hub starts; nothing granted anew."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from flotilla.api.karmada.agentrbac import agent_rbac_objects
from flotilla.api.karmada.constants import CLUSTER
from flotilla.api.karmada.registration import pull_cluster
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.certificates.acceptance import accept_registration, refresh_agent_grants
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.housekeeping.karmadacrds import install_karmada_crds
from flotilla.storage.memory import MemoryBackend

CLUSTER_ROLE = GroupVersionKind("rbac.authorization.k8s.io", "v1", "ClusterRole")


@pytest.fixture
async def hub() -> AsyncIterator[EmbeddedAPI]:
    api = EmbeddedAPI(MemoryBackend())
    await api.start()
    await install_karmada_crds(api.context)
    try:
        yield api
    finally:
        await api.stop()


def _agent_cluster_role(name: str) -> dict[str, object]:
    return next(obj for obj in agent_rbac_objects(name) if obj["kind"] == "ClusterRole")


async def test_an_accepted_agents_cluster_role_regains_the_rules_of_this_release(hub: EmbeddedAPI) -> None:
    """A ClusterRole left with an older release's rules (one rule fewer) gets this release's back."""
    await accept_registration(hub.context, "edge1", {}, "system:bootstrap:abcdef")
    wanted = _agent_cluster_role("edge1")
    name = wanted["metadata"]["name"]  # type: ignore[index]
    client = hub.client("test")
    older = client.peek(CLUSTER_ROLE, name)
    assert older is not None
    older["rules"] = older["rules"][:-1]
    await client.update(CLUSTER_ROLE, older)

    await refresh_agent_grants(hub.context)

    assert (client.peek(CLUSTER_ROLE, name) or {}).get("rules") == wanted["rules"]


async def test_a_pull_cluster_never_accepted_is_granted_nothing(hub: EmbeddedAPI) -> None:
    """Only objects that exist are refreshed: a Pull Cluster created by hand gets no agent RBAC."""
    await hub.client("test").create(CLUSTER, pull_cluster("edge2", {}))
    name = _agent_cluster_role("edge2")["metadata"]["name"]  # type: ignore[index]

    await refresh_agent_grants(hub.context)

    assert hub.client("test").peek(CLUSTER_ROLE, name) is None
