"""Where a Pull cluster's agent grants are looked for when its Cluster is deleted."""

from __future__ import annotations

from flotilla.api.karmada.agentrbac import agent_rbac_objects
from flotilla.api.scheme import GroupVersionKind
from flotilla.controllers.cluster.agentgrants import agent_selector, grant_locations

RBAC = "rbac.authorization.k8s.io"


def test_every_place_the_agent_rbac_is_created_is_searched_once() -> None:
    """Cluster-scoped roles and bindings, and roles and bindings in each namespace the agent uses."""
    locations = grant_locations("edge")
    assert locations[:2] == [
        (GroupVersionKind(RBAC, "v1", "ClusterRole"), ""),
        (GroupVersionKind(RBAC, "v1", "ClusterRoleBinding"), ""),
    ]
    assert set(locations[2:]) == {
        (GroupVersionKind(RBAC, "v1", kind), namespace)
        for kind in ("Role", "RoleBinding")
        for namespace in ("karmada-es-edge", "karmada-cluster", "kube-public")
    }
    assert len(locations) == len(set(locations))


def test_every_created_object_matches_the_selector_used_to_find_it() -> None:
    """The label the acceptance puts on each grant is the one its removal selects by."""
    key, _, value = agent_selector("edge").partition("=")
    for obj in agent_rbac_objects("edge"):
        assert obj["metadata"]["labels"][key] == value
    assert agent_selector("edge") != agent_selector("edge-2")
